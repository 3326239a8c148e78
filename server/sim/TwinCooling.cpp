// Cooling incidents (docs/domain/cooling.md), rack isolation and restore, and the physics step:
// each rack's power into the CoolingModel, GPU temperatures and thermal clocks events back out.

#include "TwinCoordinator.h"

#include "ClocksEventReasons.h"
#include "TrayPower.h"
#include "XidCatalog.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kHour = 3600;
constexpr double kYear = 365 * 86400.0;

// Cooling incidents per year [A, docs/domain/cooling.md].
constexpr double kPumpFailuresPerCduYear = 0.1;
constexpr double kFilterClogsPerCduYear = 0.5;
constexpr double kLeaksPerRackYear = 0.02;
constexpr double kExcursionsPerSiteYear = 1.0;
constexpr double kSensorFaultsPerRackYear = 0.2;

constexpr double kThermalRebootS = 600;  // a tray shut down by over-temperature boots once its loop is cool

}  // namespace

void TwinCoordinator::scheduleCoolingIncidents() {
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
            facilityExcursion(model->regionOfRack(r), coolingRng.uniform(3, 8),
                              coolingRng.uniform(1 * kHour, 4 * kHour));
        else
            sensorFault(r, coolingRng.uniform(1 * kHour, 8 * kHour));
        scheduleCoolingIncidents();
    });
}

void TwinCoordinator::setCduAlarm(std::uint32_t cdu, const std::string& alarm, bool active, Severity severity,
                                  const char* cause, std::uint32_t rack) {
    if (!cooling->setAlarm(cdu, alarm, active)) return;
    std::uint32_t firstRack = 0;
    while (model->cduOfRack(firstRack) != cdu) ++firstRack;
    auto& e = event(active ? severity : SEVERITY_INFO, EVENT_TYPE_CDU_ALARM, model->loopIndex(firstRack),
                    model->cduName(cdu) + ": " + alarm + (active ? "" : " (cleared)"));
    e.set_cause(cause);
    if (rack != kNoRack) e.add_related_entity_indexes(model->rackIndex(rack));
}

void TwinCoordinator::leak(std::uint32_t r) {
    if (racks[r].liquidIsolated) return;
    ++stats.leaks;
    RackStatus& rack = racks.edit(r);
    rack.leakWet = 1 + coolingRng.below(2);
    auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_LEAK, model->loopIndex(r),
                    model->rackName(r) + ": coolant leak detected (" + std::to_string(rack.leakWet) + " sensors wet)");
    e.set_cause("leak");
    e.add_related_entity_indexes(model->rackIndex(r));
    setCduAlarm(model->cduOfRack(r), "leak detected at " + model->rackName(r), true, SEVERITY_CRITICAL, "leak", r);
    isolateRack(r, "leak", "leak", true);
    // Dry out, find and fix the leak, re-fill, leak-test: hours [A].
    const std::uint32_t epoch = ++racks.edit(r).restoreEpoch;
    after(coolingRng.uniform(4 * kHour, 12 * kHour), [this, r, epoch] {
        if (racks[r].restoreEpoch != epoch) return;
        racks.edit(r).leakWet = 0;
        setCduAlarm(model->cduOfRack(r), "leak detected at " + model->rackName(r), false, SEVERITY_CRITICAL, "leak", r);
        restoreRack(r, "leak repaired");
    });
}

void TwinCoordinator::isolateRack(std::uint32_t r, const std::string& why, const std::string& cause, bool automatic) {
    if (racks[r].electricalIsolated && racks[r].liquidIsolated) return;
    RackStatus& rack = racks.edit(r);
    rack.liquidIsolated = rack.electricalIsolated = true;
    rack.isolatedWhy = why;
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
        for (const std::uint32_t j : affectedJobs) e.add_related_entity_indexes(model->jobIndex(j));
    }  // `e` dies here: emitting more events may move it
    if (automatic)
        event(SEVERITY_WARNING, EVENT_TYPE_AUTOMATED_ACTION, model->rackIndex(r),
              "BMS closed " + model->rackName(r) + "'s coolant valve and opened its rack breaker (" + why + ")");
    for (const std::uint32_t j : affectedJobs)
        jobRunner->interrupt(j, failures->rng().uniform(2, 10), cause, model->rackIndex(r));
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k)
        setTray(r * kTraysPerRack + k, NODE_STATE_DOWN, HEALTH_STATE_FAILED, "rack isolated: " + why, false);
    setRackState(r);
}

