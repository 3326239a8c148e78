#pragma once
// The Slurm backend: drains, resumes and requeues through scontrol and reads node states back
// through sinfo. Every command runs with an explicit argv (a reason is one argument, never
// parsed by a shell), SLURM_CONF in its environment and a timeout. A failure reports Slurm's
// own message and nothing is assumed to have happened.

#include "Actuator.h"
#include "SlurmCommand.h"
#include "watchfloor/v1/fleet.pb.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::control {

using watchfloor::server::SlurmConfig;
using watchfloor::server::SlurmNodeNames;

struct SlurmNodeStatus {
    std::string name;
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    std::string slurmState;  // as sinfo printed it, e.g. "drained*"
    bool responding = true;  // false when sinfo marks the node '*' (no slurmd answer)
    std::string reason;      // "" when Slurm has none
};

struct SlurmNodeReading {
    std::vector<SlurmNodeStatus> nodes;
    std::string error;  // Slurm's message when it could not be asked; nodes is then empty
};

// Which jobs hold which nodes (running, completing, configuring or suspended jobs).
struct SlurmJobReading {
    std::map<std::string, std::vector<std::string>> jobsByNode;  // node -> job names
    std::string error;                                           // Slurm's message when it could not be asked
};

class SlurmScheduler : public Actuator {
public:
    explicit SlurmScheduler(SlurmConfig config) : config_(std::move(config)) {}

    ActionOutcome drainNode(const std::string& node, const std::string& reason) override;
    ActionOutcome resumeNode(const std::string& node) override;
    ActionOutcome requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) override;
    // Slurm's share of a rack isolation: drain every tray and requeue the jobs running there. The
    // valve and tray power belong to the facility controls, not to Slurm.
    ActionOutcome isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                              const std::string& reason) override;
    ActionOutcome restoreRack(const std::string& rack, const std::vector<std::string>& nodes) override;

    // All nodes when names is empty.
    SlurmNodeReading readNodeStates(const std::vector<std::string>& names = {}) const;
    SlurmJobReading readJobPlacements() const;

    // sinfo's long state ("idle", "draining", "drained*", "mixed-", ...) as a NodeState.
    static watchfloor::v1::NodeState parseNodeState(std::string_view sinfoState);
    // A single Slurm node name: letters, digits, '.', '_', '-'. Anything else (a hostlist such as
    // "r01-n[01-18]", a comma list, spaces) could address more nodes than the operator chose.
    static bool isPlainNodeName(std::string_view name);
    // Slurm's compressed hostlist ("r01-n[01-03,07],r02-n05", several bracket groups allowed) as
    // node names. nullopt when the text is not a hostlist this parser understands.
    static std::optional<std::vector<std::string>> expandHostlist(std::string_view hostlist);

private:
    CommandResult run(const std::string& program, std::vector<std::string> args) const;
    ActionOutcome updateNodes(const std::vector<std::string>& nodes, const std::string& state,
                              const std::string& reason) const;
    std::vector<std::string> jobIdsOn(const std::vector<std::string>& nodes, std::string& error) const;
    std::vector<std::string> toSlurm(const std::vector<std::string>& nodes) const;

    const SlurmConfig config_;
};

}  // namespace watchfloor::server::control
