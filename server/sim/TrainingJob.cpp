#include "TrainingJob.h"

#include "FleetModel.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {
namespace {

using namespace watchfloor::v1;

double flopsPerToken(const ModelConfig& m) {
    // PaLM: 6N + 12 L H Q T (docs/domain/goodput.md)
    return 6.0 * m.parameters() + 12.0 * m.layers() * m.heads() * m.head_dim() * m.sequence_length();
}

double idealStepSeconds(const JobSettings& s) {
    return s.model.tokensPerGpuPerStep * flopsPerToken(s.model.config) /
           (s.model.config.gpu_peak_flops() * s.mfuTarget);
}

RecoveryStage stageOf(JobPhase phase) {
    switch (phase) {
    case JobPhase::Detect: return RECOVERY_STAGE_DETECT;
    case JobPhase::Reschedule: return RECOVERY_STAGE_RESCHEDULE;
    case JobPhase::Init: return RECOVERY_STAGE_INIT;
    case JobPhase::Restore:
    case JobPhase::DataLoad: return RECOVERY_STAGE_RESTORE;
    default: return RECOVERY_STAGE_UNSPECIFIED;
    }
}

}  // namespace

TrainingJob::TrainingJob(JobSettings settings)
    : settings_(std::move(settings)),
      ledger_(Seconds(idealStepSeconds(settings_))),
      idealStepS_(idealStepSeconds(settings_)),
      intervalS_(settings_.checkpointIntervalS) {
    settings_.model.config.set_tokens_per_step(settings_.model.tokensPerGpuPerStep * gpuCount());
}

std::uint32_t TrainingJob::gpuCount() const {
    return static_cast<std::uint32_t>(settings_.trays.size()) * kGpusPerTray;
}

std::uint64_t TrainingJob::stepAt(double t) const {
    if (phase_ != JobPhase::Running || t <= chunkStartS_) return step_;
    return step_ + static_cast<std::uint64_t>((t - chunkStartS_) / stepS());
}

double TrainingJob::exposureS(double now) const {
    return exposureBeforeS_ + (!std::isnan(exposedSinceS_) ? std::max(0.0, now - exposedSinceS_) : 0.0);
}

void TrainingJob::setReliability(double configuredFailuresPerS, double restartOverheadS) {
    configuredFailuresPerS_ = configuredFailuresPerS;
    restartOverheadS_ = restartOverheadS;
    updateAutoInterval(phaseStartS_);
}

FailureRateEstimate TrainingJob::failureRate(double now) const {
    return jobFailureRate(configuredFailuresPerS_, {interruptions_, exposureS(now)});
}

EttrModel TrainingJob::ettrModel() const {
    return {configuredFailuresPerS_, restartOverheadS_, intervalS_, settings_.checkpointSaveS};
}

void TrainingJob::updateAutoInterval(double t) {
    if (!settings_.checkpointIntervalAuto) return;
    const FailureRateEstimate rate = failureRate(t);
    if (!(rate.perS > 0)) return;  // no rate to optimise for: keep the configured interval
    // The fleet file's lower bound on intervals holds for the automatic one too.
    const double optimumS = dalyOptimalInterval(Seconds(settings_.checkpointSaveS), Seconds(1.0 / rate.perS)).count();
    intervalS_ = std::max(10.0, optimumS);
}

double TrainingJob::nextStepBoundary(double t) const {
    if (phase_ != JobPhase::Running || t <= chunkStartS_) return std::max(t, chunkStartS_);
    const double steps = std::ceil((t - chunkStartS_) / stepS() - 1e-9);
    return chunkStartS_ + steps * stepS();
}

void TrainingJob::enter(JobPhase phase, double t) {
    phase_ = phase;
    phaseStartS_ = t;
    ++epoch;
}

void TrainingJob::flushSteps(double t) {
    if (phase_ != JobPhase::Running) return;
    const auto count = static_cast<std::uint64_t>(std::max(0.0, (t - chunkStartS_) / stepS() + 1e-9));
    if (count > 0) {
        const double end = chunkStartS_ + static_cast<double>(count) * stepS();
        ledger_.steps(step_ + 1, count, Seconds(chunkStartS_), Seconds(end), false);
        step_ += count;
        chunkStartS_ = end;
    }
}

