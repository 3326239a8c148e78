#include "EttrBudget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace watchfloor::server {

namespace {

bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

bool validModel(const EttrModel& m) {
    return finiteNonNegative(m.jobFailuresPerS) && finiteNonNegative(m.restartOverheadS) &&
           finiteNonNegative(m.checkpointIntervalS) && finiteNonNegative(m.checkpointSaveS);
}

double share(double seconds, double totalS) { return totalS > 0 ? seconds / totalS : 0.0; }

constexpr double kHourS = 3600.0;

}  // namespace

ExpectedEttrTerms expectedEttrTerms(const EttrModel& m) {
    if (!validModel(m) || m.checkpointIntervalS <= 0) return {};
    const double costPerInterval = m.checkpointSaveS / m.checkpointIntervalS;
    const double denominator = 1.0 + costPerInterval;
    return {m.jobFailuresPerS * m.restartOverheadS / denominator,
            m.jobFailuresPerS * m.checkpointIntervalS / 2.0 / denominator, costPerInterval / denominator};
}

double expectedEttr(const EttrModel& m) {
    return expectedEttr(m.jobFailuresPerS, Seconds(m.restartOverheadS), Seconds(m.checkpointIntervalS),
                        Seconds(m.checkpointSaveS));
}

double restartSeconds(const watchfloor::v1::GoodputBreakdown& b) {
    return b.accelerator_init_s() + b.training_prep_s() + b.program_startup_s() + b.data_loading_sync_s() +
           b.checkpoint_restore_s() + b.infra_recovery_s();
}

void setMeasuredShares(watchfloor::v1::EttrBudget& budget, const watchfloor::v1::GoodputBreakdown& b) {
    const double totalS = b.total_s();
    budget.set_measured_restart_ratio(share(restartSeconds(b), totalS));
    budget.set_measured_rework_ratio(share(b.wasted_progress_s(), totalS));
    budget.set_measured_checkpoint_ratio(share(b.checkpoint_save_s(), totalS));
    budget.set_measured_slowness_ratio(share(b.straggler_slowdown_s(), totalS));
    budget.set_measured_other_ratio(share(b.other_s(), totalS));
}

watchfloor::v1::EttrBudget ettrBudget(const EttrModel& configured, const watchfloor::v1::GoodputBreakdown& b,
                                      const JobExposure& exposure) {
    watchfloor::v1::EttrBudget out;
    out.set_expected_failures_per_hour(configured.jobFailuresPerS * kHourS);
    out.set_restart_overhead_s(configured.restartOverheadS);
    out.set_checkpoint_interval_s(configured.checkpointIntervalS);
    out.set_checkpoint_save_s(configured.checkpointSaveS);
    const ExpectedEttrTerms terms = expectedEttrTerms(configured);
    out.set_expected_restart_ratio(terms.restartRatio);
    out.set_expected_rework_ratio(terms.reworkRatio);
    out.set_expected_checkpoint_ratio(terms.checkpointRatio);

    setMeasuredShares(out, b);

    EttrModel measured = configured;
    if (exposure.interruptions > 0 && exposure.exposureS > 0) {
        measured.jobFailuresPerS = exposure.interruptions / exposure.exposureS;
        // The first start's overhead is in the restart badput too; a restart costs that much
        // again, so it is counted as one more start.
        measured.restartOverheadS = restartSeconds(b) / double(exposure.interruptions + 1);
        out.set_measured_failures_per_hour(measured.jobFailuresPerS * kHourS);
        out.set_measured_restart_overhead_s(measured.restartOverheadS);
    }
    out.set_expected_ettr_at_measured_rates_ratio(expectedEttr(measured));
    return out;
}

FailureRateEstimate jobFailureRate(double configuredPerS, const JobExposure& exposure) {
    FailureRateEstimate out;
    char text[96];
    if (exposure.interruptions > 0 && exposure.exposureS > 0) {
        out.perS = exposure.interruptions / exposure.exposureS;
        std::snprintf(text, sizeof text, "measured: %u interruption%s in %.1f h", exposure.interruptions,
                      exposure.interruptions == 1 ? "" : "s", exposure.exposureS / kHourS);
    } else {
        out.perS = finiteNonNegative(configuredPerS) ? configuredPerS : 0.0;
        std::snprintf(text, sizeof text, "configured rates (no interruption measured yet)");
    }
    out.basis = text;
    return out;
}

watchfloor::v1::CheckpointAdvice checkpointAdvice(const EttrModel& configured, const FailureRateEstimate& rate,
                                                  std::uint32_t gpus, bool intervalAuto) {
    watchfloor::v1::CheckpointAdvice out;
    out.set_failures_per_hour(rate.perS * kHourS);
    out.set_failure_rate_basis(rate.basis);
    out.set_interval_auto(intervalAuto);
    if (!(rate.perS > 0)) return out;
    const double optimumS = dalyOptimalInterval(Seconds(configured.checkpointSaveS), Seconds(1.0 / rate.perS)).count();
    out.set_young_daly_interval_s(optimumS);
    if (optimumS <= 0) return out;
    EttrModel atConfigured = configured;
    atConfigured.jobFailuresPerS = rate.perS;
    EttrModel atOptimum = atConfigured;
    atOptimum.checkpointIntervalS = optimumS;
    const double gain = expectedEttr(atOptimum) - expectedEttr(atConfigured);
    out.set_gap_gpu_hours_per_day(std::max(0.0, gain) * double(gpus) * 24.0);
    return out;
}

}  // namespace watchfloor::server
