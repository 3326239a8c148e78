// EttrBudget: Meta's E[ETTR] split into its terms, the measured shares of a ledger breakdown,
// the failure rate Young/Daly uses and the checkpoint interval priced in GPU-hours per day;
// every case worked by hand (the numbers in the comments), bad inputs included.
#include "EttrBudget.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace watchfloor::server;
using watchfloor::v1::CheckpointAdvice;
using watchfloor::v1::EttrBudget;
using watchfloor::v1::GoodputBreakdown;

namespace {

// Λ = 1 per hour, u0 = 10 min, τ = 30 min, C = 1 min.
EttrModel handModel() { return {1.0 / 3600.0, 600.0, 1800.0, 60.0}; }

// total 1000: productive 600, slow 100, restart-type 150 (init 30, prep 20, startup 30, data 10,
// restore 10, infra 50), wasted 80, save 40, other 30.
GoodputBreakdown handBreakdown() {
    GoodputBreakdown b;
    b.set_total_s(1000);
    b.set_productive_s(600);
    b.set_straggler_slowdown_s(100);
    b.set_accelerator_init_s(30);
    b.set_training_prep_s(20);
    b.set_program_startup_s(30);
    b.set_data_loading_sync_s(10);
    b.set_checkpoint_restore_s(10);
    b.set_infra_recovery_s(50);
    b.set_wasted_progress_s(80);
    b.set_checkpoint_save_s(40);
    b.set_other_s(30);
    return b;
}

}  // namespace

class TestEttrBudget : public QObject {
    Q_OBJECT

private slots:
    void expectedTermsSumToTheGapFromOne();
    void expectedTermsRefuseBadInputs_data();
    void expectedTermsRefuseBadInputs();
    void measuredSharesOfABreakdown();
    void measuredRatesReplaceConfiguredOnesAfterAnInterruption();
    void failureRateBasisSaysWhatItUses();
    void checkpointGapInGpuHoursPerDay();
    void checkpointAtTheOptimumCostsNothing();
    void noFailureRateGivesNoAdvice();
    void weightedDoublesAverageEveryField();
};

void TestEttrBudget::expectedTermsSumToTheGapFromOne() {
    // C/τ = 1/30, so every term is over 31/30:
    //   restart = (600/3600) · 30/31 = 5/31, rework = (900/3600) · 30/31 = 7.5/31,
    //   checkpoint = (1/30) · 30/31 = 1/31;  E[ETTR] = (1 − 1/6 − 1/4) · 30/31 = 17.5/31.
    const ExpectedEttrTerms terms = expectedEttrTerms(handModel());
    QCOMPARE(terms.restartRatio, 5.0 / 31.0);
    QCOMPARE(terms.reworkRatio, 7.5 / 31.0);
    QCOMPARE(terms.checkpointRatio, 1.0 / 31.0);
    QCOMPARE(expectedEttr(handModel()), 17.5 / 31.0);
    QCOMPARE(1.0 - expectedEttr(handModel()), terms.restartRatio + terms.reworkRatio + terms.checkpointRatio);
}

void TestEttrBudget::expectedTermsRefuseBadInputs_data() {
    QTest::addColumn<double>("lambda");
    QTest::addColumn<double>("u0");
    QTest::addColumn<double>("tau");
    QTest::addColumn<double>("cost");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("negative rate") << -1.0 << 600.0 << 1800.0 << 60.0;
    QTest::newRow("NaN overhead") << 1e-4 << nan << 1800.0 << 60.0;
    QTest::newRow("infinite interval") << 1e-4 << 600.0 << std::numeric_limits<double>::infinity() << 60.0;
    QTest::newRow("zero interval") << 1e-4 << 600.0 << 0.0 << 60.0;
    QTest::newRow("negative cost") << 1e-4 << 600.0 << 1800.0 << -1.0;
}

void TestEttrBudget::expectedTermsRefuseBadInputs() {
    QFETCH(double, lambda);
    QFETCH(double, u0);
    QFETCH(double, tau);
    QFETCH(double, cost);
    const ExpectedEttrTerms terms = expectedEttrTerms({lambda, u0, tau, cost});
    QCOMPARE(terms.restartRatio, 0.0);
    QCOMPARE(terms.reworkRatio, 0.0);
    QCOMPARE(terms.checkpointRatio, 0.0);
}

