// The forecaster and the fleet watch on synthetic links, and the trajectories they are tuned on.
// Seeds 1 and 2 are the tuning seeds; bench/links/link_forecast_bench reports on others.
#include "LinkForecaster.h"
#include "LinkHistory.h"
#include "LinkTrajectories.h"
#include "LinkWatch.h"
#include "Rng.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace watchfloor::server;

namespace {

constexpr std::int64_t kPollMs = 15'000;
constexpr double kHourMs = 3'600'000.0;
constexpr double kBitsPerPoll = 4e11 * 15;

// Poisson by inversion: small means only.
std::uint32_t poisson(Rng& rng, double mean) {
    double p = std::exp(-mean), sum = p, u = rng.uniform();
    std::uint32_t k = 0;
    while (u > sum && k < 10'000) {
        ++k;
        p *= mean / k;
        sum += p;
    }
    return k;
}

// A history fed poll by poll with a BER that is a function of time (host end only).
template <typename Ber>
LinkHistory feed(std::uint64_t seed, std::int64_t untilMs, Ber ber) {
    LinkHistory h;
    Rng rng(seed, 7);
    for (std::int64_t t = 0; t <= untilMs; t += kPollMs) {
        h.advanceTo(t);
        h.addSymbol(LinkEnd::Host, kBitsPerPoll, poisson(rng, ber(t) * kBitsPerPoll));
        h.addSymbol(LinkEnd::Switch, kBitsPerPoll, poisson(rng, 3e-16 * kBitsPerPoll));
    }
    return h;
}

// The same with each poll's errors the expectation rounded as it accrues: no luck either way.
template <typename Ber>
LinkHistory feedExpected(std::int64_t untilMs, Ber ber) {
    LinkHistory h;
    double expected = 0, emitted = 0;
    for (std::int64_t t = 0; t <= untilMs; t += kPollMs) {
        h.advanceTo(t);
        expected += ber(t) * kBitsPerPoll;
        const double errors = std::floor(expected - emitted);
        emitted += errors;
        h.addSymbol(LinkEnd::Host, kBitsPerPoll, static_cast<std::uint32_t>(errors));
        h.addSymbol(LinkEnd::Switch, kBitsPerPoll, 0);
    }
    return h;
}

struct Score {
    int drifts = 0, driftsEarly = 0, steps = 0, stepsInTwoPolls = 0, healthyFlagged = 0, oneEndedFlagged = 0;
    double healthyLinkDays = 0;
};

Score runWatch(std::uint64_t seed, std::size_t links, double days) {
    TrajectoryConfig config;
    config.seed = seed;
    config.links = links;
    config.days = days;
    config.faultScale = 300;
    LinkTrajectories truth(config);
    LinkWatch watch(links);
    std::vector<LinkPollSample> samples(links);
    std::vector<std::int64_t> firstFlag(links, -1);
    const std::int64_t end = static_cast<std::int64_t>(days * 24 * kHourMs);
    for (std::int64_t t = 0; t <= end; t += kPollMs) {
        for (std::size_t i = 0; i < links; ++i) {
            samples[i].hostPresent = truth.sample(i, LinkEnd::Host, t, samples[i].host);
            samples[i].switchPresent = truth.sample(i, LinkEnd::Switch, t, samples[i].switchEnd);
        }
        watch.poll(t, samples);
        for (std::uint32_t i : watch.atRisk())
            if (firstFlag[i] < 0) firstFlag[i] = t;
    }
    Score s;
    for (std::size_t i = 0; i < links; ++i) {
        const LinkTruth& tr = truth.truth(i);
        const std::int64_t warmup = static_cast<std::int64_t>(config.warmupDays * 24 * kHourMs);
        switch (tr.kind) {
        case TrajectoryKind::Drift:
            if (tr.crossErrorMs > end) break;
            ++s.drifts;
            if (firstFlag[i] >= 0 && firstFlag[i] <= tr.crossErrorMs - 3'600'000) ++s.driftsEarly;
            break;
        case TrajectoryKind::Step:
            ++s.steps;
            if (firstFlag[i] >= tr.onsetMs && firstFlag[i] <= tr.onsetMs + 2 * kPollMs) ++s.stepsInTwoPolls;
            break;
        case TrajectoryKind::Healthy:
            s.healthyLinkDays += days - config.warmupDays;
            if (firstFlag[i] >= warmup) {
                ++s.healthyFlagged;
                if (tr.oneEndedDownMs != LinkTruth::kNever || tr.exporterRestartMs != LinkTruth::kNever ||
                    tr.clearMs != LinkTruth::kNever)
                    ++s.oneEndedFlagged;
            }
            break;
        case TrajectoryKind::Flap: break;
        }
    }
    if (watch.stats().negativeRates) s.healthyFlagged += 1000;
    return s;
}

}  // namespace

class TestLinkForecast : public QObject {
    Q_OBJECT

private slots:
    void healthyLinkHasNoForecast();
    void driftForecastCrossesNearTheTruth();
    void fastDriftFlaggedAnHourAhead();
    void stepIsConfirmedAtOnce();
    void trajectoriesAreSeededAndCadenceFree();
    void trajectoryCountersStayInWidth();
    void trajectoryRatesAsStated();
    void watchOnTuningSeeds_data();
    void watchOnTuningSeeds();
};

