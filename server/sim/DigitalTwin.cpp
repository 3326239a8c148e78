#include "TwinImpl.h"

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

constexpr double kPi = 3.141592653589793;

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
        job.checkpointInterval = size >= 64 ? std::chrono::minutes(10)
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

DigitalTwin::DigitalTwin() : impl_(std::make_unique<Impl>()) {}
DigitalTwin::~DigitalTwin() = default;

const Topology& DigitalTwin::topology() const { return impl_->model->topology(); }
UnixTime DigitalTwin::now() const { return impl_->config.start + std::chrono::milliseconds(impl_->nowMs); }
void DigitalTwin::setTelemetryEnabled(bool enabled) { impl_->telemetry = enabled; }
bool DigitalTwin::telemetryEnabled() const { return impl_->telemetry; }
const DigitalTwin::Statistics& DigitalTwin::statistics() const { return impl_->stats; }

std::unique_ptr<DigitalTwin> DigitalTwin::create(const SimConfig& config, ConfigError* error) {
    std::unique_ptr<DigitalTwin> twin(new DigitalTwin());
    Impl& s = *twin->impl_;
    s.config = config;
    s.telemetry = config.telemetry;
    s.topologyRng = Rng(config.seed, 1);
    s.failureRng = Rng(config.seed, 2);
    s.coolingRng = Rng(config.seed, 3);
    s.jobRng = Rng(config.seed, 4);
    s.noiseRng = Rng(config.seed, 5);
    s.linkRng = Rng(config.seed, 6);

    if (!config.fleetFile.empty()) {
        auto spec = readFleetFile(config.fleetFile, error);
        if (!spec)
            return nullptr;
        s.spec = std::move(*spec);
    } else {
        s.spec = generatedFleetSpec(config.regions, config.racks);
    }

    // Job placement needs the rack names; build a provisional model to resolve them.
    std::vector<JobSpec> jobSpecs = s.spec.jobs;
    {
        FleetModel provisional(s.spec, 0);
        if (jobSpecs.empty())
            jobSpecs = defaultJobs(provisional);
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
                    for (std::uint32_t k = 0; k < kTraysPerRack; ++k)
                        trays.push_back(r * kTraysPerRack + k);
                }
            } else {
                const auto names = expandNameList(job.trayNames.front(), trayNames, &problem);
                if (!names)
                    return *error = {s.spec.sourceFile, job.sourceLine, "job '" + job.name + "': " + problem}, nullptr;
                for (const auto& name : *names)
                    trays.push_back(provisional.find(name)->ordinal);
            }
            for (const std::uint32_t t : trays)
                if (!taken.insert(t).second)
                    return *error = {s.spec.sourceFile, job.sourceLine,
                                     "job '" + job.name + "': tray " + provisional.trayName(t) + " already belongs to another job"},
                           nullptr;
            JobSettings settings;
            settings.name = job.name;
            settings.model = *trainingModel(job.model);
            settings.trays = std::move(trays);
            settings.checkpointIntervalS = std::chrono::duration<double>(job.checkpointInterval).count();
            settings.checkpointIntervalAuto = job.checkpointIntervalAuto;
            settings.checkpointSaveS = std::chrono::duration<double>(job.checkpointSave).count();
            settings.mfuTarget = s.jobRng.uniform(0.38, 0.45);  // docs/domain/goodput.md (MFU)
            s.jobs.emplace_back(std::move(settings));
        }
    }
    s.model = std::make_unique<FleetModel>(s.spec, static_cast<std::uint32_t>(s.jobs.size()));
    for (std::uint32_t j = 0; j < s.jobs.size(); ++j)
        s.jobByName.emplace(s.jobs[j].name(), j);
    s.jobStartS.assign(s.jobs.size(), std::numeric_limits<double>::quiet_NaN());
    s.jobExcludedTrays.resize(s.jobs.size());

    if (!config.scenarioFile.empty()) {
        const EntityResolver resolve = [&s](const std::string& name) -> std::optional<EntityRef> {
            for (std::uint32_t j = 0; j < s.jobs.size(); ++j)
                if (s.jobs[j].name() == name)
                    return EntityRef{ENTITY_KIND_JOB, j};
            return s.model->find(name);
        };
        auto script = readScenarioFile(config.scenarioFile, resolve, error);
        if (!script)
            return nullptr;
        s.script = std::move(*script);
    }

    const FleetModel& m = *s.model;
    s.trays.resize(m.trays());
    s.gpus.resize(m.gpus());
    s.racks.resize(m.racks());
    s.cdus.resize(m.cdus());
    s.regions.resize(m.regions());
    for (std::uint32_t r = 0; r < m.racks(); ++r)
        s.racks[r].loop = std::make_unique<CoolingLoop>(m.designPowerKw(r), m.supplySetpointC(r));
    for (std::uint32_t r = 0; r < m.regions(); ++r)
        s.regions[r].diurnalPhaseH = -5.0 - 3.0 * r;  // local solar time offset of each site [A]
    for (std::uint32_t j = 0; j < s.jobs.size(); ++j)
        for (const std::uint32_t t : s.jobs[j].trays()) {
            s.trays[t].job = j;
            s.trays[t].node = NODE_STATE_ALLOCATED;
        }
    s.seedFleetRandomness();

    // Configured rates and the restart overhead u0 that Meta's E[ETTR] needs, per job.
    const double hwPerGpuS = hardwareRatePerGpuHour() * config.hardwareRateScale / 3600.0;
    const double swPerGpuS = softwareRatePerGpuHour() / 3600.0;
    s.stats.hardwareRatePerGpuHour = hardwareRatePerGpuHour() * config.hardwareRateScale;
    s.stats.softwareRatePerGpuHour = softwareRatePerGpuHour();
    s.stats.failuresByCause.assign(failureCauses().size(), 0);
    const double detectS = meanDetectS(config.hardwareRateScale);
    const double hwShare = hwPerGpuS / (hwPerGpuS + swPerGpuS);
    double cumulative = 0;
    for (auto& job : s.jobs) {
        const double gpus = job.gpuCount();
        s.jobFailuresPerS.push_back(gpus * (hwPerGpuS + swPerGpuS));
        const double rescheduleS = hwShare * 120.0 + (1 - hwShare) * 40.0;
        const double initS = 120.0 + 5.0 + 30.0 * gpus / 10000.0;
        const double restoreS = 20.0 + job.settings().model.config.parameters() * 14.0 / (gpus * 2e9);
        job.setReliability(s.jobFailuresPerS.back(), detectS + rescheduleS + initS + restoreS + 12.5 + 120.0);
        cumulative += gpus;
        s.jobGpuWeights.push_back(cumulative);
    }

    for (const auto& fault : s.script) {
        const ScriptedFault copy = fault;
        s.at(std::chrono::duration<double>(fault.at).count(), [&s, copy] { s.runScripted(copy); });
    }
    s.startJobs();
    s.scheduleStreams();
    s.publishFacts();
    return twin;
}

