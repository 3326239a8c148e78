// The twin's goodput numbers that name what they are: ETTR against goodput per job and for the
// fleet (a persistently slow tray makes them differ by its slowdown), the E[ETTR] budget beside
// the measured shares, the hardware and all-cause failure rates with their chi-square intervals,
// and checkpoint advice with ckpt_interval=auto.

#include "TwinTestSupport.h"

#include "EttrBudget.h"

#include <QtTest>

#include <cmath>

using namespace twintest;
using namespace watchfloor::v1;

namespace {

struct Latest {
    std::map<std::string, Job> jobs;
    FleetGoodput fleet;
};

Latest runFor(DigitalTwin& twin, std::int64_t seconds) {
    Latest latest;
    run(twin, seconds, [&](const FleetChanges& c) {
        for (const auto& j : c.jobs) latest.jobs[j.name()] = j;
        if (c.hasFleet) latest.fleet = c.fleet;
    });
    return latest;
}

}  // namespace

class TwinGoodputTest : public QObject {
    Q_OBJECT

private slots:
    void slowTrayIsEttrButNotGoodput();
    void budgetExplainsTheGapFromOne();
    void failureRatesSayWhatTheyCount();
    void autoIntervalFollowsTheFailureRate();
    void fixedIntervalIsPricedAgainstYoungDaly();
};

void TwinGoodputTest::slowTrayIsEttrButNotGoodput() {
    QTemporaryDir dir;
    SimConfig config;
    config.fleetFile = writeFile(dir, "slow.fleet", "region lab\nracks 3\njob slow model=8b racks=r01..r02\n");
    // A tray 15 % slow from the first minute for the rest of the run: the job runs at its pace.
    config.scenarioFile = writeFile(dir, "slow.scn", "at 1m straggler node=r01-n03 factor=1.15 for=10h\n");
    config.hardwareRateScale = 0;  // no failures: the difference is the slow tray alone
    config.seed = 3;
    auto twin = makeTwin(config);
    const Latest latest = runFor(*twin, 2 * 3600);
    const Job& job = latest.jobs.at("slow");
    const GoodputBreakdown& b = job.breakdown();
    QVERIFY(b.straggler_slowdown_s() > 0);
    QCOMPARE(job.ettr_ratio() - job.goodput_ratio(), b.straggler_slowdown_s() / b.total_s());
    // A step 15 % slow spends 0.15/1.15 = 13 % of its wall time above the ideal pace (the
    // twin's diurnal drift moves the pace by a little).
    qInfo("ETTR %.4f, goodput %.4f, 1 h: ETTR %.4f goodput %.4f", job.ettr_ratio(), job.goodput_ratio(),
          job.ettr_sliding_1h_ratio(), job.goodput_sliding_1h_ratio());
    QVERIFY(job.ettr_ratio() - job.goodput_ratio() > 0.10);
    QVERIFY(job.ettr_sliding_1h_ratio() > job.goodput_sliding_1h_ratio() * 1.10);
    QCOMPARE(job.ettr_budget().measured_slowness_ratio(), b.straggler_slowdown_s() / b.total_s());
    // The fleet's ETTR and goodput differ by the fleet's slowness share as well.
    const FleetGoodput& f = latest.fleet;
    QCOMPARE(f.ettr_ratio() - f.goodput_ratio(), f.breakdown().straggler_slowdown_s() / f.breakdown().total_s());
    QVERIFY(f.ettr_sliding_1h_ratio() > f.goodput_sliding_1h_ratio());
}

