#pragma once
// Blocking operator actions on a digital twin for callers on other threads (gRPC handlers):
// queues the action and waits until the twin's tick applied it. If the tick loop does not get to
// it in time the request is withdrawn, so a timed-out action never takes effect later.

#include "DigitalTwin.h"

#include <chrono>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

class TwinActuator {
public:
    explicit TwinActuator(DigitalTwin& twin, std::chrono::milliseconds timeout = std::chrono::seconds(30))
        : twin_(twin), timeout_(timeout) {}

    TwinActionResult perform(TwinAction action);

    TwinActionResult drainNode(const std::string& node, const std::string& reason) {
        return perform(TwinAction::drainNode(node, reason));
    }
    TwinActionResult resumeNode(const std::string& node, const std::string& reason = {}) {
        return perform(TwinAction::resumeNode(node, reason));
    }
    TwinActionResult requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes,
                                const std::string& reason = {}) {
        return perform(TwinAction::requeueJob(job, excludeNodes, reason));
    }
    TwinActionResult isolateRack(const std::string& rack, const std::string& reason) {
        return perform(TwinAction::isolateRack(rack, reason));
    }
    TwinActionResult restoreRack(const std::string& rack, const std::string& reason = {}) {
        return perform(TwinAction::restoreRack(rack, reason));
    }
    // Starts a break/fix step; the result's handle names it for DigitalTwin::repairView().
    TwinActionResult startRepair(const std::string& node, const TwinRepairRequest& request, const std::string& reason) {
        return perform(TwinAction::repairStep(node, request, reason));
    }

    TwinActionResult mendLink(const std::string& nic, const std::string& reason) {
        return perform(TwinAction::mendLink(nic, reason));
    }

private:
    DigitalTwin& twin_;
    std::chrono::milliseconds timeout_;
};

}  // namespace watchfloor::server::sim
