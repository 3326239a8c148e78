#pragma once
// Automation's one action: drain a node after an Xid whose fleet policy says to drain. Each
// drain is an ordinary operation of the principal "auto", so it is audited, idempotent per Xid
// event and refused once the automation circuit breaker has tripped.

#include "OperationsEngine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace watchfloor::server::control {

class XidAutoDrain {
public:
    explicit XidAutoDrain(OperationsEngine& engine) : engine_(engine) {}

    // nullopt when the Xid does not call for a drain; else the drain operation or its refusal.
    // eventId makes a re-delivered event a retry of the same operation.
    std::optional<OperationResult> onXid(const std::string& node, std::uint32_t gpuIndex, std::uint32_t xid,
                                         std::uint64_t eventId);

private:
    OperationsEngine& engine_;
};

}  // namespace watchfloor::server::control
