#include "JobRunner.h"

#include "RestartTimes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kHour = 3600;
constexpr double kDay = 86400;
// Stragglers (docs/domain/failure-rates.md): a tray this much slower than ideal is named, a job
// this much slower is straggling, and that is reported once it lasts (Minder's continuity threshold).
constexpr double kSlowTrayPace = 1.02;
constexpr double kStragglingPace = 1.05;
constexpr double kStragglerReportS = 240;

}  // namespace

JobRunner::JobRunner(std::vector<TrainingJob> jobs, Rng rng, const FleetModel& model, TwinScheduler& clock,
                     TelemetryPublisher& publisher, JobHost& host)
    : jobs_(std::move(jobs)),
      rng_(rng),
      model_(model),
      clock_(clock),
      publisher_(publisher),
      host_(host),
      startS_(jobs_.size(), std::numeric_limits<double>::quiet_NaN()),
      excluded_(jobs_.size()) {}

std::vector<double> JobRunner::configureReliability(double hardwarePerGpuS, double softwarePerGpuS,
                                                    double meanDetectS) {
    const double hardwareShare = hardwarePerGpuS / (hardwarePerGpuS + softwarePerGpuS);
    double cumulative = 0;
    std::vector<double> gpuWeights;
    for (auto& job : jobs_) {
        const double gpus = job.gpuCount();
        failuresPerS_.push_back(gpus * (hardwarePerGpuS + softwarePerGpuS));
        job.setReliability(
            failuresPerS_.back(),
            restart::meanRestartOverheadS(meanDetectS, hardwareShare, gpus, job.settings().model.config.parameters()));
        cumulative += gpus;
        gpuWeights.push_back(cumulative);
    }
    return gpuWeights;
}

void JobRunner::replace(std::uint32_t j) {
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), j), waiting_.end());
    beginReschedule(j);  // a new epoch voids the pending placement or start
}

void JobRunner::applyDiurnalDrift() {
    for (std::uint32_t j = 0; j < jobs_.size(); ++j)
        if (jobs_[j].computing()) applyDiurnalSlowdown(j);
}

std::uint32_t JobRunner::pickGpu(std::uint32_t j) {
    const TrainingJob& job = jobs_[j];
    const std::uint32_t t = job.trays()[rng_.below(static_cast<std::uint32_t>(job.trays().size()))];
    return t * kGpusPerTray + rng_.below(kGpusPerTray);
}

void JobRunner::sync(double nowS) {
    for (auto& job : jobs_) job.sync(nowS);
}

bool JobRunner::slotUsable(std::uint32_t j, std::uint32_t t) const {
    return host_.trayUsable(t) && trays()[t].job == j && excluded_[j].count(t) == 0;
}

void JobRunner::start(double warmS) {
    for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
        if (warmS > 0) {
            warmStart(j, std::max(warmS, 3600.0));
            continue;
        }
        jobs_[j].beginReschedule(0);
        // Jobs come up staggered over the first minute, as a scheduler would start them. An
        // operator action before then re-places the job (new epoch) and this start is void.
        const std::uint32_t epoch = jobs_[j].epoch;
        clock_.at(rng_.uniform(0, 60), [this, j, epoch] {
            if (jobs_[j].epoch == epoch) beginInit(j, restart::kContainerInitS.draw(rng_));
        });
    }
}