void DigitalTwin::advanceTo(UnixTime until, FleetChanges& out) {
    Impl& s = *impl_;
    const std::int64_t untilMs = (until - s.config.start).count();
    if (untilMs <= s.nowMs)
        return;
    s.out = &out;
    out.time = until;
    if (!s.initialStatesSent) {
        s.emitInitialStates();
        s.initialStatesSent = true;
    }
    s.applyPendingActions();
    // Live: cooling is integrated once per call. Fast path: every 30 s of simulated time (the
    // loop model is solved exactly over a step, so the step size barely matters).
    while (true) {
        const std::int64_t nextPhysicsMs = s.telemetry ? untilMs : s.lastPhysicsMs + 30'000;
        const std::int64_t limitMs = std::min(untilMs, nextPhysicsMs);
        if (!s.queue.empty() && s.queue.top().atMs <= limitMs) {
            TimedAction action = s.queue.top();
            s.queue.pop();
            s.nowMs = std::max(s.nowMs, action.atMs);
            action.run();
            continue;
        }
        if (nextPhysicsMs > untilMs)
            break;
        s.nowMs = nextPhysicsMs;
        const double dtS = static_cast<double>(nextPhysicsMs - s.lastPhysicsMs) / 1000.0;
        s.accountExposure(dtS);
        s.updatePhysics(dtS);
        s.lastPhysicsMs = nextPhysicsMs;
        if (nextPhysicsMs == untilMs)
            break;
    }
    s.nowMs = untilMs;
    const std::int64_t periodMs = std::max<std::int64_t>(1, s.config.telemetryPeriod.count());
    if (s.telemetry && untilMs / periodMs != s.lastTelemetryPeriod) {
        s.lastTelemetryPeriod = untilMs / periodMs;
        s.emitTelemetry();
    }
    const std::int64_t reportPeriodMs = s.telemetry ? periodMs : 60'000;
    if (s.lastReportMs < 0 || untilMs / reportPeriodMs != s.lastReportMs / reportPeriodMs) {
        s.lastReportMs = untilMs;
        s.emitJobsAndFleet(s.telemetry);
    }
    s.publishFacts();
    s.stats.events += out.events.size();
    s.out = nullptr;
}

