#pragma once
// The goodput ledger of one training job: Google ml-goodput-measurement semantics
// (reference/goodput-and-failures.md §1.3-1.4) fed by the job's lifecycle records, plus a
// straggler-slowdown category and Meta's ETTR (cumulative and sliding).
//
// Records arrive in time order. Step records may be aggregated (a run of consecutive steps as
// one record) so a 54-day simulation stays cheap; the arithmetic is the same as per step.
//
// Categories (all in seconds, summing to total):
//   productive          steps kept (not later lost), minus straggler excess and blocking saves
//   accelerator_init    jobStart..init end        (TPU_INITIALIZATION)
//   training_prep       prep intervals            (TRAINING_PREP)
//   program_startup     first step of a segment minus the ideal step time (PROGRAM_STARTUP)
//   data_loading_sync   first data load after each (re)start (DATA_LOADING_SYNC)
//   checkpoint_save     blocking part of saves    (UNPRODUCTIVE_CHECKPOINT_SAVE_TIME)
//   checkpoint_restore  restore intervals         (UNPRODUCTIVE_CHECKPOINT_RESTORE_TIME)
//   wasted_progress     steps after the last durable checkpoint lost to a disruption
//   infra_recovery      disruption..next jobStart (INFRASTRUCTURE_RECOVERY_FROM_DISRUPTION)
//   straggler_slowdown  step time above the ideal step time (steps kept only)
//   other               total minus everything above (never negative)

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <deque>

namespace watchfloor::server {

using Seconds = std::chrono::duration<double>;

class GoodputLedger {
public:
    // `idealStepTime` is the healthy, unslowed step time of the job (sets straggler excess and
    // program startup); `slidingWindow` is the ETTR window (1 h, ByteRobust-style).
    explicit GoodputLedger(Seconds idealStepTime, Seconds slidingWindow = std::chrono::hours(1));

    // --- lifecycle records (t = seconds since an arbitrary epoch shared by all records) ---
    void jobStart(Seconds t);                               // first start and every restart
    void acceleratorInit(Seconds begin, Seconds end);
    void trainingPrep(Seconds begin, Seconds end);
    void dataLoadingSync(Seconds begin, Seconds end);
    void checkpointRestore(std::uint64_t step, Seconds begin, Seconds end);
    // Steps [firstStep, firstStep+count) ran from begin to end. The first step after a
    // (re)start includes program startup: pass `includesFirstStepOfSegment` = true.
    void steps(std::uint64_t firstStep, std::uint64_t count, Seconds begin, Seconds end,
               bool includesFirstStepOfSegment);
    // A blocking checkpoint save of `step` (all steps <= step are then durable).
    void checkpointSave(std::uint64_t step, Seconds begin, Seconds end);
    // The job was interrupted at t: steps after the last durable checkpoint become wasted.
    void disruption(Seconds t);
    void jobEnd(Seconds t);

    // --- results at time `now` (>= the last record) ---
    watchfloor::v1::GoodputBreakdown breakdown(Seconds now) const;
    double goodputRatio(Seconds now) const;           // productive / total (provisional)
    double confirmedGoodputRatio(Seconds now) const;  // productive up to last durable ckpt / total
    double ettrRatio(Seconds now) const;              // cumulative ETTR = goodput here (no queue time)
    double slidingEttrRatio(Seconds now) const;       // productive share of the last window
    std::uint32_t disruptions() const { return disruptions_; }
    std::uint64_t lastDurableStep() const { return lastDurableStep_; }

private:
    struct KeptStep {  // steps not yet made durable: they may still be lost
        std::uint64_t firstStep;
        std::uint64_t count;
        Seconds begin;
        Seconds end;
        double productiveS;
        double stragglerS;
    };
    struct ProductiveSpan {  // for the sliding window
        Seconds begin;
        Seconds end;
        double productiveS;
    };

    void addProductiveSpan(Seconds begin, Seconds end, double productiveS);
    void pruneWindow(Seconds now) const;

    Seconds idealStep_;
    Seconds window_;
    bool started_ = false;
    bool ended_ = false;
    Seconds firstStart_{};
    Seconds endTime_{};
    Seconds lastStepStart_{};
    bool inDisruption_ = false;
    Seconds disruptionTime_{};
    bool firstDataLoadAfterStart_ = true;
    std::uint32_t disruptions_ = 0;
    std::uint64_t lastDurableStep_ = 0;

    double productiveDurableS_ = 0;   // confirmed
    double stragglerDurableS_ = 0;
    double acceleratorInitS_ = 0;
    double trainingPrepS_ = 0;
    double programStartupS_ = 0;
    double dataLoadingSyncS_ = 0;
    double checkpointSaveS_ = 0;
    double checkpointRestoreS_ = 0;
    double wastedProgressS_ = 0;
    double infraRecoveryS_ = 0;
    std::deque<KeptStep> atRisk_;
    mutable std::deque<ProductiveSpan> windowSpans_;
};

// Meta's expected ETTR (reference §2.3 / §7.2), q -> 0:
//   E[ETTR] ≈ (1 − Λ·(u0 + τ/2)) / (1 + C/τ),  Λ = job failure rate (per second)
double expectedEttr(double jobFailuresPerSecond, Seconds restartOverhead, Seconds checkpointInterval,
                    Seconds checkpointCost);

// Daly's higher-order optimum checkpoint interval (reference §7.1); M = job MTBF.
Seconds dalyOptimalInterval(Seconds checkpointCost, Seconds jobMtbf);
// Young's first-order optimum: sqrt(2·C·M).
Seconds youngOptimalInterval(Seconds checkpointCost, Seconds jobMtbf);

// Exponential-lifetime MTTF estimate with a chi-square confidence interval
// [2T/χ²(2n+2, 1−α/2), 2T/χ²(2n, α/2)] (reference §9.6). n = 0 gives a lower bound only.
struct MttfEstimate {
    double mttfS = 0;      // T / n (0 when n == 0)
    double lowS = 0;
    double highS = 0;      // +inf when n == 0
};
MttfEstimate estimateMttf(double exposureS, std::uint32_t failures, double confidence = 0.95);

// PaLM MFU = tokens/s × (6N + 12·L·H·Q·T) / (N_gpu × peak FLOP/s)   (reference §5.1)
double palmMfu(const watchfloor::v1::ModelConfig& model, double tokensPerSecond, std::uint32_t gpuCount);

}  // namespace watchfloor::server
