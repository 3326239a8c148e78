#pragma once
// The ladder's last step when automation is on: drain a confirmed fail-slow tray as principal
// "auto" (audited, idempotent per job and tray, refused once the circuit breaker has tripped).
// The drain stops the job; it restarts from its last checkpoint on a spare, without the tray.

#include "FailSlowLadder.h"
#include "OperationsEngine.h"

namespace watchfloor::server::control {

class FailSlowAutoEvict {
public:
    explicit FailSlowAutoEvict(OperationsEngine& engine) : engine_(engine) {}

    // Drains the tray; the result says the operation or why it was refused.
    OperationResult evict(const FailSlowEviction& eviction);

private:
    OperationsEngine& engine_;
};

// The drain's reason: "fail-slow: r01-n03 1.15x slow in job llm-1 (3 windows); expected gain
// 1803 GPU-h/day against a restart costing 240 GPU-h".
std::string failSlowReason(const FailSlowEviction& eviction);

}  // namespace watchfloor::server::control