void TwinCoordinator::restoreRack(std::uint32_t r, const std::string& why) {
    if (!racks[r].electricalIsolated && !racks[r].liquidIsolated) return;
    RackStatus& rack = racks.edit(r);
    rack.liquidIsolated = rack.electricalIsolated = false;
    rack.isolatedWhy.clear();
    ++rack.restoreEpoch;
    event(SEVERITY_INFO, EVENT_TYPE_RACK_RESTORED, model->rackIndex(r), model->rackName(r) + " restored (" + why + ")");
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        if (trays[t].faulted) continue;
        trays.edit(t).thermalShutdown = false;
        setTray(t, serviceState(trays[t]), HEALTH_STATE_HEALTHY, serviceReason(trays[t]), false);
    }
    setRackState(r);
    jobRunner->offerTrays();
}

void TwinCoordinator::pumpFail(std::uint32_t cdu) {
    const auto epoch = cooling->failPump(cdu);
    if (!epoch) return;
    const bool none = cooling->pumpsRunning(cdu) == 0;
    setCduAlarm(cdu, none ? "no flow: both pumps failed" : "pump failure, redundancy lost", true,
                none ? SEVERITY_CRITICAL : SEVERITY_WARNING, "pump_failure");
    after(coolingRng.uniform(4 * kHour, 24 * kHour), [this, cdu, epoch = *epoch] {
        if (!cooling->repairPumps(cdu, epoch)) return;
        setCduAlarm(cdu, "no flow: both pumps failed", false, SEVERITY_CRITICAL, "pump_failure");
        setCduAlarm(cdu, "pump failure, redundancy lost", false, SEVERITY_WARNING, "pump_failure");
    });
}

void TwinCoordinator::filterClog(std::uint32_t cdu, double serviceAfterS) {
    const std::uint32_t epoch = cooling->startFilterClog(cdu);
    after(serviceAfterS, [this, cdu, epoch] {
        if (!cooling->replaceFilter(cdu, epoch)) return;
        event(SEVERITY_INFO, EVENT_TYPE_OPERATOR_ACTION, model->loopIndex(0),
              model->cduName(cdu) + ": filter replaced");
    });
}

void TwinCoordinator::sensorFault(std::uint32_t r, double clearAfterS) {
    RackStatus& rack = racks.edit(r);
    rack.leakFaulted = 1;
    rack.stateDirty = true;
    setCduAlarm(model->cduOfRack(r), "leak sensor fault at " + model->rackName(r), true, SEVERITY_WARNING,
                "leak_sensor_fault", r);
    after(clearAfterS, [this, r] {
        RackStatus& rack = racks.edit(r);
        rack.leakFaulted = 0;
        rack.stateDirty = true;
        setCduAlarm(model->cduOfRack(r), "leak sensor fault at " + model->rackName(r), false, SEVERITY_WARNING,
                    "leak_sensor_fault", r);
    });
}

void TwinCoordinator::facilityExcursion(std::uint32_t region, double deltaC, double forS) {
    const std::uint32_t epoch = cooling->startExcursion(region, deltaC);
    auto& e = event(SEVERITY_WARNING, EVENT_TYPE_CDU_ALARM, model->regionIndex(region),
                    model->regionName(region) + ": primary (facility) water temperature high");
    e.set_cause("facility_water");
    e.set_value(deltaC);
    after(forS, [this, region, epoch] {
        if (!cooling->endExcursion(region, epoch)) return;
        event(SEVERITY_INFO, EVENT_TYPE_CDU_ALARM, model->regionIndex(region),
              model->regionName(region) + ": primary (facility) water temperature back in range")
            .set_cause("facility_water");
    });
}

