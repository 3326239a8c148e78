#pragma once
// Break/fix repair steps through Slurm, followed by polling: fleetd's engine follows a long
// operation from its tick, so no call here waits for a reboot or a diagnostic. Every call runs
// a few short Slurm commands (explicit argv, SLURM_CONF, the command timeout of SlurmConfig) and
// returns; the caller keeps what a start returned (a RepairJob) and polls it. Every failure is
// an outcome that quotes Slurm's own message.
//
// A reboot is `scontrol reboot` followed through sinfo (SlurmReboot.h). A repair job runs on a
// drained tray: a MAINT reservation of the node for fleetd's user, the node resumed inside it
// (a drained node takes no job), the job submitted pinned to it, the drain put back with its
// reason as soon as the job runs, and the reservation deleted when the job has ended.

#include "SlurmCommand.h"
#include "SlurmReboot.h"
#include "SlurmRepairJob.h"

#include <chrono>
#include <optional>
#include <string>

namespace watchfloor::server::repair {

struct SlurmRepairSettings {
    RepairCommands commands;
    // Absolute folder for the jobs' batch script and output, readable by fleetd and writable on
    // the trays (a shared file system on a site; one host on the loopback cluster).
    std::string outputDir;
    // A job still pending after this long is cancelled: the tray cannot run it.
    std::chrono::seconds startTimeout{300};
    // The user the reservation admits: the one fleetd runs sbatch as; empty: the effective user.
    std::string user;
};

// What a started repair job is, for the caller to keep and poll (and to show: a person can find
// it by job id or reservation name).
struct RepairJob {
    RepairJobRequest request;
    std::string slurmNode;
    std::string jobId;
    std::string reservation;
    std::string drainReason;  // the node's reason before the job, put back with its drain
    bool drainRestored = false;
    bool finished = false;
    std::chrono::steady_clock::time_point submitted;
};

struct RepairJobStart {
    std::optional<RepairJob> job;
    std::string error;  // why nothing runs (Slurm's message); whatever was set up is undone
};

struct RebootStart {
    bool issued = false;
    std::string message;  // what Slurm accepted, or its refusal
};

class SlurmRepairs {
public:
    SlurmRepairs(SlurmConfig slurm, SlurmRepairSettings settings);

    // `scontrol reboot …` for one tray (entity name in the request).
    RebootStart reboot(const SlurmRebootRequest& request) const;
    // One sinfo call: where the tray's reboot stands. Unknown (keep polling) with Slurm's message
    // when it could not be asked.
    RebootProgress rebootProgress(const std::string& node) const;

    // Sets up and submits a repair job on a drained tray.
    RepairJobStart startJob(const RepairJobRequest& request) const;
    // One `scontrol show job` call, plus the drain and reservation steps when the job starts or
    // ends. Once it reports Finished it sets `job.finished`; a finished job is not asked about again.
    RepairJobProgress poll(RepairJob& job) const;
    // `scancel`; the next poll reports the job cancelled. "" on success, else Slurm's message.
    std::string cancel(const RepairJob& job) const;

private:
    struct NodeLine {
        std::string state, reason, error;
        bool listed = false;
    };
    NodeLine readNode(const std::string& slurmNode) const;
    CommandResult scontrol(std::vector<std::string> args) const;
    std::string failure(const CommandResult& result, const std::string& program) const;
    // Puts the drain back and deletes the reservation; what failed, for the outcome ("" if nothing).
    std::string cleanUp(RepairJob& job) const;
    std::string restoreDrain(RepairJob& job) const;
    RepairJobProgress finish(RepairJob& job, RepairJobProgress progress) const;

    const SlurmConfig slurm_;
    const SlurmRepairSettings settings_;
};

}  // namespace watchfloor::server::repair
