#pragma once
// A repair step that runs on a tray as a Slurm batch job (diagnostics, a GPU reset, a site's
// burn-in): the command lines that set it up, and how its state and output read back. Pure text
// in, text out; SlurmRepairs runs the commands. A drained node takes no job, not even one in a
// maintenance reservation, so the job runs in a MAINT reservation of the node that keeps every
// other job away while the node is resumed for it (docs/domain/break-fix.md, "Repair jobs").

#include "watchfloor/v1/control.pb.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::repair {

enum class RepairKind {
    Diagnostics,  // `dcgmi diag -r LEVEL`, or the site's burn-in command
    GpuReset,     // `nvidia-smi -r [-i GPU]`
};

// The programs a repair job runs on the tray, one argument each (never a shell line). Any
// argument may hold "{level}" (diagnostics) or "{gpu}" (a GPU reset), replaced by the request's
// number; a site puts its own burn-in command in `diagnostics`. Programs are looked up on the
// job's PATH, which sbatch takes from fleetd's environment.
struct RepairCommands {
    std::vector<std::string> diagnostics = {"dcgmi", "diag", "-r", "{level}"};
    std::vector<std::string> gpuReset = {"nvidia-smi", "-r", "-i", "{gpu}"};
    std::vector<std::string> gpuResetAll = {"nvidia-smi", "-r"};  // every GPU of the tray
};

struct RepairJobRequest {
    RepairKind kind = RepairKind::Diagnostics;
    std::string node;        // the tray's entity name; it must be drained
    int level = 1;           // diagnostics: dcgmi's run level, 1-4
    std::optional<int> gpu;  // GPU reset: the tray-local index; none resets every GPU
};

// What a job may take before Slurm ends it (TIMEOUT), in Slurm's whole minutes: diagnostics by
// level 10 / 30 / 60 / 240 min (the published durations seconds / ~2 / ~15 min and the
// unpublished level 4 [A], with room), a GPU reset 10 min [A].
std::chrono::minutes repairTimeLimit(const RepairJobRequest& request);

// The job's program and arguments, or "" and `error` for a request out of range.
std::vector<std::string> repairJobCommand(const RepairJobRequest& request, const RepairCommands& commands,
                                          std::string& error);

// "watchfloor-diagnostics-r01-n01", "watchfloor-gpu-reset-r01-n01": the job's name and its
// reservation's, so that a person reading squeue or `scontrol show reservation` sees whose it is.
std::string repairJobName(RepairKind kind, std::string_view slurmNode);

// scontrol's arguments: a maintenance reservation of the one node for `user` from now on, with no
// end: if fleetd dies mid-repair the node stays out of service under a name a person can find.
std::vector<std::string> scontrolReservationArguments(std::string_view name, std::string_view slurmNode,
                                                      std::string_view user);

struct RepairSubmission {
    std::string name;       // repairJobName
    std::string slurmNode;  // Slurm's name of the tray
    std::string outputDir;  // absolute; holds the job's output, "<name>-<jobid>.out"
    std::string script;     // the batch script: runs its arguments (repairJobScript)
    std::chrono::minutes timeLimit{10};
    std::vector<std::string> command;  // the program and its arguments
};

// sbatch's arguments: pinned to the node in its reservation, exclusive, never requeued (a repair
// step that Slurm re-ran by itself would run twice), `--parsable` so the answer is the job id.
std::vector<std::string> sbatchRepairArguments(const RepairSubmission& submission);

// The batch script every repair job runs: it executes its arguments, so no name or reason ever
// becomes shell text.
std::string_view repairJobScript();

// One job as `scontrol show job -o ID` prints it (Key=Value pairs on one line).
struct SlurmJobRecord {
    std::string state;      // JobState: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, …
    std::string reason;     // Reason, Slurm's underscores for spaces kept ("ReqNodeNotAvail,_…")
    int exitStatus = 0;     // ExitCode's first half
    int signal = 0;         // ExitCode's second half
    std::string stdOut;     // StdOut, the output file's path
    std::string timeLimit;  // TimeLimit as printed ("00:10:00")
};

// nullopt when the line holds no JobState (not scontrol's job line).
std::optional<SlurmJobRecord> readScontrolJob(std::string_view line);

enum class RepairJobStage {
    Pending,   // submitted; Slurm has not started it (its reason in the message)
    Running,   // running or completing on the tray
    Finished,  // ended, whatever the outcome (see succeeded)
    Unknown,   // Slurm could not be asked; keep polling, the message quotes why
};

struct RepairJobProgress {
    RepairJobStage stage = RepairJobStage::Unknown;
    bool succeeded = false;                             // Finished, exit status 0, and for diagnostics no test failed
    std::string message;                                // for the operation's progress or result line
    int exitStatus = -1;                                // the command's, once finished
    std::string outputTail;                             // the last lines of its output (bounded: outputTail())
    std::vector<watchfloor::v1::DiagnosticTest> tests;  // diagnostics: per test, as the tool printed them
};

// What a finished job's record and output say, for the tray `node` (entity name).
RepairJobProgress finishedJobProgress(RepairKind kind, std::string_view node, std::string_view jobId,
                                      const SlurmJobRecord& record, std::string_view output);

// Whether JobState is one Slurm does not leave again.
bool isFinalJobState(std::string_view state);

// The end of a job's output for a result line: at most `maxLines` lines and `maxBytes` bytes,
// cut at a line start where it can be.
std::string outputTail(std::string_view output, std::size_t maxBytes = 4096, std::size_t maxLines = 40);

}  // namespace watchfloor::server::repair
