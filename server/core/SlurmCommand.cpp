#include "SlurmCommand.h"

namespace watchfloor::server {

void SlurmNodeNames::add(const std::string& entity, const std::string& slurm) {
    if (entity == slurm) return;
    toSlurm_[entity] = slurm;
    fromSlurm_[slurm] = entity;
}

std::string SlurmNodeNames::toSlurm(const std::string& entity) const {
    const auto it = toSlurm_.find(entity);
    return it == toSlurm_.end() ? entity : it->second;
}

std::string SlurmNodeNames::fromSlurm(const std::string& slurm) const {
    const auto it = fromSlurm_.find(slurm);
    return it == fromSlurm_.end() ? slurm : it->second;
}

CommandResult runSlurmCommand(const SlurmConfig& config, const std::string& program, std::vector<std::string> args) {
    args.insert(args.begin(), config.binDir.empty() ? program : config.binDir + "/" + program);
    EnvironmentOverrides environment;
    if (!config.slurmConf.empty()) environment.emplace_back("SLURM_CONF", config.slurmConf);
    return runCommand(args, config.commandTimeout, environment);
}

}  // namespace watchfloor::server
