// Failure streams and episodic stragglers (docs/domain/failure-rates.md), link noise, cooling
// incidents (docs/domain/cooling.md) and scripted faults.

#include "TwinImpl.h"

#include "XidCatalog.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kHour = 3600;
constexpr double kDay = 86400;
constexpr double kYear = 365 * kDay;
constexpr double kHazardTempScaleC = 12;   // ΔT_e of the temperature coupling [A: 10-15 °C]
constexpr double kMaxTempHazard = 5;       // cap of exp((T - T_nom)/ΔT_e), for thinning
constexpr double kLemonShare = 0.015;      // 1-2% of trays [S]
constexpr double kPersistentStragglerShare = 0.005;  // ~0.5% of hosts [S, MegaScale]

// Link noise [A, tuned so a 7-rack demo shows some every few minutes].
constexpr double kNvlinkCrcBurstsPerLinkDay = 0.01;
constexpr double kNvlinkFlapsPerLinkDay = 0.0005;
constexpr double kIbSymbolBurstsPerPortDay = 0.2;
constexpr double kIbFlapsPerPortDay = 0.01;
constexpr double kHighBerShare = 0.02;     // bursts that are a degrading link, not a blip
constexpr double kNvlinkBitsPerS = 8e11;   // ~100 GB/s per NVLink5 link, one direction
constexpr double kIbBitsPerS = 4e11;       // 400 Gb/s NDR port

// Cooling incidents per year [A, docs/domain/cooling.md].
constexpr double kPumpFailuresPerCduYear = 0.1;
constexpr double kFilterClogsPerCduYear = 0.5;
constexpr double kLeaksPerRackYear = 0.02;
constexpr double kExcursionsPerSiteYear = 1.0;
constexpr double kSensorFaultsPerRackYear = 0.2;

// Ids in failureCauses().
enum CauseId : std::size_t { GpuHardFault = 0, HbmUncorrectable = 1, GpuSramEcc = 2, Gsp = 3, kNetworkLinkCause = 6,
                             SoftwareBug = 10 };

bool isNvlinkXid(std::uint32_t xid) { return xid == 74 || (xid >= 144 && xid <= 150); }

}  // namespace

void DigitalTwin::Impl::seedFleetRandomness() {
    double lemonSum = 0;
    double maxLemon = 1;
    for (auto& tray : trays) {
        if (topologyRng.chance(kLemonShare))
            tray.lemonFactor = static_cast<float>(topologyRng.uniform(5, 10));
        if (topologyRng.chance(kPersistentStragglerShare))
            tray.persistentSlowdown = static_cast<float>(topologyRng.uniform(1.05, 1.15));
        lemonSum += tray.lemonFactor;
        maxLemon = std::max<double>(maxLemon, tray.lemonFactor);
    }
    // The published rates are fleet averages, lemons included: normalise so the mean is 1.
    meanLemonFactor = trays.empty() ? 1.0 : lemonSum / static_cast<double>(trays.size());
    hazardBound = maxLemon / meanLemonFactor * kMaxTempHazard;
    for (std::uint32_t g = 0; g < gpus.size(); ++g) {
        gpus[g].offsetC = static_cast<float>(std::clamp(topologyRng.normal() * 1.5, -4.0, 4.0));
        RackRuntime& rack = racks[model->rackOfTray(model->trayOfGpu(g))];
        rack.maxOffsetC = std::max(rack.maxOffsetC, gpus[g].offsetC);
    }
}

void DigitalTwin::Impl::scheduleStreams() {
    scheduleHardwareCandidate();
    scheduleSoftwareCandidate();
    scheduleLinkNoise();
    scheduleCoolingIncidents();
    scheduleEpisodicStragglers();
}

double DigitalTwin::Impl::hazardMultiplier(std::uint32_t g) const {
    const std::uint32_t t = model->trayOfGpu(g);
    const std::uint32_t r = model->rackOfTray(t);
    const double excessC = racks[r].loop->supplyC() - model->supplySetpointC(r);
    const double temperature = std::min(kMaxTempHazard, std::exp(excessC / kHazardTempScaleC));
    return trays[t].lemonFactor / meanLemonFactor * temperature;
}

