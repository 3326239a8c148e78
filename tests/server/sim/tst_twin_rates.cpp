// Failure and interruption rates of a large fleet against the configured rates
// (docs/domain/failure-rates.md × hardwareRateScale), on the twin's fast path. The suite runs a
// shorter, still statistically meaningful version (~290 expected failures, sigma ~6%); TWIN_RATES_FULL_MONTH
// runs a simulated month of the 1,800-rack fleet at the baseline rates (~1,600 failures).

#include "TwinTestSupport.h"

#include "FailureCauses.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cmath>

using namespace twintest;

class TwinRatesTest : public QObject {
    Q_OBJECT

private slots:
    void ratesMatchConfiguration();
};

void TwinRatesTest::ratesMatchConfiguration() {
    SimConfig config;
    config.telemetry = false;
#ifdef TWIN_RATES_FULL_MONTH
    config.racks = 1800;
    config.regions = 4;
    config.hardwareRateScale = 1.0;
    const std::int64_t days = 30;
#else
    config.racks = 200;
    config.hardwareRateScale = 5.0;
    const std::int64_t days = 10;
#endif
    auto twin = makeTwin(config);
    QElapsedTimer timer;
    timer.start();
    run(*twin, days * 86400);
    const auto& st = twin->statistics();
    const double hwRate = st.hardwareFailures / st.poweredGpuHours;
    const double interruptionRate = st.jobInterruptions / st.jobGpuHoursExposed;
    const double configuredInterruptions = st.hardwareRatePerGpuHour + st.softwareRatePerGpuHour;
    qInfo("%d racks, %lld days (k_hw %.1f) in %.1f s", config.racks, static_cast<long long>(days),
          config.hardwareRateScale, timer.elapsed() / 1000.0);
    qInfo("hardware failures %llu over %.0f GPU-h: %.3g per GPU-h, configured %.3g (ratio %.3f)",
          static_cast<unsigned long long>(st.hardwareFailures), st.poweredGpuHours, hwRate, st.hardwareRatePerGpuHour,
          hwRate / st.hardwareRatePerGpuHour);
    qInfo("job interruptions %llu over %.0f job GPU-h: %.3g per GPU-h, configured %.3g (ratio %.3f)",
          static_cast<unsigned long long>(st.jobInterruptions), st.jobGpuHoursExposed, interruptionRate,
          configuredInterruptions, interruptionRate / configuredInterruptions);
    QVERIFY(st.hardwareFailures > 250);
    QCOMPARE(st.ledgerRecordsRejected, std::uint64_t(0));
    QVERIFY(std::abs(hwRate / st.hardwareRatePerGpuHour - 1.0) < 0.2);
    QVERIFY(std::abs(interruptionRate / configuredInterruptions - 1.0) < 0.2);

    // The two largest causes keep their share of the mix (±30%: fewer events each).
    const auto& causes = failureCauses();
    for (std::size_t c = 0; c < 2; ++c) {
        const double expected = causes[c].ratePerGpuHour * config.hardwareRateScale * st.poweredGpuHours;
        qInfo("%s: %llu, expected %.0f", causes[c].cause, static_cast<unsigned long long>(st.failuresByCause[c]),
              expected);
        QVERIFY(std::abs(st.failuresByCause[c] / expected - 1.0) < 0.3);
    }
}

QTEST_GUILESS_MAIN(TwinRatesTest)
#include "tst_twin_rates.moc"
