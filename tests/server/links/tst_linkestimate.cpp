// The symbol-BER estimate against hand-computed numbers (docs/domain/link-health.md section 2),
// every bad input of issue 31 item 8 through PortTracker and LinkWatch, the both-ends rules and
// the isolation budget.
#include "CableJudgement.h"
#include "LinkThresholds.h"
#include "LinkWatch.h"
#include "PoissonBounds.h"
#include "PortTracker.h"
#include "SymbolBerEstimate.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace watchfloor::server;

namespace {

constexpr double kNdrBytes = 5e10;  // 400 Gb/s
constexpr double kNdrBits = 4e11;

PortCounterSample port(std::int64_t ms, std::uint64_t symbol, bool active = true, double rate = kNdrBytes) {
    PortCounterSample s;
    s.timeMs = ms;
    s.setSymbolErrors(symbol).setLinkDowned(0).setLinkErrorRecovery(0).setActive(active).setRate(rate);
    return s;
}

bool near(double actual, double expected, double relative) {
    return std::fabs(actual - expected) <= relative * std::fabs(expected);
}

}  // namespace

class TestLinkEstimate : public QObject {
    Q_OBJECT

private slots:
    void threeErrorsInThreeE15Bits();
    void zeroErrorsIsAnUpperBound();
    void judgingUntilTheWindowIsFull();
    void errorCalledBeforeTheWindowIsFull();
    void elevatedBetweenNormalAndWarning();
    void packetErrorsAgainstPdrLine();
    void intervalBitsAndErrors();
    void decreaseIsAClear();
    void saturatedHasNoRateUntilCleared();
    void gapIsMissingNotZero();
    void vanishedSeriesIsMissing();
    void staleSampleRejected();
    void absurdValuesRejected();
    void notActiveOrNoRateCarriesNoBits();
    void noTrafficHasNoPacketRatio();
    void exporterRestartMidWindow();
    void watchPacketErrorRatio();
    void cableTakesTheWorseEnd();
    void linkDownNeedsBothEnds();
    void watchCountsOnlyBothEndedDowns();
    void watchQuietLinkShowsABound();
    void isolationBudget_data();
    void isolationBudget();
};

void TestLinkEstimate::threeErrorsInThreeE15Bits() {
    const RateInterval r = poissonRateInterval(3, 3e15);
    QVERIFY(r.known);
    QVERIFY(near(r.point, 1e-15, 1e-12));
    // χ²(0.05; 6) / 2 = 1.6354 / 2 and χ²(0.95; 8) / 2 = 15.507 / 2, over 3e15 bits.
    QVERIFY2(near(r.lower, 1.6354 / 6e15, 1e-3), qPrintable(QString::number(r.lower)));
    QVERIFY2(near(r.upper, 15.507 / 6e15, 1e-3), qPrintable(QString::number(r.upper)));
    QCOMPARE(QString::number(r.lower, 'e', 1), QStringLiteral("2.7e-16"));
    QCOMPARE(QString::number(r.upper, 'e', 1), QStringLiteral("2.6e-15"));
}

void TestLinkEstimate::zeroErrorsIsAnUpperBound() {
    const SymbolBerEstimate e = judgeSymbolBer(0, 3e15, kNdrBits, false);
    QVERIFY(e.upperOnly);
    QCOMPARE(e.point, 0.0);
    QVERIFY(near(e.upper, -std::log(0.05) / 3e15, 1e-9));  // 9.99e-16
    QCOMPARE(e.verdict, BerVerdict::Normal);
    QCOMPARE(QString::fromStdString(e.text()), QStringLiteral("\u2264 1.0e-15 (95 %)"));
    QVERIFY(poissonRateInterval(0, 0).known == false);
}