void DigitalTwin::Impl::scheduleHardwareCandidate() {
    // Thinning: candidates at the bounding rate, accepted with multiplier / bound.
    const double ratePerS = gpus.size() * stats.hardwareRatePerGpuHour / kHour * hazardBound;
    if (ratePerS <= 0)
        return;
    after(failureRng.exponential(1.0 / ratePerS), [this] {
        const auto& causes = failureCauses();
        double pick = failureRng.uniform() * hardwareRatePerGpuHour();
        std::size_t cause = 0;
        for (; cause + 1 < causes.size(); ++cause) {
            if (!causes[cause].hardware)
                continue;
            if (pick < causes[cause].ratePerGpuHour)
                break;
            pick -= causes[cause].ratePerGpuHour;
        }
        const std::uint32_t g = failureRng.below(static_cast<std::uint32_t>(gpus.size()));
        const double accept = hazardMultiplier(g) / hazardBound;
        const std::uint32_t t = model->trayOfGpu(g);
        const bool powered = !trays[t].faulted && activity(t) != TrayActivity::Off;
        if (failureRng.uniform() < accept && powered) {
            ++stats.hardwareFailures;
            ++stats.failuresByCause[cause];
            applyFailure(cause, g, sampleFailure(cause, failureRng));
        }
        scheduleHardwareCandidate();
    });
}

void DigitalTwin::Impl::scheduleSoftwareCandidate() {
    if (jobs.empty())
        return;
    const double ratePerS = jobGpuWeights.back() * stats.softwareRatePerGpuHour / kHour;
    after(failureRng.exponential(1.0 / ratePerS), [this] {
        const double pick = failureRng.uniform() * jobGpuWeights.back();
        const auto j = static_cast<std::uint32_t>(
            std::upper_bound(jobGpuWeights.begin(), jobGpuWeights.end(), pick) - jobGpuWeights.begin());
        const std::size_t cause = failureRng.uniform() * softwareRatePerGpuHour() < failureCauses()[SoftwareBug].ratePerGpuHour
                                      ? SoftwareBug
                                      : SoftwareBug + 1;
        const FailureOutcome outcome = sampleFailure(cause, failureRng);
        if (j < jobs.size() && jobs[j].exposed()) {
            ++stats.softwareFailures;
            ++stats.failuresByCause[cause];
            applyJobFailure(j, cause, outcome);
        }
        scheduleSoftwareCandidate();
    });
}

void DigitalTwin::Impl::applyJobFailure(std::uint32_t j, std::size_t cause, const FailureOutcome& outcome) {
    const TrainingJob& job = jobs[j];
    const std::uint32_t t = job.trays()[jobRng.below(static_cast<std::uint32_t>(job.trays().size()))];
    const std::uint32_t g = t * kGpusPerTray + jobRng.below(kGpusPerTray);
    std::uint32_t entity = model->jobIndex(j);
    for (const std::uint32_t xid : outcome.xids) {
        emitXid(g, xid, j, failureCauses()[cause].cause);
        entity = model->gpuIndex(g);
    }
    interruptJob(j, outcome.detectS, failureCauses()[cause].cause, entity);
}

void DigitalTwin::Impl::emitXid(std::uint32_t g, std::uint32_t xid, std::uint32_t relatedJob, const std::string& cause) {
    const XidInfo* info = findXid(xid);
    if (!info)
        return;
    auto& e = event(xidSeverity(*info), EVENT_TYPE_XID, model->gpuIndex(g),
                    model->gpuName(g) + ": Xid " + std::to_string(xid) + " " + info->mnemonic);
    fillXidDetail(*info, *e.mutable_xid());
    e.set_cause(cause);
    e.set_value(xid);
    if (relatedJob != kNoJob)
        e.add_related_entity_indexes(model->jobIndex(relatedJob));
    GpuState& gpu = gpus[g];
    gpu.lastXid = static_cast<float>(xid);
    gpu.xidChanged = true;
    gpu.recoveryAction = std::max(gpu.recoveryAction, static_cast<std::uint8_t>(info->recovery));
    gpu.countersChanged = true;
}

void DigitalTwin::Impl::applyFailure(std::size_t cause, std::uint32_t g, const FailureOutcome& outcome) {
    const std::uint32_t t = model->trayOfGpu(g);
    TrayState& tray = trays[t];
    const std::uint32_t j = tray.job;
    const std::string causeName = failureCauses()[cause].cause;
    ++tray.failures;
    GpuState& gpu = gpus[g];

    if (outcome.thermal) {
        auto& e = event(SEVERITY_WARNING, EVENT_TYPE_CLOCKS_EVENT, model->gpuIndex(g),
                        model->gpuName(g) + ": thermal clocks event (SW_THERMAL) with an implausible sensor reading");
        e.set_cause(causeName);
    }
    for (const std::uint32_t xid : outcome.xids)
        emitXid(g, xid, j, causeName);
    for (const auto& line : outcome.hardwareEvents) {
        auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_HARDWARE, model->trayIndex(t), model->trayName(t) + ": " + line);
        e.set_cause(causeName);
        if (j != kNoJob)
            e.add_related_entity_indexes(model->jobIndex(j));
    }
    if (outcome.eccDbe)
        ++gpu.eccDbe;
    if (outcome.rowRemap)
        ++gpu.rowRemap;
    if (outcome.rowRemapFailure)
        gpu.rowRemapFailure = 1;
    gpu.countersChanged = true;
    if (outcome.nvlink)
        portDown(true, g * kLinksPerGpu + linkRng.below(kLinksPerGpu), causeName);
    if (outcome.nicDown)
        portDown(false, g, causeName);  // NIC ordinal == GPU ordinal: port k pairs with GPU k

    std::string reason = failureCauses()[cause].what;
    if (!outcome.xids.empty())
        reason += " (Xid " + std::to_string(outcome.xids.front()) + ")";
    if (outcome.rma)
        reason += "; RMA";
    if (outcome.tray != TrayOutcome::Keep && !tray.faulted) {
        tray.faulted = true;
        const std::uint32_t epoch = ++tray.repairEpoch;
        if (outcome.tray == TrayOutcome::Down)
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
                                jobs[j].name() + ": loss spike, silent data corruption suspected on " +
                                    model->topology().gpus(static_cast<int>(gi - model->gpuIndex(0))).name());
                e.set_cause(causeName);
                e.add_related_entity_indexes(model->jobIndex(j));
                interruptJob(j, 1.0, causeName, gi);
            });
        } else {
            interruptJob(j, outcome.detectS, causeName, model->gpuIndex(g));
        }
    }
}

