#include "SlurmRepairs.h"

#include "Hostlist.h"

#include <pwd.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace watchfloor::server::repair {
namespace {

// What a repair job's output may weigh when it is read back for parsing: a dcgmi report is a
// few KiB, its JSON tens; more is another program's chatter.
constexpr std::size_t kMaxOutputRead = 1 << 20;

std::string trimmed(std::string text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
}

// The last kMaxOutputRead bytes of the job's output file; "" when it cannot be read.
std::string readOutput(const std::string& path, std::string& error) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        error = "cannot read the job's output " + path + ": " + std::strerror(errno);
        return {};
    }
    const std::streamoff size = file.tellg();
    const std::streamoff start = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kMaxOutputRead));
    file.seekg(start);
    std::string text(static_cast<std::size_t>(size - start), '\0');
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(file.gcount()));
    return text;
}

// The batch script, written where sbatch reads it and removed when this goes (sbatch has sent its
// text to slurmctld by then). Empty `path` and an `error` when it cannot be written.
class ScriptFile {
public:
    explicit ScriptFile(const std::string& dir) : path_(dir + "/.watchfloor-repair-XXXXXX") {
        const int fd = ::mkstemp(path_.data());
        if (fd < 0) {
            error_ = "cannot write the repair job's script in " + dir + ": " + std::strerror(errno);
            path_.clear();
            return;
        }
        const std::string_view script = repairJobScript();
        const bool written = ::write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size());
        ::close(fd);
        if (!written) {
            error_ = "cannot write the repair job's script " + path_;
            ::unlink(path_.c_str());
            path_.clear();
        }
    }
    ~ScriptFile() {
        if (!path_.empty()) ::unlink(path_.c_str());
    }
    ScriptFile(const ScriptFile&) = delete;
    ScriptFile& operator=(const ScriptFile&) = delete;

    const std::string& path() const { return path_; }
    const std::string& error() const { return error_; }

private:
    std::string path_;
    std::string error_;
};

std::string effectiveUser() {
    const passwd* entry = ::getpwuid(::geteuid());
    return entry ? entry->pw_name : std::to_string(::geteuid());
}

// sinfo's state word without its flag characters ('*' not responding, '$' maintenance, …).
std::string_view baseState(std::string_view state) {
    while (!state.empty() && std::string_view("*~#!%$@^-").find(state.back()) != std::string_view::npos)
        state.remove_suffix(1);
    return state;
}

}  // namespace

SlurmRepairs::SlurmRepairs(SlurmConfig slurm, SlurmRepairSettings settings)
    : slurm_(std::move(slurm)), settings_(std::move(settings)) {}

CommandResult SlurmRepairs::scontrol(std::vector<std::string> args) const {
    return runSlurmCommand(slurm_, "scontrol", std::move(args));
}

std::string SlurmRepairs::failure(const CommandResult& result, const std::string& program) const {
    return result.failureText(program, slurm_.commandTimeout);
}

SlurmRepairs::NodeLine SlurmRepairs::readNode(const std::string& slurmNode) const {
    NodeLine node;
    const CommandResult result = runSlurmCommand(slurm_, "sinfo", {"-N", "-h", "-n", slurmNode, "-o", "%N|%T|%E"});
    if (!result.succeeded()) {
        node.error = failure(result, "sinfo");
        return node;
    }
    // sinfo -N lists a node once per partition; the first line says it all.
    const std::string line = result.out.substr(0, result.out.find('\n'));
    const auto first = line.find('|');
    const auto second = first == std::string::npos ? first : line.find('|', first + 1);
    if (second == std::string::npos || line.substr(0, first) != slurmNode) return node;
    node.listed = true;
    node.state = line.substr(first + 1, second - first - 1);
    node.reason = line.substr(second + 1);  // a reason may itself contain '|'
    if (node.reason == "none") node.reason.clear();
    return node;
}

RebootStart SlurmRepairs::reboot(const SlurmRebootRequest& request) const {
    SlurmRebootRequest slurmRequest = request;
    slurmRequest.node = slurm_.toSlurm(request.node);
    if (!isPlainHostName(slurmRequest.node))
        return {false, "'" + slurmRequest.node + "' is not a single Slurm node name"};
    const CommandResult result = scontrol(scontrolRebootArguments(slurmRequest));
    if (!result.succeeded())
        return {false, "Slurm refused the reboot of " + request.node + ": " + failure(result, "scontrol")};
    return {true, "Slurm: reboot of " + request.node + " requested"};
}

