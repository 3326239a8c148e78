#pragma once
// Where an accepted action takes effect: the scheduler (Slurm) and the rack's facility controls.
// Calls block until the backend answered; a failure carries the backend's own words so the
// operator can act on them.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::control {

struct ActionOutcome {
    bool succeeded = false;
    std::string message;  // what happened, or the backend's error text

    static ActionOutcome success(std::string message) { return {true, std::move(message)}; }
    static ActionOutcome failure(std::string message) { return {false, std::move(message)}; }
};

class Actuator {
public:
    virtual ~Actuator() = default;
    // Stop new work on the node; running work leaves (DRAINING) until the node is DRAINED.
    virtual ActionOutcome drainNode(const std::string& node, const std::string& reason) = 0;
    virtual ActionOutcome resumeNode(const std::string& node) = 0;
    // Put the job back in the queue, optionally never to run again on excludeNodes.
    virtual ActionOutcome requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) = 0;
    // Close the valve, power the trays down and move the jobs away; restore undoes it.
    virtual ActionOutcome isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                                      const std::string& reason) = 0;
    virtual ActionOutcome restoreRack(const std::string& rack, const std::vector<std::string>& nodes) = 0;
    // A person treated a cable (reseated, cleaned, replaced): at a real site the work is done by
    // hand and this only hears of it; the twin mends the link it simulates.
    virtual ActionOutcome linkTreated(const std::string& link, watchfloor::v1::LinkTreatment treatment,
                                      watchfloor::v1::LinkEnd end) {
        (void)treatment;
        (void)end;
        return ActionOutcome::success("treatment of " + link + " recorded");
    }
};

// Acknowledging an event changes fleetd's own event record, not the fleet.
class EventAcknowledger {
public:
    virtual ~EventAcknowledger() = default;
    virtual ActionOutcome acknowledge(std::uint64_t eventId, const std::string& principal, const std::string& note) = 0;
};

}  // namespace watchfloor::server::control
