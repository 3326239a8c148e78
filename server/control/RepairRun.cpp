#include "RepairRun.h"

#include "Plural.h"
#include "SlurmRepairJob.h"

#include <algorithm>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

// No job runs on a DOWN tray, whatever still lists it (a job the fault interrupted waits for it,
// Slurm requeues it): a step may start there at once. A drained tray is free once its jobs left.
bool freeForRepair(const NodeFacts& node) {
    return node.state == v1::NODE_STATE_DOWN || (node.state == v1::NODE_STATE_DRAINED && node.jobs.empty());
}

}  // namespace

RepairRun::RepairRun(const v1::Operation& operation, std::vector<std::string> trays) : trays_(std::move(trays)) {
    const v1::ActionRequest& request = operation.request();
    for (const std::string& name : trays_) {
        Tray tray;
        RepairStep& step = tray.step;
        // A rack's power cycle is a power cycle of each of its trays.
        step.type =
            request.type() == v1::ACTION_TYPE_POWER_CYCLE_RACK ? v1::ACTION_TYPE_POWER_CYCLE_NODE : request.type();
        step.node = name;
        if (request.has_gpu_index()) step.gpu = request.gpu_index();
        step.diagnosticLevel = request.diagnostic_level();
        step.after = request.after_repair() == v1::TRAY_AFTER_REPAIR_UNSPECIFIED ? v1::TRAY_AFTER_REPAIR_STAY_DRAINED
                                                                                 : request.after_repair();
        step.reason = request.reason();
        step.operationId = operation.id();
        steps_.push_back(std::move(tray));
    }
}

RepairRun RepairRun::following(const v1::Operation& operation, std::vector<std::string> trays,
                               const std::map<std::string, std::string>& handles, const std::string& backend) {
    RepairRun run(operation, std::move(trays));
    for (Tray& tray : run.steps_) {
        const auto handle = handles.find(tray.step.node);
        if (handle != handles.end() && !handle->second.empty()) {
            tray.stage = Stage::Started;
            tray.progress.outcome.set_handle(handle->second);
            tray.progress.outcome.set_backend(backend);
            tray.progress.message = "fleetd restarted: following the " + run.verb() + " of " + tray.step.node +
                                    " started before (" + handle->second + ")";
        } else {
            tray.stage = Stage::Finished;
            tray.progress.finished = true;
            tray.progress.message = "interrupted: fleetd restarted before the " + run.verb() + " of " + tray.step.node +
                                    " was recorded as started; it is not started again. Check the "
                                    "tray's state before acting again";
        }
    }
    return run;
}

std::map<std::string, std::string> RepairRun::handles() const {
    std::map<std::string, std::string> out;
    for (const Tray& tray : steps_)
        if (tray.stage != Stage::WaitingForDrain && !tray.progress.outcome.handle().empty())
            out[tray.step.node] = tray.progress.outcome.handle();
    return out;
}

std::string RepairRun::verb() const {
    switch (steps_.empty() ? v1::ACTION_TYPE_UNSPECIFIED : steps_.front().step.type) {
    case v1::ACTION_TYPE_RESET_GPU: return "GPU reset";
    case v1::ACTION_TYPE_REBOOT_NODE: return "reboot";
    case v1::ACTION_TYPE_POWER_CYCLE_NODE: return "power cycle";
    case v1::ACTION_TYPE_RUN_DIAGNOSTICS: return "diagnostics";
    default: return "repair step";
    }
}

ActionOutcome RepairRun::begin(const FleetView& fleet, Actuator& actuator) {
    // Every tray is drained first, busy, idle or down: the scheduler must not place a job on a
    // tray that is about to reset or reboot under it, nor on a DOWN one that comes back first.
    for (Tray& tray : steps_) {
        const auto node = fleet.node(tray.step.node);
        if (!node) {
            tray.stage = Stage::Finished;
            tray.progress.finished = true;
            tray.progress.message = tray.step.node + " is no longer known";
            return ActionOutcome::failure(tray.progress.message);
        }
        if (node->state == v1::NODE_STATE_DRAINED && node->jobs.empty()) continue;
        const ActionOutcome drained = actuator.drainNode(tray.step.node, tray.step.reason);
        if (!drained.succeeded) {
            tray.stage = Stage::Finished;
            tray.progress.finished = true;
            tray.progress.message =
                "could not drain " + tray.step.node + " before its " + verb() + ": " + drained.message;
            return ActionOutcome::failure(tray.progress.message);
        }
    }
    return ActionOutcome::success(verb() + " of " + commaJoined(trays_) + " accepted");
}