void JobRunner::warmStart(std::uint32_t j, double historyS) {
    TrainingJob& job = jobs_[j];
    // Phase lengths as a live start draws them (startJobs, beginInit); jobs started at different
    // times in the last `historyS`, and one may have been interrupted once, as often as the
    // configured failure rates make that likely over its history.
    WarmHistory h;
    h.firstStartS = -historyS * rng_.uniform(0.6, 1.0);
    h.initS = restart::drawInitS(rng_, job.gpuCount());
    h.dataLoadS = restart::kDataLoadS.draw(rng_);
    h.compileS = restart::kCompileWarmupS.draw(rng_);
    const double span = -h.firstStartS;
    if (rng_.uniform(0, 1) < 1.0 - std::exp(-failuresPerS_[j] * span)) {
        h.interruptionAtS = h.firstStartS + rng_.uniform(0.2, 0.7) * span;
        h.detectS = restart::kWarmHistoryDetectS.draw(rng_);
        h.rescheduleS = restart::kWarmSpareSwapS.draw(rng_);
        h.restoreS =
            restart::kRestoreBaseS + restart::stateLoadS(job.settings().model.config.parameters(), job.gpuCount());
    }
    job.warmStart(h);
    startS_[j] = h.firstStartS;
    const double interval = job.checkpointIntervalS();
    const double lastSaveOrStart = job.hasCheckpoint() ? job.lastCheckpointS() : job.phaseStartS();
    scheduleCheckpoint(j, std::max(0.0, lastSaveOrStart + interval - clock_.nowS()));
    updateSlowdown(j);
}

void JobRunner::interrupt(std::uint32_t j, double detectS, const std::string& cause, std::uint32_t entity) {
    TrainingJob& job = jobs_[j];
    const std::uint64_t lostSteps = job.stepAt(clock_.nowS()) - job.lastDurableStep();
    if (!job.interrupt(clock_.nowS())) return;
    ++interruptions_;
    job.stragglerReported = false;
    auto& e = publisher_.event(SEVERITY_CRITICAL, EVENT_TYPE_JOB_INTERRUPTED, model_.jobIndex(j),
                               job.name() + " interrupted (" + cause + "); " + std::to_string(lostSteps) +
                                   " steps since the last checkpoint (step " + std::to_string(job.lastDurableStep()) +
                                   ") are lost");
    e.set_cause(cause);
    e.add_related_entity_indexes(entity);
    e.set_value(static_cast<double>(lostSteps));
    auto& r = publisher_.event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model_.jobIndex(j),
                               job.name() + " recovery: detecting the fault");
    r.set_recovery_stage(RECOVERY_STAGE_DETECT);
    const std::uint32_t epoch = job.epoch;
    clock_.after(detectS, [this, j, epoch] {
        if (jobs_[j].epoch == epoch) beginReschedule(j);
    });
}

void JobRunner::beginReschedule(std::uint32_t j) {
    TrainingJob& job = jobs_[j];
    job.beginReschedule(clock_.nowS());
    job.trayWait.reset();
    auto& r = publisher_.event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model_.jobIndex(j),
                               job.name() + " recovery: rescheduling onto healthy trays");
    r.set_recovery_stage(RECOVERY_STAGE_RESCHEDULE);
    if (!tryPlace(j)) waiting_.push_back(j);
}

