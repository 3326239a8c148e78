// TwinCoordinator: create() builds the fleet, its jobs and components; advanceTo() runs a tick.
// Tray and rack state changes (setTray, setRackState) are here because every part makes them.

#include "TwinCoordinator.h"

#include "ClocksEventReasons.h"
#include "DrainOwnership.h"
#include "FleetSpec.h"
#include "XidCatalog.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

// Default job mix: the first job takes ~4/7 of the busy racks (capped at a Llama-3-sized 228
// racks), later ones 2/3 of what is left, capped by a descending ladder; 5% of racks (or two
// trays in a small fleet) stay free as warm spares.
std::vector<JobSpec> defaultJobs(const FleetModel& model) {
    std::vector<JobSpec> jobs;
    const std::uint32_t racks = model.racks();
    const std::uint32_t spareRacks = racks >= 20 ? racks / 20 : 0;
    std::uint32_t remaining = racks - spareRacks;
    static const std::uint32_t caps[] = {228, 128, 64, 64, 32, 32, 16, 16, 8, 8, 4, 2, 1};
    std::uint32_t next = 0;
    std::size_t capIndex = 0;
    bool first = true;
    while (remaining > 0) {
        const std::uint32_t cap = caps[capIndex % std::size(caps)];
        ++capIndex;
        std::uint32_t size = first ? (remaining * 4 + 6) / 7 : (remaining * 2 + 2) / 3;
        size = std::clamp<std::uint32_t>(size, 1, cap);
        first = false;
        JobSpec job;
        job.model = size >= 4 ? "405b" : size >= 2 ? "70b" : "8b";
        if (size == 1 && spareRacks == 0 && remaining == 1) {
            // Last rack of a small fleet: leave two trays as warm spares.
            const std::string rack = model.rackName(next);
            job.trayNames.push_back(rack + "-n01.." + rack + "-n16");
        } else {
            job.rackNames.push_back(model.rackName(next) + ".." + model.rackName(next + size - 1));
        }
        job.name = "llm-" + job.model + "-" + std::to_string(jobs.size() + 1);
        // Larger jobs fail more often, so they checkpoint more often (Young: sqrt(2 C M)).
        job.checkpointInterval = size >= 64   ? std::chrono::minutes(10)
                                 : size >= 16 ? std::chrono::minutes(20)
                                              : std::chrono::minutes(30);
        job.checkpointSave = size >= 16 ? std::chrono::seconds(30) : std::chrono::seconds(15);
        jobs.push_back(job);
        next += size;
        remaining -= size;
    }
    return jobs;
}

}  // namespace

// --------------------------------------------------------------------------------------------

