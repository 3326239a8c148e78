#include "SlurmRepairBackend.h"

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kRebootHandle = "reboot:";
constexpr std::string_view kJobHandle = "job:";

RepairProgress finishedWith(bool succeeded, std::string message) {
    RepairProgress progress;
    progress.finished = true;
    progress.message = std::move(message);
    progress.outcome.set_succeeded(succeeded);
    return progress;
}

repair::AfterReboot afterReboot(v1::TrayAfterRepair after) {
    switch (after) {
    case v1::TRAY_AFTER_REPAIR_RESUME: return repair::AfterReboot::Resume;
    case v1::TRAY_AFTER_REPAIR_DOWN: return repair::AfterReboot::Down;
    default: return repair::AfterReboot::StayDrained;
    }
}

}  // namespace

double SlurmRepairBackend::expectedOutOfServiceSeconds(const RepairStep& step) const {
    // docs/domain/break-fix.md, "Typical times" (assumptions where no figure is published).
    switch (step.type) {
    case v1::ACTION_TYPE_REBOOT_NODE: return 10 * 60;  // OS reboot until slurmd registers: 5-15 min
    case v1::ACTION_TYPE_RESET_GPU: return 10 * 60;    // the job's time limit: stop clients, reset, restart
    case v1::ACTION_TYPE_RUN_DIAGNOSTICS: {
        repair::RepairJobRequest request;
        request.level = int(step.diagnosticLevel);
        return double(repair::repairTimeLimit(request).count()) * 60;
    }
    default: return 0;  // refused at start
    }
}

RepairProgress SlurmRepairBackend::start(const RepairStep& step) {
    if (step.type == v1::ACTION_TYPE_REBOOT_NODE) {
        repair::SlurmRebootRequest request;
        request.node = step.node;
        request.after = afterReboot(step.after);
        request.reason = step.reason;
        const repair::RebootStart started = repairs_.reboot(request);
        if (!started.issued) return finishedWith(false, started.message);
        RepairProgress progress;
        progress.message = started.message;
        progress.outcome.set_handle(std::string(kRebootHandle) + step.node);
        return progress;
    }
    if (step.type != v1::ACTION_TYPE_RESET_GPU && step.type != v1::ACTION_TYPE_RUN_DIAGNOSTICS)
        return finishedWith(
            false, "Slurm cannot power-cycle " + step.node + ": that needs the tray's BMC (a Redfish repair back end)");
    repair::RepairJobRequest request;
    request.kind =
        step.type == v1::ACTION_TYPE_RESET_GPU ? repair::RepairKind::GpuReset : repair::RepairKind::Diagnostics;
    request.node = step.node;
    request.level = int(step.diagnosticLevel);
    if (step.gpu) request.gpu = int(*step.gpu);
    repair::RepairJobStart started = repairs_.startJob(request);
    if (!started.job) return finishedWith(false, started.error);
    RepairProgress progress;
    progress.outcome.set_handle(std::string(kJobHandle) + started.job->jobId);
    progress.message = "Slurm job " + started.job->jobId + " submitted to " + step.node;
    std::lock_guard lock(mutex_);
    jobs_[progress.outcome.handle()] = std::move(*started.job);
    return progress;
}

RepairProgress SlurmRepairBackend::poll(const RepairStep& step, const std::string& handle) {
    if (handle.starts_with(kRebootHandle)) {
        const repair::RebootProgress now = repairs_.rebootProgress(step.node);
        RepairProgress progress;
        progress.finished = now.finished();
        progress.message = now.message;
        progress.outcome.set_succeeded(now.succeeded());
        return progress;
    }
    std::unique_lock lock(mutex_);
    const auto found = jobs_.find(handle);
    if (found == jobs_.end())
        return finishedWith(false, "this fleetd did not start " + handle +
                                       " and does not follow it; see `scontrol show job " +
                                       handle.substr(kJobHandle.size()) + "`");
    repair::RepairJob job = found->second;
    lock.unlock();
    // One Slurm call or a few; the engine polls each job from one thread, so the copy is not raced.
    const repair::RepairJobProgress now = repairs_.poll(job);
    lock.lock();
    if (job.finished)
        jobs_.erase(handle);
    else
        jobs_[handle] = job;
    RepairProgress progress;
    progress.finished = now.stage == repair::RepairJobStage::Finished;
    progress.message = now.message;
    progress.ratio = now.stage == repair::RepairJobStage::Running ? 0.5 : 0;
    progress.outcome.set_succeeded(now.succeeded);
    progress.outcome.set_command_ran(now.exitStatus >= 0);
    progress.outcome.set_exit_status(now.exitStatus);
    progress.outcome.set_output_tail(now.outputTail);
    for (const v1::DiagnosticTest& test : now.tests) *progress.outcome.add_tests() = test;
    return progress;
}

}  // namespace watchfloor::server::control