bool JobRunner::tryPlace(std::uint32_t j) {
    TrainingJob& job = jobs_[j];
    // Trays being drained or excluded leave the job now, whether or not spares are free.
    for (const std::uint32_t t : job.trays())
        if (trays()[t].job == j && (trays()[t].node == NODE_STATE_DRAINING || excluded_[j].count(t)))
            host_.releaseTray(t);
    std::vector<std::size_t> broken;
    for (std::size_t i = 0; i < job.trays().size(); ++i)
        if (!slotUsable(j, job.trays()[i])) broken.push_back(i);
    // Warm spares: idle healthy trays, nearest first (same rack, then same region, then any).
    std::vector<std::uint32_t> spares;
    if (!broken.empty()) {
        const std::uint32_t homeRack = model_.rackOfTray(job.trays()[broken.front()]);
        const std::uint32_t homeRegion = model_.regionOfRack(homeRack);
        std::vector<std::pair<int, std::uint32_t>> candidates;
        for (std::uint32_t t = 0; t < trays().size(); ++t) {
            if (trays()[t].job != kNoJob || trays()[t].node != NODE_STATE_IDLE || !host_.trayUsable(t) ||
                excluded_[j].count(t))
                continue;
            const std::uint32_t r = model_.rackOfTray(t);
            const int distance = r == homeRack ? 0 : model_.regionOfRack(r) == homeRegion ? 1 : 2;
            candidates.emplace_back(distance, t);
        }
        if (candidates.size() < broken.size()) {
            // What the job waits for, on its Job message until a placement succeeds.
            const double since = job.trayWait ? job.trayWait->sinceS : clock_.nowS();
            job.trayWait = TrainingJob::TrayWait{static_cast<std::uint32_t>(broken.size()),
                                                 static_cast<std::uint32_t>(candidates.size()), since};
            return false;
        }
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < broken.size(); ++i) spares.push_back(candidates[i].second);
    }
    job.trayWait.reset();
    for (std::size_t i = 0; i < broken.size(); ++i) {
        const std::uint32_t old = job.trays()[broken[i]];
        if (trays()[old].job == j) host_.releaseTray(old);
        job.trays()[broken[i]] = spares[i];
        host_.assignTray(spares[i], j);
    }
    // Warm spare swap 1-3 min; restart in place 20-60 s (docs/domain/failure-rates.md).
    const double rescheduleS = (broken.empty() ? restart::kRestartInPlaceS : restart::kWarmSpareSwapS).draw(rng_);
    const std::uint32_t epoch = job.epoch;
    clock_.after(rescheduleS, [this, j, epoch] {
        if (jobs_[j].epoch != epoch) return;
        // A tray may have failed meanwhile: reschedule again.
        for (const std::uint32_t t : jobs_[j].trays())
            if (!slotUsable(j, t)) {
                if (!tryPlace(j)) waiting_.push_back(j);
                return;
            }
        beginInit(j, restart::drawInitS(rng_, jobs_[j].gpuCount()));
    });
    return true;
}

void JobRunner::offerTrays() {
    std::vector<std::uint32_t> still;
    for (const std::uint32_t j : waiting_)
        if (jobs_[j].phase() == JobPhase::Reschedule && !tryPlace(j)) still.push_back(j);
    waiting_ = std::move(still);
}

void JobRunner::beginInit(std::uint32_t j, double initS) {
    TrainingJob& job = jobs_[j];
    const bool restarting = job.interruptions() > 0;
    if (std::isnan(startS_[j])) startS_[j] = clock_.nowS();
    job.beginInit(clock_.nowS());
    if (!restarting)
        publisher_.event(SEVERITY_INFO, EVENT_TYPE_JOB_STARTED, model_.jobIndex(j),
                         job.name() + " started on " + std::to_string(job.gpuCount()) + " GPUs (" +
                             job.settings().model.config.name() + ")");
    auto& r = publisher_.event(SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model_.jobIndex(j),
                               job.name() + (restarting ? " recovery" : " start") + ": container, communicator init");
    r.set_recovery_stage(RECOVERY_STAGE_INIT);
    for (const std::uint32_t t : job.trays()) host_.markAllocated(t);
    const std::uint32_t epoch = job.epoch;
    const double gpus = job.gpuCount();
    const double restoreS =
        restarting ? restart::kRestoreBaseS + restart::stateLoadS(job.settings().model.config.parameters(), gpus) *
                                                  restart::kRestoreJitter.draw(rng_)
                   : 0.0;
    clock_.after(initS, [this, j, epoch, restoreS] {
        TrainingJob& job = jobs_[j];
        if (job.epoch != epoch) return;
        if (restoreS > 0) {
            job.beginRestore(clock_.nowS());
            auto& r = publisher_.event(
                SEVERITY_INFO, EVENT_TYPE_JOB_RECOVERING, model_.jobIndex(j),
                job.name() + " recovery: loading checkpoint of step " + std::to_string(job.lastDurableStep()));
            r.set_recovery_stage(RECOVERY_STAGE_RESTORE);
            const std::uint32_t e1 = job.epoch;
            clock_.after(restoreS, [this, j, e1] {
                if (jobs_[j].epoch == e1) afterRestore(j);
            });
        } else {
            afterRestore(j);
        }
    });
}