void RepairRun::start(Tray& tray, RepairBackend& backend) {
    tray.progress = backend.start(tray.step);
    if (tray.progress.outcome.backend().empty()) tray.progress.outcome.set_backend(backend.name());
    tray.stage = tray.progress.finished ? Stage::Finished : Stage::Started;
}

void RepairRun::advance(const FleetView& fleet, RepairBackend& backend) {
    for (Tray& tray : steps_) {
        if (tray.stage == Stage::WaitingForDrain) {
            const auto node = fleet.node(tray.step.node);
            if (!node) {
                tray.stage = Stage::Finished;
                tray.progress.finished = true;
                tray.progress.message = tray.step.node + " is no longer known; its " + verb() + " was not started";
            } else if (freeForRepair(*node)) {
                start(tray, backend);
            } else {
                tray.progress.message = node->jobs.empty()
                                            ? "waiting for the work on " + node->name + " to stop before its " + verb()
                                            : "waiting for " + commaJoined(node->jobs) + " to leave " + node->name +
                                                  " before its " + verb();
            }
        } else if (tray.stage == Stage::Started) {
            const std::string handle = tray.progress.outcome.handle();
            RepairProgress now = backend.poll(tray.step, handle);
            if (now.outcome.handle().empty()) now.outcome.set_handle(handle);
            if (now.outcome.backend().empty()) now.outcome.set_backend(backend.name());
            tray.progress = std::move(now);
            if (tray.progress.finished) tray.stage = Stage::Finished;
        }
    }
}

bool RepairRun::finished() const {
    return std::all_of(steps_.begin(), steps_.end(), [](const Tray& t) { return t.stage == Stage::Finished; });
}

bool RepairRun::succeeded() const {
    return finished() && !steps_.empty() &&
           std::all_of(steps_.begin(), steps_.end(), [](const Tray& t) { return t.progress.outcome.succeeded(); });
}

double RepairRun::progressRatio() const {
    if (steps_.empty()) return 1;
    double sum = 0;
    for (const Tray& t : steps_)
        sum += t.stage == Stage::Finished  ? 1.0
               : t.stage == Stage::Started ? std::clamp(t.progress.ratio, 0.0, 1.0)
                                           : 0;
    return sum / double(steps_.size());
}

std::string RepairRun::progressMessage() const {
    if (steps_.size() == 1) return steps_.front().progress.message;
    std::size_t done = 0, failed = 0, running = 0;
    for (const Tray& t : steps_) {
        if (t.stage == Stage::Finished) {
            ++done;
            if (!t.progress.outcome.succeeded()) ++failed;
        } else if (t.stage == Stage::Started) {
            ++running;
        }
    }
    std::string line = verb() + ": " + std::to_string(done) + " of " + std::to_string(steps_.size()) + " trays done";
    if (failed) line += " (" + std::to_string(failed) + " failed)";
    if (running) line += ", " + std::to_string(running) + " running";
    if (const std::size_t waiting = steps_.size() - done - running)
        line += ", " + std::to_string(waiting) + " draining";
    return line;
}

v1::RepairOutcome RepairRun::outcome() const {
    if (steps_.size() == 1) return steps_.front().progress.outcome;
    v1::RepairOutcome all;
    std::string lines;
    for (const Tray& t : steps_) {
        if (all.backend().empty()) all.set_backend(t.progress.outcome.backend());
        if (t.stage != Stage::Finished) continue;
        lines += t.step.node + ": " + (t.progress.outcome.succeeded() ? "done" : "failed") +
                 (t.progress.message.empty() ? "" : " (" + t.progress.message + ")") + "\n";
    }
    all.set_output_tail(repair::outputTail(lines));  // RepairOutcome's bound: 40 lines, 4,096 bytes
    all.set_succeeded(succeeded());
    return all;
}

}  // namespace watchfloor::server::control