void TestLinkEstimate::judgingUntilTheWindowIsFull() {
    // 37 min at 400 Gb/s, no error yet: 8.88e14 bits of the 3e15 a Normal needs (125 min).
    const SymbolBerEstimate e = judgeSymbolBer(0, 37 * 60 * kNdrBits, kNdrBits, false);
    QCOMPARE(e.verdict, BerVerdict::Judging);
    QCOMPARE(QString::fromStdString(e.text()), QStringLiteral("judging, 37 of 125 min"));
    // At 200 Gb/s the window is 250 min.
    const SymbolBerEstimate half = judgeSymbolBer(0, 125 * 60 * 2e11, 2e11, false);
    QCOMPARE(half.verdict, BerVerdict::Judging);
    QVERIFY(near(half.neededSeconds, 250 * 60, 1e-9));
}

void TestLinkEstimate::errorCalledBeforeTheWindowIsFull() {
    // PDR's 12-minute check: 30 errors in 2.88e14 bits have a lower bound of χ²(0.05; 60)/2 =
    // 21.6 errors, 7.5e-14, above the Error line.
    const SymbolBerEstimate e = judgeSymbolBer(30, 2.88e14, kNdrBits, false);
    QCOMPARE(e.verdict, BerVerdict::Error);
    QVERIFY(e.lower > 1e-14 && e.lower < 8e-14);
    // Three errors in the same 12 min prove nothing yet.
    QCOMPARE(judgeSymbolBer(3, 2.88e14, kNdrBits, false).verdict, BerVerdict::Judging);
    // Five errors: χ²(0.05; 10)/2 = 1.97 errors, 6.8e-15: above Warning, not above Error.
    QCOMPARE(judgeSymbolBer(5, 2.88e14, kNdrBits, false).verdict, BerVerdict::Warning);
    // 12 errors: 6.17 / 2.88e14 = 2.1e-14 > Error.
    QCOMPARE(judgeSymbolBer(12, 2.88e14, kNdrBits, false).verdict, BerVerdict::Error);
}

void TestLinkEstimate::elevatedBetweenNormalAndWarning() {
    const SymbolBerEstimate e = judgeSymbolBer(9, 3e15, kNdrBits, false);  // 3e-15, lower 1.6e-15
    QCOMPARE(e.verdict, BerVerdict::Elevated);
    QVERIFY(!e.upperOnly);
    QCOMPARE(judgeSymbolBer(30, 3e15, kNdrBits, false).verdict, BerVerdict::Warning);  // lower 7.1e-15
    QCOMPARE(judgeSymbolBer(100, 3e15, kNdrBits, true).verdict, BerVerdict::Saturated);
}

void TestLinkEstimate::packetErrorsAgainstPdrLine() {
    // One bad packet in 4.6e10 (125 min at ~6e6 packets/s): lower bound 0.0513 / 4.6e10 = 1.1e-12.
    const PacketErrorEstimate one = judgePacketErrors(1, 4.6e10);
    QVERIFY(one.known);
    QVERIFY(one.overLine);
    // One in 1e11: lower bound 5.1e-13.
    QVERIFY(!judgePacketErrors(1, 1e11).overLine);
    QVERIFY(!judgePacketErrors(0, 0).known);
}

