#pragma once
// What separates ETTR from 1 and what a checkpoint interval costs (docs/domain/goodput.md):
// Meta's E[ETTR] split into its terms beside the shares the job's ledger measured, and the
// configured checkpoint interval priced against Young/Daly in GPU-hours per day.

#include "GoodputLedger.h"

#include "MessageWeights.h"
#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>

namespace watchfloor::server {

// The inputs of Meta's E[ETTR] for one job.
struct EttrModel {
    double jobFailuresPerS = 0;      // Λ
    double restartOverheadS = 0;     // u0
    double checkpointIntervalS = 0;  // τ
    double checkpointSaveS = 0;      // C (blocking)
};

// 1 − E[ETTR] = restart + rework + checkpoint, each over (1 + C/τ), before the clamp:
//   restart = Λ·u0/(1 + C/τ), rework = Λ·τ/2/(1 + C/τ), checkpoint = (C/τ)/(1 + C/τ).
// All zero for inputs expectedEttr() refuses (negative, non-finite) and for τ = 0.
struct ExpectedEttrTerms {
    double restartRatio = 0;
    double reworkRatio = 0;
    double checkpointRatio = 0;
};
ExpectedEttrTerms expectedEttrTerms(const EttrModel& model);
double expectedEttr(const EttrModel& model);

// What the job has lived through so far, for the measured half of the budget.
struct JobExposure {
    std::uint32_t interruptions = 0;
    double exposureS = 0;  // time the job held its trays (failures can only hit then)
};

// Restart-type badput of a breakdown: accelerator init, training prep, program startup, the
// first data load, checkpoint restore and infrastructure recovery (first start included).
double restartSeconds(const watchfloor::v1::GoodputBreakdown& b);

// The measured_*_ratio fields: each category's share of b.total_s() (0 for an empty breakdown).
// For the fleet, from the summed GPU-second breakdown, so they add up with the fleet's ETTR.
void setMeasuredShares(watchfloor::v1::EttrBudget& budget, const watchfloor::v1::GoodputBreakdown& b);

// The budget message (fleet.proto EttrBudget) of one job. `configured` is what E[ETTR] assumes;
// the measured rates replace Λ and u0 in expected_ettr_at_measured_rates_ratio once the job has
// been interrupted at least once.
watchfloor::v1::EttrBudget ettrBudget(const EttrModel& configured, const watchfloor::v1::GoodputBreakdown& breakdown,
                                      const JobExposure& exposure);

// The job failure rate Young/Daly and the checkpoint price use: measured (interruptions over
// exposure) once there is one, else the configured rate. `basis` says which, for people.
struct FailureRateEstimate {
    double perS = 0;
    std::string basis;
};
FailureRateEstimate jobFailureRate(double configuredPerS, const JobExposure& exposure);

// Young/Daly for the job at `rate` and the configured interval priced against it
// (fleet.proto CheckpointAdvice): GPUs × 24 h × (E[ETTR](τ*) − E[ETTR](τ)), never negative.
watchfloor::v1::CheckpointAdvice checkpointAdvice(const EttrModel& configured, const FailureRateEstimate& rate,
                                                  std::uint32_t gpus, bool intervalAuto);

using watchfloor::proto::addWeightedDoubles;
using watchfloor::proto::scaleDoubles;

}  // namespace watchfloor::server