void TrainingJob::warmStart(const WarmHistory& h) {
    double t = h.firstStartS;
    auto startSegment = [&](bool restart) {
        beginInit(t);
        t += h.initS;
        if (restart) {
            beginRestore(t);
            t += h.restoreS;
        }
        beginDataLoad(t);
        t += h.dataLoadS;
        beginFirstStep(t);
        t += h.compileS + stepS();
        beginRunning(t);
    };
    // Blocking saves as the twin schedules them (an interval after the last one, at a step
    // boundary), each finished before `end`.
    auto runUntil = [&](double end) {
        for (;;) {
            const double saveAt = nextStepBoundary(t + intervalS_);
            if (saveAt + settings_.checkpointSaveS >= end) return;
            beginCheckpoint(saveAt);
            t = saveAt + settings_.checkpointSaveS;
            endCheckpoint(t);
        }
    };
    startSegment(false);
    if (h.interruptionAtS > t && h.interruptionAtS < 0) {
        runUntil(h.interruptionAtS);
        t = h.interruptionAtS;
        interrupt(t);
        t += h.detectS;
        beginReschedule(t);
        t += h.rescheduleS;
        startSegment(true);
    }
    runUntil(0.0);
}

void TrainingJob::beginInit(double t) {
    ledger_.jobStart(Seconds(t));
    started_ = true;
    exposedSinceS_ = t;
    enter(JobPhase::Init, t);
}

void TrainingJob::beginRestore(double t) {
    ledger_.acceleratorInit(Seconds(phaseStartS_), Seconds(t));
    enter(JobPhase::Restore, t);
}

void TrainingJob::beginDataLoad(double t) {
    if (phase_ == JobPhase::Restore)
        ledger_.checkpointRestore(ledger_.lastDurableStep(), Seconds(phaseStartS_), Seconds(t));
    else if (phase_ == JobPhase::Init)
        ledger_.acceleratorInit(Seconds(phaseStartS_), Seconds(t));
    enter(JobPhase::DataLoad, t);
}

void TrainingJob::beginFirstStep(double t) {
    ledger_.dataLoadingSync(Seconds(phaseStartS_), Seconds(t));
    // Restart from the last durable checkpoint.
    step_ = ledger_.lastDurableStep();
    enter(JobPhase::FirstStep, t);
}

void TrainingJob::beginRunning(double t) {
    ledger_.steps(step_ + 1, 1, Seconds(phaseStartS_), Seconds(t), true);
    ++step_;
    enter(JobPhase::Running, t);
    chunkStartS_ = t;
}

void TrainingJob::beginCheckpoint(double t) {
    flushSteps(t);
    enter(JobPhase::Checkpointing, t);
}

void TrainingJob::endCheckpoint(double t) {
    ledger_.checkpointSave(step_, Seconds(phaseStartS_), Seconds(t));
    lastCheckpointS_ = t;
    updateAutoInterval(t);
    enter(JobPhase::Running, t);
    chunkStartS_ = t;
}

bool TrainingJob::interrupt(double t) {
    if (!exposed()) return false;
    switch (phase_) {
    case JobPhase::Running: flushSteps(t); break;
    case JobPhase::Init: ledger_.acceleratorInit(Seconds(phaseStartS_), Seconds(t)); break;
    case JobPhase::Restore:
        ledger_.checkpointRestore(ledger_.lastDurableStep(), Seconds(phaseStartS_), Seconds(t));
        break;
    case JobPhase::DataLoad: ledger_.dataLoadingSync(Seconds(phaseStartS_), Seconds(t)); break;
    default: break;  // a partial first step or an unfinished save is simply lost
    }
    ledger_.disruption(Seconds(t));
    step_ = ledger_.lastDurableStep();  // the restart point: later steps are lost
    ++interruptions_;
    exposureBeforeS_ = exposureS(t);
    exposedSinceS_ = std::numeric_limits<double>::quiet_NaN();
    updateAutoInterval(t);
    enter(JobPhase::Detect, t);
    return true;
}

