#include "SlurmRepairJob.h"

#include "DiagnosticReport.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace watchfloor::server::repair {
namespace {

std::string replaced(std::string text, std::string_view placeholder, const std::string& value) {
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
    return text;
}

std::vector<std::string> substituted(const std::vector<std::string>& args, std::string_view placeholder,
                                     const std::string& value) {
    std::vector<std::string> result;
    for (const auto& arg : args) result.push_back(replaced(arg, placeholder, value));
    return result;
}

// A key of scontrol's one-line job record: "JobState", "AllocNode:Sid", "CPUs/Task".
bool isRecordKey(std::string_view word) {
    if (word.empty() || !std::isalpha(static_cast<unsigned char>(word.front()))) return false;
    return std::all_of(word.begin(), word.end(),
                       [](unsigned char c) { return std::isalnum(c) || c == '_' || c == ':' || c == '/'; });
}

int numberOr(std::string_view text, int fallback) {
    int value = fallback;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() ? value : fallback;
}

std::string_view lastLine(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    const auto newline = text.rfind('\n');
    return newline == std::string_view::npos ? text : text.substr(newline + 1);
}

std::string_view firstLine(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    return text.substr(0, text.find('\n'));
}

// nvidia-smi's line about a GPU ("GPU 00000018:01:00.0: In use by another client"): its prose
// around the bus ids has changed between driver branches, those lines have not.
std::string_view gpuLine(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        const auto end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        if (line.starts_with("GPU ")) return line;
        at = end + 1;
    }
    return firstLine(text);
}

std::string quotedOutput(std::string_view line) {
    return line.empty() ? std::string(" (no output)") : ": " + std::string(line);
}

// Slurm writes spaces in a reason as underscores ("ReqNodeNotAvail,_UnavailableNodes:r01-n01").
std::string slurmReason(const SlurmJobRecord& record) {
    if (record.reason.empty() || record.reason == "None") return {};
    std::string reason = record.reason;
    std::replace(reason.begin(), reason.end(), '_', ' ');
    return " (" + reason + ")";
}

RepairJobProgress commandFailed(RepairKind kind, const std::string& step, const SlurmJobRecord& record,
                                std::string_view output) {
    RepairJobProgress progress;
    progress.stage = RepairJobStage::Finished;
    progress.exitStatus = record.exitStatus;
    if (record.signal != 0 && record.exitStatus == 0) {
        progress.message =
            step + " was killed by signal " + std::to_string(record.signal) + quotedOutput(lastLine(output));
        return progress;
    }
    const std::string status = " (exit status " + std::to_string(record.exitStatus) + ")";
    if (record.exitStatus == 127) {
        progress.message = step + ": the command was not found on the tray" + status + quotedOutput(lastLine(output));
    } else if (record.exitStatus == 126) {
        progress.message = step + ": the command could not be executed" + status + quotedOutput(lastLine(output));
    } else if (kind == RepairKind::Diagnostics) {
        const DiagnosticReport report = readDiagnosticOutput(output);
        progress.tests = report.tests;
        progress.message = report.tests.empty() ? step + " failed" + status + quotedOutput(lastLine(output))
                                                : step + " failed" + status + ": " + report.summary();
    } else if (record.exitStatus == 15) {
        progress.message =
            step + ": the GPU has fallen off the bus" + status + "; no reset can help, power-cycle the tray";
    } else {
        progress.message = step + " failed" + status + quotedOutput(gpuLine(output));
    }
    return progress;
}

}  // namespace

std::chrono::minutes repairTimeLimit(const RepairJobRequest& request) {
    if (request.kind == RepairKind::GpuReset) return std::chrono::minutes(10);
    switch (request.level) {
    case 1: return std::chrono::minutes(10);
    case 2: return std::chrono::minutes(30);
    case 3: return std::chrono::minutes(60);
    default: return std::chrono::minutes(240);
    }
}

std::vector<std::string> repairJobCommand(const RepairJobRequest& request, const RepairCommands& commands,
                                          std::string& error) {
    if (request.kind == RepairKind::Diagnostics) {
        if (request.level < 1 || request.level > 4) {
            error = "a diagnostic level is 1 to 4, not " + std::to_string(request.level);
            return {};
        }
        if (commands.diagnostics.empty()) error = "no diagnostic command is configured";
        return substituted(commands.diagnostics, "{level}", std::to_string(request.level));
    }
    if (!request.gpu) {
        if (commands.gpuResetAll.empty()) error = "no command to reset every GPU of a tray is configured";
        return commands.gpuResetAll;
    }
    if (*request.gpu < 0) {
        error = "a GPU index is 0 or more, not " + std::to_string(*request.gpu);
        return {};
    }
    if (commands.gpuReset.empty()) error = "no GPU reset command is configured";
    return substituted(commands.gpuReset, "{gpu}", std::to_string(*request.gpu));
}

std::string repairJobName(RepairKind kind, std::string_view slurmNode) {
    return std::string(kind == RepairKind::Diagnostics ? "watchfloor-diagnostics-" : "watchfloor-gpu-reset-") +
           std::string(slurmNode);
}

std::vector<std::string> scontrolReservationArguments(std::string_view name, std::string_view slurmNode,
                                                      std::string_view user) {
    return {"create",
            "reservation",
            "reservationname=" + std::string(name),
            "flags=maint,ignore_jobs",
            "nodes=" + std::string(slurmNode),
            "users=" + std::string(user),
            "starttime=now",
            "duration=UNLIMITED"};
}

