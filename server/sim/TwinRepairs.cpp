#include "TwinRepairs.h"

#include "DiagnosticReport.h"
#include "FailureCauses.h"
#include "TwinToolOutput.h"
#include "XidCatalog.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string_view>
#include <vector>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;
constexpr std::size_t kKeptFinished = 4096;
// RepairOutcome.output_tail: at most 40 lines and 4,096 bytes.
constexpr std::size_t kTailLines = 40;
constexpr std::size_t kTailBytes = 4096;

// Step lengths, uniform between the bounds (docs/domain/break-fix.md, "The twin").
struct Range {
    double lowS, highS;
    double mean() const { return (lowS + highS) / 2; }
};
constexpr Range kReset{5 * kMinute, 10 * kMinute};               // incl. stopping and restarting the GPU's clients
constexpr Range kReboot{5 * kMinute, 15 * kMinute};              // until the node registers again
constexpr Range kPowerOff{30, 90};                               // a power cycle: the reboot plus the power change
constexpr Range kDiagnostic[4] = {{10, 60},                      // level 1: seconds
                                  {90, 150},                     // level 2: about 2 minutes
                                  {12 * kMinute, 18 * kMinute},  // level 3: about 15 minutes
                                  {1 * kHour, 2 * kHour}};       // level 4: 1-2 h

bool isPowerCycle(ActionType type) {
    return type == ACTION_TYPE_POWER_CYCLE_NODE || type == ACTION_TYPE_POWER_CYCLE_RACK;
}

bool isStep(ActionType type) {
    return type == ACTION_TYPE_RESET_GPU || type == ACTION_TYPE_REBOOT_NODE || isPowerCycle(type) ||
           type == ACTION_TYPE_RUN_DIAGNOSTICS;
}

std::string_view causeOf(const TrayState::Fault& fault) { return failureCauses()[fault.cause].cause; }

// "Xid 79 on g2", or the cause in words for a fault without an Xid.
std::string faultLabel(const TrayState::Fault& fault) {
    if (fault.xid != 0) return "Xid " + std::to_string(fault.xid) + " on g" + std::to_string(fault.gpu);
    return failureCauses()[fault.cause].what;
}

std::string gpuWords(const TwinRepairRequest& request) {
    return request.gpu ? "GPU " + std::to_string(*request.gpu) : "all GPUs";
}

// "reset GPU 2 of r01-n03", "reboot r01-n03", "diagnose r01-n03 (level 2)": the event's subject.
std::string subject(const TwinRepairRequest& request, const std::string& tray) {
    switch (request.type) {
    case ACTION_TYPE_RESET_GPU: return "reset " + gpuWords(request) + " of " + tray;
    case ACTION_TYPE_REBOOT_NODE: return "reboot " + tray;
    case ACTION_TYPE_RUN_DIAGNOSTICS:
        return "diagnose " + tray + " (level " + std::to_string(request.diagnosticLevel) + ")";
    default: return "power-cycle " + tray;
    }
}

// "rebooting": the tray's reason while the step runs.
std::string doing(const TwinRepairRequest& request) {
    switch (request.type) {
    case ACTION_TYPE_RESET_GPU: return "resetting " + gpuWords(request);
    case ACTION_TYPE_REBOOT_NODE: return "rebooting";
    case ACTION_TYPE_RUN_DIAGNOSTICS: return "running diagnostics level " + std::to_string(request.diagnosticLevel);
    default: return "power-cycling";
    }
}

std::string minutes(double seconds) {
    return seconds < 90 ? std::to_string(static_cast<int>(std::lround(seconds))) + " s"
                        : std::to_string(static_cast<int>(std::lround(seconds / 60))) + " min";
}

std::string tail(const std::string& text) {
    std::size_t begin = text.size();
    std::size_t cursor = text.empty() || text.back() != '\n' ? text.size() : text.size() - 1;
    for (std::size_t lines = 0; lines < kTailLines; ++lines) {
        const std::size_t newline = cursor == 0 ? std::string::npos : text.rfind('\n', cursor - 1);
        const std::size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
        if (text.size() - lineStart > kTailBytes) break;
        begin = lineStart;
        if (lineStart == 0) break;
        cursor = newline;
    }
    return text.substr(begin);
}