// --------------------------------------------------------------------------------------------

void DigitalTwin::Impl::at(double simS, std::function<void()> action) {
    const auto atMs = std::max(nowMs, static_cast<std::int64_t>(std::llround(simS * 1000.0)));
    queue.push(TimedAction{atMs, sequence++, std::move(action)});
}

Event& DigitalTwin::Impl::event(Severity severity, EventType type, std::uint32_t entity, std::string message) {
    static FleetChanges sink;  // events before the first advanceTo (none today) go nowhere
    auto& events = out ? out->events : sink.events;
    Event& e = events.emplace_back();
    e.set_time_unix_ms(unixNowMs());
    e.set_severity(severity);
    e.set_type(type);
    e.set_entity_index(entity);
    e.set_message(std::move(message));
    return e;
}

EntityState& DigitalTwin::Impl::state(std::uint32_t entity, HealthState health, const std::string& reason) {
    auto& st = out->states.emplace_back();
    st.set_entity_index(entity);
    st.set_health(health);
    st.set_reason(reason);
    st.set_since_unix_ms(unixNowMs());
    return st;
}

void DigitalTwin::Impl::emitTrayState(std::uint32_t t) {
    const TrayState& tray = trays[t];
    EntityState& s = state(model->trayIndex(t), tray.health, tray.reason);
    s.set_node_state(tray.node);
    // A person's (or automation's) drain outranks the health check's hold on the same tray.
    if (tray.drainRequested)
        *s.mutable_drain_owner() = drainOwnerFromReason(tray.drainReason);
    else if (tray.node == NODE_STATE_DOWN || tray.node == NODE_STATE_DRAINED || tray.node == NODE_STATE_DRAINING)
        *s.mutable_drain_owner() = healthCheckOwner();
}