void TwinGoodputTest::budgetExplainsTheGapFromOne() {
    QTemporaryDir dir;
    SimConfig config;
    config.fleetFile =
        writeFile(dir, "one.fleet", "region lab\nracks 10\njob big model=405b racks=r01..r08 ckpt_interval=30m\n");
    config.hardwareRateScale = 10;
    config.telemetry = false;
    config.seed = 5;
    auto twin = makeTwin(config);
    const Latest latest = runFor(*twin, 2 * 86400);
    const Job& job = latest.jobs.at("big");
    const EttrBudget& budget = job.ettr_budget();
    QVERIFY(job.interruptions() > 0);
    QCOMPARE(1.0 - job.expected_ettr_ratio(),
             budget.expected_restart_ratio() + budget.expected_rework_ratio() + budget.expected_checkpoint_ratio());
    QCOMPARE(job.ettr_ratio() + budget.measured_restart_ratio() + budget.measured_rework_ratio() +
                 budget.measured_checkpoint_ratio() + budget.measured_other_ratio(),
             1.0);
    QCOMPARE(budget.checkpoint_interval_s(), 1800.0);
    QCOMPARE(budget.measured_failures_per_hour(), 3600.0 / job.mtti_s());  // MTTI = exposure / interruptions
    QVERIFY(budget.measured_restart_overhead_s() > 0);
    QVERIFY(budget.expected_ettr_at_measured_rates_ratio() > 0 && budget.expected_ettr_at_measured_rates_ratio() < 1);
    // One job: the fleet's budget is the job's.
    QCOMPARE(latest.fleet.ettr_budget().expected_rework_ratio(), budget.expected_rework_ratio());
    QCOMPARE(latest.fleet.expected_ettr_ratio(), job.expected_ettr_ratio());
}

void TwinGoodputTest::failureRatesSayWhatTheyCount() {
    QTemporaryDir dir;
    SimConfig config;
    config.fleetFile = writeFile(dir, "sw.fleet", "region lab\nracks 10\njob big model=405b racks=r01..r08\n");
    config.hardwareRateScale = 0;  // software failures only: the hardware rate stays 0
    config.telemetry = false;
    config.seed = 9;
    auto twin = makeTwin(config);
    const Latest latest = runFor(*twin, 4 * 86400);
    const FleetGoodput& f = latest.fleet;
    QVERIFY(f.interruptions() > 0);
    QCOMPARE(f.hardware_failures(), quint64(0));
    QCOMPARE(f.failures_per_gpu_hour(), 0.0);
    QVERIFY(f.powered_gpu_hours() > 0);
    // None counted: the interval is [0, the bound the exposure supports] = [0, 3.689 / T].
    QCOMPARE(f.failures_per_gpu_hour_low(), 0.0);
    QVERIFY(std::abs(f.failures_per_gpu_hour_high() * f.powered_gpu_hours() - 3.6889) < 1e-3);
    QVERIFY(QString::fromStdString(f.failure_rate_causes()).contains(QStringLiteral("hardware fail-stops")));
    QVERIFY(QString::fromStdString(f.failure_rate_causes()).contains(QStringLiteral("not software bug")));
    // Every interruption counts in the all-cause rate, over the jobs' GPU-hours.
    QCOMPARE(f.interruptions_per_gpu_hour(), f.interruptions() / f.job_gpu_hours());
    QVERIFY(f.interruptions_per_gpu_hour_low() < f.interruptions_per_gpu_hour());
    QVERIFY(f.interruptions_per_gpu_hour_high() > f.interruptions_per_gpu_hour());
    const MttfEstimate mtti = estimateMttf(f.job_gpu_hours(), f.interruptions());
    QCOMPARE(f.interruptions_per_gpu_hour_low(), 1.0 / mtti.highS);
    QCOMPARE(f.interruptions_per_gpu_hour_high(), 1.0 / mtti.lowS);
}