void TestEttrBudget::measuredSharesOfABreakdown() {
    const EttrBudget budget = ettrBudget(handModel(), handBreakdown(), {});
    QCOMPARE(budget.measured_restart_ratio(), 0.15);
    QCOMPARE(budget.measured_rework_ratio(), 0.08);
    QCOMPARE(budget.measured_checkpoint_ratio(), 0.04);
    QCOMPARE(budget.measured_slowness_ratio(), 0.10);
    QCOMPARE(budget.measured_other_ratio(), 0.03);
    // ETTR = (600 + 100) / 1000 = 0.7; with the measured losses it makes 1; goodput is 0.6.
    const double ettr = 0.7;
    QCOMPARE(ettr + budget.measured_restart_ratio() + budget.measured_rework_ratio() +
                 budget.measured_checkpoint_ratio() + budget.measured_other_ratio(),
             1.0);
    QCOMPARE(ettr - budget.measured_slowness_ratio(), 0.6);
    // The configured half is the model's.
    QCOMPARE(budget.expected_failures_per_hour(), 1.0);
    QCOMPARE(budget.restart_overhead_s(), 600.0);
    QCOMPARE(budget.checkpoint_interval_s(), 1800.0);
    QCOMPARE(budget.checkpoint_save_s(), 60.0);
    QCOMPARE(budget.expected_restart_ratio(), 5.0 / 31.0);
    // No interruption yet: no measured rate, and E[ETTR] at measured rates is the configured one.
    QCOMPARE(budget.measured_failures_per_hour(), 0.0);
    QCOMPARE(budget.measured_restart_overhead_s(), 0.0);
    QCOMPARE(budget.expected_ettr_at_measured_rates_ratio(), 17.5 / 31.0);
    // An empty breakdown divides by nothing.
    const EttrBudget empty = ettrBudget(handModel(), GoodputBreakdown{}, {});
    QCOMPARE(empty.measured_restart_ratio(), 0.0);
    QCOMPARE(empty.measured_slowness_ratio(), 0.0);
}

void TestEttrBudget::measuredRatesReplaceConfiguredOnesAfterAnInterruption() {
    // 2 interruptions in 2 h: 1 per hour; 150 s of restart badput over 3 starts: u0 = 50 s.
    const EttrBudget budget = ettrBudget(handModel(), handBreakdown(), {2, 7200.0});
    QCOMPARE(budget.measured_failures_per_hour(), 1.0);
    QCOMPARE(budget.measured_restart_overhead_s(), 50.0);
    // (1 − (50 + 900)/3600) · 30/31 = (2650/3600) · 30/31
    QCOMPARE(budget.expected_ettr_at_measured_rates_ratio(), 2650.0 / 3600.0 * 30.0 / 31.0);
    // Interruptions without exposure (a broken caller) measure nothing.
    const EttrBudget noExposure = ettrBudget(handModel(), handBreakdown(), {2, 0.0});
    QCOMPARE(noExposure.measured_failures_per_hour(), 0.0);
    QCOMPARE(noExposure.expected_ettr_at_measured_rates_ratio(), 17.5 / 31.0);
}

void TestEttrBudget::failureRateBasisSaysWhatItUses() {
    const FailureRateEstimate before = jobFailureRate(2e-4, {0, 3600.0});
    QCOMPARE(before.perS, 2e-4);
    QCOMPARE(QString::fromStdString(before.basis), QStringLiteral("configured rates (no interruption measured yet)"));
    const FailureRateEstimate after = jobFailureRate(2e-4, {7, 41.2 * 3600.0});
    QCOMPARE(after.perS, 7.0 / (41.2 * 3600.0));
    QCOMPARE(QString::fromStdString(after.basis), QStringLiteral("measured: 7 interruptions in 41.2 h"));
    QCOMPARE(QString::fromStdString(jobFailureRate(0, {1, 7200.0}).basis),
             QStringLiteral("measured: 1 interruption in 2.0 h"));
    QCOMPARE(jobFailureRate(std::numeric_limits<double>::quiet_NaN(), {}).perS, 0.0);
}