void DigitalTwin::Impl::setTray(std::uint32_t t, NodeState state, HealthState health, const std::string& reason,
                                bool announce) {
    TrayState& tray = trays[t];
    if (tray.node == state && tray.health == health && tray.reason == reason)
        return;
    const NodeState before = tray.node;
    tray.node = state;
    tray.health = health;
    tray.reason = reason;
    viewDirty = true;
    tray.sinceMs = nowMs;
    if (out) {
        emitTrayState(t);
        for (std::uint32_t k = 0; k < kGpusPerTray; ++k) {
            const std::uint32_t g = t * kGpusPerTray + k;
            const HealthState gpuHealth = health == HEALTH_STATE_FAILED ? HEALTH_STATE_FAILED
                                          : gpus[g].clocksReasons & 0x60 ? HEALTH_STATE_DEGRADED
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
    racks[model->rackOfTray(t)].stateDirty = true;
}

void DigitalTwin::Impl::setRackState(std::uint32_t r) {
    RackRuntime& rack = racks[r];
    rack.stateDirty = false;
    std::uint32_t out_ = 0;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const NodeState st = trays[r * kTraysPerRack + k].node;
        out_ += st == NODE_STATE_DOWN || st == NODE_STATE_DRAINED ? 1 : 0;
    }
    const RackState state = rack.electricalIsolated || rack.liquidIsolated ? RACK_STATE_ISOLATED
                            : out_ > 0                                      ? RACK_STATE_DEGRADED
                                                                            : RACK_STATE_IN_SERVICE;
    const HealthState health = state == RACK_STATE_ISOLATED ? HEALTH_STATE_FAILED
                                : state == RACK_STATE_DEGRADED || rack.throttleFactor < 1.0 || rack.leakFaulted > 0
                                    ? HEALTH_STATE_DEGRADED
                                    : HEALTH_STATE_HEALTHY;
    if (state == rack.state && health == rack.health)
        return;
    rack.state = state;
    rack.health = health;
    viewDirty = true;
    if (out) {
        // The state already says "isolated"; the reason says why.
        const std::string reason = state == RACK_STATE_ISOLATED ? (rack.isolatedWhy.empty() ? "isolated" : rack.isolatedWhy)
                                   : out_ > 0 ? std::to_string(out_) + " of 18 trays out of service"
                                              : "";
        this->state(model->rackIndex(r), health, reason).set_rack_state(state);
    }
}

// --------------------------------------------------------------------------------------------
// Trays and jobs

bool DigitalTwin::Impl::trayUsable(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const RackRuntime& rack = racks[model->rackOfTray(t)];
    return !tray.faulted && !tray.thermalShutdown && !rack.electricalIsolated && tray.node != NODE_STATE_DOWN &&
           tray.node != NODE_STATE_DRAINED && tray.node != NODE_STATE_DRAINING;
}

bool DigitalTwin::Impl::slotUsable(std::uint32_t j, std::uint32_t t) const {
    return trayUsable(t) && trays[t].job == j && jobExcludedTrays[j].count(t) == 0;
}

void DigitalTwin::Impl::releaseTray(std::uint32_t t) {
    TrayState& tray = trays[t];
    tray.job = kNoJob;
    viewDirty = true;
    if (tray.node == NODE_STATE_DRAINING)
        setTray(t, NODE_STATE_DRAINED, HEALTH_STATE_HEALTHY, tray.reason, true);
    else if (tray.node == NODE_STATE_ALLOCATED)
        setTray(t, NODE_STATE_IDLE, HEALTH_STATE_HEALTHY, "", false);
}

TrayActivity DigitalTwin::Impl::activity(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    // A tray DOWN for a GPU fault is still powered (it reports, and waits for reset or power
    // cycle); over-temperature shutdown and rack isolation cut its power.
    if (tray.thermalShutdown || racks[model->rackOfTray(t)].electricalIsolated)
        return TrayActivity::Off;
    if (tray.job == kNoJob || tray.node == NODE_STATE_DRAINED || tray.node == NODE_STATE_DOWN)
        return TrayActivity::Idle;
    switch (jobs[tray.job].phase()) {
    case JobPhase::Running:
    case JobPhase::FirstStep: return TrayActivity::Training;
    case JobPhase::Checkpointing: return TrayActivity::Checkpointing;
    case JobPhase::Detect: return TrayActivity::Training;  // still spinning until the hang is noticed
    default: return TrayActivity::Recovering;
    }
}

void DigitalTwin::Impl::startJobs() {
    const double warmS = std::chrono::duration<double>(config.warmStart).count();
    for (std::uint32_t j = 0; j < jobs.size(); ++j) {
        if (warmS > 0) {
            warmStartJob(j, std::max(warmS, 3600.0));
            continue;
        }
        jobs[j].beginReschedule(0);
        // Jobs come up staggered over the first minute, as a scheduler would start them. An
        // operator action before then re-places the job (new epoch) and this start is void.
        const std::uint32_t epoch = jobs[j].epoch;
        at(jobRng.uniform(0, 60), [this, j, epoch] {
            if (jobs[j].epoch == epoch)
                beginInit(j, jobRng.uniform(60, 180));
        });
    }
}

void DigitalTwin::Impl::warmStartJob(std::uint32_t j, double historyS) {
    TrainingJob& job = jobs[j];
    // Phase lengths as a live start draws them (startJobs, beginInit); jobs started at different
    // times in the last `historyS`, and one may have been interrupted once, as often as the
    // configured failure rates make that likely over its history.
    WarmHistory h;
    h.firstStartS = -historyS * jobRng.uniform(0.6, 1.0);
    const double gpusK = job.gpuCount() / 10000.0;
    h.initS = jobRng.uniform(60, 180) + 5.0 + 30.0 * gpusK;
    h.dataLoadS = jobRng.uniform(5, 20);
    h.compileS = jobRng.uniform(60, 180);
    const double span = -h.firstStartS;
    if (jobRng.uniform(0, 1) < 1.0 - std::exp(-jobFailuresPerS[j] * span)) {
        h.interruptionAtS = h.firstStartS + jobRng.uniform(0.2, 0.7) * span;
        h.detectS = jobRng.uniform(30, 120);
        h.rescheduleS = jobRng.uniform(60, 180);
        h.restoreS = 20.0 + job.settings().model.config.parameters() * 14.0 / (job.gpuCount() * 2e9);
    }
    job.warmStart(h);
    jobStartS[j] = h.firstStartS;
    const double interval = job.checkpointIntervalS();
    const double lastSaveOrStart = job.hasCheckpoint() ? job.lastCheckpointS() : job.phaseStartS();
    scheduleCheckpoint(j, std::max(0.0, lastSaveOrStart + interval - nowS()));
    updateJobSlowdown(j);
}

void DigitalTwin::Impl::interruptJob(std::uint32_t j, double detectS, const std::string& cause, std::uint32_t entity) {
    TrainingJob& job = jobs[j];
    const std::uint64_t lostSteps = job.stepAt(nowS()) - job.lastDurableStep();
    if (!job.interrupt(nowS()))
        return;
    ++stats.jobInterruptions;
    job.stragglerReported = false;
    auto& e = event(SEVERITY_CRITICAL, EVENT_TYPE_JOB_INTERRUPTED, model->jobIndex(j),
                    job.name() + " interrupted (" + cause + "); " + std::to_string(lostSteps) +
                        " steps since the last checkpoint (step " + std::to_string(job.lastDurableStep()) + ") are lost");
    e.set_cause(cause);
    e.add_related_entity_indexes(entity);
    e.set_value(static_cast<double>(lostSteps));
    auto& r = event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model->jobIndex(j), job.name() + " recovery: detecting the fault");
    r.set_recovery_stage(RECOVERY_STAGE_DETECT);
    const std::uint32_t epoch = job.epoch;
    after(detectS, [this, j, epoch] {
        if (jobs[j].epoch == epoch)
            beginReschedule(j);
    });
}

