// One advanceTo(+1 s) at 1,800 racks (129,600 GPUs) must stay well under 0.3 s on one core,
// and the fast path must make long dumps feasible. Prints what it measures. The ceilings are
// kSanitizerSlowdown times looser in a sanitizer build (a TSan twin took 446 ms a step).

#include "SanitizerBuild.h"  // testbeds/
#include "TwinTestSupport.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace twintest;

class TwinPerformanceTest : public QObject {
    Q_OBJECT

private slots:
    void liveStepAtFullScale();
};

void TwinPerformanceTest::liveStepAtFullScale() {
    SimConfig config;
    config.racks = 1800;
    config.regions = 4;
    QElapsedTimer timer;
    timer.start();
    auto twin = makeTwin(config);
    const double createS = timer.elapsed() / 1000.0;

    FleetChanges changes;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);  // initial states
    constexpr int kSteps = 20;
    double totalS = 0, maxS = 0;
    std::size_t samples = 0;
    for (int i = 0; i < kSteps; ++i) {
        changes.clear();
        timer.restart();
        twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
        const double s = timer.nsecsElapsed() / 1e9;
        totalS += s;
        maxS = std::max(maxS, s);
        samples += changes.samples.size();
    }
    const double meanS = totalS / kSteps;
    qInfo("1,800 racks: create %.2f s; advanceTo(+1 s) mean %.1f ms, max %.1f ms; %.2f M samples per second of sim",
          createS, meanS * 1000, maxS * 1000, samples / 1e6 / kSteps);
    QVERIFY(samples / kSteps > 1'200'000);
    using watchfloor::testing::kSanitizerSlowdown;
    QVERIFY2(meanS < 0.3 * kSanitizerSlowdown, "advanceTo at 1,800 racks is too slow");

    // Previews read the published view (from RPC threads in fleetd); an operator action rides on
    // the next step.
    constexpr int kReads = 1000;
    timer.restart();
    for (int i = 0; i < kReads; ++i) QVERIFY(twin->nodeView("r0900-n07") && twin->rackView("r0900"));
    const double readUs = timer.nsecsElapsed() / 1e3 / kReads;
    timer.restart();
    const auto bigJob = twin->jobView("llm-405b-1");
    const double jobUs = timer.nsecsElapsed() / 1e3;
    QVERIFY(bigJob && bigJob->nodes.size() == 228 * 18);
    auto ticket = twin->requestAction(TwinAction::drainNode("r0001-n01", "perf: drain at scale"));
    changes.clear();
    timer.restart();
    twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
    const double actionStepMs = timer.nsecsElapsed() / 1e6;
    QVERIFY(ticket.result.get().succeeded);
    qInfo("read view: node + rack %.1f us, job of %zu trays %.0f us; advanceTo(+1 s) with a drain %.1f ms", readUs,
          bigJob->nodes.size(), jobUs, actionStepMs);
    QVERIFY(readUs < 1000 * kSanitizerSlowdown);

    twin->setTelemetryEnabled(false);
    timer.restart();
    run(*twin, 6 * 3600);
    const double fastS = timer.elapsed() / 1000.0;
    qInfo("fast path: 6 simulated hours in %.2f s (54 days would take ~%.0f s)", fastS, fastS * 54 * 4);
    QVERIFY(fastS < 30 * kSanitizerSlowdown);
}

QTEST_GUILESS_MAIN(TwinPerformanceTest)
#include "tst_twin_performance.moc"
