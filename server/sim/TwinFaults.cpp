// What faults do: the failure streams' draws (FailureProcess) applied to GPUs, trays and jobs,
// Xids, repairs and scripted faults; what a fault does to a link or NIC port is the LinkFabric's.

#include "TwinCoordinator.h"

#include "XidCatalog.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kHour = 3600;
constexpr double kDay = 86400;
constexpr double kLemonShare = 0.015;                // 1-2% of trays [S]
constexpr double kPersistentStragglerShare = 0.005;  // ~0.5% of hosts [S, MegaScale]

// Ids in failureCauses().
enum CauseId : std::size_t {
    GpuHardFault = 0,
    HbmUncorrectable = 1,
    GpuSramEcc = 2,
    Gsp = 3,
    kNetworkLinkCause = 6,
    SoftwareBug = 10
};

bool isNvlinkXid(std::uint32_t xid) { return xid == 74 || (xid >= 144 && xid <= 150); }

}  // namespace

void TwinCoordinator::seedFleetRandomness() {
    std::vector<float> lemonFactors;
    lemonFactors.reserve(trays.size());
    for (std::uint32_t t = 0; t < trays.size(); ++t) {
        TrayState& tray = trays.edit(t);
        if (topologyRng.chance(kLemonShare)) tray.lemonFactor = static_cast<float>(topologyRng.uniform(5, 10));
        if (topologyRng.chance(kPersistentStragglerShare))
            tray.persistentSlowdown = static_cast<float>(topologyRng.uniform(1.05, 1.15));
        lemonFactors.push_back(tray.lemonFactor);
    }
    failures->setTrayHazards(lemonFactors);
    for (std::uint32_t g = 0; g < gpus.size(); ++g) {
        gpus[g].offsetC = static_cast<float>(std::clamp(topologyRng.normal() * 1.5, -4.0, 4.0));
        RackLoad& load = loads[model->rackOfTray(model->trayOfGpu(g))];
        load.maxOffsetC = std::max(load.maxOffsetC, gpus[g].offsetC);
    }
}

void TwinCoordinator::scheduleStreams() {
    scheduleHardwareCandidate();
    scheduleSoftwareCandidate();
    fabric->scheduleNoise();
    rails->schedule();
    scheduleCoolingIncidents();
    jobRunner->scheduleEpisodes();
}

double TwinCoordinator::hazardMultiplier(std::uint32_t g) const {
    const std::uint32_t t = model->trayOfGpu(g);
    const std::uint32_t r = model->rackOfTray(t);
    return failures->hazardMultiplier(trays[t].lemonFactor, cooling->loop(r).supplyC() - model->supplySetpointC(r));
}

void TwinCoordinator::scheduleHardwareCandidate() {
    // Thinning: candidates at the bounding rate, accepted with multiplier / bound.
    const double inS = failures->nextHardwareCandidateS();
    if (inS < 0) return;
    after(inS, [this] {
        const FailureProcess::HardwareCandidate candidate = failures->drawHardwareCandidate();
        const std::uint32_t g = candidate.gpu;
        const double accept = hazardMultiplier(g) / failures->hazardBound();
        const std::uint32_t t = model->trayOfGpu(g);
        const bool powered = !trays[t].faulted && activity(t) != TrayActivity::Off;
        if (candidate.acceptDraw < accept && powered) {
            ++stats.hardwareFailures;
            ++stats.failuresByCause[candidate.cause];
            applyFailure(candidate.cause, g, sampleFailure(candidate.cause, failures->rng()));
        }
        scheduleHardwareCandidate();
    });
}

void TwinCoordinator::scheduleSoftwareCandidate() {
    const double inS = failures->nextSoftwareCandidateS();
    if (inS < 0) return;
    after(inS, [this] {
        const FailureProcess::SoftwareCandidate candidate = failures->drawSoftwareCandidate();
        if (candidate.job < jobs().size() && jobs()[candidate.job].exposed()) {
            ++stats.softwareFailures;
            ++stats.failuresByCause[candidate.cause];
            applyJobFailure(candidate.job, candidate.cause, candidate.outcome);
        }
        scheduleSoftwareCandidate();
    });
}