// What DCGM's diagnostic finds on a faulted tray at `level` (docs/domain/break-fix.md, "The twin":
// which test, from which level, with which DCGM_FR_* message and next step). Nothing for a fault
// outside the GPUs, or one only a deeper level finds.
std::optional<DiagnosticFailure> diagnosticFinding(const TrayState& tray, std::uint32_t level) {
    if (!tray.faulted) return std::nullopt;
    const TrayState::Fault& f = tray.fault;
    const std::string_view cause = causeOf(f);
    const std::string gpu = std::to_string(f.gpu);
    const std::string fieldDiagnostic = " Run a field diagnostic on the GPU.";
    if (cause == "hbm_uncorrectable" || cause == "gpu_sram_ecc") {
        if (level >= 2)
            return DiagnosticFailure{"memory", f.gpu,
                                     "CUDA APIs have indicated that a double-bit ECC error has occured on GPU " + gpu +
                                         "." + fieldDiagnostic};
        if (f.rma)
            return DiagnosticFailure{
                "software", f.gpu,
                "GPU " + gpu + " had uncorrectable memory errors and row remapping failed." + fieldDiagnostic};
        return DiagnosticFailure{"software", f.gpu,
                                 "Pending page retirements together with a DBE were detected on GPU " + gpu +
                                     ". Drain the GPU and reset it or reboot the node to resolve this issue."};
    }
    if (cause == "thermal_interface") {
        if (level < 3) return std::nullopt;
        return DiagnosticFailure{"targeted_power", f.gpu,
                                 "Detected clock throttling due to thermal violation in GPU " + gpu + "."};
    }
    if (cause == "sdc") {
        if (level < 3) return std::nullopt;
        return DiagnosticFailure{"diagnostic", f.gpu,
                                 "A memory mismatch was detected on GPU " + gpu +
                                     ", but no error was reported by CUDA or NVML." + fieldDiagnostic};
    }
    if (f.xid == 0) return std::nullopt;  // network, NIC, host: not DCGM's to find
    // A GPU off the bus fails the first check that touches it; other GPU faults show under load.
    const char* test = f.xid != 79 && level >= 3 ? "diagnostic" : "software";
    return DiagnosticFailure{test, f.gpu,
                             "Detected XID " + std::to_string(f.xid) + " for GPU " + gpu +
                                 " Please consult the documentation for details of this XID."};
}

}  // namespace

TwinRepairs::TwinRepairs(Rng rng, const FleetModel& model, TwinScheduler& clock, TelemetryPublisher& publisher,
                         ViewedTable<TrayState>& trays, const ViewedTable<RackStatus>& racks, RepairHost& host)
    : rng_(rng), model_(model), clock_(clock), publisher_(publisher), trays_(trays), racks_(racks), host_(host) {
    // Not from the seeded generator: the twin's events stay the seed's, and a handle recorded by an
    // earlier run (a restarted fleetd follows it) never names a step of this one.
    runTag_ = std::to_string(std::random_device{}() % 1'000'000);
}

double TwinRepairs::meanSeconds(ActionType type, std::uint32_t diagnosticLevel) {
    switch (type) {
    case ACTION_TYPE_RESET_GPU: return kReset.mean();
    case ACTION_TYPE_REBOOT_NODE: return kReboot.mean();
    case ACTION_TYPE_POWER_CYCLE_NODE:
    case ACTION_TYPE_POWER_CYCLE_RACK: return kReboot.mean() + kPowerOff.mean();
    case ACTION_TYPE_RUN_DIAGNOSTICS:
        return diagnosticLevel >= 1 && diagnosticLevel <= 4 ? kDiagnostic[diagnosticLevel - 1].mean() : 0.0;
    default: return 0;
    }
}

double TwinRepairs::fixProbability(ActionType type, const TrayState::Fault& fault) {
    // Per rung {reset, reboot, power cycle}; all [A] but the buckets (docs/domain/break-fix.md).
    struct Odds {
        double reset, reboot, powerCycle;
    };
    constexpr Odds kNever{0, 0, 0};
    constexpr Odds kOffTheBus{0, 0.5, 0.9};    // Xid 79, RESTART_BM
    constexpr Odds kEcc{0.95, 0.95, 0.95};     // WORKFLOW_XID_48: the reset activates the row remap
    constexpr Odds kResetGpu{0.8, 0.9, 0.95};  // RESET_GPU: reset, then reboot if it persists
    constexpr Odds kNvlink{0.6, 0.75, 0.85};   // WORKFLOW_NVLINK(5)_ERR: reset or reboot, a repeat is a replace
    constexpr Odds kNic{0, 0.4, 0.6};          // NIC firmware fatal error: the host's reset reloads it
    const std::string_view cause = causeOf(fault);
    Odds odds = kNever;
    if (fault.rma || cause == "network_link" || cause == "thermal_interface" || cause == "sdc" ||
        cause == "host_maintenance" || cause == "host_hardware")
        odds = kNever;  // a part or a person's hands
    else if (cause == "nic")
        odds = kNic;
    else if (fault.xid == 79)
        odds = kOffTheBus;
    else if (cause == "hbm_uncorrectable" || cause == "gpu_sram_ecc")
        odds = kEcc;
    else if (fault.xid == 74 || (fault.xid >= 144 && fault.xid <= 150))
        odds = kNvlink;
    else if (const XidInfo* info = findXid(fault.xid); info && info->action == XID_ACTION_RESET_GPU)
        odds = kResetGpu;
    switch (type) {
    case ACTION_TYPE_RESET_GPU: return odds.reset;
    case ACTION_TYPE_REBOOT_NODE: return odds.reboot;
    case ACTION_TYPE_POWER_CYCLE_NODE:
    case ACTION_TYPE_POWER_CYCLE_RACK: return odds.powerCycle;
    default: return 0;
    }
}

