#pragma once
// Break/fix on a site's Slurm (the RepairBackend of `--scheduler slurm`): a reboot is
// `scontrol reboot nextstate=…` followed through sinfo; a GPU reset and diagnostics run as a
// job pinned to the drained tray (server/repair SlurmRepairs). Slurm cannot power a tray off and
// on: a power cycle is refused at its start, naming the BMC as the way.

#include "RepairBackend.h"
#include "SlurmRepairs.h"

#include <map>
#include <mutex>

namespace watchfloor::server::control {

class SlurmRepairBackend final : public RepairBackend {
public:
    explicit SlurmRepairBackend(repair::SlurmRepairs& repairs) : repairs_(repairs) {}

    std::string name() const override { return "slurm"; }
    double expectedOutOfServiceSeconds(const RepairStep& step) const override;
    RepairProgress start(const RepairStep& step) override;
    RepairProgress poll(const RepairStep& step, const std::string& handle) override;

private:
    repair::SlurmRepairs& repairs_;
    std::mutex mutex_;
    // Jobs this fleetd started, by handle ("job:<id>"); a job started before a restart is not here.
    std::map<std::string, repair::RepairJob> jobs_;
};

}  // namespace watchfloor::server::control
