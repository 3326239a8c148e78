// The twin's rail links alone (RailLinks on a LinkFabric, no trays, jobs or cooling): both ends'
// counters follow the link trajectories (healthy symbol errors at their Poisson rate, host and
// far end), a scripted drift grows both ends' errors and fails the link at its end, the
// trajectories' drifts fail and their flapping links flap at the trajectories' times, what the
// fabric adds (a burst, a down) lands on the counters until a clear zeroes it, and a seed gives
// the same counters.

#include "FleetSpec.h"
#include "RailLinks.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <vector>

using namespace watchfloor::server;
using namespace watchfloor::server::sim;
using namespace watchfloor::v1;

namespace {

struct RecordingHost final : FabricHost, RailLinkHost {
    LinkFabric* fabric = nullptr;
    const TwinScheduler* clock = nullptr;
    std::map<std::uint32_t, std::vector<std::int64_t>> failedAtMs, flappedAtMs;

    bool trayPowered(std::uint32_t) const override { return true; }
    void addGpuNvlinkErrors(std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t) override {}
    void railLinkFailed(std::uint32_t nic) override {
        failedAtMs[nic].push_back(clock->nowMs());
        fabric->portDown(false, nic, "network_link", false);
    }
    void railLinkFlapped(std::uint32_t nic) override {
        flappedAtMs[nic].push_back(clock->nowMs());
        fabric->portFlap(false, nic, 1, false);
    }
};

struct Rails {
    FleetSpec spec;
    FleetModel model;
    TwinScheduler clock;
    TelemetryPublisher publisher{model, clock, 0, {}};
    RecordingHost host;
    LinkFabric fabric{Rng(7, 6), model, clock, publisher, host};
    RailLinks rails;
    FleetChanges out;

    explicit Rails(std::uint32_t racks, std::uint64_t seed = 7)
        : spec(generatedFleetSpec(1, racks)), model(spec, 0), rails(Rng(seed, 8), model, clock, fabric, host) {
        host.fabric = &fabric;
        host.clock = &clock;
        publisher.begin(out);
    }
    void runUntilMs(std::int64_t untilMs) {
        while (clock.runNext(untilMs)) {}
        clock.advanceTo(untilMs);
    }
    // Every port's samples now, by (entity, metric).
    std::map<std::pair<std::uint32_t, Metric>, float> emitAll() {
        std::vector<Sample> samples;
        for (std::uint32_t nic = 0; nic < model.nics(); ++nic) rails.emitCounters(nic, true, 0.0f, samples);
        std::map<std::pair<std::uint32_t, Metric>, float> byKey;
        for (const auto& s : samples) byKey[{s.entityIndex, s.metric}] = s.value;
        return byKey;
    }
    float emitOne(std::uint32_t nic, Metric metric) {
        std::vector<Sample> samples;
        rails.emitCounters(nic, true, 0.0f, samples);
        for (const auto& s : samples)
            if (s.metric == metric) return s.value;
        return std::nanf("");
    }
};

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kDayMs = 24 * kHourMs;
constexpr double kBitsPerMs = 4e8;

// No counter event or fault on the link before `untilMs`: its counters only count errors.
bool quietUntil(const LinkTruth& t, std::int64_t untilMs) {
    return t.kind == TrajectoryKind::Healthy && !t.saturatedHost && t.clearMs > untilMs &&
           t.exporterRestartMs > untilMs && t.oneEndedDownMs > untilMs;
}

}  // namespace

class RailLinksTest : public QObject {
    Q_OBJECT

private slots:
    void healthyErrorsAtTheirPoissonRateBothEnds();
    void scriptedDriftGrowsAndFailsAtItsEnd();
    void trajectoriesFailAndFlapOnTime();
    void fabricAdditionsLandUntilAClear();
    void sameSeedSameCounters();
};