double TwinRepairs::drawSeconds(const TwinRepairRequest& request) {
    const auto draw = [this](const Range& range) { return rng_.uniform(range.lowS, range.highS); };
    switch (request.type) {
    case ACTION_TYPE_RESET_GPU: return draw(kReset);
    case ACTION_TYPE_REBOOT_NODE: return draw(kReboot);
    case ACTION_TYPE_RUN_DIAGNOSTICS: return draw(kDiagnostic[request.diagnosticLevel - 1]);
    default: {
        const double boot = draw(kReboot);
        return boot + draw(kPowerOff);
    }
    }
}

TwinActionResult TwinRepairs::start(const std::string& node, const TwinRepairRequest& request,
                                    const std::string& reason) {
    const auto refuse = [](std::string message) { return TwinActionResult{false, std::move(message), {}}; };
    const auto ref = model_.find(node);
    if (!ref || ref->kind != ENTITY_KIND_NODE) return refuse("unknown node '" + node + "'");
    if (!isStep(request.type))
        return refuse(ActionType_Name(request.type) + " is not a break/fix step; nothing was done on " + node);
    if (request.type == ACTION_TYPE_RUN_DIAGNOSTICS && (request.diagnosticLevel < 1 || request.diagnosticLevel > 4))
        return refuse("diagnostic level " + std::to_string(request.diagnosticLevel) +
                      " is not one of DCGM's levels 1-4; nothing was run on " + node);
    if (request.type == ACTION_TYPE_RESET_GPU && request.gpu && *request.gpu >= kGpusPerTray)
        return refuse(node + " has GPUs 0-" + std::to_string(kGpusPerTray - 1) + ", not GPU " +
                      std::to_string(*request.gpu));
    const std::uint32_t t = ref->ordinal;
    const TrayState& tray = trays_[t];
    const std::uint32_t r = model_.rackOfTray(t);
    if (racks_[r].electricalIsolated || racks_[r].liquidIsolated)
        return refuse(node + "'s rack " + model_.rackName(r) + " is isolated (" + racks_[r].isolatedWhy +
                      "); restore the rack before a break/fix step on its trays");
    if (tray.repairing)
        return refuse(node + " already has a break/fix step running (" + running_.at(t).handle + ": " + tray.reason +
                      "); one step per tray at a time");
    if (tray.job != kNoJob)
        return refuse(node + " is held by job " + host_.jobName(tray.job) +
                      "; drain it first: a break/fix step runs on a tray no job holds");
    if (tray.thermalShutdown)
        return refuse(node + " is powered off after an over-temperature shutdown; it comes back once it has cooled");

    Step step;
    step.handle = "twin-" + runTag_ + "-" + std::to_string(nextStep_++);
    step.tray = t;
    step.request = request;
    step.reason = reason;
    step.startS = clock_.nowS();
    step.endS = step.startS + drawSeconds(request);
    trays_.edit(t).repairing = true;

    const std::string& name = model_.trayName(t);
    auto& e = publisher_.event(SEVERITY_INFO, EVENT_TYPE_OPERATOR_ACTION, model_.trayIndex(t),
                               subject(request, name) + (reason.empty() ? "" : ": " + reason));
    e.set_cause("operator");
    // The host goes away for a reboot or power cycle; a reset or diagnostic runs as a job on a
    // tray that stays up, and a tray its fault holds DOWN stays DOWN.
    const bool hostDown = request.type == ACTION_TYPE_REBOOT_NODE || isPowerCycle(request.type);
    const std::string during = doing(request) + (reason.empty() ? "" : " (" + reason + ")");
    if (hostDown)
        host_.setTray(t, NODE_STATE_DOWN, HEALTH_STATE_FAILED, during, true);
    else
        host_.setTray(t, tray.node == NODE_STATE_DOWN ? NODE_STATE_DOWN : NODE_STATE_DRAINED, tray.health, during,
                      true);

    TwinRepairView view;
    view.handle = step.handle;
    view.node = name;
    view.message = name + " " + during;
    view.outcome.set_backend("twin");
    view.outcome.set_handle(step.handle);
    publish(view);
    const std::string handle = step.handle;
    clock_.at(step.endS, [this, t, handle] { finish(t, handle); });
    running_.emplace(t, std::move(step));
    return {true, subject(request, name) + " started (" + handle + ")", handle};
}