void DigitalTwin::Impl::applyXid(std::uint32_t g, std::uint32_t xid) {
    const XidInfo* info = findXid(xid);
    FailureOutcome outcome;
    outcome.xids = {xid};
    outcome.detectS = failureRng.logNormal(3.0, 0.5);
    std::size_t cause = GpuHardFault;
    if (xid == 79)
        outcome.xids.push_back(45);
    if (xid == 48) {
        outcome.xids.insert(outcome.xids.end(), {45, failureRng.chance(0.5) ? 94u : 95u, 63});
        outcome.eccDbe = outcome.rowRemap = true;
        cause = HbmUncorrectable;
    }
    if (xid == 63)
        outcome.rowRemap = true;
    if (xid == 64) {
        outcome.rowRemapFailure = outcome.rma = true;
        cause = HbmUncorrectable;
    }
    if (xid == 95 || xid == 94)
        cause = HbmUncorrectable;
    if (xid == 140)
        cause = GpuSramEcc, outcome.eccDbe = true;
    if (xid == 119 || xid == 120)
        cause = Gsp;
    if (isNvlinkXid(xid)) {
        outcome.nvlink = true;
        outcome.detectS = failureRng.uniform(120, 600);  // NCCL timeout
    }
    if (info->fatal) {
        outcome.tray = TrayOutcome::Down;
        outcome.repairS = xid == 79 ? failureRng.uniform(900, 1800)
                          : outcome.rma ? failureRng.uniform(kDay, 5 * kDay)
                                        : failureRng.uniform(300, 600);
        applyFailure(cause, g, outcome);
        return;
    }
    // Non-fatal: the event, and an application restart for RESTART_APP codes.
    const std::uint32_t j = trays[model->trayOfGpu(g)].job;
    for (const std::uint32_t x : outcome.xids)
        emitXid(g, x, info->action == XID_ACTION_RESTART_APP ? j : kNoJob, info->action == XID_ACTION_RESTART_APP ? "software_bug" : "");
    if (outcome.rowRemap)
        ++gpus[g].rowRemap;
    if (info->action == XID_ACTION_RESTART_APP && j != kNoJob)
        interruptJob(j, outcome.detectS, failureCauses()[SoftwareBug].cause, model->gpuIndex(g));
}

void DigitalTwin::Impl::repairTray(std::uint32_t t, std::uint32_t epoch) {
    TrayState& tray = trays[t];
    if (tray.repairEpoch != epoch || !tray.faulted)
        return;
    tray.faulted = false;
    for (std::uint32_t k = 0; k < kGpusPerTray; ++k) {
        const std::uint32_t g = t * kGpusPerTray + k;
        if (gpus[g].recoveryAction != 0) {
            gpus[g].recoveryAction = 0;
            gpus[g].countersChanged = true;
        }
        gpus[g].rowRemapFailure = 0;  // RMA'd GPU replaced
        for (std::uint32_t l = 0; l < kLinksPerGpu; ++l) {
            const auto it = links.find(g * kLinksPerGpu + l);
            if (it != links.end() && it->second.state == LINK_STATE_DOWN)
                portUp(true, it->first);
        }
        const auto nic = nics.find(g);
        if (nic != nics.end() && nic->second.state == LINK_STATE_DOWN)
            portUp(false, g);
    }
    const RackRuntime& rack = racks[model->rackOfTray(t)];
    if (rack.electricalIsolated || tray.thermalShutdown)
        return;  // comes back with the rack
    setTray(t, serviceState(t), HEALTH_STATE_HEALTHY, serviceReason(t), true);
    offerTrays();
}