void JobRunner::afterRestore(std::uint32_t j) {
    TrainingJob& job = jobs_[j];
    job.beginDataLoad(clock_.nowS());
    const std::uint32_t e2 = job.epoch;
    clock_.after(restart::kDataLoadS.draw(rng_), [this, j, e2] {
        TrainingJob& job = jobs_[j];
        if (job.epoch != e2) return;
        job.beginFirstStep(clock_.nowS());
        job.firstStepExtraS = restart::kCompileWarmupS.draw(rng_);
        const std::uint32_t e3 = job.epoch;
        clock_.after(job.firstStepExtraS + job.stepS(), [this, j, e3] {
            TrainingJob& job = jobs_[j];
            if (job.epoch != e3) return;
            job.beginRunning(clock_.nowS());
            if (job.interruptions() > 0)
                publisher_.event(SEVERITY_INFO, EVENT_TYPE_JOB_RESUMED, model_.jobIndex(j),
                                 job.name() + " resumed at step " + std::to_string(job.stepAt(clock_.nowS())));
            scheduleCheckpoint(j);
            updateSlowdown(j);
        });
    });
}

void JobRunner::scheduleCheckpoint(std::uint32_t j, double delayS) {
    const std::uint32_t epoch = jobs_[j].epoch;
    clock_.after(delayS >= 0 ? delayS : jobs_[j].checkpointIntervalS(), [this, j, epoch] {
        TrainingJob& job = jobs_[j];
        if (job.epoch != epoch || job.phase() != JobPhase::Running) return;
        // Saves start at a step boundary.
        clock_.at(job.nextStepBoundary(clock_.nowS()), [this, j, epoch] {
            TrainingJob& job = jobs_[j];
            if (job.epoch != epoch || job.phase() != JobPhase::Running) return;
            job.beginCheckpoint(clock_.nowS());
            const std::uint32_t saving = job.epoch;
            clock_.after(job.settings().checkpointSaveS, [this, j, saving] {
                TrainingJob& job = jobs_[j];
                if (job.epoch != saving) return;
                job.endCheckpoint(clock_.nowS());
                auto& e = publisher_.event(
                    SEVERITY_INFO, EVENT_TYPE_JOB_CHECKPOINT, model_.jobIndex(j),
                    job.name() + " checkpoint of step " + std::to_string(job.lastDurableStep()) + " is durable");
                e.set_value(job.settings().checkpointSaveS);
                scheduleCheckpoint(j);
            });
        });
    });
}

void JobRunner::applyDiurnalSlowdown(std::uint32_t j) {
    TrainingJob& job = jobs_[j];
    // Diurnal: ~0.5% per °C of supply drift via DVFS (Llama 3's 1-2% peak to peak), in 0.25% steps.
    const std::uint32_t region = model_.regionOfRack(model_.rackOfTray(job.trays().front()));
    const double diurnal = 1.0 + std::round(std::max(0.0, host_.supplyOffsetC(region) + 1.0) * 0.005 / 0.0025) * 0.0025;
    const double slowdown = job.traySlowdown * diurnal;
    if (std::abs(slowdown - job.slowdown()) > 1e-9) job.setSlowdown(clock_.nowS(), slowdown);
}

double JobRunner::trayStepS(std::uint32_t j, std::uint32_t t) const {
    const TrainingJob& job = jobs_[j];
    // The job's step is its slowest tray's (job.stepS() = ideal x traySlowdown x diurnal drift):
    // every tray computes at its own pace under the same drift, then waits in the collectives.
    return job.stepS() * host_.trayPace(t) / job.traySlowdown;
}

