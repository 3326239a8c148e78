#pragma once
// The fleet facts an action preview needs, read from whatever holds the live fleet state (the
// service layer's state store in fleetd, a small table in tests). Each fact carries the state
// version the optimistic-concurrency check compares with expected_state_version.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::control {

struct NodeFacts {
    std::string name;  // "r01-n03": a compute tray and a Slurm node
    std::string rack;
    std::uint32_t gpus = 0;
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    std::vector<std::string> jobs;  // jobs with work on this node now
    std::uint64_t stateVersion = 0;
    // Whether an operator drain is in force, where the backend tells drains apart from its own
    // health holds (the twin); nullopt where it does not (Slurm resumes any drained node).
    // false on an out-of-service node: the health check took it out and a resume has nothing to undo.
    std::optional<bool> operatorDrain;
    std::string reason;  // why it is out of service, when known
    // Who made the drain in force (fleet.proto DrainOwner), where the backend knows; unset
    // (kind UNSPECIFIED) when no drain is in force or it cannot tell.
    watchfloor::v1::DrainOwner drainOwner;
};

struct JobFacts {
    std::string name;
    std::uint32_t gpus = 0;
    double checkpointAgeSeconds = 0;  // since the last completed checkpoint
    std::vector<std::string> nodes;
    std::uint64_t stateVersion = 0;
    bool checkpointAgeKnown = true;  // false: a job only the scheduler knows (no progress reports)
};

struct RackFacts {
    std::string name;
    std::vector<std::string> nodes;  // its compute trays
    bool leakActive = false;
    bool isolated = false;  // valve closed and trays powered down
    std::uint64_t stateVersion = 0;
};

struct EventFacts {
    std::uint64_t id = 0;
    bool acknowledged = false;
    std::uint64_t stateVersion = 0;
};

class FleetView {
public:
    virtual ~FleetView() = default;
    virtual std::optional<NodeFacts> node(const std::string& name) const = 0;
    virtual std::optional<JobFacts> job(const std::string& name) const = 0;
    virtual std::optional<RackFacts> rack(const std::string& name) const = 0;
    virtual std::optional<EventFacts> event(std::uint64_t id) const = 0;
};

}  // namespace watchfloor::server::control