// --- links and NIC ports ---------------------------------------------------------------------

void DigitalTwin::Impl::addLinkErrors(std::uint32_t r, std::uint32_t count) {
    auto& slot = racks[r].linkErrorsBySecond[static_cast<std::size_t>(nowMs / 1000 % 60)];
    slot = static_cast<std::uint16_t>(std::min<std::uint32_t>(0xFFFF, slot + count));
}

void DigitalTwin::Impl::markChanged(bool nvlink, std::uint32_t ordinal, PortState& port) {
    if (!port.changed)
        (nvlink ? changedLinks : changedNics).push_back(ordinal);
    port.changed = true;
}

void DigitalTwin::Impl::portDown(bool nvlink, std::uint32_t ordinal, const std::string& why) {
    PortState& p = (nvlink ? links : nics)[ordinal];
    if (p.state == LINK_STATE_DOWN)
        return;
    p.state = LINK_STATE_DOWN;
    p.sinceMs = nowMs;
    ++p.recoveryOrDowned;
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model->linkIndex(ordinal) : model->nicIndex(ordinal);
    const std::uint32_t g = nvlink ? ordinal / kLinksPerGpu : ordinal;
    if (nvlink) {
        ++gpus[g].nvlinkRecovery;
        gpus[g].countersChanged = true;
    }
    addLinkErrors(model->rackOfTray(model->trayOfGpu(g)), 1);
    if (out) {
        state(entity, HEALTH_STATE_FAILED, why).set_link_state(LINK_STATE_DOWN);
    }
    auto& e = event(SEVERITY_WARNING, EVENT_TYPE_LINK_DOWN, entity,
                    (nvlink ? model->linkName(ordinal) : model->nicName(ordinal)) + " down (" + why + ")");
    e.set_cause(why);
}

void DigitalTwin::Impl::portUp(bool nvlink, std::uint32_t ordinal) {
    PortState& p = (nvlink ? links : nics)[ordinal];
    if (p.state == LINK_STATE_UP)
        return;
    p.state = LINK_STATE_UP;
    p.sinceMs = nowMs;
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model->linkIndex(ordinal) : model->nicIndex(ordinal);
    if (out) {
        state(entity, HEALTH_STATE_HEALTHY).set_link_state(LINK_STATE_UP);
    }
    event(SEVERITY_INFO, EVENT_TYPE_LINK_UP, entity, (nvlink ? model->linkName(ordinal) : model->nicName(ordinal)) + " up");
}

void DigitalTwin::Impl::portFlap(bool nvlink, std::uint32_t ordinal, std::uint32_t count) {
    PortState& p = (nvlink ? links : nics)[ordinal];
    if (p.state == LINK_STATE_DOWN)
        return;
    p.recoveryOrDowned += count;
    p.replayOrRecovery += count;
    markChanged(nvlink, ordinal, p);
    const std::uint32_t g = nvlink ? ordinal / kLinksPerGpu : ordinal;
    if (nvlink) {
        gpus[g].nvlinkRecovery += count;
        gpus[g].countersChanged = true;
    }
    addLinkErrors(model->rackOfTray(model->trayOfGpu(g)), count);
    const std::uint32_t entity = nvlink ? model->linkIndex(ordinal) : model->nicIndex(ordinal);
    if (p.state != LINK_STATE_FLAPPING) {
        p.state = LINK_STATE_FLAPPING;
        p.sinceMs = nowMs;
        if (out) {
            state(entity, HEALTH_STATE_DEGRADED, "went down and up " + std::to_string(count) + " times")
                .set_link_state(LINK_STATE_FLAPPING);
        }
    }
    auto& e = event(SEVERITY_WARNING, EVENT_TYPE_LINK_FLAP, entity,
                    (nvlink ? model->linkName(ordinal) : model->nicName(ordinal)) + " flapped " +
                        std::to_string(count) + (count == 1 ? " time" : " times"));
    e.set_value(count);
    // Five quiet minutes and it counts as up again.
    const std::uint32_t epoch = ++p.quietEpoch;
    after(300, [this, nvlink, ordinal, epoch] {
        PortState& port = (nvlink ? links : nics)[ordinal];
        if (port.quietEpoch == epoch && port.state == LINK_STATE_FLAPPING) {
            port.state = LINK_STATE_DOWN;  // so portUp emits the transition
            portUp(nvlink, ordinal);
        }
    });
}