std::unique_ptr<TwinCoordinator> TwinCoordinator::create(const SimConfig& config, ConfigError* error) {
    auto coordinator = std::make_unique<TwinCoordinator>();
    TwinCoordinator& s = *coordinator;
    s.config = config;
    s.telemetry = config.telemetry;
    s.topologyRng = Rng(config.seed, 1);
    s.coolingRng = Rng(config.seed, 3);
    Rng jobRng(config.seed, 4);
    std::vector<TrainingJob> jobs;
    s.noiseRng = Rng(config.seed, 5);

    if (!config.fleetFile.empty()) {
        auto spec = readFleetFile(config.fleetFile, error);
        if (!spec) return nullptr;
        s.spec = std::move(*spec);
    } else {
        s.spec = generatedFleetSpec(config.regions, config.racks);
    }

    // Job placement needs the rack names; build a provisional model to resolve them.
    std::vector<JobSpec> jobSpecs = s.spec.jobs;
    {
        FleetModel provisional(s.spec, 0);
        if (jobSpecs.empty()) jobSpecs = defaultJobs(provisional);
        const auto rackNames = provisional.rackNames();
        const auto trayNames = provisional.trayNames();
        std::set<std::uint32_t> taken;
        for (auto& job : jobSpecs) {
            std::string problem;
            std::vector<std::uint32_t> trays;
            if (!job.rackNames.empty()) {
                const auto racks = expandNameList(job.rackNames.front(), rackNames, &problem);
                if (!racks)
                    return *error = {s.spec.sourceFile, job.sourceLine, "job '" + job.name + "': " + problem}, nullptr;
                for (const auto& rack : *racks) {
                    const std::uint32_t r = provisional.find(rack)->ordinal;
                    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) trays.push_back(r * kTraysPerRack + k);
                }
            } else {
                const auto names = expandNameList(job.trayNames.front(), trayNames, &problem);
                if (!names)
                    return *error = {s.spec.sourceFile, job.sourceLine, "job '" + job.name + "': " + problem}, nullptr;
                for (const auto& name : *names) trays.push_back(provisional.find(name)->ordinal);
            }
            for (const std::uint32_t t : trays)
                if (!taken.insert(t).second)
                    return *error = {s.spec.sourceFile, job.sourceLine,
                                     "job '" + job.name + "': tray " + provisional.trayName(t) +
                                         " already belongs to another job"},
                           nullptr;
            JobSettings settings;
            settings.name = job.name;
            settings.model = *trainingModel(job.model);
            settings.trays = std::move(trays);
            settings.checkpointIntervalS = std::chrono::duration<double>(job.checkpointInterval).count();
            settings.checkpointIntervalAuto = job.checkpointIntervalAuto;
            settings.checkpointSaveS = std::chrono::duration<double>(job.checkpointSave).count();
            settings.mfuTarget = jobRng.uniform(0.38, 0.45);  // docs/domain/goodput.md (MFU)
            jobs.emplace_back(std::move(settings));
        }
    }
    s.model = std::make_unique<FleetModel>(s.spec, static_cast<std::uint32_t>(jobs.size()));
    s.publisher = std::make_unique<TelemetryPublisher>(*s.model, s.clock, toUnixMs(config.start), jobs);

    if (!config.scenarioFile.empty()) {
        const EntityResolver resolve = [&s, &jobs](const std::string& name) -> std::optional<EntityRef> {
            for (std::uint32_t j = 0; j < jobs.size(); ++j)
                if (jobs[j].name() == name) return EntityRef{ENTITY_KIND_JOB, j};
            return s.model->find(name);
        };
        auto script = readScenarioFile(config.scenarioFile, resolve, error);
        if (!script) return nullptr;
        s.script = std::move(*script);
    }

    const FleetModel& m = *s.model;
    s.trays.resize(m.trays());
    s.gpus.resize(m.gpus());
    s.racks.resize(m.racks());
    s.loads.resize(m.racks());
    s.cooling = std::make_unique<CoolingModel>(m);
    s.fabric = std::make_unique<LinkFabric>(Rng(config.seed, 6), m, s.clock, *s.publisher, s);
    s.rails = std::make_unique<RailLinks>(Rng(config.seed, 8), m, s.clock, *s.fabric, s);
    for (std::uint32_t j = 0; j < jobs.size(); ++j)
        for (const std::uint32_t t : jobs[j].trays()) {
            TrayState& tray = s.trays.edit(t);
            tray.job = j;
            tray.node = NODE_STATE_ALLOCATED;
        }

    // Configured rates and the restart overhead u0 that Meta's E[ETTR] needs, per job.
    const double hwPerGpuS = hardwareRatePerGpuHour() * config.hardwareRateScale / 3600.0;
    const double swPerGpuS = softwareRatePerGpuHour() / 3600.0;
    s.stats.hardwareRatePerGpuHour = hardwareRatePerGpuHour() * config.hardwareRateScale;
    s.stats.softwareRatePerGpuHour = softwareRatePerGpuHour();
    s.failures = std::make_unique<FailureProcess>(Rng(config.seed, 2), m.gpus(), s.stats.hardwareRatePerGpuHour,
                                                  s.stats.softwareRatePerGpuHour);
    s.seedFleetRandomness();
    s.stats.failuresByCause.assign(failureCauses().size(), 0);
    const double detectS = meanDetectS(config.hardwareRateScale);
    s.jobRunner = std::make_unique<JobRunner>(std::move(jobs), jobRng, m, s.clock, *s.publisher, s);
    s.failures->setJobGpuWeights(s.jobRunner->configureReliability(hwPerGpuS, swPerGpuS, detectS));
    s.actions = std::make_unique<ActionEffects>(m, *s.publisher, *s.jobRunner, s.trays, s.racks, s);
    s.repairs = std::make_unique<TwinRepairs>(Rng(config.seed, 7), m, s.clock, *s.publisher, s.trays, s.racks, s);

    for (const auto& fault : s.script) {
        const ScriptedFault copy = fault;
        s.at(std::chrono::duration<double>(fault.at).count(), [&s, copy] { s.runScripted(copy); });
    }
    s.jobRunner->start(std::chrono::duration<double>(config.warmStart).count());
    s.scheduleStreams();
    s.publishView();
    return coordinator;
}

