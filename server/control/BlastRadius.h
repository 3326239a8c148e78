#pragma once
// Dry run of an action: which jobs it hits, GPUs lost, progress wasted since the last checkpoint,
// expected goodput cost, and what is left of the rack's NVLink domain. No effect, no audit.

#include "FleetView.h"
#include "watchfloor/v1/control.pb.h"

#include <grpcpp/support/status.h>

#include <chrono>
#include <string>

namespace watchfloor::server::control {

struct BlastRadiusPolicy {
    // Restart overhead u0 per interrupted job (reschedule, init, checkpoint load); Meta's E[ETTR]
    // comparisons use u0 = 5 min (docs/domain/goodput.md).
    std::chrono::seconds restartOverhead{300};
    bool isolateRackNeedsApproval = false;
};

struct PreviewResult {
    grpc::Status status;  // INVALID_ARGUMENT (bad or missing target) or NOT_FOUND (unknown target)
    watchfloor::v1::ActionPreview preview;
};

PreviewResult computeBlastRadius(const FleetView& fleet, const watchfloor::v1::ActionRequest& request,
                                 const BlastRadiusPolicy& policy);

// "NVL72" with every tray in service, "NVL64+" with one or two out, else "unusable".
std::string nvlinkDomainWithTraysOut(std::size_t traysOut);

// The target as an operator reads it: "r01-n03", "job llm-405b", "rack r01", "event 42".
std::string describeTarget(const watchfloor::v1::ActionRequest& request);

// One line for the audit log.
std::string summarize(const watchfloor::v1::ActionPreview& preview);

}  // namespace watchfloor::server::control