void DigitalTwin::Impl::portBer(bool nvlink, std::uint32_t ordinal, double ber) {
    PortState& p = (nvlink ? links : nics)[ordinal];
    p.ber = static_cast<float>(ber);
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model->linkIndex(ordinal) : model->nicIndex(ordinal);
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", ber);
    auto& e = event(SEVERITY_WARNING, EVENT_TYPE_LINK_BER, entity,
                    (nvlink ? model->linkName(ordinal) : model->nicName(ordinal)) + " bit error ratio " + text +
                        " above threshold");
    e.set_value(ber);
    const std::uint32_t epoch = ++p.quietEpoch;
    after(1800, [this, nvlink, ordinal, epoch] {
        PortState& port = (nvlink ? links : nics)[ordinal];
        if (port.quietEpoch == epoch) {
            port.ber = 0;
            markChanged(nvlink, ordinal, port);
        }
    });
}

void DigitalTwin::Impl::scheduleLinkNoise() {
    const double linkRate = static_cast<double>(model->links()) * (kNvlinkCrcBurstsPerLinkDay + kNvlinkFlapsPerLinkDay) / kDay;
    const double nicRate = static_cast<double>(model->nics()) * (kIbSymbolBurstsPerPortDay + kIbFlapsPerPortDay) / kDay;
    after(linkRng.exponential(1.0 / (linkRate + nicRate)), [this, linkRate, nicRate] {
        const bool nvlink = linkRng.uniform() * (linkRate + nicRate) < linkRate;
        const std::uint32_t ordinal = linkRng.below(nvlink ? model->links() : model->nics());
        const std::uint32_t g = nvlink ? ordinal / kLinksPerGpu : ordinal;
        const std::uint32_t t = model->trayOfGpu(g);
        const double flapShare = nvlink ? kNvlinkFlapsPerLinkDay / (kNvlinkFlapsPerLinkDay + kNvlinkCrcBurstsPerLinkDay)
                                        : kIbFlapsPerPortDay / (kIbFlapsPerPortDay + kIbSymbolBurstsPerPortDay);
        if (activity(t) != TrayActivity::Off) {
            if (linkRng.chance(flapShare)) {
                portFlap(nvlink, ordinal, 1 + linkRng.below(3));
            } else {
                const bool highBer = linkRng.chance(kHighBerShare);
                const auto errors = static_cast<std::uint32_t>((1 + linkRng.exponential(nvlink ? 40 : 30)) * (highBer ? 50 : 1));
                PortState& p = (nvlink ? links : nics)[ordinal];
                p.crcOrSymbol += errors;
                p.replayOrRecovery += nvlink ? errors / 4 : 0;
                p.rcvErrors += nvlink ? 0 : errors / 10;
                markChanged(nvlink, ordinal, p);
                if (nvlink) {
                    gpus[g].nvlinkCrc += errors;
                    gpus[g].nvlinkReplay += errors / 4;
                    gpus[g].countersChanged = true;
                }
                addLinkErrors(model->rackOfTray(t), errors);
                // BER = error bits / (rate x window), the burst seen within one minute.
                if (highBer)
                    portBer(nvlink, ordinal, errors / ((nvlink ? kNvlinkBitsPerS : kIbBitsPerS) * 60.0));
            }
        }
        scheduleLinkNoise();
    });
}

// --- cooling incidents -----------------------------------------------------------------------

void DigitalTwin::Impl::scheduleCoolingIncidents() {
    const double pump = model->cdus() * kPumpFailuresPerCduYear;
    const double clog = model->cdus() * kFilterClogsPerCduYear;
    const double leakRate = model->racks() * kLeaksPerRackYear;
    const double excursion = model->regions() * kExcursionsPerSiteYear;
    const double sensor = model->racks() * kSensorFaultsPerRackYear;
    const double total = pump + clog + leakRate + excursion + sensor;
    after(coolingRng.exponential(kYear / total), [=, this] {
        double pick = coolingRng.uniform() * total;
        const std::uint32_t r = coolingRng.below(model->racks());
        if ((pick -= pump) < 0)
            pumpFail(model->cduOfRack(r));
        else if ((pick -= clog) < 0)
            filterClog(model->cduOfRack(r), coolingRng.uniform(2 * kHour, 6 * kHour));
        else if ((pick -= leakRate) < 0)
            leak(r);
        else if ((pick -= excursion) < 0)
            facilityExcursion(model->regionOfRack(r), coolingRng.uniform(3, 8), coolingRng.uniform(1 * kHour, 4 * kHour));
        else
            sensorFault(r, coolingRng.uniform(1 * kHour, 8 * kHour));
        scheduleCoolingIncidents();
    });
}

void DigitalTwin::Impl::setCduAlarm(std::uint32_t cdu, const std::string& alarm, bool active, Severity severity,
                                    const char* cause, std::uint32_t rack) {
    bool& state = cdus[cdu].alarms[alarm];
    if (state == active)
        return;
    state = active;
    std::uint32_t firstRack = 0;
    while (model->cduOfRack(firstRack) != cdu)
        ++firstRack;
    auto& e = event(active ? severity : SEVERITY_INFO, EVENT_TYPE_CDU_ALARM, model->loopIndex(firstRack),
                    model->cduName(cdu) + ": " + alarm + (active ? "" : " (cleared)"));
    e.set_cause(cause);
    if (rack != kNoRack)
        e.add_related_entity_indexes(model->rackIndex(rack));
}

