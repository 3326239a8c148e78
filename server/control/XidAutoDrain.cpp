#include "XidAutoDrain.h"

namespace watchfloor::server::control {
namespace {

// Where the backend cannot tell a drain from its own health hold (Slurm), a drained node counts.
bool drainInForce(const NodeFacts& node) {
    return node.operatorDrain.value_or(node.state == watchfloor::v1::NODE_STATE_DRAINING ||
                                       node.state == watchfloor::v1::NODE_STATE_DRAINED);
}

}  // namespace

std::optional<OperationResult> XidAutoDrain::onXid(const std::string& node, std::uint32_t gpuIndex, std::uint32_t xid,
                                                   std::uint64_t eventId) {
    if (!xidCallsForDrain(xid)) return std::nullopt;
    if (const auto facts = fleet_.node(node); facts && drainInForce(*facts)) return std::nullopt;
    watchfloor::v1::ActionRequest request;
    request.set_request_id("auto-xid-event-" + std::to_string(eventId));
    request.set_type(watchfloor::v1::ACTION_TYPE_DRAIN_NODE);
    request.set_node_name(node);
    request.set_reason("Xid " + std::to_string(xid) + " on GPU " + std::to_string(gpuIndex) + " (event " +
                       std::to_string(eventId) + "), fleet policy drains the node");
    return engine_.execute(Caller::automation(), request);
}

}  // namespace watchfloor::server::control