RebootProgress SlurmRepairs::rebootProgress(const std::string& node) const {
    const std::string slurmNode = slurm_.toSlurm(node);
    if (!isPlainHostName(slurmNode))
        return {RebootStage::Unknown, "'" + slurmNode + "' is not a single Slurm node name"};
    const NodeLine line = readNode(slurmNode);
    if (!line.error.empty()) return {RebootStage::Unknown, "cannot ask Slurm about " + node + ": " + line.error};
    if (!line.listed) return {RebootStage::Unknown, "Slurm does not list " + node};
    return readRebootProgress(node, line.state, line.reason);
}

RepairJobStart SlurmRepairs::startJob(const RepairJobRequest& request) const {
    std::string error;
    const std::vector<std::string> command = repairJobCommand(request, settings_.commands, error);
    if (!error.empty()) return {std::nullopt, error};
    if (settings_.outputDir.empty() || settings_.outputDir.front() != '/')
        return {std::nullopt, "repair jobs need an absolute output folder, not '" + settings_.outputDir + "'"};
    const std::string slurmNode = slurm_.toSlurm(request.node);
    if (!isPlainHostName(slurmNode)) return {std::nullopt, "'" + slurmNode + "' is not a single Slurm node name"};

    // Only a drained tray: a repair step on a tray with jobs would break them, and the drain is
    // what keeps new ones away until the reservation does.
    const NodeLine node = readNode(slurmNode);
    if (!node.error.empty()) return {std::nullopt, "cannot ask Slurm about " + request.node + ": " + node.error};
    if (!node.listed) return {std::nullopt, "Slurm does not list " + request.node};
    if (baseState(node.state) != "drained" || node.state.find('*') != std::string::npos)
        return {std::nullopt,
                request.node + " is " + node.state + " in Slurm, not drained and answering: drain it first"};

    // Written before Slurm is touched: a full disk then costs nothing to undo.
    const ScriptFile script(settings_.outputDir);
    if (script.path().empty()) return {std::nullopt, script.error()};

    RepairJob job;
    job.request = request;
    job.slurmNode = slurmNode;
    job.reservation = repairJobName(request.kind, slurmNode);
    job.drainReason = node.reason;
    const CommandResult reserved = scontrol(scontrolReservationArguments(
        job.reservation, slurmNode, settings_.user.empty() ? effectiveUser() : settings_.user));
    if (!reserved.succeeded())
        return {std::nullopt,
                "Slurm refused the maintenance reservation for " + request.node + ": " + failure(reserved, "scontrol")};
    const CommandResult resumed = scontrol({"update", "nodename=" + slurmNode, "state=resume"});
    if (!resumed.succeeded()) {
        std::string message =
            "Slurm refused to resume " + request.node + " in its reservation: " + failure(resumed, "scontrol");
        if (const std::string undone = cleanUp(job); !undone.empty()) message += "; " + undone;
        return {std::nullopt, message};
    }

    RepairSubmission submission;
    submission.name = job.reservation;
    submission.slurmNode = slurmNode;
    submission.outputDir = settings_.outputDir;
    submission.script = script.path();
    submission.timeLimit = repairTimeLimit(request);
    submission.command = command;
    const CommandResult submitted = runSlurmCommand(slurm_, "sbatch", sbatchRepairArguments(submission));
    const std::string jobId = trimmed(submitted.out.substr(0, submitted.out.find(';')));
    if (!submitted.succeeded() || jobId.empty()) {
        std::string message = submitted.succeeded() ? "sbatch gave no job id"
                                                    : "Slurm refused the repair job on " + request.node + ": " +
                                                          failure(submitted, "sbatch");
        if (const std::string undone = cleanUp(job); !undone.empty()) message += "; " + undone;
        return {std::nullopt, message};
    }
    job.jobId = jobId;
    job.submitted = std::chrono::steady_clock::now();
    return {std::move(job), {}};
}

