// The job runner: placement on trays and warm spares, the recovery pipeline (detect, reschedule,
// init, restore), checkpoints, and stragglers (docs/domain/failure-rates.md).

#include "TwinImpl.h"

#include "RestartTimes.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kHour = 3600;
constexpr double kDay = 86400;

}  // namespace

bool DigitalTwin::Impl::trayUsable(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const RackStatus& rack = racks[model->rackOfTray(t)];
    return !tray.faulted && !tray.thermalShutdown && !rack.electricalIsolated && tray.node != NODE_STATE_DOWN &&
           tray.node != NODE_STATE_DRAINED && tray.node != NODE_STATE_DRAINING;
}

bool DigitalTwin::Impl::slotUsable(std::uint32_t j, std::uint32_t t) const {
    return trayUsable(t) && trays[t].job == j && jobExcludedTrays[j].count(t) == 0;
}

void DigitalTwin::Impl::releaseTray(std::uint32_t t) {
    trays.edit(t).job = kNoJob;
    const TrayState& tray = trays[t];
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
                beginInit(j, restart::kContainerInitS.draw(jobRng));
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
    h.initS = restart::drawInitS(jobRng, job.gpuCount());
    h.dataLoadS = restart::kDataLoadS.draw(jobRng);
    h.compileS = restart::kCompileWarmupS.draw(jobRng);
    const double span = -h.firstStartS;
    if (jobRng.uniform(0, 1) < 1.0 - std::exp(-jobFailuresPerS[j] * span)) {
        h.interruptionAtS = h.firstStartS + jobRng.uniform(0.2, 0.7) * span;
        h.detectS = restart::kWarmHistoryDetectS.draw(jobRng);
        h.rescheduleS = restart::kWarmSpareSwapS.draw(jobRng);
        h.restoreS = restart::kRestoreBaseS + restart::stateLoadS(job.settings().model.config.parameters(), job.gpuCount());
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
        trays.edit(spares[i]).job = j;
        setTray(spares[i], NODE_STATE_ALLOCATED, HEALTH_STATE_HEALTHY, "", false);
    }
    // Warm spare swap 1-3 min; restart in place 20-60 s (docs/domain/failure-rates.md).
    const double rescheduleS = (broken.empty() ? restart::kRestartInPlaceS : restart::kWarmSpareSwapS).draw(jobRng);
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
        beginInit(j, restart::drawInitS(jobRng, jobs[j].gpuCount()));
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
    const bool restarting = job.interruptions() > 0;
    if (std::isnan(jobStartS[j]))
        jobStartS[j] = nowS();
    job.beginInit(nowS());
    if (!restarting)
        event(SEVERITY_INFO, EVENT_TYPE_JOB_STARTED, model->jobIndex(j),
              job.name() + " started on " + std::to_string(job.gpuCount()) + " GPUs (" + job.settings().model.config.name() + ")");
    auto& r = event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model->jobIndex(j),
                    job.name() + (restarting ? " recovery" : " start") + ": container, communicator init");
    r.set_recovery_stage(RECOVERY_STAGE_INIT);
    for (const std::uint32_t t : job.trays())
        setTray(t, NODE_STATE_ALLOCATED, HEALTH_STATE_HEALTHY, "", false);
    const std::uint32_t epoch = job.epoch;
    const double gpus = job.gpuCount();
    const double restoreS =
        restarting ? restart::kRestoreBaseS + restart::stateLoadS(job.settings().model.config.parameters(), gpus) *
                                               restart::kRestoreJitter.draw(jobRng)
                : 0.0;
    after(initS, [this, j, epoch, restoreS] {
        TrainingJob& job = jobs[j];
        if (job.epoch != epoch)
            return;
        auto afterRestore = [this, j] {
            TrainingJob& job = jobs[j];
            job.beginDataLoad(nowS());
            const std::uint32_t e2 = job.epoch;
            after(restart::kDataLoadS.draw(jobRng), [this, j, e2] {
                TrainingJob& job = jobs[j];
                if (job.epoch != e2)
                    return;
                job.beginFirstStep(nowS());
                job.firstStepExtraS = restart::kCompileWarmupS.draw(jobRng);
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
    const double diurnal = 1.0 + std::round(std::max(0.0, cooling->supplyOffsetC(region, unixNowMs()) + 1.0) * 0.005 / 0.0025) * 0.0025;
    const double slowdown = job.traySlowdown * diurnal;
    if (std::abs(slowdown - job.slowdown()) > 1e-9)
        job.setSlowdown(nowS(), slowdown);
}

double DigitalTwin::Impl::trayPace(std::uint32_t t) const {
    const TrayState& tray = trays[t];
    const double rackFactor = 1.0 / loads[model->rackOfTray(t)].throttleFactor;
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
    TrayState::TimedSlowdown& slowdown = trays.edit(t).*slot;
    slowdown.factor = static_cast<float>(factor);
    slowdown.kind = kind;
    const std::uint32_t epoch = ++slowdown.epoch;
    if (trays[t].job != kNoJob)
        updateJobSlowdown(trays[t].job);
    after(forS, [this, t, epoch, slot] {
        if ((trays[t].*slot).epoch != epoch)
            return;
        (trays.edit(t).*slot).factor = 1.0f;
        const TrayState& tray = trays[t];
        if (tray.job != kNoJob)
            updateJobSlowdown(tray.job);
    });
}

}  // namespace watchfloor::server::sim