void RailLinksTest::healthyErrorsAtTheirPoissonRateBothEnds() {
    Rails r(2);
    const auto before = r.emitAll();
    QCOMPARE(before.size(), std::size_t(r.model.nics()) * 9);  // host: 4 counters + temperature; far: 4
    r.runUntilMs(2 * kDayMs);
    const auto after = r.emitAll();
    double observed[2] = {0, 0}, expected[2] = {0, 0};
    int links = 0;
    for (std::uint32_t nic = 0; nic < r.model.nics(); ++nic) {
        const LinkTruth& t = r.rails.trajectories().truth(nic);
        if (!quietUntil(t, 2 * kDayMs)) continue;
        ++links;
        const std::uint32_t e = r.model.nicIndex(nic);
        for (int end = 0; end < 2; ++end) {
            const Metric m = end == 0 ? IB_SYMBOL_ERROR_COUNTER : IB_FAR_SYMBOL_ERROR_COUNTER;
            const float grew = after.at({e, m}) - before.at({e, m});
            QVERIFY(grew >= 0);
            observed[end] += grew;
            expected[end] += double(t.healthyBer[end]) * kBitsPerMs * double(2 * kDayMs);
        }
    }
    QVERIFY(links > 130);
    for (int end = 0; end < 2; ++end) {
        qInfo("%s end: %.0f symbol errors on %d healthy links over 2 days, expected %.0f", end == 0 ? "host" : "far",
              observed[end], links, expected[end]);
        // Thousands of errors: Poisson's spread is a few percent.
        QVERIFY(std::abs(observed[end] / expected[end] - 1.0) < 0.1);
    }
}

