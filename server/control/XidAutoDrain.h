#pragma once
// Automation's one action: drain a node after an Xid whose fleet policy says to drain. Each
// drain is an ordinary operation of the principal "auto", so it is audited, idempotent per Xid
// event and refused once the automation circuit breaker has tripped. A node that already has a
// drain in force (a person's or automation's) is left alone: draining it again would change
// nothing but its owner and reason, and would spend a slot of the breaker. A node the health check
// took out is still drained, so it stays out once the health check lets it back.

#include "FleetView.h"
#include "OperationsEngine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace watchfloor::server::control {

class XidAutoDrain {
public:
    XidAutoDrain(OperationsEngine& engine, const FleetView& fleet) : engine_(engine), fleet_(fleet) {}

    // nullopt when the Xid does not call for a drain or the node already has one in force; else
    // the drain operation or its refusal.
    // eventId makes a re-delivered event a retry of the same operation.
    std::optional<OperationResult> onXid(const std::string& node, std::uint32_t gpuIndex, std::uint32_t xid,
                                         std::uint64_t eventId);

private:
    OperationsEngine& engine_;
    const FleetView& fleet_;
};

}  // namespace watchfloor::server::control