std::string SlurmRepairs::restoreDrain(RepairJob& job) const {
    if (job.drainRestored) return {};
    // scontrol refuses a drain without a reason; a drained node always had one.
    const std::string reason = job.drainReason.empty() ? "repair job " + job.jobId : job.drainReason;
    const CommandResult drained = scontrol({"update", "nodename=" + job.slurmNode, "state=drain", "reason=" + reason});
    if (!drained.succeeded())
        return "drain " + job.request.node + " again by hand: Slurm refused (" + failure(drained, "scontrol") + ")";
    job.drainRestored = true;
    return {};
}

std::string SlurmRepairs::cleanUp(RepairJob& job) const {
    std::string problems = restoreDrain(job);
    const CommandResult deleted = scontrol({"delete", "reservationname=" + job.reservation});
    if (!deleted.succeeded())
        problems += (problems.empty() ? "" : "; ") + std::string("delete reservation ") + job.reservation +
                    " by hand: Slurm refused (" + failure(deleted, "scontrol") + ")";
    return problems;
}

RepairJobProgress SlurmRepairs::finish(RepairJob& job, RepairJobProgress progress) const {
    progress.stage = RepairJobStage::Finished;
    if (const std::string problems = cleanUp(job); !problems.empty()) progress.message += "; " + problems;
    job.finished = true;
    return progress;
}

RepairJobProgress SlurmRepairs::poll(RepairJob& job) const {
    RepairJobProgress progress;
    if (job.finished) {
        progress.stage = RepairJobStage::Finished;
        progress.message = "job " + job.jobId + " on " + job.request.node + " has finished";
        return progress;
    }
    const CommandResult shown = scontrol({"show", "job", "-o", job.jobId});
    if (!shown.succeeded()) {
        const std::string text = failure(shown, "scontrol");
        // slurmctld forgets a finished job after MinJobAge (300 s by default).
        if (text.find("Invalid job id") != std::string::npos) {
            progress.message = "Slurm no longer knows job " + job.jobId + " on " + job.request.node +
                               " (it ended more than MinJobAge ago; its outcome is lost): " + text;
            return finish(job, progress);
        }
        progress.message = "cannot ask Slurm about job " + job.jobId + " on " + job.request.node + ": " + text;
        return progress;
    }
    const auto record = readScontrolJob(shown.out);
    if (!record) {
        progress.message = "scontrol printed no state for job " + job.jobId + ": " + trimmed(shown.out);
        return progress;
    }
    if (isFinalJobState(record->state)) {
        std::string error;
        const std::string output = record->stdOut.empty() ? std::string() : readOutput(record->stdOut, error);
        progress = finishedJobProgress(job.request.kind, job.request.node, job.jobId, *record, output);
        if (!error.empty()) progress.message += " (" + error + ")";
        return finish(job, progress);
    }
    const std::string step = "job " + job.jobId + " on " + job.request.node;
    if (record->state == "PENDING") {
        const auto waited = std::chrono::steady_clock::now() - job.submitted;
        std::string reason = record->reason == "None" ? std::string() : record->reason;
        std::replace(reason.begin(), reason.end(), '_', ' ');
        if (waited < settings_.startTimeout) {
            progress.stage = RepairJobStage::Pending;
            progress.message = step + " is waiting to start" + (reason.empty() ? "" : " (" + reason + ")");
            return progress;
        }
        const CommandResult cancelled = runSlurmCommand(slurm_, "scancel", {job.jobId});
        progress.message =
            step + " could not start within " + std::to_string(settings_.startTimeout.count()) + " s" +
            (reason.empty() ? "" : ": Slurm says " + reason) +
            (cancelled.succeeded() ? "; cancelled" : "; cancelling it failed (" + failure(cancelled, "scancel") + ")");
        return finish(job, progress);
    }
    // Running (or configuring, completing, suspended): the tray is the job's now, so its drain
    // goes back at once and holds it out of service once the job ends, whatever fleetd does.
    progress.stage = RepairJobStage::Running;
    progress.message = step + " is " + record->state;
    if (const std::string problem = restoreDrain(job); !problem.empty()) progress.message += "; " + problem;
    return progress;
}

std::string SlurmRepairs::cancel(const RepairJob& job) const {
    const CommandResult cancelled = runSlurmCommand(slurm_, "scancel", {job.jobId});
    return cancelled.succeeded() ? std::string() : failure(cancelled, "scancel");
}

}  // namespace watchfloor::server::repair