void TwinCoordinator::applyJobFailure(std::uint32_t j, std::size_t cause, const FailureOutcome& outcome) {
    const std::uint32_t g = jobRunner->pickGpu(j);
    std::uint32_t entity = model->jobIndex(j);
    for (const std::uint32_t xid : outcome.xids) {
        emitXid(g, xid, j, failureCauses()[cause].cause);
        entity = model->gpuIndex(g);
    }
    jobRunner->interrupt(j, outcome.detectS, failureCauses()[cause].cause, entity);
}

void TwinCoordinator::emitXid(std::uint32_t g, std::uint32_t xid, std::uint32_t relatedJob, const std::string& cause) {
    const XidInfo* info = findXid(xid);
    if (!info) return;
    auto& e = event(xidSeverity(*info), EVENT_TYPE_XID, model->gpuIndex(g),
                    model->gpuName(g) + ": Xid " + std::to_string(xid) + " " + info->mnemonic);
    fillXidDetail(*info, *e.mutable_xid());
    e.set_cause(cause);
    e.set_value(xid);
    if (relatedJob != kNoJob) e.add_related_entity_indexes(model->jobIndex(relatedJob));
    GpuState& gpu = gpus[g];
    gpu.lastXid = static_cast<float>(xid);
    gpu.xidChanged = true;
    gpu.recoveryAction = std::max(gpu.recoveryAction, static_cast<std::uint8_t>(info->recovery));
    gpu.countersChanged = true;
}

void TwinCoordinator::applyFailure(std::size_t cause, std::uint32_t g, const FailureOutcome& outcome) {
    const std::uint32_t t = model->trayOfGpu(g);
    TrayState& tray = trays.edit(t);
    const std::uint32_t j = tray.job;
    const std::string causeName = failureCauses()[cause].cause;
    ++tray.failures;
    GpuState& gpu = gpus[g];

    if (outcome.thermal) {
        auto& e = event(SEVERITY_WARNING, EVENT_TYPE_CLOCKS_EVENT, model->gpuIndex(g),
                        model->gpuName(g) + ": thermal clocks event (SW_THERMAL) with an implausible sensor reading");
        e.set_cause(causeName);
    }
    for (const std::uint32_t xid : outcome.xids) emitXid(g, xid, j, causeName);
    for (const auto& line : outcome.hardwareEvents) {
        auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_HARDWARE, model->trayIndex(t), model->trayName(t) + ": " + line);
        e.set_cause(causeName);
        if (j != kNoJob) e.add_related_entity_indexes(model->jobIndex(j));
    }
    if (outcome.eccDbe) ++gpu.eccDbe;
    if (outcome.rowRemap) ++gpu.rowRemap;
    if (outcome.rowRemapFailure) gpu.rowRemapFailure = 1;
    gpu.countersChanged = true;
    if (outcome.nvlink) fabric->gpuLinkDown(g, causeName);
    if (outcome.nicDown) fabric->portDown(false, g, causeName);  // NIC ordinal == GPU ordinal: port k pairs with GPU k

    std::string reason = failureCauses()[cause].what;
    if (!outcome.xids.empty()) reason += " (Xid " + std::to_string(outcome.xids.front()) + ")";
    if (outcome.rma) reason += "; RMA";
    if (outcome.tray != TrayOutcome::Keep && !tray.faulted) {
        tray.faulted = true;
        const std::uint32_t epoch = ++tray.repairEpoch;
        const bool down = outcome.tray == TrayOutcome::Down;
        tray.fault = {static_cast<std::uint32_t>(cause),
                      outcome.xids.empty() ? 0u : outcome.xids.front(),
                      g % kGpusPerTray,
                      outcome.rma,
                      down,
                      down ? reason : "health check: " + reason};
        if (down)
            setTray(t, NODE_STATE_DOWN, HEALTH_STATE_FAILED, reason, true);
        else
            setTray(t, NODE_STATE_DRAINED, HEALTH_STATE_DEGRADED, "health check: " + reason, true);
        after(outcome.repairS, [this, t, epoch] { repairTray(t, epoch); });
    }
    if (j != kNoJob) {
        if (outcome.sdc) {
            // Found late by a loss spike; the job rolls back to its last checkpoint then.
            const std::uint32_t gi = model->gpuIndex(g);
            after(outcome.detectS, [this, j, gi, causeName] {
                auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_SDC, gi,
                                jobs()[j].name() + ": loss spike, silent data corruption suspected on " +
                                    model->topology().gpus(static_cast<int>(gi - model->gpuIndex(0))).name());
                e.set_cause(causeName);
                e.add_related_entity_indexes(model->jobIndex(j));
                jobRunner->interrupt(j, 1.0, causeName, gi);
            });
        } else {
            jobRunner->interrupt(j, outcome.detectS, causeName, model->gpuIndex(g));
        }
    }
}