// A tick, in this order: the initial states (first tick only); operator actions queued since the
// last tick; then timed actions in time order, with a physics step (exposure, cooling, thermal,
// alarms, rack states) every 30 s of simulated time on the fast path or once at `until` live;
// per-entity samples (live), job and fleet reports, and the read view.
void TwinCoordinator::advanceTo(UnixTime until, FleetChanges& out) {
    const std::int64_t untilMs = (until - config.start).count();
    if (untilMs <= nowMs()) return;
    publisher->begin(out);
    out.time = until;
    if (!initialStatesSent) {
        emitInitialStates();
        initialStatesSent = true;
    }
    // Whoever waits on a result may read the view next: it is published before the tickets.
    requests.applyAll(
        [this](const TwinAction& action) {
            if (action.type == TwinActionType::Repair)
                return repairs->start(action.target, action.repair, action.reason);
            if (action.type == TwinActionType::MendLink) return mendLink(action.target);
            return actions->apply(action);
        },
        [this] { publishView(); });
    // Live: cooling is integrated once per call. Fast path: every 30 s of simulated time (the
    // loop model is solved exactly over a step, so the step size barely matters).
    while (true) {
        const std::int64_t nextPhysicsMs = telemetry ? untilMs : lastPhysicsMs + 30'000;
        const std::int64_t limitMs = std::min(untilMs, nextPhysicsMs);
        if (clock.runNext(limitMs)) continue;
        if (nextPhysicsMs > untilMs) break;
        clock.advanceTo(nextPhysicsMs);
        const double dtS = static_cast<double>(nextPhysicsMs - lastPhysicsMs) / 1000.0;
        accountExposure(dtS);
        updatePhysics(dtS);
        lastPhysicsMs = nextPhysicsMs;
        if (nextPhysicsMs == untilMs) break;
    }
    clock.advanceTo(untilMs);
    const std::int64_t periodMs = std::max<std::int64_t>(1, config.telemetryPeriod.count());
    if (telemetry && untilMs / periodMs != lastTelemetryPeriod) {
        lastTelemetryPeriod = untilMs / periodMs;
        emitTelemetry();
    }
    const std::int64_t reportPeriodMs = telemetry ? periodMs : 60'000;
    if (lastReportMs < 0 || untilMs / reportPeriodMs != lastReportMs / reportPeriodMs) {
        lastReportMs = untilMs;
        emitJobsAndFleet(telemetry);
    }
    repairs->publishProgress();
    publishView();
    stats.events += out.events.size();
    stats.jobInterruptions = jobRunner->interruptions();
    publisher->end();
}

// --------------------------------------------------------------------------------------------

void TwinCoordinator::emitTrayState(std::uint32_t t) {
    const TrayState& tray = trays[t];
    EntityState& s = state(model->trayIndex(t), tray.health, tray.reason);
    s.set_node_state(tray.node);
    // A person's (or automation's) drain outranks the health check's hold on the same tray.
    if (tray.drainRequested)
        *s.mutable_drain_owner() = drainOwnerFromReason(tray.drainReason);
    else if (tray.node == NODE_STATE_DOWN || tray.node == NODE_STATE_DRAINED || tray.node == NODE_STATE_DRAINING)
        *s.mutable_drain_owner() = healthCheckOwner();
}

void TwinCoordinator::setTray(std::uint32_t t, NodeState state, HealthState health, const std::string& reason,
                              bool announce) {
    if (trays[t].node == state && trays[t].health == health && trays[t].reason == reason) return;
    TrayState& tray = trays.edit(t);
    const NodeState before = tray.node;
    tray.node = state;
    tray.health = health;
    tray.reason = reason;
    tray.sinceMs = nowMs();
    if (out()) {
        emitTrayState(t);
        for (std::uint32_t k = 0; k < kGpusPerTray; ++k) {
            const std::uint32_t g = t * kGpusPerTray + k;
            const HealthState gpuHealth = health == HEALTH_STATE_FAILED                    ? HEALTH_STATE_FAILED
                                          : gpus[g].clocksReasons & clocks_event::kThermal ? HEALTH_STATE_DEGRADED
                                                                                           : HEALTH_STATE_HEALTHY;
            if (gpus[g].health != gpuHealth) {
                gpus[g].health = gpuHealth;
                this->state(model->gpuIndex(g), gpuHealth, reason);
            }
        }
    }
    const bool outOfService = state == NODE_STATE_DOWN || state == NODE_STATE_DRAINED || state == NODE_STATE_DRAINING;
    const bool wasOut = before == NODE_STATE_DOWN || before == NODE_STATE_DRAINED || before == NODE_STATE_DRAINING;
    const bool drainDone = before == NODE_STATE_DRAINING && state == NODE_STATE_DRAINED;
    if (announce && (outOfService != wasOut || drainDone)) {
        const char* what = state == NODE_STATE_DOWN       ? "down"
                           : state == NODE_STATE_DRAINED  ? "drained"
                           : state == NODE_STATE_DRAINING ? "draining"
                                                          : "back in service";
        event(outOfService ? SEVERITY_WARNING : SEVERITY_INFO, EVENT_TYPE_NODE_STATE, model->trayIndex(t),
              model->trayName(t) + " " + what + (reason.empty() ? "" : ": " + reason));
    }
    racks.edit(model->rackOfTray(t)).stateDirty = true;
}

