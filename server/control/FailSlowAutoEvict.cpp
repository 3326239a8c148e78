#include "FailSlowAutoEvict.h"

#include <cstdio>

namespace watchfloor::server::control {

std::string failSlowReason(const FailSlowEviction& e) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "fail-slow: %s %.2fx slow in job %s (%u windows); expected gain %.0f GPU-h/day against a restart "
                  "costing %.0f GPU-h",
                  e.node.c_str(), e.slowdown, e.job.c_str(), e.windows, e.gainGpuHoursPerDay, e.costGpuHours);
    return text;
}

OperationResult FailSlowAutoEvict::evict(const FailSlowEviction& eviction) {
    watchfloor::v1::ActionRequest request;
    // One eviction per job and tray: a re-delivery is a retry of the same operation.
    request.set_request_id("auto-fail-slow-" + eviction.job + "-" + eviction.node);
    request.set_type(watchfloor::v1::ACTION_TYPE_DRAIN_NODE);
    request.set_node_name(eviction.node);
    request.set_reason(failSlowReason(eviction));  // under 512 bytes: the buffer is 256
    return engine_.execute(Caller::automation(), request);
}

}  // namespace watchfloor::server::control