void TwinCoordinator::applyXid(std::uint32_t g, std::uint32_t xid) {
    const XidInfo* info = findXid(xid);
    FailureOutcome outcome;
    outcome.xids = {xid};
    outcome.detectS = failures->rng().logNormal(3.0, 0.5);
    std::size_t cause = GpuHardFault;
    if (xid == 79) outcome.xids.push_back(45);
    if (xid == 48) {
        outcome.xids.insert(outcome.xids.end(), {45, failures->rng().chance(0.5) ? 94u : 95u, 63});
        outcome.eccDbe = outcome.rowRemap = true;
        cause = HbmUncorrectable;
    }
    if (xid == 63) outcome.rowRemap = true;
    if (xid == 64) {
        outcome.rowRemapFailure = outcome.rma = true;
        cause = HbmUncorrectable;
    }
    if (xid == 95 || xid == 94) cause = HbmUncorrectable;
    if (xid == 140) cause = GpuSramEcc, outcome.eccDbe = true;
    if (xid == 119 || xid == 120) cause = Gsp;
    if (isNvlinkXid(xid)) {
        outcome.nvlink = true;
        outcome.detectS = failures->rng().uniform(120, 600);  // NCCL timeout
    }
    if (info->fatal) {
        outcome.tray = TrayOutcome::Down;
        outcome.repairS = xid == 79     ? failures->rng().uniform(900, 1800)
                          : outcome.rma ? failures->rng().uniform(kDay, 5 * kDay)
                                        : failures->rng().uniform(300, 600);
        applyFailure(cause, g, outcome);
        return;
    }
    // Non-fatal: the event, and an application restart for RESTART_APP codes.
    const std::uint32_t j = trays[model->trayOfGpu(g)].job;
    for (const std::uint32_t x : outcome.xids)
        emitXid(g, x, info->action == XID_ACTION_RESTART_APP ? j : kNoJob,
                info->action == XID_ACTION_RESTART_APP ? "software_bug" : "");
    if (outcome.rowRemap) ++gpus[g].rowRemap;
    if (info->action == XID_ACTION_RESTART_APP && j != kNoJob)
        jobRunner->interrupt(j, outcome.detectS, failureCauses()[SoftwareBug].cause, model->gpuIndex(g));
}

void TwinCoordinator::repairTray(std::uint32_t t, std::uint32_t epoch) {
    if (trays[t].repairEpoch != epoch || !trays[t].faulted) return;
    clearTrayFault(t);
    const TrayState& tray = trays[t];
    if (tray.repairing) return;  // the break/fix step on it places the tray when it ends
    if (racks[model->rackOfTray(t)].electricalIsolated || tray.thermalShutdown) return;  // comes back with the rack
    setTray(t, serviceState(trays[t]), HEALTH_STATE_HEALTHY, serviceReason(trays[t]), true);
    jobRunner->offerTrays();
}