void JobRunner::updateSlowdown(std::uint32_t j) {
    TrainingJob& job = jobs_[j];
    // A synchronous step runs at the pace of the slowest rank (docs/domain/failure-rates.md).
    double worst = 1.0;
    std::vector<std::uint32_t> slow;
    for (const std::uint32_t t : job.trays()) {
        const double factor = host_.trayPace(t);
        worst = std::max(worst, factor);
        if (factor >= kSlowTrayPace) slow.push_back(t);
    }
    job.traySlowdown = worst;
    applyDiurnalSlowdown(j);

    // Detected once it lasts 4 min (Minder's continuity threshold).
    const bool straggling = worst >= kStragglingPace;
    job.stragglerTrays = straggling ? slow : std::vector<std::uint32_t>{};
    if (straggling && job.stragglerSinceS < 0) {
        job.stragglerSinceS = clock_.nowS();
        clock_.after(kStragglerReportS, [this, j] { updateSlowdown(j); });
    }
    if (straggling && !job.stragglerReported && clock_.nowS() - job.stragglerSinceS >= kStragglerReportS - 1e-6 &&
        job.computing()) {
        job.stragglerReported = true;
        std::string names;
        for (const std::uint32_t t : slow) {
            const TrayState& tray = trays()[t];
            const char* why = tray.episodic.factor > 1.0f      ? tray.episodic.kind
                              : tray.scripted.factor > 1.0f    ? tray.scripted.kind
                              : tray.persistentSlowdown > 1.0f ? "slow host"
                                                               : "thermal";
            names += (names.empty() ? "" : ", ") + model_.trayName(t) + " (" + why + ")";
        }
        auto& e = publisher_.event(
            SEVERITY_WARNING, EVENT_TYPE_STRAGGLER_DETECTED, model_.jobIndex(j),
            job.name() + " steps take " + std::to_string(worst).substr(0, 4) + "x the ideal time; slowest: " + names);
        for (const std::uint32_t t : slow) e.add_related_entity_indexes(model_.trayIndex(t));
        e.set_value(worst);
    }
    if (!straggling && job.stragglerSinceS >= 0) {
        job.stragglerSinceS = -1;
        if (job.stragglerReported) {
            job.stragglerReported = false;
            auto& e = publisher_.event(SEVERITY_INFO, EVENT_TYPE_STRAGGLER_CLEARED, model_.jobIndex(j),
                                       job.name() + " back to full speed");
            e.set_value(worst);
        }
    }
}

void JobRunner::scheduleEpisodes() {
    // Communication fail-slow: ~0.4 per day for a 512+ GPU job (FALCON: ~40% of large jobs);
    // compute fail-slow: rarer, 0.02 per job-day [A, docs/domain/failure-rates.md].
    double total = 0;
    std::vector<double> rates;
    for (const auto& job : jobs_) {
        const double rate = (0.4 * std::min(1.0, job.gpuCount() / 512.0) + 0.02) / kDay;
        rates.push_back(rate);
        total += rate;
    }
    if (total <= 0) return;
    clock_.after(rng_.exponential(1.0 / total), [this, rates, total] {
        double pick = rng_.uniform() * total;
        std::uint32_t j = 0;
        while (j + 1 < rates.size() && pick >= rates[j]) pick -= rates[j++];
        TrainingJob& job = jobs_[j];
        const double commShare = (rates[j] - 0.02 / kDay) / rates[j];
        const bool comm = rng_.chance(commShare);
        const std::uint32_t t = job.trays()[rng_.below(static_cast<std::uint32_t>(job.trays().size()))];
        const double forS = comm ? std::clamp(rng_.logNormal(24 * 60, 1.0), 30.0, 10 * kHour)
                                 : std::clamp(rng_.logNormal(10 * 60, 0.8), 30.0, 4 * kHour);
        const double factor = comm ? rng_.uniform(1.1, 1.5) : rng_.uniform(1.05, 1.2);
        if (job.computing()) host_.startEpisode(t, factor, forS, comm ? "communication" : "compute");
        scheduleEpisodes();
    });
}

}  // namespace watchfloor::server::sim