void RailLinksTest::scriptedDriftGrowsAndFailsAtItsEnd() {
    Rails r(1);
    std::uint32_t nic = 0;
    while (!quietUntil(r.rails.trajectories().truth(nic), 4 * kHourMs)) ++nic;
    r.runUntilMs(10 * 60'000);
    r.rails.schedule();
    r.rails.drift(nic, 2.0 * 3600, 30 * 60);  // crosses Error at 2h10m, down at 2h40m
    const std::int64_t start = 10 * 60'000, cross = start + 2 * kHourMs, down = cross + kHourMs / 2;
    std::vector<float> host, far;
    float coolC = 0, warmC = 0;
    for (std::int64_t t = start; t <= down + 15'000; t += 15'000) {
        r.runUntilMs(t);
        host.push_back(r.emitOne(nic, IB_SYMBOL_ERROR_COUNTER));
        far.push_back(r.emitOne(nic, IB_FAR_SYMBOL_ERROR_COUNTER));
        if (t == start) coolC = r.emitOne(nic, IB_MODULE_TEMPERATURE_C);
        if (t == cross) {
            warmC = r.emitOne(nic, IB_MODULE_TEMPERATURE_C);
            const double ber = r.rails.bitErrorRatio(nic, watchfloor::server::LinkEnd::Host);
            QVERIFY2(std::abs(ber / 1e-14 - 1.0) < 0.01, qPrintable(QString::number(ber)));
        }
    }
    // 240 polls an hour: the first hour of the drift against the last before the failure.
    const std::size_t perHour = 240, n = host.size();
    const float firstHost = host[perHour] - host[0], lastHost = host[n - 2] - host[n - 2 - perHour];
    const float firstFar = far[perHour] - far[0], lastFar = far[n - 2] - far[n - 2 - perHour];
    qInfo("drift: host %g then %g errors an hour, far end %g then %g", firstHost, lastHost, firstFar, lastFar);
    QVERIFY(lastHost >= 8 && lastHost > 3 * firstHost);
    QVERIFY(lastFar >= 8 && lastFar > 3 * firstFar);
    QVERIFY(warmC > coolC + 6);
    QCOMPARE(r.host.failedAtMs[nic], std::vector<std::int64_t>{down});
    QCOMPARE(r.fabric.port(false, nic).state, LINK_STATE_DOWN);
    QCOMPARE(r.host.failedAtMs.size(), std::size_t(1));
}

void RailLinksTest::trajectoriesFailAndFlapOnTime() {
    // A year of 40 racks' 2,880 rail links: ~14 drifts that fail and ~40 flapping links.
    Rails r(40);
    r.rails.schedule();
    r.runUntilMs(365 * kDayMs);
    const LinkTrajectories& truth = r.rails.trajectories();
    std::size_t drifts = 0, flapping = 0;
    for (std::uint32_t nic = 0; nic < truth.links(); ++nic) {
        const LinkTruth& t = truth.truth(nic);
        if (t.kind == TrajectoryKind::Drift) {
            ++drifts;
            QCOMPARE(r.host.failedAtMs[nic], std::vector<std::int64_t>{t.failMs});
        } else {
            QVERIFY(r.host.failedAtMs[nic].empty());
        }
        if (t.kind == TrajectoryKind::Flap) {
            ++flapping;
            const auto& flaps = r.host.flappedAtMs[nic];
            QVERIFY(!flaps.empty());
            for (const std::int64_t at : flaps) QVERIFY(at >= t.onsetMs && at <= t.flapEndMs + 30'000);
        } else {
            QVERIFY(r.host.flappedAtMs[nic].empty());
        }
    }
    qInfo("%zu drifts failed, %zu links flapped (%zu flaps)", drifts, flapping, [&] {
        std::size_t n = 0;
        for (const auto& [nic, at] : r.host.flappedAtMs) n += at.size();
        return n;
    }());
    QVERIFY(drifts >= 5);
    QVERIFY(flapping >= 15);
}

void RailLinksTest::fabricAdditionsLandUntilAClear() {
    Rails r(40);
    const LinkTrajectories& truth = r.rails.trajectories();
    // A link that is cleared (ibclearerrors) within its first 60 days and has no other counter event.
    std::uint32_t nic = 0;
    const auto cleared = [&](const LinkTruth& t) {
        return t.kind == TrajectoryKind::Healthy && !t.saturatedHost && t.clearMs < 60 * kDayMs &&
               t.exporterRestartMs > 61 * kDayMs && t.oneEndedDownMs > 61 * kDayMs;
    };
    while (nic < truth.links() && !cleared(truth.truth(nic))) ++nic;
    QVERIFY(nic < truth.links());
    const std::uint32_t e = r.model.nicIndex(nic);
    auto before = r.emitAll();
    r.fabric.portErrorBurst(false, nic, 500, false);
    r.fabric.portDown(false, nic, "scenario");
    auto after = r.emitAll();
    QCOMPARE(after.at({e, IB_SYMBOL_ERROR_COUNTER}), before.at({e, IB_SYMBOL_ERROR_COUNTER}) + 500);
    QCOMPARE(after.at({e, IB_LINK_DOWNED_COUNTER}), before.at({e, IB_LINK_DOWNED_COUNTER}) + 1);
    QCOMPARE(after.at({e, IB_FAR_SYMBOL_ERROR_COUNTER}), before.at({e, IB_FAR_SYMBOL_ERROR_COUNTER}));    // one way
    QCOMPARE(after.at({e, IB_FAR_LINK_DOWNED_COUNTER}), before.at({e, IB_FAR_LINK_DOWNED_COUNTER}) + 1);  // both see it
    r.fabric.portUp(false, nic);

    // Read just before the clear: the trajectories count the errors since the last reading when
    // they are asked, so a reading days before would put days of errors after the clear.
    r.runUntilMs(truth.truth(nic).clearMs - 1'000);
    r.emitAll();
    r.runUntilMs(truth.truth(nic).clearMs + 60'000);
    after = r.emitAll();
    // ibclearerrors cleared both ends: what is left is the errors of one minute (none, at a healthy BER).
    QCOMPARE(after.at({e, IB_SYMBOL_ERROR_COUNTER}), 0.0f);
    QCOMPARE(after.at({e, IB_LINK_DOWNED_COUNTER}), 0.0f);
    QCOMPARE(after.at({e, IB_FAR_LINK_DOWNED_COUNTER}), 0.0f);
    r.fabric.portErrorBurst(false, nic, 7, false);
    after = r.emitAll();
    QCOMPARE(after.at({e, IB_SYMBOL_ERROR_COUNTER}), 7.0f);
}

void RailLinksTest::sameSeedSameCounters() {
    auto day = [](std::uint64_t seed) {
        Rails r(2, seed);
        r.rails.schedule();
        r.rails.drift(5, 3600, 600);
        std::vector<std::map<std::pair<std::uint32_t, Metric>, float>> polls;
        for (std::int64_t t = 0; t <= kDayMs; t += kHourMs) {
            r.runUntilMs(t);
            polls.push_back(r.emitAll());
        }
        return polls;
    };
    const auto a = day(7);
    QVERIFY(a == day(7));
    QVERIFY(a != day(8));
}

QTEST_GUILESS_MAIN(RailLinksTest)
#include "tst_sim_raillinks.moc"
