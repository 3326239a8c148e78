#include "XidAutoDrain.h"

namespace watchfloor::server::control {

std::optional<OperationResult> XidAutoDrain::onXid(const std::string& node, std::uint32_t gpuIndex, std::uint32_t xid,
                                                   std::uint64_t eventId) {
    if (!xidCallsForDrain(xid)) return std::nullopt;
    watchfloor::v1::ActionRequest request;
    request.set_request_id("auto-xid-event-" + std::to_string(eventId));
    request.set_type(watchfloor::v1::ACTION_TYPE_DRAIN_NODE);
    request.set_node_name(node);
    request.set_reason("Xid " + std::to_string(xid) + " on GPU " + std::to_string(gpuIndex) + " (event " +
                       std::to_string(eventId) + "), fleet policy drains the node");
    return engine_.execute(Caller::automation(), request);
}

}  // namespace watchfloor::server::control