void DigitalTwin::Impl::beginReschedule(std::uint32_t j) {
    TrainingJob& job = jobs[j];
    job.beginReschedule(nowS());
    auto& r = event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model->jobIndex(j),
                    job.name() + " recovery: rescheduling onto healthy trays");
    r.set_recovery_stage(RECOVERY_STAGE_RESCHEDULE);
    if (!tryPlace(j))
        waitingJobs.push_back(j);
}

bool DigitalTwin::Impl::tryPlace(std::uint32_t j) {
    TrainingJob& job = jobs[j];
    // Trays being drained or excluded leave the job now, whether or not spares are free.
    for (const std::uint32_t t : job.trays())
        if (trays[t].job == j && (trays[t].node == NODE_STATE_DRAINING || jobExcludedTrays[j].count(t)))
            releaseTray(t);
    std::vector<std::size_t> broken;
    for (std::size_t i = 0; i < job.trays().size(); ++i)
        if (!slotUsable(j, job.trays()[i]))
            broken.push_back(i);
    // Warm spares: idle healthy trays, nearest first (same rack, then same region, then any).
    std::vector<std::uint32_t> spares;
    if (!broken.empty()) {
        const std::uint32_t homeRack = model->rackOfTray(job.trays()[broken.front()]);
        const std::uint32_t homeRegion = model->regionOfRack(homeRack);
        std::vector<std::pair<int, std::uint32_t>> candidates;
        for (std::uint32_t t = 0; t < trays.size(); ++t) {
            if (trays[t].job != kNoJob || trays[t].node != NODE_STATE_IDLE || !trayUsable(t) ||
                jobExcludedTrays[j].count(t))
                continue;
            const std::uint32_t r = model->rackOfTray(t);
            const int distance = r == homeRack ? 0 : model->regionOfRack(r) == homeRegion ? 1 : 2;
            candidates.emplace_back(distance, t);
        }
        if (candidates.size() < broken.size())
            return false;
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < broken.size(); ++i)
            spares.push_back(candidates[i].second);
    }
    for (std::size_t i = 0; i < broken.size(); ++i) {
        const std::uint32_t old = job.trays()[broken[i]];
        if (trays[old].job == j)
            releaseTray(old);
        job.trays()[broken[i]] = spares[i];
        trays[spares[i]].job = j;
        viewDirty = true;
        setTray(spares[i], NODE_STATE_ALLOCATED, HEALTH_STATE_HEALTHY, "", false);
    }
    // Warm spare swap 1-3 min; restart in place 20-60 s (docs/domain/failure-rates.md).
    const double rescheduleS = broken.empty() ? jobRng.uniform(20, 60) : jobRng.uniform(60, 180);
    const std::uint32_t epoch = job.epoch;
    after(rescheduleS, [this, j, epoch] {
        if (jobs[j].epoch != epoch)
            return;
        // A tray may have failed meanwhile: reschedule again.
        for (const std::uint32_t t : jobs[j].trays())
            if (!slotUsable(j, t)) {
                if (!tryPlace(j))
                    waitingJobs.push_back(j);
                return;
            }
        const double gpusK = jobs[j].gpuCount() / 10000.0;
        beginInit(j, jobRng.uniform(60, 180) + 5.0 + 30.0 * gpusK);
    });
    return true;
}