void TwinCoordinator::clearTrayFault(std::uint32_t t) {
    trays.edit(t).faulted = false;
    for (std::uint32_t k = 0; k < kGpusPerTray; ++k) {
        const std::uint32_t g = t * kGpusPerTray + k;
        if (gpus[g].recoveryAction != 0) {
            gpus[g].recoveryAction = 0;
            gpus[g].countersChanged = true;
        }
        gpus[g].rowRemapFailure = 0;  // RMA'd GPU replaced
        fabric->repairGpuPorts(g);
    }
}

void TwinCoordinator::clearFault(std::uint32_t t) {
    ++trays.edit(t).repairEpoch;  // the repair scheduled with the fault finds nothing left to do
    clearTrayFault(t);
}

void TwinCoordinator::faultPersists(std::uint32_t t) {
    const TrayState::Fault& fault = trays[t].fault;
    if (fault.xid != 0) emitXid(t * kGpusPerTray + fault.gpu, fault.xid, kNoJob, failureCauses()[fault.cause].cause);
}

// A rail link's trajectory ends in a failure: as a scripted link-down, the port down, its tray
// drained by the health check and its job restarted elsewhere, the link back after a reseat or a
// new cable. Counted with the network-link failures (Llama 3's draws are fail-stop, these come
// with a drift a forecast can see).
void TwinCoordinator::railLinkFailed(std::uint32_t nic) {
    const std::string cause = failureCauses()[kNetworkLinkCause].cause;
    fabric->portDown(false, nic, cause, false);
    FailureOutcome outcome;
    outcome.tray = TrayOutcome::Drain;
    outcome.detectS = 30;
    outcome.repairS = rails->repairSeconds();
    ++stats.hardwareFailures;
    ++stats.failuresByCause[kNetworkLinkCause];
    applyFailure(kNetworkLinkCause, nic, outcome);  // NIC ordinal == GPU ordinal
}

TwinActionResult TwinCoordinator::mendLink(const std::string& nic) {
    const auto ref = model->find(nic);
    if (!ref || ref->kind != ENTITY_KIND_NIC_PORT) return {false, "unknown rail link '" + nic + "'", {}};
    // The work is done by hand; the cable it leaves behind is healthy, whether or not it was failing.
    const bool mended = rails->mend(ref->ordinal);
    return {true, nic + (mended ? ": treated, its fault is gone" : ": treated (it had no fault the twin knew of)"), {}};
}

// A flapping rail link slows its job's collectives, as a scripted flap does.
void TwinCoordinator::railLinkFlapped(std::uint32_t nic) {
    fabric->portFlap(false, nic, 1, false);
    startStraggler(model->trayOfGpu(nic), 1.04, 600, "communication");
}

void TwinCoordinator::addGpuNvlinkErrors(std::uint32_t g, std::uint32_t crc, std::uint32_t replay,
                                         std::uint32_t recovery) {
    GpuState& gpu = gpus[g];
    gpu.nvlinkCrc += crc;
    gpu.nvlinkReplay += replay;
    gpu.nvlinkRecovery += recovery;
    gpu.countersChanged = true;
}