void TwinRepairs::publishProgress() {
    if (running_.empty()) return;
    std::lock_guard lock(mutex_);
    for (const auto& [t, step] : running_) {
        const auto it = views_.find(step.handle);
        if (it == views_.end()) continue;
        const double spent = clock_.nowS() - step.startS;
        it->second.ratio = std::clamp(spent / std::max(1.0, step.endS - step.startS), 0.0, 1.0);
        it->second.message = model_.trayName(t) + " " + doing(step.request) + ": " + minutes(spent) + " of about " +
                             minutes(meanSeconds(step.request.type, step.request.diagnosticLevel));
    }
}

std::optional<TwinRepairView> TwinRepairs::view(const std::string& handle) const {
    std::lock_guard lock(mutex_);
    const auto it = views_.find(handle);
    if (it == views_.end()) return std::nullopt;
    return it->second;
}

void TwinRepairs::publish(const TwinRepairView& view) {
    std::lock_guard lock(mutex_);
    views_[view.handle] = view;
    if (!view.finished) return;
    finished_.push_back(view.handle);
    while (finished_.size() > kKeptFinished) {
        views_.erase(finished_.front());
        finished_.pop_front();
    }
}

TwinRepairs::Result TwinRepairs::run(const Step& step, double roll) {
    const std::uint32_t t = step.tray;
    const TrayState& tray = trays_[t];
    const TwinRepairRequest& request = step.request;
    Result result;
    result.outcome.set_backend("twin");
    result.outcome.set_handle(step.handle);
    const std::uint32_t r = model_.rackOfTray(t);
    if (racks_[r].electricalIsolated || tray.thermalShutdown) {
        result.line = racks_[r].electricalIsolated ? "interrupted: rack " + model_.rackName(r) + " was isolated"
                                                   : "interrupted by an over-temperature shutdown";
        return result;
    }
    const bool faulted = tray.faulted;
    const TrayState::Fault fault = tray.fault;
    bool fixable = faulted;  // the step reached the faulty part
    std::string output;

    if (request.type == ACTION_TYPE_RUN_DIAGNOSTICS) {
        const auto finding = diagnosticFinding(tray, request.diagnosticLevel);
        output = dcgmiDiagTable(request.diagnosticLevel, finding);
        const repair::DiagnosticReport report = repair::readDiagnosticOutput(output);
        for (const auto& test : report.tests) *result.outcome.add_tests() = test;
        result.outcome.set_command_ran(true);
        result.outcome.set_exit_status(!finding                            ? 0
                                       : finding->test == "targeted_power" ? kDcgmiFailExit
                                                                           : kDcgmiIsolateExit);
        result.succeeded = !finding;
        result.line = report.summary();
        result.outcome.set_output_tail(tail(output));
        return result;  // a diagnostic reports; it fixes nothing
    }
    if (request.type == ACTION_TYPE_RESET_GPU) {
        std::vector<std::uint32_t> gpus;
        for (std::uint32_t k = 0; k < kGpusPerTray; ++k)
            if (!request.gpu || *request.gpu == k) gpus.push_back(k);
        fixable = faulted && std::find(gpus.begin(), gpus.end(), fault.gpu) != gpus.end();
        result.outcome.set_command_ran(true);
        if (fixable && fault.xid == 79) {
            output = nvidiaSmiGpuLost(fault.gpu);
            result.outcome.set_exit_status(kNvidiaSmiGpuLostExit);
            result.line =
                "GPU " + std::to_string(fault.gpu) +
                " has fallen off the bus (nvidia-smi exit status 15); no reset reaches it: power-cycle the tray";
            result.outcome.set_output_tail(tail(output));
            return result;
        }
        output = nvidiaSmiResetDone(gpus);
        result.outcome.set_exit_status(0);
        result.line = gpus.size() == 1 ? "GPU " + gpuBusId(gpus.front()) + " was successfully reset"
                                       : std::to_string(gpus.size()) + " GPUs successfully reset";
    } else {
        const double tookS = step.endS - step.startS;
        if (faulted && causeOf(fault) == "host_hardware") {
            // The host itself is broken: the BMC powers it, the OS never registers again.
            result.line = model_.trayName(t) + " did not come back within " + minutes(tookS) + " (" +
                          failureCauses()[fault.cause].what + ")";
            if (isPowerCycle(request.type)) result.outcome.set_power_state("On");
            return result;
        }
        if (isPowerCycle(request.type)) result.outcome.set_power_state("On");
        result.line =
            std::string(isPowerCycle(request.type) ? "power cycled, back" : "back") + " after " + minutes(tookS);
    }
    result.succeeded = true;
    result.outcome.set_output_tail(tail(output));
    if (!faulted) return result;
    if (fixable && roll < fixProbability(request.type, fault)) {
        host_.clearFault(t);
        result.line += "; " + faultLabel(fault) + " cleared";
    } else {
        host_.faultPersists(t);
        result.line += "; " + faultLabel(fault) + " persists";
    }
    return result;
}