void DigitalTwin::Impl::offerTrays() {
    std::vector<std::uint32_t> still;
    for (const std::uint32_t j : waitingJobs)
        if (jobs[j].phase() == JobPhase::Reschedule && !tryPlace(j))
            still.push_back(j);
    waitingJobs = std::move(still);
}

void DigitalTwin::Impl::beginInit(std::uint32_t j, double initS) {
    TrainingJob& job = jobs[j];
    const bool restart = job.interruptions() > 0;
    if (std::isnan(jobStartS[j]))
        jobStartS[j] = nowS();
    job.beginInit(nowS());
    if (!restart)
        event(SEVERITY_INFO, EVENT_TYPE_JOB_STARTED, model->jobIndex(j),
              job.name() + " started on " + std::to_string(job.gpuCount()) + " GPUs (" + job.settings().model.config.name() + ")");
    auto& r = event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model->jobIndex(j),
                    job.name() + (restart ? " recovery" : " start") + ": container, communicator init");
    r.set_recovery_stage(RECOVERY_STAGE_INIT);
    for (const std::uint32_t t : job.trays())
        setTray(t, NODE_STATE_ALLOCATED, HEALTH_STATE_HEALTHY, "", false);
    const std::uint32_t epoch = job.epoch;
    const double gpus = job.gpuCount();
    const double restoreS = restart ? 20.0 + job.settings().model.config.parameters() * 14.0 / (gpus * 2e9) * jobRng.uniform(0.8, 1.2)
                                    : 0.0;
    after(initS, [this, j, epoch, restoreS] {
        TrainingJob& job = jobs[j];
        if (job.epoch != epoch)
            return;
        auto afterRestore = [this, j] {
            TrainingJob& job = jobs[j];
            job.beginDataLoad(nowS());
            const std::uint32_t e2 = job.epoch;
            after(jobRng.uniform(5, 20), [this, j, e2] {
                TrainingJob& job = jobs[j];
                if (job.epoch != e2)
                    return;
                job.beginFirstStep(nowS());
                job.firstStepExtraS = jobRng.uniform(60, 180);  // compile and warm-up
                const std::uint32_t e3 = job.epoch;
                after(job.firstStepExtraS + job.stepS(), [this, j, e3] {
                    TrainingJob& job = jobs[j];
                    if (job.epoch != e3)
                        return;
                    job.beginRunning(nowS());
                    if (job.interruptions() > 0)
                        event(SEVERITY_INFO, EVENT_TYPE_JOB_RESUMED, model->jobIndex(j),
                              job.name() + " resumed at step " + std::to_string(job.stepAt(nowS())));
                    scheduleCheckpoint(j);
                    updateJobSlowdown(j);
                });
            });
        };
        if (restoreS > 0) {
            job.beginRestore(nowS());
            auto& r = event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model->jobIndex(j),
                            job.name() + " recovery: loading checkpoint of step " + std::to_string(job.lastDurableStep()));
            r.set_recovery_stage(RECOVERY_STAGE_RESTORE);
            const std::uint32_t e1 = job.epoch;
            after(restoreS, [this, j, e1, afterRestore] {
                if (jobs[j].epoch == e1)
                    afterRestore();
            });
        } else {
            afterRestore();
        }
    });
}