void DigitalTwin::Impl::leak(std::uint32_t r) {
    RackRuntime& rack = racks[r];
    if (rack.liquidIsolated)
        return;
    ++stats.leaks;
    rack.leakWet = 1 + coolingRng.below(2);
    viewDirty = true;
    auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_LEAK, model->loopIndex(r),
                    model->rackName(r) + ": coolant leak detected (" + std::to_string(rack.leakWet) + " sensors wet)");
    e.set_cause("leak");
    e.add_related_entity_indexes(model->rackIndex(r));
    setCduAlarm(model->cduOfRack(r), "leak detected at " + model->rackName(r), true, SEVERITY_CRITICAL, "leak", r);
    isolateRack(r, "leak", "leak", true);
    // Dry out, find and fix the leak, re-fill, leak-test: hours [A].
    const std::uint32_t epoch = ++rack.restoreEpoch;
    after(coolingRng.uniform(4 * kHour, 12 * kHour), [this, r, epoch] {
        if (racks[r].restoreEpoch != epoch)
            return;
        racks[r].leakWet = 0;
        viewDirty = true;
        setCduAlarm(model->cduOfRack(r), "leak detected at " + model->rackName(r), false, SEVERITY_CRITICAL, "leak", r);
        restoreRack(r, "leak repaired");
    });
}

void DigitalTwin::Impl::isolateRack(std::uint32_t r, const std::string& why, const std::string& cause, bool automatic) {
    RackRuntime& rack = racks[r];
    if (rack.electricalIsolated && rack.liquidIsolated)
        return;
    rack.liquidIsolated = rack.electricalIsolated = true;
    rack.isolatedWhy = why;
    viewDirty = true;
    std::vector<std::uint32_t> affectedJobs;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t j = trays[r * kTraysPerRack + k].job;
        if (j != kNoJob && std::find(affectedJobs.begin(), affectedJobs.end(), j) == affectedJobs.end())
            affectedJobs.push_back(j);
    }
    {
        auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_RACK_ISOLATED, model->rackIndex(r),
                        model->rackName(r) + " isolated (" + why + "): valve closed, trays powered down");
        e.set_cause(cause);
        for (const std::uint32_t j : affectedJobs)
            e.add_related_entity_indexes(model->jobIndex(j));
    }  // `e` dies here: emitting more events may move it
    if (automatic)
        event(SEVERITY_WARNING, EVENT_TYPE_AUTOMATED_ACTION, model->rackIndex(r),
              "BMS closed " + model->rackName(r) + "'s coolant valve and opened its rack breaker (" + why + ")");
    for (const std::uint32_t j : affectedJobs)
        interruptJob(j, failureRng.uniform(2, 10), cause, model->rackIndex(r));
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k)
        setTray(r * kTraysPerRack + k, NODE_STATE_DOWN, HEALTH_STATE_FAILED, "rack isolated: " + why, false);
    setRackState(r);
}

void DigitalTwin::Impl::restoreRack(std::uint32_t r, const std::string& why) {
    RackRuntime& rack = racks[r];
    if (!rack.electricalIsolated && !rack.liquidIsolated)
        return;
    rack.liquidIsolated = rack.electricalIsolated = false;
    rack.isolatedWhy.clear();
    viewDirty = true;
    ++rack.restoreEpoch;
    event(SEVERITY_INFO, EVENT_TYPE_RACK_RESTORED, model->rackIndex(r), model->rackName(r) + " restored (" + why + ")");
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        TrayState& tray = trays[t];
        if (tray.faulted)
            continue;
        tray.thermalShutdown = false;
        setTray(t, serviceState(t), HEALTH_STATE_HEALTHY, serviceReason(t), false);
    }
    setRackState(r);
    offerTrays();
}

void DigitalTwin::Impl::pumpFail(std::uint32_t cdu) {
    CduRuntime& c = cdus[cdu];
    if (c.pumpsRunning == 0)
        return;
    --c.pumpsRunning;
    setCduAlarm(cdu, c.pumpsRunning == 0 ? "no flow: both pumps failed" : "pump failure, redundancy lost", true,
                c.pumpsRunning == 0 ? SEVERITY_CRITICAL : SEVERITY_WARNING, "pump_failure");
    const std::uint32_t epoch = ++c.pumpEpoch;
    after(coolingRng.uniform(4 * kHour, 24 * kHour), [this, cdu, epoch] {
        CduRuntime& c = cdus[cdu];
        if (c.pumpEpoch != epoch)
            return;
        c.pumpsRunning = 2;
        setCduAlarm(cdu, "no flow: both pumps failed", false, SEVERITY_CRITICAL, "pump_failure");
        setCduAlarm(cdu, "pump failure, redundancy lost", false, SEVERITY_WARNING, "pump_failure");
    });
}

