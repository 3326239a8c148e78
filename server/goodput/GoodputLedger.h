#pragma once
// The goodput ledger of one training job: Google ml-goodput-measurement semantics
// (docs/domain/goodput.md) fed by the job's lifecycle records, plus a
// straggler-slowdown category and Meta's ETTR (cumulative and sliding). Goodput counts kept
// steps at the ideal pace; ETTR counts them at the pace they ran (docs/domain/goodput.md).
//
// Step records may be aggregated (a run of consecutive steps as one record) so a 54-day
// simulation stays cheap; every record costs O(1) amortised and memory stays bounded by the
// steps not yet checkpointed plus the sliding window.
//
// Categories (all in seconds, summing to total = (jobEnd or now) - first jobStart):
//   productive          kept steps (not lost) at the ideal pace: min(duration, count x ideal),
//                       minus any blocking save that overlapped them
//   accelerator_init    init intervals            (TPU_INITIALIZATION)
//   training_prep       prep intervals            (TRAINING_PREP)
//   program_startup     first step of a segment minus the ideal step time (PROGRAM_STARTUP)
//   data_loading_sync   first data load after each (re)start (DATA_LOADING_SYNC); later loads
//                       of the same segment overlap steps (DATA_LOADING_ASYNC) and are ignored
//   checkpoint_save     blocking part of saves    (UNPRODUCTIVE_CHECKPOINT_SAVE_TIME)
//   checkpoint_restore  restore intervals         (UNPRODUCTIVE_CHECKPOINT_RESTORE_TIME)
//   wasted_progress     kept steps after the last durable checkpoint, lost to a disruption or
//                       to a restore of an older checkpoint (productive + straggler time)
//   infra_recovery      new jobStart - start of the step in flight at the disruption
//                       (INFRASTRUCTURE_RECOVERY_FROM_DISRUPTION); the in-flight step began
//                       when the segment's last record ended. While the job is still down it
//                       grows up to `now`.
//   straggler_slowdown  step time above count x ideal step time (kept steps only)
//   other               total minus everything above (never negative): gaps between records
//                       and the time since the last record of a running segment
//
// Ordering: records are expected in time order. The ledger keeps a cursor (the latest time
// accounted); an interval starting before it keeps only its part after the cursor (clipped),
// one ending before it is ignored (rejected), a point record before it is moved to the cursor
// (clipped). A blocking save that overlaps the step record just before it is the exception:
// Google's library subtracts blocking save time from step time, so the overlap moves from the
// steps (productive first, then straggler) to checkpoint_save. Records before the first
// jobStart, after jobEnd, with end < begin or non-finite times, steps with count 0 or numbers
// already recorded in the segment, and work records while the job is down (after disruption,
// before jobStart) are rejected. See issues().
//
// A checkpoint of a step inside an aggregated record splits that record proportionally: the
// first k of its n steps get k/n of its time (exact for equal steps, which aggregation assumes).
//
// Not thread-safe: even the const queries prune the sliding window. One ledger per job, used
// from one thread (or under the owner's lock).

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>

#include "StepRuns.h"

namespace watchfloor::server {

using Seconds = std::chrono::duration<double>;

// Records the ledger could not use as given. The ledger never goes negative or double counts:
// a record that makes no sense is ignored (rejected), one that overlaps time already accounted
// keeps only its new part (clipped). `lastProblem` says which record and why.
struct LedgerIssues {
    std::uint64_t rejected = 0;
    std::uint64_t clipped = 0;
    std::string lastProblem;
};

class GoodputLedger {
public:
    // `idealStepTime` is the healthy, unslowed step time of the job (sets straggler excess and
    // program startup); `slidingWindow` is the ETTR window (1 h, ByteRobust-style).
    explicit GoodputLedger(Seconds idealStepTime, Seconds slidingWindow = std::chrono::hours(1));

    // --- lifecycle records (t = seconds since an arbitrary epoch shared by all records) ---
    // First start and every restart. A restart without a disruption record before it implies a
    // disruption at t (counted).
    void jobStart(Seconds t);
    void acceleratorInit(Seconds begin, Seconds end);
    void trainingPrep(Seconds begin, Seconds end);
    void dataLoadingSync(Seconds begin, Seconds end);
    // Restoring `step` makes it the last durable step; restoring an older checkpoint than the
    // last durable one rolls back: the durable steps after it become wasted progress.
    void checkpointRestore(std::uint64_t step, Seconds begin, Seconds end);
    // Steps [firstStep, firstStep+count) ran from begin to end. The first step after a
    // (re)start includes program startup: pass `includesFirstStepOfSegment` = true, and record
    // that step alone (count = 1): the whole excess of a flagged record over count x ideal is
    // taken as program startup, none as straggler slowdown.
    void steps(std::uint64_t firstStep, std::uint64_t count, Seconds begin, Seconds end,
               bool includesFirstStepOfSegment);
    // A blocking checkpoint save of `step` (all steps <= step are then durable).
    void checkpointSave(std::uint64_t step, Seconds begin, Seconds end);
    // The job was interrupted at t: steps after the last durable checkpoint become wasted.
    void disruption(Seconds t);
    void jobEnd(Seconds t);