void TestLinkForecast::healthyLinkHasNoForecast() {
    const std::int64_t now = static_cast<std::int64_t>(3 * 24 * kHourMs);
    const LinkHistory h = feed(1, now, [](std::int64_t) { return 1e-15; });
    LinkForecaster forecaster;
    const LinkForecast f = forecaster.forecast(h, now);
    QVERIFY(!f.confirmedError);
    QVERIFY2(f.errorOrDown[2] < 0.01, qPrintable(QString::number(f.errorOrDown[2])));
    QVERIFY(!forecaster.atRisk(f));
    QCOMPARE(h.baselineDays(), 2);
    // Its noise extrapolated is no crossing time either (the table would say "Error in N h").
    QVERIFY2(!std::isfinite(f.toError.hours) && !std::isfinite(f.toWarning.hours),
             qPrintable(QStringLiteral("%1 h").arg(f.toError.hours)));
}

void TestLinkForecast::driftForecastCrossesNearTheTruth() {
    // Two days at 3e-16, then a 24 h log-linear drift to the Error line; looked at 4 h before.
    const double startMs = 2 * 24 * kHourMs;
    const double crossMs = startMs + 24 * kHourMs;
    const double k = std::log(1e-14 / 3e-16) / (crossMs - startMs);
    auto ber = [&](std::int64_t t) { return t < startMs ? 3e-16 : 3e-16 * std::exp(k * (double(t) - startMs)); };
    const std::int64_t now = static_cast<std::int64_t>(crossMs - 4 * kHourMs);
    const LinkHistory h = feed(1, now, ber);
    LinkForecaster forecaster;
    const LinkForecast f = forecaster.forecast(h, now);
    QVERIFY(f.trendFitted);
    QCOMPARE(f.trendEnd, LinkEnd::Host);
    QVERIFY(f.aboveBaseline);
    QVERIFY2(f.decadesPerDay > 0.5 && f.decadesPerDay < 3.0, qPrintable(QString::number(f.decadesPerDay)));
    QVERIFY2(f.toError.earliestHours <= 4 && f.toError.latestHours >= 4,
             qPrintable(QStringLiteral("%1 … %2").arg(f.toError.earliestHours).arg(f.toError.latestHours)));
    QVERIFY(f.toWarning.hours < f.toError.hours);
    QVERIFY(f.errorOrDown[0] <= f.errorOrDown[1] && f.errorOrDown[1] <= f.errorOrDown[2]);
    QVERIFY2(f.errorOrDown[1] > 0.5, qPrintable(QString::number(f.errorOrDown[1])));
    QVERIFY(forecaster.atRisk(f));
    QVERIFY(f.influencerCount >= 1);
    QCOMPARE(f.influencers[0].what, Influence::SymbolErrorsHost);
    QVERIFY(f.influencers[0].recent > 3 * f.influencers[0].baseline);
}

void TestLinkForecast::fastDriftFlaggedAnHourAhead() {
    // Two days at 2e-16, then 7 h to the Error line (the fast end of the 6-72 h drifts); looked at
    // the hour before it crosses, the benchmark's mark. Its last 3 h hold 12 errors: no window's
    // count is yet improbable enough under the baseline, but their crowding toward now is (the
    // trend's likelihood ratio; with the 1, 2 and 8 h windows alone it was flagged at 0.75 h).
    const double startMs = 2 * 24 * kHourMs;
    const double crossMs = startMs + 7 * kHourMs;
    const double k = std::log(1e-14 / 2e-16) / (crossMs - startMs);
    auto ber = [&](std::int64_t t) { return t < startMs ? 2e-16 : 2e-16 * std::exp(k * (double(t) - startMs)); };
    const std::int64_t now = static_cast<std::int64_t>(crossMs - kHourMs);
    const LinkHistory h = feedExpected(now, ber);
    LinkForecaster forecaster;
    QVERIFY(forecaster.screen(h, now).aboveBaseline);
    const LinkForecast f = forecaster.forecast(h, now);
    QVERIFY2(forecaster.atRisk(f), qPrintable(QStringLiteral("P(Error or down in 6 h) %1").arg(f.errorOrDown[1])));
    QVERIFY2(f.toError.earliestHours <= 1, qPrintable(QStringLiteral("Error in %1 h (%2 … %3)")
                                                          .arg(f.toError.hours)
                                                          .arg(f.toError.earliestHours)
                                                          .arg(f.toError.latestHours)));
    // The same link steady at its baseline is not above it.
    const LinkHistory steady = feedExpected(now, [](std::int64_t) { return 2e-16; });
    QVERIFY(!forecaster.screen(steady, now).aboveBaseline);
}