void TestLinkEstimate::intervalBitsAndErrors() {
    PortTracker t;
    PortInterval first = t.advance(port(0, 100));
    QVERIFY(first.events & kPortFirstSample);
    QCOMPARE(first.bits, 0.0);
    const PortInterval in = t.advance(port(15'000, 102));
    QVERIFY(in.hasSymbolErrors);
    QCOMPARE(in.symbolErrors, 2u);
    QCOMPARE(in.bits, 8 * kNdrBytes * 15);  // 6e12
    QCOMPARE(in.events, std::uint8_t(0));
}

void TestLinkEstimate::decreaseIsAClear() {
    PortTracker t;
    t.advance(port(0, 40'000));
    const PortInterval cleared = t.advance(port(15'000, 3));
    QVERIFY(cleared.events & kPortCleared);
    QVERIFY(!cleared.hasSymbolErrors);
    QVERIFY(cleared.bits > 0);  // the port ran; only the count across the clear is lost
    const PortInterval next = t.advance(port(30'000, 5));
    QVERIFY(next.hasSymbolErrors);
    QCOMPARE(next.symbolErrors, 2u);
}

void TestLinkEstimate::saturatedHasNoRateUntilCleared() {
    PortTracker t;
    t.advance(port(0, 65'530));
    const PortInterval hit = t.advance(port(15'000, 65'535));
    QVERIFY(hit.events & kPortSaturated);
    QVERIFY(!hit.hasSymbolErrors);
    QVERIFY(t.saturated());
    const PortInterval stuck = t.advance(port(30'000, 65'535));
    QVERIFY(stuck.events & kPortSaturated);
    QVERIFY(!stuck.hasSymbolErrors);
    const PortInterval clear = t.advance(port(45'000, 0));
    QVERIFY(clear.events & kPortCleared);
    QVERIFY(!t.saturated());
    const PortInterval after = t.advance(port(60'000, 1));
    QVERIFY(after.hasSymbolErrors);
    QCOMPARE(after.symbolErrors, 1u);
    // A port first seen saturated is saturated.
    PortTracker u;
    QVERIFY(u.advance(port(0, 65'535)).events & kPortSaturated);
    QVERIFY(u.saturated());
}

void TestLinkEstimate::gapIsMissingNotZero() {
    PortTracker t;
    t.advance(port(0, 10));
    const PortInterval gap = t.advance(port(15'000 + PortTracker::kDefaultMaxGapMs, 12));
    QVERIFY(gap.events & kPortMissing);
    QCOMPARE(gap.bits, 0.0);
    QVERIFY(!gap.hasSymbolErrors);
    const PortInterval next = t.advance(port(30'000 + PortTracker::kDefaultMaxGapMs, 13));
    QVERIFY(next.hasSymbolErrors);
    QCOMPARE(next.symbolErrors, 1u);
    // Two missed 15 s polls are one longer interval, not missing.
    const PortInterval short_ = t.advance(port(75'000 + PortTracker::kDefaultMaxGapMs, 14));
    QVERIFY(short_.hasSymbolErrors);
    QCOMPARE(short_.bits, 8 * kNdrBytes * 45);
}

void TestLinkEstimate::vanishedSeriesIsMissing() {
    PortTracker t;
    t.advance(port(0, 10));
    PortCounterSample noSymbol;
    noSymbol.timeMs = 15'000;
    noSymbol.setLinkDowned(0).setLinkErrorRecovery(0).setActive(true).setRate(kNdrBytes);
    const PortInterval vanished = t.advance(noSymbol);
    QVERIFY(vanished.events & kPortMissing);
    QVERIFY(!vanished.hasSymbolErrors);
    // It comes back: a new reference first, a count only after.
    QVERIFY(!t.advance(port(30'000, 20)).hasSymbolErrors);
    const PortInterval back = t.advance(port(45'000, 21));
    QVERIFY(back.hasSymbolErrors);
    QCOMPARE(back.symbolErrors, 1u);
}

void TestLinkEstimate::staleSampleRejected() {
    PortTracker t;
    t.advance(port(15'000, 10));
    QVERIFY(t.advance(port(15'000, 11)).events & kPortRejected);
    QVERIFY(t.advance(port(10'000, 11)).events & kPortRejected);
    const PortInterval in = t.advance(port(30'000, 12));
    QCOMPARE(in.symbolErrors, 2u);  // the reference stayed at 10
}

void TestLinkEstimate::absurdValuesRejected() {
    for (double rate :
         {1e13, -5e10, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        PortTracker t;
        t.advance(port(0, 10));
        const PortInterval in = t.advance(port(15'000, 11, true, rate));
        QVERIFY(in.events & kPortRejected);
        QCOMPARE(in.bits, 0.0);
        QVERIFY(!in.hasSymbolErrors);
    }
    // A 16-bit counter reading 70,000.
    PortTracker wide;
    wide.advance(port(0, 10));
    const PortInterval over = wide.advance(port(15'000, 70'000));
    QVERIFY(over.events & kPortRejected);
    QVERIFY(!over.hasSymbolErrors);
    // 60,000 symbol errors over 1e8 bits (1 s at 100 Mb/s): 6e-4, more than a link that stays up shows.
    PortTracker slow;
    slow.advance(port(0, 0, true, 1.25e7));
    const PortInterval burst = slow.advance(port(1'000, 60'000, true, 1.25e7));
    QVERIFY(burst.events & kPortRejected);
    QVERIFY(!burst.hasSymbolErrors);
    // More packets than the rate can carry at 32 bytes a packet.
    PortTracker packets;
    PortCounterSample a = port(0, 0);
    a.setPacketsReceived(0).setReceiveErrors(0).setRemotePhysicalErrors(0);
    packets.advance(a);
    PortCounterSample b = port(15'000, 0);
    b.setPacketsReceived(std::uint64_t(5e10 * 15 / 32) + 1000).setReceiveErrors(0).setRemotePhysicalErrors(0);
    const PortInterval flood = packets.advance(b);
    QVERIFY(flood.events & kPortRejected);
    QVERIFY(!flood.hasPackets);
}

void TestLinkEstimate::notActiveOrNoRateCarriesNoBits() {
    PortTracker t;
    t.advance(port(0, 10));
    PortCounterSample down = port(15'000, 14, false);
    down.setLinkDowned(1);
    const PortInterval in = t.advance(down);
    QVERIFY(in.events & kPortNoBits);
    QCOMPARE(in.bits, 0.0);
    QVERIFY(!in.hasSymbolErrors);  // errors while training are not BER
    QCOMPARE(in.linkDowned, 1u);   // but the link-down counts
    // Down at the earlier sample: still no bits for the interval after it.
    QVERIFY(t.advance(port(30'000, 14)).events & kPortNoBits);
    QVERIFY(t.advance(port(45'000, 15)).hasSymbolErrors);
    // Zero rate: no bits, no BER (not 0), and no rejection either.
    PortTracker zero;
    zero.advance(port(0, 0, true, 0));
    const PortInterval none = zero.advance(port(15'000, 0, true, 0));
    QVERIFY(none.events & kPortNoBits);
    QVERIFY(!(none.events & kPortRejected));
    QCOMPARE(judgeSymbolBer(0, 0, 0, false).verdict, BerVerdict::NoData);
    QCOMPARE(QString::fromStdString(judgeSymbolBer(0, 0, 0, false).text()), QStringLiteral("no BER"));
    // State not exported: unknown, so no bits.
    PortTracker stateless;
    PortCounterSample s0;
    s0.timeMs = 0;
    s0.setSymbolErrors(0).setRate(kNdrBytes);
    stateless.advance(s0);
    s0.timeMs = 15'000;
    QVERIFY(stateless.advance(s0).events & kPortNoBits);
}

void TestLinkEstimate::noTrafficHasNoPacketRatio() {
    PortTracker t;
    PortCounterSample a = port(0, 0);
    a.setPacketsReceived(500).setReceiveErrors(0).setRemotePhysicalErrors(0);
    t.advance(a);
    a.timeMs = 15'000;
    const PortInterval idle = t.advance(a);
    QVERIFY(!idle.hasPackets);  // no packets: no ratio
    QVERIFY(idle.bits > 0);     // but the PHY ran: symbol BER still has bits
    QVERIFY(idle.hasSymbolErrors);
}

void TestLinkEstimate::exporterRestartMidWindow() {
    // Through the watch: an hour of clean polls, a restart that drops two polls and starts the
    // host's counters again at 0, then more polls. No interval goes negative; the bits before the
    // restart stay in the window.
    LinkWatch watch(1);
    std::vector<LinkPollSample> samples(1);
    std::uint64_t symbol = 30'000;
    std::int64_t t = 0;
    for (int i = 0; i < 240; ++i, t += 15'000) {
        samples[0].hostPresent = true;
        samples[0].host = port(t, symbol);
        if (i == 120 || i == 121) samples[0].hostPresent = false;  // the exporter is restarting
        if (i == 122) symbol = 0;                                  // and its counters start again
        if (i == 122) samples[0].host = port(t, symbol);
        watch.poll(t, samples);
    }
    QCOMPARE(watch.stats().negativeRates, 0u);
    QCOMPARE(watch.stats().clears, 1u);
    const SymbolBerEstimate e = watch.estimate(0, LinkEnd::Host);
    QCOMPARE(e.errors, 0.0);
    // 240 polls: 239 intervals, of which the two missing polls and the clear make one dropped
    // 45 s interval: 236 × 15 s = 59 min of bits.
    QVERIFY2(near(e.bits, 236.0 * 15 * 8 * kNdrBytes, 1e-6), qPrintable(QString::number(e.bits)));
    QCOMPARE(e.verdict, BerVerdict::Judging);
    QVERIFY(watch.atRisk().empty());
}

void TestLinkEstimate::watchPacketErrorRatio() {
    LinkWatch watch(2);
    std::vector<LinkPollSample> samples(2);
    std::int64_t t = 0;
    for (int i = 0; i <= 240; ++i, t += 15'000) {  // one hour
        for (int link = 0; link < 2; ++link) {
            samples[link].hostPresent = true;
            samples[link].host = port(t, 0);
            // Link 0 carries 1e6 packets a second with one bad packet at poll 100; link 1 none.
            const std::uint64_t packets = link == 0 ? std::uint64_t(i) * 15'000'000 : 0;
            samples[link].host.setPacketsReceived(packets).setReceiveErrors(link == 0 && i >= 100 ? 1 : 0);
            samples[link].host.setRemotePhysicalErrors(0);
        }
        watch.poll(t, samples);
    }
    const PacketErrorEstimate busy = watch.packetErrors(0);
    QVERIFY(busy.known);
    QVERIFY(near(busy.packets, 3.6e9, 1e-5));  // buckets sum in float
    QVERIFY(near(busy.ratio, 1 / 3.6e9, 1e-5));
    QVERIFY(busy.overLine);                 // lower bound 0.0513 / 3.6e9 = 1.4e-11
    QVERIFY(!watch.packetErrors(1).known);  // no traffic: no ratio
}

void TestLinkEstimate::cableTakesTheWorseEnd() {
    const SymbolBerEstimate normal = judgeSymbolBer(0, 3e15, kNdrBits, false);
    const SymbolBerEstimate warning = judgeSymbolBer(30, 3e15, kNdrBits, false);
    const SymbolBerEstimate none;
    CableJudgement both = judgeCable(normal, &warning);
    QCOMPARE(both.verdict, BerVerdict::Warning);
    QCOMPARE(both.worstEnd, LinkEnd::Switch);
    QVERIFY(!both.oneEndSeen);
    CableJudgement hostOnly = judgeCable(warning, nullptr);
    QCOMPARE(hostOnly.verdict, BerVerdict::Warning);
    QVERIFY(hostOnly.oneEndSeen);
    QVERIFY(judgeCable(normal, &none).oneEndSeen);
    // Normal beside judging is not yet a normal cable.
    const SymbolBerEstimate judging = judgeSymbolBer(0, 1e15, kNdrBits, false);
    QCOMPARE(judgeCable(normal, &judging).verdict, BerVerdict::Judging);
}

void TestLinkEstimate::linkDownNeedsBothEnds() {
    QVERIFY(linkDownConfirmed(1, 1, true));
    QVERIFY(!linkDownConfirmed(1, 0, true));
    QVERIFY(!linkDownConfirmed(0, 1, true));
    QVERIFY(!linkDownConfirmed(1, 0, false));
}

void TestLinkEstimate::watchCountsOnlyBothEndedDowns() {
    LinkWatch watch(2);
    std::vector<LinkPollSample> samples(2);
    std::uint64_t downs[2][2] = {{0, 0}, {0, 0}};
    std::int64_t t = 0;
    for (int i = 0; i < 40; ++i, t += 15'000) {
        if (i == 10) ++downs[0][0];  // link 0: the host end alone, three times
        if (i == 20) ++downs[0][0];
        if (i == 30) ++downs[0][0];
        if (i == 10) ++downs[1][0], ++downs[1][1];  // link 1: both ends in one poll
        if (i == 20) ++downs[1][0];                 // and one poll apart
        if (i == 21) ++downs[1][1];
        for (int link = 0; link < 2; ++link) {
            samples[link].hostPresent = samples[link].switchPresent = true;
            samples[link].host = port(t, 0);
            samples[link].host.setLinkDowned(downs[link][0]);
            // Link 0's switch end is reset at poll 25 (its counters start again at 0): a counter
            // event at one end, never a reason.
            samples[link].switchEnd = port(t, link == 0 && i >= 25 ? 0 : 500);
            samples[link].switchEnd.setLinkDowned(downs[link][1]);
        }
        watch.poll(t, samples);
    }
    QCOMPARE(watch.stats().confirmedDowns, 2u);
    QCOMPARE(watch.stats().oneEndedDowns, 3u);
    QCOMPARE(watch.stats().clears, 1u);
    QVERIFY(!watch.risk(0).atRisk);
    QVERIFY(watch.risk(1).atRisk);  // two confirmed downs in ten minutes: a flap
    QCOMPARE(watch.atRisk().size(), std::size_t(1));
    QCOMPARE(watch.atRisk()[0], 1u);
    const LinkForecast f = watch.forecast(1);
    QVERIFY(f.down[1] > 0.5);
    QVERIFY(f.influencerCount >= 1);
    QCOMPARE(f.influencers[0].what, Influence::LinkDowns);
}

void TestLinkEstimate::watchQuietLinkShowsABound() {
    LinkWatch watch(1);
    std::vector<LinkPollSample> samples(1);
    std::int64_t t = 0;
    for (int i = 0; i <= 540; ++i, t += 15'000) {  // 135 min
        samples[0].hostPresent = true;
        samples[0].host = port(t, 7);
        watch.poll(t, samples);
    }
    const SymbolBerEstimate e = watch.estimate(0, LinkEnd::Host);
    QCOMPARE(e.verdict, BerVerdict::Normal);
    QVERIFY(e.upperOnly);
    QVERIFY(e.upper <= 1.0e-15 && e.upper > 0);
    const CableJudgement c = watch.cable(0);
    QVERIFY(c.oneEndSeen);
    QCOMPARE(c.verdict, BerVerdict::Normal);
}

void TestLinkEstimate::isolationBudget_data() {
    QTest::addColumn<qulonglong>("links");
    QTest::addColumn<qulonglong>("budget");
    QTest::newRow("small fabric") << 100ull << 10ull;
    QTest::newRow("0.5 % is 10") << 2000ull << 10ull;
    QTest::newRow("0.5 % above 10") << 4000ull << 20ull;
    QTest::newRow("1,800 racks, 129,600 rail links") << 129600ull << 648ull;
}

void TestLinkEstimate::isolationBudget() {
    QFETCH(qulonglong, links);
    QFETCH(qulonglong, budget);
    QCOMPARE(qulonglong(watchfloor::server::isolationBudget(links)), budget);
    QCOMPARE(qulonglong(LinkWatch(links).isolationBudget()), budget);
}

QTEST_GUILESS_MAIN(TestLinkEstimate)
#include "tst_linkestimate.moc"