void DigitalTwin::Impl::filterClog(std::uint32_t cdu, double serviceAfterS) {
    CduRuntime& c = cdus[cdu];
    c.clogRatePerS = 1.0 / 1800.0;  // loads over ~30 min
    const std::uint32_t epoch = ++c.clogEpoch;
    after(serviceAfterS, [this, cdu, epoch] {
        CduRuntime& c = cdus[cdu];
        if (c.clogEpoch != epoch)
            return;
        c.clog = 0;
        c.clogRatePerS = 0;
        event(SEVERITY_INFO, EVENT_TYPE_OPERATOR_ACTION, model->loopIndex(0),
              model->cduName(cdu) + ": filter replaced");
    });
}

void DigitalTwin::Impl::sensorFault(std::uint32_t r, double clearAfterS) {
    RackRuntime& rack = racks[r];
    rack.leakFaulted = 1;
    rack.stateDirty = true;
    setCduAlarm(model->cduOfRack(r), "leak sensor fault at " + model->rackName(r), true, SEVERITY_WARNING, "leak_sensor_fault", r);
    after(clearAfterS, [this, r] {
        racks[r].leakFaulted = 0;
        racks[r].stateDirty = true;
        setCduAlarm(model->cduOfRack(r), "leak sensor fault at " + model->rackName(r), false, SEVERITY_WARNING, "leak_sensor_fault", r);
    });
}

void DigitalTwin::Impl::facilityExcursion(std::uint32_t region, double deltaC, double forS) {
    RegionRuntime& reg = regions[region];
    reg.excursionTargetC = deltaC;
    const std::uint32_t epoch = ++reg.excursionEpoch;
    auto& e = event(SEVERITY_WARNING, EVENT_TYPE_CDU_ALARM, model->regionIndex(region),
                    model->regionName(region) + ": primary (facility) water temperature high");
    e.set_cause("facility_water");
    e.set_value(deltaC);
    after(forS, [this, region, epoch] {
        RegionRuntime& reg = regions[region];
        if (reg.excursionEpoch != epoch)
            return;
        reg.excursionTargetC = 0;
        event(SEVERITY_INFO, EVENT_TYPE_CDU_ALARM, model->regionIndex(region),
              model->regionName(region) + ": primary (facility) water temperature back in range")
            .set_cause("facility_water");
    });
}

void DigitalTwin::Impl::valveClose(std::uint32_t r, double forS) {
    RackRuntime& rack = racks[r];
    rack.valveStuck = true;
    setCduAlarm(model->cduOfRack(r), "control valve fault at " + model->rackName(r) + ": feedback and demand differ", true,
                SEVERITY_CRITICAL, "valve_fault", r);
    const std::uint32_t epoch = ++rack.valveEpoch;
    after(forS, [this, r, epoch] {
        if (racks[r].valveEpoch != epoch)
            return;
        racks[r].valveStuck = false;
        setCduAlarm(model->cduOfRack(r), "control valve fault at " + model->rackName(r) + ": feedback and demand differ",
                    false, SEVERITY_CRITICAL, "valve_fault", r);
    });
}

void DigitalTwin::Impl::thermalShutdown(std::uint32_t r) {
    const RackRuntime& rack = racks[r];
    const double shutdownC = model->topology().gpus(0).shutdown_temp_c();
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        TrayState& tray = trays[t];
        if (tray.thermalShutdown || activity(t) == TrayActivity::Off)
            continue;
        float hottest = -100;
        for (std::uint32_t i = 0; i < kGpusPerTray; ++i)
            hottest = std::max(hottest, gpus[t * kGpusPerTray + i].offsetC);
        const double powerW = activity(t) == TrayActivity::Training ? 1150.0 * rack.throttleFactor : 400.0;
        if (rack.loop->coldPlateC() + powerW * 0.025 + hottest < shutdownC)
            continue;
        tray.thermalShutdown = true;
        const std::uint32_t g = t * kGpusPerTray;
        auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_HARDWARE, model->trayIndex(t),
                        model->trayName(t) + ": GPU over-temperature shutdown (coolant at " +
                            std::to_string(static_cast<int>(rack.loop->coldPlateC())) + " °C)");
        e.set_cause("thermal_shutdown");
        e.set_value(rack.loop->coldPlateC());
        gpus[g].recoveryAction = static_cast<std::uint8_t>(GpuRecoveryAction::NodeReboot);
        gpus[g].countersChanged = true;
        if (tray.job != kNoJob)
            interruptJob(tray.job, 3.0, "thermal_shutdown", model->trayIndex(t));
        setTray(t, NODE_STATE_DOWN, HEALTH_STATE_FAILED, "GPU over-temperature shutdown", true);
    }
}