void TwinCoordinator::setRackState(std::uint32_t r) {
    RackStatus& rack = racks.edit(r);
    rack.stateDirty = false;
    std::uint32_t out_ = 0;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const NodeState st = trays[r * kTraysPerRack + k].node;
        out_ += st == NODE_STATE_DOWN || st == NODE_STATE_DRAINED ? 1 : 0;
    }
    const RackState state = rack.electricalIsolated || rack.liquidIsolated ? RACK_STATE_ISOLATED
                            : out_ > 0                                     ? RACK_STATE_DEGRADED
                                                                           : RACK_STATE_IN_SERVICE;
    const HealthState health = state == RACK_STATE_ISOLATED ? HEALTH_STATE_FAILED
                               : state == RACK_STATE_DEGRADED || loads[r].throttleFactor < 1.0 || rack.leakFaulted > 0
                                   ? HEALTH_STATE_DEGRADED
                                   : HEALTH_STATE_HEALTHY;
    if (state == rack.state && health == rack.health) return;
    rack.state = state;
    rack.health = health;
    if (out()) {
        // The state already says "isolated"; the reason says why.
        const std::string reason = state == RACK_STATE_ISOLATED
                                       ? (rack.isolatedWhy.empty() ? "isolated" : rack.isolatedWhy)
                                   : out_ > 0 ? std::to_string(out_) + " of 18 trays out of service"
                                              : "";
        this->state(model->rackIndex(r), health, reason).set_rack_state(state);
    }
}

// --------------------------------------------------------------------------------------------
// Trays

bool TwinCoordinator::trayUsable(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const RackStatus& rack = racks[model->rackOfTray(t)];
    return !tray.faulted && !tray.thermalShutdown && !tray.repairing && !rack.electricalIsolated &&
           tray.node != NODE_STATE_DOWN && tray.node != NODE_STATE_DRAINED && tray.node != NODE_STATE_DRAINING;
}

void TwinCoordinator::releaseTray(std::uint32_t t) {
    trays.edit(t).job = kNoJob;
    const TrayState& tray = trays[t];
    if (tray.node == NODE_STATE_DRAINING)
        setTray(t, NODE_STATE_DRAINED, HEALTH_STATE_HEALTHY, tray.reason, true);
    else if (tray.node == NODE_STATE_ALLOCATED)
        setTray(t, NODE_STATE_IDLE, HEALTH_STATE_HEALTHY, "", false);
}

TrayActivity TwinCoordinator::activity(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    // A tray DOWN for a GPU fault is still powered (it reports, and waits for reset or power
    // cycle); over-temperature shutdown and rack isolation cut its power.
    if (tray.thermalShutdown || racks[model->rackOfTray(t)].electricalIsolated) return TrayActivity::Off;
    if (tray.job == kNoJob || tray.node == NODE_STATE_DRAINED || tray.node == NODE_STATE_DOWN)
        return TrayActivity::Idle;
    switch (jobs()[tray.job].phase()) {
    case JobPhase::Running:
    case JobPhase::FirstStep: return TrayActivity::Training;
    case JobPhase::Checkpointing: return TrayActivity::Checkpointing;
    case JobPhase::Detect: return TrayActivity::Training;  // still spinning until the hang is noticed
    default: return TrayActivity::Recovering;
    }
}

double TwinCoordinator::trayPace(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const double rackFactor = 1.0 / loads[model->rackOfTray(t)].throttleFactor;
    return tray.persistentSlowdown * tray.episodic.factor * tray.scripted.factor * rackFactor;
}

void TwinCoordinator::startStraggler(std::uint32_t t, double factor, double forS, const char* kind,
                                     TrayState::TimedSlowdown TrayState::*slot) {
    TrayState::TimedSlowdown& slowdown = trays.edit(t).*slot;
    slowdown.factor = static_cast<float>(factor);
    slowdown.kind = kind;
    const std::uint32_t epoch = ++slowdown.epoch;
    if (trays[t].job != kNoJob) jobRunner->updateSlowdown(trays[t].job);
    after(forS, [this, t, epoch, slot] {
        if ((trays[t].*slot).epoch != epoch) return;
        (trays.edit(t).*slot).factor = 1.0f;
        const TrayState& tray = trays[t];
        if (tray.job != kNoJob) jobRunner->updateSlowdown(tray.job);
    });
}

void TwinCoordinator::assignTray(std::uint32_t t, std::uint32_t j) {
    trays.edit(t).job = j;
    markAllocated(t);
}

void TwinCoordinator::markAllocated(std::uint32_t t) {
    setTray(t, NODE_STATE_ALLOCATED, HEALTH_STATE_HEALTHY, "", false);
}

double TwinCoordinator::supplyOffsetC(std::uint32_t region) const {
    return cooling->supplyOffsetC(region, unixNowMs());
}

}  // namespace watchfloor::server::sim