    // --- results at time `now` (>= the last record; an earlier `now` reads as the last record's
    // time). slidingEttrRatio forgets steps older than its window: call it with a `now` that
    // does not go backwards. Ratios are 0 before the first jobStart. ---
    watchfloor::v1::GoodputBreakdown breakdown(Seconds now) const;
    double goodputRatio(Seconds now) const;           // productive / total (provisional)
    double confirmedGoodputRatio(Seconds now) const;  // productive up to last durable ckpt / total
    // Meta's cumulative ETTR: kept steps at the pace they ran (productive + straggler slowdown)
    // over total. A slow step is productive wall time for ETTR and badput for goodput, so
    // ettrRatio - goodputRatio = straggler_slowdown / total. No queue time (a running job).
    double ettrRatio(Seconds now) const;
    // The same two over [now - window, now] (the job's lifetime while it is younger than the
    // window). Steps later lost leave the window too.
    double slidingEttrRatio(Seconds now) const;
    double slidingGoodputRatio(Seconds now) const;
    std::uint32_t disruptions() const { return disruptions_; }
    std::uint64_t lastDurableStep() const { return lastDurableStep_; }
    const LedgerIssues& issues() const { return issues_; }

private:
    void reject(const char* what, const std::string& why);
    void clip(const char* what, const std::string& why);
    bool acceptingRecords(bool timesFinite, const char* what);
    bool acceptPoint(double& tS, const char* what);
    bool acceptWork(double beginS, double endS, const char* what);
    bool claimFromCursor(double& beginS, double endS, const char* what);
    bool acceptInterval(Seconds begin, Seconds end, const char* what, double& beginS, double& endS);
    void beginSegment();
    void enterDisruption();
    void loseAtRiskSteps();
    void markDurableThrough(std::uint64_t step);
    void rollBackTo(std::uint64_t step);
    double takeFromNewestSteps(double seconds);
    double effectiveNowS(Seconds now) const;
    StepTime slidingWindowTime(Seconds now, double& spanS) const;
    double totalS(double nowS) const;
    double productiveS() const;

    // Cumulative durable time at a checkpoint, to undo it when a restore rolls back past it.
    struct DurableMark {
        std::uint64_t step;
        StepTime durable;
    };
    static constexpr std::size_t kMaxDurableMarks = 4096;

    double idealStepS_;
    double windowS_;
    bool started_ = false;
    bool ended_ = false;
    bool inDisruption_ = false;
    bool firstDataLoadPending_ = true;
    double firstStartS_ = 0;
    double endS_ = 0;
    double downSinceS_ = 0;
    // Every second in [firstStart, cursor] is accounted to exactly one category (gaps: OTHER).
    double cursorS_ = 0;
    bool lastRecordWasSteps_ = false;
    double lastStepsBeginS_ = 0;
    std::uint32_t disruptions_ = 0;
    bool hasDurable_ = false;
    std::uint64_t lastDurableStep_ = 0;
    std::uint64_t nextStep_ = 0;  // steps below it in this segment were already recorded

    StepTime durable_;  // confirmed
    double acceleratorInitS_ = 0;
    double trainingPrepS_ = 0;
    double programStartupS_ = 0;
    double dataLoadingSyncS_ = 0;
    double checkpointSaveS_ = 0;
    double checkpointRestoreS_ = 0;
    double wastedProgressS_ = 0;
    double infraRecoveryS_ = 0;
    StepRunQueue atRisk_;          // kept steps after the last durable checkpoint
    mutable StepRunQueue window_;  // kept steps of the sliding window
    std::deque<DurableMark> durableMarks_;
    bool durableMarksTruncated_ = false;
    LedgerIssues issues_;
};

// Adds `weight` x every field of `job` into `fleet` (FleetGoodput.breakdown: GPU-seconds, so
// weight = the job's GPU count).
void accumulateBreakdown(watchfloor::v1::GoodputBreakdown& fleet, const watchfloor::v1::GoodputBreakdown& job,
                         double weight);

// Meta's expected ETTR (docs/domain/goodput.md), q -> 0:
//   E[ETTR] ≈ (1 − Λ·(u0 + τ/2)) / (1 + C/τ),  Λ = job failure rate (per second)
// Clamped to [0, 1] (the linear model goes negative when Λ·(u0 + τ/2) > 1); 0 for negative or
// non-finite inputs.
double expectedEttr(double jobFailuresPerSecond, Seconds restartOverhead, Seconds checkpointInterval,
                    Seconds checkpointCost);

// Daly's higher-order optimum checkpoint interval (docs/domain/goodput.md); M = job MTBF.
//   τ = sqrt(2CM)·[1 + (1/3)·sqrt(C/2M) + (1/9)·(C/2M)] − C for C < 2M, else M; 0 when C <= 0.
Seconds dalyOptimalInterval(Seconds checkpointCost, Seconds jobMtbf);
// Young's first-order optimum: sqrt(2·C·M).
Seconds youngOptimalInterval(Seconds checkpointCost, Seconds jobMtbf);

// Exponential-lifetime MTTF estimate with a chi-square confidence interval
// [2T/χ²(2n+2, 1−α/2), 2T/χ²(2n, α/2)] (docs/domain/goodput.md). n = 0 gives a lower bound only.
struct MttfEstimate {
    double mttfS = 0;  // T / n (0 when n == 0)
    double lowS = 0;
    double highS = 0;  // +inf when n == 0
};
// All zero for a negative exposure or a confidence outside (0, 1). Chi-square quantiles from
// ChiSquare.h (inverse of the regularized incomplete gamma, no table).
MttfEstimate estimateMttf(double exposureS, std::uint32_t failures, double confidence = 0.95);

// PaLM MFU = tokens/s × (6N + 12·L·H·Q·T) / (N_gpu × peak FLOP/s)   (docs/domain/goodput.md)
// 0 without GPUs or peak FLOP/s. tokens/s = model.tokens_per_step() / step time.
double palmMfu(const watchfloor::v1::ModelConfig& model, double tokensPerSecond, std::uint32_t gpuCount);

}  // namespace watchfloor::server