void TwinCoordinator::valveClose(std::uint32_t r, double forS) {
    const std::string alarm = "control valve fault at " + model->rackName(r) + ": feedback and demand differ";
    const std::uint32_t epoch = cooling->stickValve(r);
    setCduAlarm(model->cduOfRack(r), alarm, true, SEVERITY_CRITICAL, "valve_fault", r);
    after(forS, [this, r, epoch, alarm] {
        if (!cooling->freeValve(r, epoch)) return;
        setCduAlarm(model->cduOfRack(r), alarm, false, SEVERITY_CRITICAL, "valve_fault", r);
    });
}

void TwinCoordinator::thermalShutdown(std::uint32_t r) {
    const RackLoad& load = loads[r];
    const CoolingLoop& loop = cooling->loop(r);
    const double shutdownC = model->topology().gpus(0).shutdown_temp_c();
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        if (trays[t].thermalShutdown || activity(t) == TrayActivity::Off) continue;
        float hottest = -100;
        for (std::uint32_t i = 0; i < kGpusPerTray; ++i)
            hottest = std::max(hottest, gpus[t * kGpusPerTray + i].offsetC);
        const double powerW = activity(t) == TrayActivity::Training ? 1150.0 * load.throttleFactor : 400.0;
        if (loop.coldPlateC() + powerW * 0.025 + hottest < shutdownC) continue;
        trays.edit(t).thermalShutdown = true;
        const std::uint32_t g = t * kGpusPerTray;
        auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_HARDWARE, model->trayIndex(t),
                        model->trayName(t) + ": GPU over-temperature shutdown (coolant at " +
                            std::to_string(static_cast<int>(loop.coldPlateC())) + " °C)");
        e.set_cause("thermal_shutdown");
        e.set_value(loop.coldPlateC());
        gpus[g].recoveryAction = static_cast<std::uint8_t>(GpuRecoveryAction::NodeReboot);
        gpus[g].countersChanged = true;
        if (trays[t].job != kNoJob) jobRunner->interrupt(trays[t].job, 3.0, "thermal_shutdown", model->trayIndex(t));
        setTray(t, NODE_STATE_DOWN, HEALTH_STATE_FAILED, "GPU over-temperature shutdown", true);
    }
}

// --- the physics step ------------------------------------------------------------------------

void TwinCoordinator::updateRackPower(std::uint32_t r) {
    RackLoad& load = loads[r];
    load.exposedGpus = load.trayIncidents = 0;
    double watts = racks[r].electricalIsolated ? 0.0 : kSwitchTrayKw * 1000.0 * kSwitchTraysPerRack;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        const TrayState& tray = trays[t];
        load.trayIncidents += tray.faulted || tray.thermalShutdown ? 1 : 0;
        const TrayActivity a = activity(t);
        if (a == TrayActivity::Off) continue;
        if (!tray.faulted) load.exposedGpus += kGpusPerTray;
        const double cpu = a == TrayActivity::Training || a == TrayActivity::Checkpointing ? kCpuTrainingW : kCpuIdleW;
        watts += kGpusPerTray * gpuPowerW(a, load.throttleFactor) + kCpusPerTray * cpu + kTrayOverheadW;
    }
    load.powerKw = watts * kConversionLoss / 1000.0;
}