void TwinGoodputTest::autoIntervalFollowsTheFailureRate() {
    QTemporaryDir dir;
    SimConfig config;
    config.fleetFile =
        writeFile(dir, "auto.fleet",
                  "region lab\nracks 10\njob big model=405b racks=r01..r08 ckpt_interval=auto ckpt_save=60s\n");
    config.hardwareRateScale = 10;
    config.telemetry = false;
    config.seed = 5;
    auto twin = makeTwin(config);
    Job first;
    bool sawFirst = false;
    const Latest latest = [&] {
        Latest out;
        run(*twin, 3 * 86400, [&](const FleetChanges& c) {
            for (const auto& j : c.jobs) {
                out.jobs[j.name()] = j;
                if (!sawFirst) {
                    first = j;
                    sawFirst = true;
                }
            }
        });
        return out;
    }();
    // Before any interruption: Daly from the configured rates, said so.
    QVERIFY(sawFirst);
    QCOMPARE(first.interruptions(), 0u);
    QVERIFY(first.checkpoint_advice().interval_auto());
    QCOMPARE(QString::fromStdString(first.checkpoint_advice().failure_rate_basis()),
             QStringLiteral("configured rates (no interruption measured yet)"));
    const double configuredMtbfS = 3600.0 / first.checkpoint_advice().failures_per_hour();
    QCOMPARE(first.checkpoint_interval_s(), dalyOptimalInterval(Seconds(60), Seconds(configuredMtbfS)).count());
    QCOMPARE(first.checkpoint_advice().gap_gpu_hours_per_day(), 0.0);
    // Later: the measured rate, and the interval the job uses is Daly's for it as of the last
    // save (the rate drifts between saves, so the advice's optimum is close, not equal).
    const Job& job = latest.jobs.at("big");
    QVERIFY(job.interruptions() >= 3);
    QVERIFY(
        QString::fromStdString(job.checkpoint_advice().failure_rate_basis()).startsWith(QStringLiteral("measured: ")));
    QVERIFY2(std::abs(job.checkpoint_interval_s() / job.young_daly_interval_s() - 1.0) < 0.1,
             qPrintable(QStringLiteral("interval %1 s, Young/Daly %2 s")
                            .arg(job.checkpoint_interval_s())
                            .arg(job.young_daly_interval_s())));
    QVERIFY(job.checkpoint_advice().gap_gpu_hours_per_day() < 1.0);
    QVERIFY(job.checkpoint_interval_s() != first.checkpoint_interval_s());
}

void TwinGoodputTest::fixedIntervalIsPricedAgainstYoungDaly() {
    QTemporaryDir dir;
    SimConfig config;
    config.fleetFile =
        writeFile(dir, "fixed.fleet", "region lab\nracks 10\njob big model=405b racks=r01..r08 ckpt_interval=30m\n");
    config.hardwareRateScale = 10;  // 576 GPUs at k = 10: Daly ~24 min, under the configured 30
    config.telemetry = false;
    config.seed = 5;
    auto twin = makeTwin(config);
    const Latest latest = runFor(*twin, 60);
    const Job& job = latest.jobs.at("big");
    const CheckpointAdvice& advice = job.checkpoint_advice();
    QVERIFY(!advice.interval_auto());
    qInfo("Young/Daly %.0f s for 30 min: %.1f GPU-h/day (%s)", advice.young_daly_interval_s(),
          advice.gap_gpu_hours_per_day(), advice.failure_rate_basis().c_str());
    QVERIFY(advice.young_daly_interval_s() > 0 && advice.young_daly_interval_s() < 1800);
    // The price by its definition, from the job's own fields.
    EttrModel atConfigured{advice.failures_per_hour() / 3600.0, job.ettr_budget().restart_overhead_s(), 1800.0,
                           job.checkpoint_save_s()};
    EttrModel atOptimum = atConfigured;
    atOptimum.checkpointIntervalS = advice.young_daly_interval_s();
    QCOMPARE(advice.gap_gpu_hours_per_day(),
             (expectedEttr(atOptimum) - expectedEttr(atConfigured)) * job.gpu_count() * 24.0);
    QVERIFY(advice.gap_gpu_hours_per_day() > 0);
    QCOMPARE(latest.fleet.checkpoint_gap_gpu_hours_per_day(), advice.gap_gpu_hours_per_day());
}

QTEST_GUILESS_MAIN(TwinGoodputTest)
#include "tst_twin_goodput.moc"