void TestEttrBudget::checkpointGapInGpuHoursPerDay() {
    // M = 3600 s, C = 60 s: Daly τ* = sqrt(2·60·3600) · (1 + sqrt(1/120)/3 + 1/1080) − 60
    //   = 657.27 · 1.031355 − 60 = 617.88 s.
    // E[ETTR](τ*) = (1 − (600 + 308.94)/3600) / (1 + 60/617.88) = 0.681353; E(1800) = 0.564516.
    // 1000 GPUs × 24 h × 0.116837 = 2804.1 GPU-hours a day.
    const CheckpointAdvice advice = checkpointAdvice(handModel(), {1.0 / 3600.0, "configured"}, 1000, false);
    QVERIFY(std::abs(advice.young_daly_interval_s() - 617.876) < 0.01);
    QVERIFY(std::abs(advice.gap_gpu_hours_per_day() - 2804.09) < 0.05);
    QCOMPARE(advice.failures_per_hour(), 1.0);
    QCOMPARE(QString::fromStdString(advice.failure_rate_basis()), QStringLiteral("configured"));
    QVERIFY(!advice.interval_auto());
}

void TestEttrBudget::checkpointAtTheOptimumCostsNothing() {
    EttrModel atOptimum = handModel();
    atOptimum.checkpointIntervalS = dalyOptimalInterval(Seconds(60), Seconds(3600)).count();
    const CheckpointAdvice advice = checkpointAdvice(atOptimum, {1.0 / 3600.0, "measured"}, 1000, true);
    QCOMPARE(advice.gap_gpu_hours_per_day(), 0.0);
    QVERIFY(advice.interval_auto());
    // Daly is not exactly the linear model's optimum: the gap is clamped at 0, never negative.
    EttrModel nearOptimum = atOptimum;
    nearOptimum.checkpointIntervalS *= 1.02;
    QVERIFY(checkpointAdvice(nearOptimum, {1.0 / 3600.0, ""}, 1000, false).gap_gpu_hours_per_day() >= 0.0);
}

void TestEttrBudget::noFailureRateGivesNoAdvice() {
    const CheckpointAdvice advice = checkpointAdvice(handModel(), {0.0, "configured rates"}, 1000, false);
    QCOMPARE(advice.young_daly_interval_s(), 0.0);
    QCOMPARE(advice.gap_gpu_hours_per_day(), 0.0);
    EttrModel noSaveCost = handModel();
    noSaveCost.checkpointSaveS = 0;  // Daly: no optimum without a cost
    QCOMPARE(checkpointAdvice(noSaveCost, {1.0 / 3600.0, ""}, 1000, false).gap_gpu_hours_per_day(), 0.0);
}

void TestEttrBudget::weightedDoublesAverageEveryField() {
    EttrBudget a, b, sum;
    a.set_measured_slowness_ratio(0.10);
    a.set_expected_failures_per_hour(1.0);
    b.set_measured_slowness_ratio(0.04);
    b.set_expected_failures_per_hour(4.0);
    addWeightedDoubles(sum, a, 576);
    addWeightedDoubles(sum, b, 1728);
    scaleDoubles(sum, 1.0 / (576 + 1728));
    QCOMPARE(sum.measured_slowness_ratio(), (0.10 * 576 + 0.04 * 1728) / 2304.0);  // 0.055
    QCOMPARE(sum.expected_failures_per_hour(), (576.0 + 4 * 1728.0) / 2304.0);
    // A message of another type is not added (no field mixes with a namesake).
    GoodputBreakdown other;
    other.set_total_s(5);
    addWeightedDoubles(sum, other, 1.0);
    QCOMPARE(sum.measured_slowness_ratio(), (0.10 * 576 + 0.04 * 1728) / 2304.0);
}

QTEST_GUILESS_MAIN(TestEttrBudget)
#include "tst_ettrbudget.moc"