void DigitalTwin::Impl::scheduleCheckpoint(std::uint32_t j, double delayS) {
    const std::uint32_t epoch = jobs[j].epoch;
    after(delayS >= 0 ? delayS : jobs[j].checkpointIntervalS(), [this, j, epoch] {
        TrainingJob& job = jobs[j];
        if (job.epoch != epoch || job.phase() != JobPhase::Running)
            return;
        // Saves start at a step boundary.
        at(job.nextStepBoundary(nowS()), [this, j, epoch] {
            TrainingJob& job = jobs[j];
            if (job.epoch != epoch || job.phase() != JobPhase::Running)
                return;
            job.beginCheckpoint(nowS());
            const std::uint32_t saving = job.epoch;
            after(job.settings().checkpointSaveS, [this, j, saving] {
                TrainingJob& job = jobs[j];
                if (job.epoch != saving)
                    return;
                job.endCheckpoint(nowS());
                auto& e = event(SEVERITY_INFO, EVENT_TYPE_JOB_CHECKPOINT, model->jobIndex(j),
                                job.name() + " checkpoint of step " + std::to_string(job.lastDurableStep()) + " is durable");
                e.set_value(job.settings().checkpointSaveS);
                scheduleCheckpoint(j);
            });
        });
    });
}

void DigitalTwin::Impl::applyDiurnalSlowdown(std::uint32_t j) {
    TrainingJob& job = jobs[j];
    // Diurnal: ~0.5% per °C of supply drift via DVFS (Llama 3's 1-2% peak to peak), in 0.25% steps.
    const std::uint32_t region = model->regionOfRack(model->rackOfTray(job.trays().front()));
    const double diurnal = 1.0 + std::round(std::max(0.0, regionSupplyOffsetC(region) + 1.0) * 0.005 / 0.0025) * 0.0025;
    const double slowdown = job.traySlowdown * diurnal;
    if (std::abs(slowdown - job.slowdown()) > 1e-9)
        job.setSlowdown(nowS(), slowdown);
}