void TrainingJob::beginReschedule(double t) { enter(JobPhase::Reschedule, t); }

void TrainingJob::setSlowdown(double t, double slowdown) {
    if (phase_ == JobPhase::Running) {
        flushSteps(t);
        // The step in flight restarts its clock at the new pace: at most one step of skew.
        chunkStartS_ = std::min(chunkStartS_, t);
    }
    slowdown_ = slowdown;
}

double TrainingJob::mfu() const {
    const double tokensPerS = settings_.model.config.tokens_per_step() / stepS();
    return palmMfu(settings_.model.config, tokensPerS, gpuCount());
}

void TrainingJob::fill(double now, std::int64_t startUnixMs, Job& job) const {
    auto unixMs = [startUnixMs](double s) { return startUnixMs + static_cast<std::int64_t>(std::llround(s * 1000.0)); };
    switch (phase_) {
    case JobPhase::Running:
    case JobPhase::FirstStep: job.set_state(JOB_STATE_RUNNING); break;
    case JobPhase::Checkpointing: job.set_state(JOB_STATE_CHECKPOINTING); break;
    default: job.set_state(started_ && ledger_.disruptions() > 0 ? JOB_STATE_RECOVERING : JOB_STATE_PENDING); break;
    }
    job.set_recovery_stage(stageOf(phase_));
    if (trayWait && phase_ == JobPhase::Reschedule) {
        JobTrayWait& wait = *job.mutable_tray_wait();
        wait.set_trays_needed(trayWait->needed);
        wait.set_spares_free(trayWait->free);
        wait.set_since_unix_ms(unixMs(trayWait->sinceS));
    } else {
        job.clear_tray_wait();
    }
    job.clear_node_indexes();
    job.set_gpu_count(gpuCount());
    *job.mutable_model() = settings_.model.config;
    job.set_step(stepAt(now));
    job.set_last_checkpoint_step(ledger_.lastDurableStep());
    if (hasCheckpoint()) job.set_last_checkpoint_unix_ms(unixMs(lastCheckpointS_));
    job.set_checkpoint_interval_s(intervalS_);
    job.set_checkpoint_save_s(settings_.checkpointSaveS);
    job.set_ideal_step_time_s(idealStepS_);
    job.set_step_time_s(stepS());
    job.set_mfu_ratio(computing() || phase_ == JobPhase::Checkpointing ? mfu() : 0.0);
    job.set_goodput_ratio(ledger_.goodputRatio(Seconds(now)));
    job.set_confirmed_goodput_ratio(ledger_.confirmedGoodputRatio(Seconds(now)));
    job.set_ettr_ratio(ledger_.ettrRatio(Seconds(now)));
    job.set_ettr_sliding_1h_ratio(ledger_.slidingEttrRatio(Seconds(now)));
    job.set_goodput_sliding_1h_ratio(ledger_.slidingGoodputRatio(Seconds(now)));
    const EttrModel model = ettrModel();
    job.set_expected_ettr_ratio(expectedEttr(model));
    *job.mutable_breakdown() = ledger_.breakdown(Seconds(now));
    job.set_interruptions(interruptions_);
    const double exposure = exposureS(now);
    *job.mutable_ettr_budget() = ettrBudget(model, job.breakdown(), {interruptions_, exposure});
    const MttfEstimate mtti = estimateMttf(exposure, interruptions_);
    job.set_mtti_s(interruptions_ > 0 ? mtti.mttfS : 0.0);
    job.set_mtti_low_s(mtti.lowS);
    job.set_mtti_high_s(std::isfinite(mtti.highS) ? mtti.highS : 0.0);
    // Daly's optimum from the measured MTTI once there is one, else from the configured rates.
    *job.mutable_checkpoint_advice() =
        checkpointAdvice(model, failureRate(now), gpuCount(), settings_.checkpointIntervalAuto);
    job.set_young_daly_interval_s(job.checkpoint_advice().young_daly_interval_s());
    job.clear_straggler_node_indexes();
    job.set_straggler_slowdown(slowdown_);
}

}  // namespace watchfloor::server::sim