void TestLinkForecast::stepIsConfirmedAtOnce() {
    LinkForecaster forecaster;
    // 1e-12 over one 15 s poll at 400 Gb/s expects 6 errors; the Error line expects 0.06.
    QVERIFY(forecaster.provesError(6, kBitsPerPoll));
    QVERIFY(!forecaster.provesError(2, kBitsPerPoll));
    QVERIFY(forecaster.provesError(8, 2 * kBitsPerPoll));
}

void TestLinkForecast::trajectoriesAreSeededAndCadenceFree() {
    TrajectoryConfig config;
    config.seed = 2;
    config.links = 50;
    config.clearPerLinkDay = config.exporterRestartPerLinkDay = config.oneEndedDownPerLinkDay = 0;
    config.saturatedShare = 0;
    LinkTrajectories fine(config), coarse(config), again(config);
    for (std::size_t i = 0; i < config.links; ++i) QCOMPARE(fine.truth(i).healthyBer[0], again.truth(i).healthyBer[0]);
    PortCounterSample a, b;
    for (std::int64_t t = 0; t <= static_cast<std::int64_t>(6 * kHourMs); t += kPollMs) {
        for (std::size_t i = 0; i < config.links; ++i) {
            QVERIFY(fine.sample(i, LinkEnd::Host, t, a));
            if (t % 60'000 == 0) {
                QVERIFY(coarse.sample(i, LinkEnd::Host, t, b));
                QCOMPARE(a.symbolErrors, b.symbolErrors);
            }
        }
    }
}

void TestLinkForecast::trajectoryCountersStayInWidth() {
    TrajectoryConfig config;
    config.seed = 1;
    config.links = 400;
    config.days = 3;
    config.faultScale = 2000;
    config.exporterRestartPerLinkDay = 0.05;
    config.perfMgrClears = true;
    LinkTrajectories truth(config);
    PortCounterSample s;
    int gaps = 0, steps = 0;
    std::vector<std::uint64_t> last(config.links, 0);
    bool sawDecrease = false;
    for (std::int64_t t = 0; t <= static_cast<std::int64_t>(3 * 24 * kHourMs); t += 60'000) {
        for (std::size_t i = 0; i < config.links; ++i) {
            if (!truth.sample(i, LinkEnd::Host, t, s)) {
                ++gaps;
                continue;
            }
            QVERIFY(s.symbolErrors <= 65'535);
            QVERIFY(s.linkDowned <= 255);
            if (!truth.truth(i).saturatedHost) QVERIFY(s.symbolErrors < 49'152);  // PerfMgr cleared it
            if (s.symbolErrors < last[i]) sawDecrease = true;
            last[i] = s.symbolErrors;
        }
    }
    for (std::size_t i = 0; i < config.links; ++i) steps += truth.truth(i).kind == TrajectoryKind::Step;
    QVERIFY(steps > 0);
    QVERIFY(gaps > 0);
    QVERIFY(sawDecrease);
}

void TestLinkForecast::trajectoryRatesAsStated() {
    TrajectoryConfig config;
    config.seed = 1;
    config.links = 200'000;
    config.days = 4;
    config.faultScale = 100;
    LinkTrajectories truth(config);
    double counts[4] = {0, 0, 0, 0};
    for (std::size_t i = 0; i < config.links; ++i) counts[static_cast<int>(truth.truth(i).kind)] += 1;
    const double linkDays = double(config.links) * (config.days - config.warmupDays);
    const double expected[4] = {0, config.driftPerLinkDay * 100 * linkDays, config.stepPerLinkDay * 100 * linkDays,
                                config.flapPerLinkDay * 100 * linkDays};
    for (int k = 1; k < 4; ++k)
        QVERIFY2(std::fabs(counts[k] - expected[k]) < 5 * std::sqrt(expected[k]),
                 qPrintable(QStringLiteral("%1: %2 vs %3").arg(k).arg(counts[k]).arg(expected[k])));
}

void TestLinkForecast::watchOnTuningSeeds_data() {
    QTest::addColumn<qulonglong>("seed");
    QTest::newRow("seed 1") << 1ull;
    QTest::newRow("seed 2") << 2ull;
}

void TestLinkForecast::watchOnTuningSeeds() {
    QFETCH(qulonglong, seed);
    const Score s = runWatch(seed, 2500, 3);
    const QString said = QStringLiteral("drifts %1/%2 early, steps %3/%4, healthy flagged %5 in %6 link-days")
                             .arg(s.driftsEarly)
                             .arg(s.drifts)
                             .arg(s.stepsInTwoPolls)
                             .arg(s.steps)
                             .arg(s.healthyFlagged)
                             .arg(s.healthyLinkDays);
    qInfo("%s", qPrintable(said));
    QVERIFY2(s.drifts >= 5, qPrintable(said));
    QVERIFY2(s.driftsEarly >= 0.9 * s.drifts, qPrintable(said));
    QVERIFY2(s.stepsInTwoPolls >= 0.9 * s.steps, qPrintable(said));
    QVERIFY2(s.healthyFlagged <= 1, qPrintable(said));
    QCOMPARE(s.oneEndedFlagged, 0);
}

QTEST_GUILESS_MAIN(TestLinkForecast)
#include "tst_linkforecast.moc"