void TwinCoordinator::runScripted(const ScriptedFault& f) {
    const double forS = std::chrono::duration<double>(f.duration).count();
    const std::uint32_t o = f.target.ordinal;
    const bool nvlink = f.target.kind == ENTITY_KIND_NVLINK;
    switch (f.verb) {
    case ScriptVerb::Xid: applyXid(o, f.code); break;
    case ScriptVerb::Fail: {
        const FailureOutcome outcome = sampleFailure(f.code, failures->rng());
        if (f.target.kind == ENTITY_KIND_JOB) {
            applyJobFailure(o, f.code, outcome);
        } else {
            const std::uint32_t g = f.target.kind == ENTITY_KIND_NODE ? o * kGpusPerTray : o;
            if (failureCauses()[f.code].unit == FailureUnit::Job) {
                if (trays[model->trayOfGpu(g)].job != kNoJob)
                    applyJobFailure(trays[model->trayOfGpu(g)].job, f.code, outcome);
            } else {
                applyFailure(f.code, g, outcome);
            }
        }
        break;
    }
    case ScriptVerb::Leak: leak(o); break;
    case ScriptVerb::PumpFail: pumpFail(model->cduOfRack(o)); break;
    case ScriptVerb::FilterClog: filterClog(model->cduOfRack(o), forS > 0 ? forS : 4 * kHour); break;
    case ScriptVerb::SensorFault: sensorFault(o, forS > 0 ? forS : 2 * kHour); break;
    case ScriptVerb::FacilityExcursion: facilityExcursion(o, f.value, forS > 0 ? forS : 2 * kHour); break;
    case ScriptVerb::ValveClose: valveClose(o, forS > 0 ? forS : 15 * 60); break;
    case ScriptVerb::Isolate:
        event(SEVERITY_WARNING, EVENT_TYPE_OPERATOR_ACTION, model->rackIndex(o),
              "scenario: isolate " + model->rackName(o));
        isolateRack(o, "manual isolation", "manual isolation", false);
        break;
    case ScriptVerb::Restore: restoreRack(o, "manual restore"); break;
    case ScriptVerb::LinkFlap: {
        fabric->portFlap(nvlink, o, f.count);
        // A flapping link slows the job's collectives: episodic communication fail-slow.
        const std::uint32_t g = nvlink ? o / kLinksPerGpu : o;
        startStraggler(model->trayOfGpu(g), 1.0 + std::min(0.4, 0.04 * f.count), 600, "communication");
        break;
    }
    case ScriptVerb::LinkDown: {
        const std::uint32_t g = nvlink ? o / kLinksPerGpu : o;
        const std::uint32_t t = model->trayOfGpu(g);
        FailureOutcome outcome;
        outcome.tray = TrayOutcome::Drain;
        outcome.detectS = nvlink ? failures->rng().uniform(120, 600) : 30;
        outcome.repairS = forS > 0 ? forS : failures->rng().uniform(kHour, 6 * kHour);
        fabric->portDown(nvlink, o, "scenario");
        outcome.nicDown = false;
        applyFailure(kNetworkLinkCause, t * kGpusPerTray + (nvlink ? g % kGpusPerTray : o % kNicPortsPerTray), outcome);
        break;
    }
    case ScriptVerb::Ber: fabric->portBerBurst(nvlink, o, f.value); break;
    case ScriptVerb::LinkDrift: rails->drift(o, f.value * kHour, forS > 0 ? forS : 30 * 60); break;
    case ScriptVerb::Straggler:
        startStraggler(o, f.value, forS > 0 ? forS : 20 * 60, "scripted", &TrayState::scripted);
        break;
    case ScriptVerb::Drain:
    case ScriptVerb::Resume:
    case ScriptVerb::Requeue: {
        const TwinActionResult result = f.verb == ScriptVerb::Drain ? actions->drainNode(o, f.reason)
                                        : f.verb == ScriptVerb::Resume
                                            ? actions->resumeNode(o, f.reason)
                                            : actions->requeueJob(o, f.excludeTrays, f.reason);
        // A refused scripted action leaves a trace, as a refused RPC would in the audit log.
        if (!result.succeeded)
            event(SEVERITY_WARNING, EVENT_TYPE_OPERATOR_ACTION,
                  f.verb == ScriptVerb::Requeue ? model->jobIndex(o) : model->trayIndex(o),
                  "scenario action refused: " + result.message);
        break;
    }
    }
}

}  // namespace watchfloor::server::sim