// --- stragglers ------------------------------------------------------------------------------

void DigitalTwin::Impl::scheduleEpisodicStragglers() {
    // Communication fail-slow: ~0.4 per day for a 512+ GPU job (FALCON: ~40% of large jobs);
    // compute fail-slow: rarer, 0.02 per job-day [A, docs/domain/failure-rates.md].
    double total = 0;
    std::vector<double> rates;
    for (const auto& job : jobs) {
        const double rate = (0.4 * std::min(1.0, job.gpuCount() / 512.0) + 0.02) / kDay;
        rates.push_back(rate);
        total += rate;
    }
    if (total <= 0)
        return;
    after(jobRng.exponential(1.0 / total), [this, rates, total] {
        double pick = jobRng.uniform() * total;
        std::uint32_t j = 0;
        while (j + 1 < rates.size() && pick >= rates[j])
            pick -= rates[j++];
        TrainingJob& job = jobs[j];
        const double commShare = (rates[j] - 0.02 / kDay) / rates[j];
        const bool comm = jobRng.chance(commShare);
        const std::uint32_t t = job.trays()[jobRng.below(static_cast<std::uint32_t>(job.trays().size()))];
        const double forS = comm ? std::clamp(jobRng.logNormal(24 * 60, 1.0), 30.0, 10 * kHour)
                                 : std::clamp(jobRng.logNormal(10 * 60, 0.8), 30.0, 4 * kHour);
        const double factor = comm ? jobRng.uniform(1.1, 1.5) : jobRng.uniform(1.05, 1.2);
        if (job.computing())
            startStraggler(t, factor, forS, comm ? "communication" : "compute");
        scheduleEpisodicStragglers();
    });
}

void DigitalTwin::Impl::startStraggler(std::uint32_t t, double factor, double forS, const char* kind,
                                       TrayState::TimedSlowdown TrayState::*slot) {
    TrayState::TimedSlowdown& slowdown = trays[t].*slot;
    slowdown.factor = static_cast<float>(factor);
    slowdown.kind = kind;
    const std::uint32_t epoch = ++slowdown.epoch;
    if (trays[t].job != kNoJob)
        updateJobSlowdown(trays[t].job);
    after(forS, [this, t, epoch, slot] {
        TrayState& tray = trays[t];
        if ((tray.*slot).epoch != epoch)
            return;
        (tray.*slot).factor = 1.0f;
        if (tray.job != kNoJob)
            updateJobSlowdown(tray.job);
    });
}

// --- scripted faults -------------------------------------------------------------------------

void DigitalTwin::Impl::runScripted(const ScriptedFault& f) {
    const double forS = std::chrono::duration<double>(f.duration).count();
    const std::uint32_t o = f.target.ordinal;
    const bool nvlink = f.target.kind == ENTITY_KIND_NVLINK;
    switch (f.verb) {
    case ScriptVerb::Xid: applyXid(o, f.code); break;
    case ScriptVerb::Fail: {
        const FailureOutcome outcome = sampleFailure(f.code, failureRng);
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
        event(SEVERITY_WARNING, EVENT_TYPE_OPERATOR_ACTION, model->rackIndex(o), "scenario: isolate " + model->rackName(o));
        isolateRack(o, "manual isolation", "manual isolation", false);
        break;
    case ScriptVerb::Restore: restoreRack(o, "manual restore"); break;
    case ScriptVerb::LinkFlap: {
        portFlap(nvlink, o, f.count);
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
        outcome.detectS = nvlink ? failureRng.uniform(120, 600) : 30;
        outcome.repairS = forS > 0 ? forS : failureRng.uniform(kHour, 6 * kHour);
        portDown(nvlink, o, "scenario");
        outcome.nicDown = false;
        applyFailure(kNetworkLinkCause, t * kGpusPerTray + (nvlink ? g % kGpusPerTray : o % kNicPortsPerTray), outcome);
        break;
    }
    case ScriptVerb::Ber: portBer(nvlink, o, f.value); break;
    case ScriptVerb::Straggler:
        startStraggler(o, f.value, forS > 0 ? forS : 20 * 60, "scripted", &TrayState::scripted);
        break;
    case ScriptVerb::Drain:
    case ScriptVerb::Resume:
    case ScriptVerb::Requeue: {
        const TwinActionResult result = f.verb == ScriptVerb::Drain    ? drainNode(o, f.reason)
                                        : f.verb == ScriptVerb::Resume ? resumeNode(o, f.reason)
                                                                       : requeueJob(o, f.excludeTrays, f.reason);
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
