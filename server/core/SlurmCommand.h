#pragma once
// How fleetd reaches a site's Slurm, for every part that does (the scheduler's drains and
// read-backs, break/fix repairs): where the client programs are, which slurm.conf, how long a
// command may take, and the names Slurm knows the trays by. Every command runs with an explicit
// argv (a reason is one argument, never parsed by a shell), SLURM_CONF in its environment and a
// timeout.

#include "CommandRunner.h"

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server {

// A site's Slurm knows its trays by host name (NodeName=gb200-r01-n03, from the fleet file's
// hosts=), fleetd and its consoles by entity name (r01-n03). Slurm's users translate at their
// boundary, so everything above them speaks entity names. A name without a translation is the
// same on both sides (the twin, the loopback tests).
class SlurmNodeNames {
public:
    void add(const std::string& entity, const std::string& slurm);
    std::string toSlurm(const std::string& entity) const;
    std::string fromSlurm(const std::string& slurm) const;
    bool empty() const { return toSlurm_.empty(); }

private:
    std::unordered_map<std::string, std::string> toSlurm_, fromSlurm_;
};

struct SlurmConfig {
    std::string slurmConf;  // SLURM_CONF for every command; empty: Slurm's default
    std::string binDir;     // where scontrol/sinfo/squeue live; empty: PATH
    std::chrono::milliseconds commandTimeout{std::chrono::seconds(15)};
    std::shared_ptr<const SlurmNodeNames> nodeNames;  // null: entity names are Slurm's names

    std::string toSlurm(const std::string& entity) const { return nodeNames ? nodeNames->toSlurm(entity) : entity; }
    std::string fromSlurm(const std::string& slurm) const { return nodeNames ? nodeNames->fromSlurm(slurm) : slurm; }
};

// One Slurm client program (`scontrol`, `sinfo`, `sbatch`, …) from binDir with SLURM_CONF and
// the command timeout.
CommandResult runSlurmCommand(const SlurmConfig& config, const std::string& program, std::vector<std::string> args);

}  // namespace watchfloor::server