double DigitalTwin::Impl::regionSupplyOffsetC(std::uint32_t region) const {
    // Facility supply drifts ±1 °C over the day, warmest mid-afternoon local time [A], plus any
    // facility-water excursion.
    const double hours = static_cast<double>(unixNowMs()) / 3'600'000.0;
    const double local = std::fmod(hours + regions[region].diurnalPhaseH + 48.0, 24.0);
    return std::sin(2 * kPi * (local - 9.0) / 24.0) + regions[region].excursionC;
}

double DigitalTwin::Impl::trayPace(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const double rackFactor = 1.0 / racks[model->rackOfTray(t)].throttleFactor;
    return tray.persistentSlowdown * tray.episodic.factor * tray.scripted.factor * rackFactor;
}

double DigitalTwin::Impl::trayStepS(std::uint32_t j, std::uint32_t t) const {
    const TrainingJob& job = jobs[j];
    // The job's step is its slowest tray's (job.stepS() = ideal x traySlowdown x diurnal drift):
    // every tray computes at its own pace under the same drift, then waits in the collectives.
    return job.stepS() * trayPace(t) / job.traySlowdown;
}

void DigitalTwin::Impl::updateJobSlowdown(std::uint32_t j) {
    TrainingJob& job = jobs[j];
    // A synchronous step runs at the pace of the slowest rank (docs/domain/failure-rates.md).
    double worst = 1.0;
    std::vector<std::uint32_t> slow;
    for (const std::uint32_t t : job.trays()) {
        const double factor = trayPace(t);
        worst = std::max(worst, factor);
        if (factor >= 1.02)
            slow.push_back(t);
    }
    job.traySlowdown = worst;
    applyDiurnalSlowdown(j);

    // Detected once it lasts 4 min (Minder's continuity threshold).
    const bool straggling = worst >= 1.05;
    job.stragglerTrays = straggling ? slow : std::vector<std::uint32_t>{};
    if (straggling && job.stragglerSinceS < 0) {
        job.stragglerSinceS = nowS();
        after(240, [this, j] { updateJobSlowdown(j); });
    }
    if (straggling && !job.stragglerReported && nowS() - job.stragglerSinceS >= 240 - 1e-6 && job.computing()) {
        job.stragglerReported = true;
        std::string names;
        for (const std::uint32_t t : slow) {
            const TrayState& tray = trays[t];
            const char* why = tray.episodic.factor > 1.0f     ? tray.episodic.kind
                              : tray.scripted.factor > 1.0f    ? tray.scripted.kind
                              : tray.persistentSlowdown > 1.0f ? "slow host"
                                                               : "thermal";
            names += (names.empty() ? "" : ", ") + model->trayName(t) + " (" + why + ")";
        }
        auto& e = event(SEVERITY_WARNING, EVENT_TYPE_STRAGGLER_DETECTED, model->jobIndex(j),
                        job.name() + " steps take " + std::to_string(worst).substr(0, 4) + "x the ideal time; slowest: " + names);
        for (const std::uint32_t t : slow)
            e.add_related_entity_indexes(model->trayIndex(t));
        e.set_value(worst);
    }
    if (!straggling && job.stragglerSinceS >= 0) {
        job.stragglerSinceS = -1;
        if (job.stragglerReported) {
            job.stragglerReported = false;
            auto& e = event(SEVERITY_INFO, EVENT_TYPE_STRAGGLER_CLEARED, model->jobIndex(j),
                            job.name() + " back to full speed");
            e.set_value(worst);
        }
    }
}

}  // namespace watchfloor::server::sim