std::string TwinRepairs::place(const Step& step, bool succeeded) {
    const std::uint32_t t = step.tray;
    const TrayState& tray = trays_[t];
    const std::uint32_t r = model_.rackOfTray(t);
    const bool powered = !racks_[r].electricalIsolated && !tray.thermalShutdown;
    const TrayAfterRepair after =
        step.request.after == TRAY_AFTER_REPAIR_UNSPECIFIED ? TRAY_AFTER_REPAIR_STAY_DRAINED : step.request.after;
    if (after == TRAY_AFTER_REPAIR_RESUME && succeeded && !tray.faulted && powered) {
        TrayState& edit = trays_.edit(t);
        edit.drainRequested = false;
        edit.drainReason.clear();
        edit.heldDown = false;
        host_.setTray(t, serviceState(tray), HEALTH_STATE_HEALTHY, "", true);
        host_.offerTrays();
        return "back in service";
    }
    // Held by an operator from here on: the drain in force, or the step's own reason.
    TrayState& edit = trays_.edit(t);
    if (!edit.drainRequested) {
        edit.drainRequested = true;
        edit.drainReason = step.reason;
    }
    edit.heldDown = after == TRAY_AFTER_REPAIR_DOWN;
    if (!powered) {
        host_.emitTrayState(t);
        return "down with its rack; " + std::string(edit.heldDown ? "held down" : "drained") + " once it is back";
    }
    if (tray.faulted) {
        // The fault holds it as it did before the step, with the operator's hold on top.
        const bool down = tray.fault.down || edit.heldDown;
        host_.setTray(t, down ? NODE_STATE_DOWN : NODE_STATE_DRAINED,
                      tray.fault.down ? HEALTH_STATE_FAILED : HEALTH_STATE_DEGRADED, tray.fault.reason, true);
        return down ? "down" : "drained";
    }
    if (edit.heldDown) {
        // Powered and in working order but out of service: its GPUs count as degraded, not down.
        host_.setTray(t, NODE_STATE_DOWN, HEALTH_STATE_DEGRADED, tray.drainReason, true);
        return "held down";
    }
    host_.setTray(t, NODE_STATE_DRAINED, HEALTH_STATE_HEALTHY, tray.drainReason, true);
    return after == TRAY_AFTER_REPAIR_RESUME ? "stays drained" : "drained";
}

void TwinRepairs::finish(std::uint32_t t, const std::string& handle) {
    const auto it = running_.find(t);
    if (it == running_.end() || it->second.handle != handle) return;
    const Step step = std::move(it->second);
    running_.erase(it);
    trays_.edit(t).repairing = false;
    // Drawn for every step, used or not, so one step's kind never shifts the next one's draws.
    const double roll = rng_.uniform();
    Result result = run(step, roll);
    const std::string where = place(step, result.succeeded);
    result.line += "; " + where;

    const std::string& name = model_.trayName(t);
    auto& e = publisher_.event(result.succeeded ? SEVERITY_INFO : SEVERITY_WARNING, EVENT_TYPE_OPERATOR_ACTION,
                               model_.trayIndex(t), subject(step.request, name) + ": " + result.line);
    e.set_cause("operator");

    result.outcome.set_succeeded(result.succeeded);
    TwinRepairView view;
    view.handle = step.handle;
    view.node = name;
    view.finished = true;
    view.ratio = 1;
    view.message = subject(step.request, name) + ": " + result.line;
    view.outcome = std::move(result.outcome);
    publish(view);
}

}  // namespace watchfloor::server::sim
