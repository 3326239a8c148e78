#pragma once
// One synchronous training job: its trays, step clock, checkpoints and recovery pipeline
// (docs/domain/failure-rates.md), recorded into a GoodputLedger with Google's event semantics.
// The twin decides *when* things happen; this class keeps the arithmetic of steps and time
// straight.

#include "EttrBudget.h"
#include "GoodputLedger.h"
#include "TrainingModels.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

enum class JobPhase : std::uint8_t {
    Detect,      // fault happened, not noticed yet
    Reschedule,  // replacing trays (warm spare or waiting for repair)
    Init,        // container + communicator init
    Restore,     // checkpoint load
    DataLoad,    // first data load after the (re)start
    FirstStep,   // compile + first step
    Running,
    Checkpointing,  // blocking part of a save
};

struct JobSettings {
    std::string name;
    TrainingModel model;
    std::vector<std::uint32_t> trays;  // tray ordinals
    double checkpointIntervalS = 1800;
    bool checkpointIntervalAuto = false;  // ckpt_interval=auto: Young/Daly, see checkpointIntervalS()
    double checkpointSaveS = 30;
    double mfuTarget = 0.40;  // healthy MFU drawn per job (docs/domain/goodput.md)
};

// A job's life before the twin started (fleetd --warm-start), as the caller drew it. Times are
// twin seconds, so all of them are negative: the history ends at 0.
struct WarmHistory {
    double firstStartS = -6 * 3600.0;
    double initS = 120;  // container + communicator init, each (re)start
    double dataLoadS = 10;
    double compileS = 120;  // the first step's extra time, each (re)start
    // One interruption at this time, with its recovery; NaN: none.
    double interruptionAtS = std::numeric_limits<double>::quiet_NaN();
    double detectS = 60;
    double rescheduleS = 90;
    double restoreS = 40;
};

class TrainingJob {
public:
    explicit TrainingJob(JobSettings settings);

    const JobSettings& settings() const { return settings_; }
    const std::string& name() const { return settings_.name; }
    std::uint32_t gpuCount() const;
    std::vector<std::uint32_t>& trays() { return settings_.trays; }
    const std::vector<std::uint32_t>& trays() const { return settings_.trays; }
    JobPhase phase() const { return phase_; }
    bool computing() const { return phase_ == JobPhase::Running || phase_ == JobPhase::FirstStep; }
    // Holding its trays and able to be interrupted (not already recovering from a fault).
    bool exposed() const { return phase_ != JobPhase::Detect && phase_ != JobPhase::Reschedule; }
    double idealStepS() const { return idealStepS_; }
    double stepS() const { return idealStepS_ * slowdown_; }
    double slowdown() const { return slowdown_; }
    std::uint64_t stepAt(double t) const;
    std::uint64_t lastDurableStep() const { return ledger_.lastDurableStep(); }
    bool hasCheckpoint() const { return !std::isnan(lastCheckpointS_); }
    double lastCheckpointS() const { return lastCheckpointS_; }  // NaN: no durable checkpoint yet
    double phaseStartS() const { return phaseStartS_; }
    std::uint32_t interruptions() const { return interruptions_; }
    double exposureS(double now) const;
    // Meta's E[ETTR] inputs the twin configured for this job (Λ from the published rates, u0
    // from its recovery pipeline). Call before the job starts.
    void setReliability(double configuredFailuresPerS, double restartOverheadS);
    // The interval the next save waits: the configured one, or (ckpt_interval=auto) Daly's
    // optimum for the job's failure rate as of the last save or interruption: the configured
    // rates until the job has been interrupted, the measured rate after.
    double checkpointIntervalS() const { return intervalS_; }
    FailureRateEstimate failureRate(double now) const;

    // --- lifecycle, t = seconds since the twin started -----------------------------------------
    // Replays `history` through the lifecycle below (start, init, data load, first step, steps
    // with a blocking save every checkpoint interval, and the interruption with its recovery if
    // one is drawn), so that at 0 the job is Running mid-run with a ledger that has history, as
    // if the twin had watched it. The next save is due at lastCheckpointS() + the interval.
    void warmStart(const WarmHistory& history);
    void beginInit(double t);  // (re)start: jobStart + accelerator init
    void beginRestore(double t);
    void beginDataLoad(double t);
    void beginFirstStep(double t);
    void beginRunning(double t);     // the first step (with program startup) finished
    void beginCheckpoint(double t);  // at a step boundary
    void endCheckpoint(double t);    // the save is durable
    // A fault hit the job at t. Returns false when it was already recovering (not a new
    // interruption: the pending restart simply needs more trays).
    bool interrupt(double t);
    void beginReschedule(double t);
    // Step time becomes ideal x `slowdown` from t on.
    void setSlowdown(double t, double slowdown);
    // Records the steps completed by t, so provisional goodput includes the run in progress.
    void sync(double t) { flushSteps(t); }
    const GoodputLedger& ledger() const { return ledger_; }
    // The next step boundary at or after t (Running only).
    double nextStepBoundary(double t) const;

    // Fills every Job field the ledger and the clock know; `startUnixMs` is the wall time of
    // twin second 0.
    void fill(double now, std::int64_t startUnixMs, watchfloor::v1::Job& job) const;
    watchfloor::v1::GoodputBreakdown breakdown(double now) const { return ledger_.breakdown(Seconds(now)); }
    double goodputRatio(double now) const { return ledger_.goodputRatio(Seconds(now)); }
    double confirmedGoodputRatio(double now) const { return ledger_.confirmedGoodputRatio(Seconds(now)); }
    double slidingEttr(double now) const { return ledger_.slidingEttrRatio(Seconds(now)); }
    double slidingGoodput(double now) const { return ledger_.slidingGoodputRatio(Seconds(now)); }
    EttrModel ettrModel() const;
    double mfu() const;

    // Straggler bookkeeping owned by the twin.
    std::vector<std::uint32_t> stragglerTrays;
    bool stragglerReported = false;
    double stragglerSinceS = -1;
    double traySlowdown = 1.0;  // slowest tray (stragglers, thermal), before diurnal drift
    std::uint32_t epoch = 0;    // bumps on every phase change: stale timers ignore themselves
    std::vector<std::uint32_t> traysToReplace;
    // Set while the job waits in Reschedule for trays (the last placement found too few spares):
    // how many of its trays cannot run it and how many usable idle trays it may take; Job.tray_wait.
    struct TrayWait {
        std::uint32_t needed = 0;
        std::uint32_t free = 0;
        double sinceS = 0;
    };
    std::optional<TrayWait> trayWait;
    double detectedAtS = 0;
    double firstStepExtraS = 0;  // compile time of the current first step

private:
    void enter(JobPhase phase, double t);
    void flushSteps(double t);
    void updateAutoInterval(double t);

    JobSettings settings_;
    GoodputLedger ledger_;
    double idealStepS_;
    double slowdown_ = 1.0;
    JobPhase phase_ = JobPhase::Reschedule;
    double phaseStartS_ = 0;
    double chunkStartS_ = 0;  // Running: when the current run of equal steps began
    std::uint64_t step_ = 0;  // steps completed before chunkStartS_
    double lastCheckpointS_ = std::numeric_limits<double>::quiet_NaN();  // NaN: no durable checkpoint yet
    std::uint32_t interruptions_ = 0;
    double exposureBeforeS_ = 0;
    double exposedSinceS_ = std::numeric_limits<double>::quiet_NaN();  // NaN: not holding its trays
    bool started_ = false;
    double configuredFailuresPerS_ = 0;
    double restartOverheadS_ = 0;
    double intervalS_;
};

}  // namespace watchfloor::server::sim