std::vector<std::string> sbatchRepairArguments(const RepairSubmission& submission) {
    std::vector<std::string> args = {"--parsable",
                                     "--job-name=" + submission.name,
                                     "--reservation=" + submission.name,
                                     "--nodelist=" + submission.slurmNode,
                                     "--nodes=1",
                                     "--exclusive",
                                     "--no-requeue",
                                     "--time=" + std::to_string(submission.timeLimit.count()),
                                     "--chdir=" + submission.outputDir,
                                     "--output=" + submission.outputDir + "/" + submission.name + "-%j.out",
                                     submission.script};
    args.insert(args.end(), submission.command.begin(), submission.command.end());
    return args;
}

std::string_view repairJobScript() {
    return "#!/bin/sh\n"
           "# A break/fix repair step submitted by fleetd: the program and its arguments are this script's.\n"
           "exec \"$@\"\n";
}

std::optional<SlurmJobRecord> readScontrolJob(std::string_view line) {
    // Values may hold spaces (Command=, WorkDir=), so a word that does not start a new Key= pair
    // continues the value before it. The first occurrence of a key wins: the ones read here all
    // come before Command=, whose arguments could look like pairs.
    line = line.substr(0, line.find('\n'));
    if (line.ends_with('\r')) line.remove_suffix(1);
    std::vector<std::pair<std::string_view, std::string>> pairs;
    std::size_t at = 0;
    while (at < line.size()) {
        const auto end = std::min(line.find(' ', at), line.size());
        const std::string_view word = line.substr(at, end - at);
        const auto equals = word.find('=');
        if (equals != std::string_view::npos && isRecordKey(word.substr(0, equals)))
            pairs.emplace_back(word.substr(0, equals), std::string(word.substr(equals + 1)));
        else if (!pairs.empty() && !word.empty())
            pairs.back().second += " " + std::string(word);
        at = end + 1;
    }
    auto value = [&](std::string_view key) -> const std::string* {
        for (const auto& [name, text] : pairs)
            if (name == key) return &text;
        return nullptr;
    };
    const std::string* state = value("JobState");
    if (!state) return std::nullopt;
    SlurmJobRecord record;
    record.state = *state;
    if (const auto* reason = value("Reason")) record.reason = *reason;
    if (const auto* out = value("StdOut")) record.stdOut = *out;
    if (const auto* limit = value("TimeLimit")) record.timeLimit = *limit;
    if (const auto* exit = value("ExitCode")) {
        const std::string_view code(*exit);
        const auto colon = code.find(':');
        record.exitStatus = numberOr(code.substr(0, colon), 0);
        if (colon != std::string_view::npos) record.signal = numberOr(code.substr(colon + 1), 0);
    }
    return record;
}

bool isFinalJobState(std::string_view state) {
    return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" ||
           state == "NODE_FAIL" || state == "PREEMPTED" || state == "BOOT_FAIL" || state == "DEADLINE" ||
           state == "OUT_OF_MEMORY";
}

RepairJobProgress finishedJobProgress(RepairKind kind, std::string_view node, std::string_view jobId,
                                      const SlurmJobRecord& record, std::string_view output) {
    const std::string step = std::string(kind == RepairKind::Diagnostics ? "diagnostics" : "GPU reset") + " on " +
                             std::string(node) + " (job " + std::string(jobId) + ")";
    RepairJobProgress progress;
    if (record.state == "COMPLETED" && record.exitStatus == 0) {
        progress.stage = RepairJobStage::Finished;
        progress.exitStatus = 0;
        if (kind == RepairKind::GpuReset) {
            progress.succeeded = true;
            progress.message = step + " done" + quotedOutput(lastLine(output));
        } else {
            const DiagnosticReport report = readDiagnosticOutput(output);
            progress.tests = report.tests;
            progress.succeeded = report.error.empty() && report.overall() != watchfloor::v1::DIAGNOSTIC_RESULT_FAIL;
            progress.message = !report.error.empty()
                                   ? step + " exited 0, but its output is no diagnostic report: " + report.error
                               : progress.succeeded ? step + " passed: " + report.summary()
                                                    : step + " failed: " + report.summary();
        }
    } else if (record.state == "FAILED" || record.state == "COMPLETED") {
        progress = commandFailed(kind, step, record, output);
    } else if (record.state == "CANCELLED") {
        progress.stage = RepairJobStage::Finished;
        progress.message = step + " was cancelled" + slurmReason(record);
    } else if (record.state == "TIMEOUT") {
        progress.stage = RepairJobStage::Finished;
        progress.message = step + " reached its time limit of " + record.timeLimit + " and was ended by Slurm";
    } else if (record.state == "NODE_FAIL") {
        progress.stage = RepairJobStage::Finished;
        progress.message = step + ": the tray failed while the job ran (Slurm: NODE_FAIL)" + slurmReason(record);
    } else {
        progress.stage = RepairJobStage::Finished;
        progress.message = step + ": Slurm ended it as " + record.state + slurmReason(record);
    }
    progress.outputTail = outputTail(output);
    return progress;
}

std::string outputTail(std::string_view output, std::size_t maxBytes, std::size_t maxLines) {
    while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.remove_suffix(1);
    if (output.size() > maxBytes) {
        output = output.substr(output.size() - maxBytes);
        // Start at a whole line when the cut leaves one; a single long line is kept cut.
        if (const auto newline = output.find('\n'); newline != std::string_view::npos)
            output.remove_prefix(newline + 1);
    }
    std::size_t lines = 0;
    for (std::size_t at = output.size(); at > 0; --at) {
        if (output[at - 1] != '\n') continue;
        if (++lines == maxLines) {
            output.remove_prefix(at);
            break;
        }
    }
    return std::string(output);
}

}  // namespace watchfloor::server::repair