void TwinCoordinator::updateThermalState(std::uint32_t r) {
    RackLoad& load = loads[r];
    const double slowdownC = model->topology().gpus(0).slowdown_temp_c();
    const double coldPlate = cooling->loop(r).coldPlateC();
    // The hottest GPU that could be training sets the rack's clock factor (and the job's pace).
    const double hottestC = coldPlate + kGpuTrainingW * kColdPlateKPerW + load.maxOffsetC;
    const double factor = clockFactor(hottestC, slowdownC);
    const bool hot = hottestC >= slowdownC - kSwThermalMarginC;
    if (hot || load.throttleFactor < 1.0) {
        // Per-GPU thermal clock events, only for racks near the limit.
        for (std::uint32_t i = 0; i < kGpusPerRack; ++i) {
            const std::uint32_t g = r * kGpusPerRack + i;
            const std::uint32_t t = model->trayOfGpu(g);
            const TrayActivity a = activity(t);
            const double tempC = coldPlate + gpuPowerW(a, 1.0) * kColdPlateKPerW + gpus[g].offsetC;
            const std::uint8_t reasons = a == TrayActivity::Off ? 0 : thermalReasons(tempC, slowdownC);
            GpuState& gpu = gpus[g];
            const std::uint8_t thermal = gpu.clocksReasons & clocks_event::kThermal;
            if (thermal == reasons) continue;
            const bool began = reasons != 0 && thermal == 0;
            const bool ended = reasons == 0;
            gpu.clocksReasons = static_cast<std::uint8_t>((gpu.clocksReasons & ~clocks_event::kThermal) | reasons);
            if (began || ended) {
                const char* bit = reasons == clocks_event::kHwThermalSlowdown ? "HW_THERMAL" : "SW_THERMAL";
                auto& e = event(began ? SEVERITY_WARNING : SEVERITY_INFO, EVENT_TYPE_CLOCKS_EVENT, model->gpuIndex(g),
                                model->gpuName(g) + (began ? ": thermal clocks event began (" + std::string(bit) + ")"
                                                           : ": thermal clocks event ended"));
                e.set_value(tempC);
                e.set_cause("thermal");
                const HealthState health = trays[t].health == HEALTH_STATE_FAILED ? HEALTH_STATE_FAILED
                                           : began                                ? HEALTH_STATE_DEGRADED
                                                                                  : HEALTH_STATE_HEALTHY;
                if (out() && health != gpu.health) {
                    gpu.health = health;
                    state(model->gpuIndex(g), health, began ? "thermal throttling" : "");
                }
            }
        }
    }
    if (std::abs(factor - load.throttleFactor) > 0.01 || (factor == 1.0 && load.throttleFactor != 1.0)) {
        load.throttleFactor = factor;
        racks.edit(r).stateDirty = true;
        std::vector<std::uint32_t> affected;
        for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
            const std::uint32_t j = trays[r * kTraysPerRack + k].job;
            if (j != kNoJob && std::find(affected.begin(), affected.end(), j) == affected.end()) affected.push_back(j);
        }
        for (const std::uint32_t j : affected) jobRunner->updateSlowdown(j);
    }
    if (hottestC >= model->topology().gpus(0).shutdown_temp_c()) thermalShutdown(r);
}

void TwinCoordinator::rebootCooledTrays(std::uint32_t r) {
    if (!cooling->readyForReboot(r) || racks[r].electricalIsolated) return;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        if (!trays[t].thermalShutdown || trays[t].node != NODE_STATE_DOWN || trays[t].reason == "rebooting") continue;
        trays.edit(t).reason = "rebooting";
        after(kThermalRebootS, [this, t] {
            if (!trays[t].thermalShutdown) return;
            trays.edit(t).thermalShutdown = false;
            gpus[t * kGpusPerTray].recoveryAction = 0;
            gpus[t * kGpusPerTray].countersChanged = true;
            if (!trays[t].faulted && !racks[model->rackOfTray(t)].electricalIsolated) {
                setTray(t, serviceState(trays[t]), HEALTH_STATE_HEALTHY, serviceReason(trays[t]), true);
                jobRunner->offerTrays();
            }
        });
    }
}

// One physics step, rack by rack in ordinal order: power from what the trays do, the loop, GPU
// temperatures and thermal clocks events, CDU alarms, reboots after an over-temperature
// shutdown, the rack's state; then the jobs' diurnal drift.
void TwinCoordinator::updatePhysics(double dtS) {
    cooling->stepFacility(dtS, unixNowMs());
    for (std::uint32_t r = 0; r < racks.size(); ++r) {
        updateRackPower(r);
        cooling->stepRack(r, dtS, loads[r].powerKw, racks[r].liquidIsolated);
        updateThermalState(r);
        for (const RackAlarmChange& change : cooling->rackAlarmChanges(r, nowMs(), racks[r].liquidIsolated))
            setCduAlarm(model->cduOfRack(r), std::string(change.alarm) + " at " + model->rackName(r), change.active,
                        change.severity, change.cause, r);
        rebootCooledTrays(r);
        if (racks[r].stateDirty) setRackState(r);
    }
    jobRunner->applyDiurnalDrift();
}

}  // namespace watchfloor::server::sim
