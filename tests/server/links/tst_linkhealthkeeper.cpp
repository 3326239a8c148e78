// fleetd's link watch on the stream (LinkHealthKeeper): counters in as a source's FleetChanges
// carry them, LinkHealth out. A link with errors far over the Error line is listed at once with its
// verdict, its jobs and the GPU-hours at stake; a quiet link never is; the summary is sent when it
// changes; a link whose errors left the window is retired once; the summary counts them; a source
// that sends counters only on change (the twin) and one that re-sends them each poll agree.
#include "LinkHealthKeeper.h"
#include "TickClock.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kStartMs = 1'800'000'000'000;
constexpr std::int64_t kPollMs = 15'000;

// Two trays of one rack, two rail links each at 400 Gb/s.
v1::Topology twoTrays() {
    v1::Topology t;
    for (std::uint32_t node = 0; node < 2; ++node) {
        auto* n = t.add_nodes();
        n->set_index(10 + node);
        n->set_name("r01-n0" + std::to_string(node + 1));
        for (std::uint32_t port = 0; port < 2; ++port) {
            auto* p = t.add_nic_ports();
            p->set_index(100 + node * 2 + port);
            p->set_name(n->name() + "-ib" + std::to_string(port));
            p->set_node_index(n->index());
            p->set_port_id(port);
            p->set_link_rate_gbps(400);
        }
    }
    return t;
}

v1::Job jobOn(std::uint32_t node, std::int64_t checkpointMs) {
    v1::Job job;
    job.set_index(500);
    job.set_name("llm-8b-1");
    job.set_state(v1::JOB_STATE_RUNNING);
    job.add_node_indexes(node);
    job.set_gpu_count(4);
    job.set_last_checkpoint_unix_ms(checkpointMs);
    job.set_checkpoint_interval_s(1800);
    return job;
}

// Buckets keep bits as float: equal to a part in a million.
bool sameBits(double actual, double expected) {
    if (std::fabs(actual - expected) <= 1e-6 * std::fabs(expected)) return true;
    qWarning("bits %.10g, expected %.10g", actual, expected);
    return false;
}

LinkHealthOptions onChangeOptions(bool onChange) {
    LinkHealthOptions options;
    options.countersOnChange = onChange;
    return options;
}

struct Feed {
    explicit Feed(bool onChange = false) : keeper(twoTrays(), onChangeOptions(onChange)), everyPoll(!onChange) {}
    LinkHealthKeeper keeper;
    double symbol[4] = {0, 0, 0, 0};
    std::int64_t nowMs = kStartMs;
    bool everyPoll;  // false: only counters that moved, as the twin sends them
    bool up[4] = {true, true, true, true};
    bool blank[4] = {false, false, false, false};
    bool rateSent[4] = {false, false, false, false};  // IB_LINK_RATE_GBPS reported (NaN: blank)
    float rateGbps[4] = {0, 0, 0, 0};
    std::vector<v1::LinkHealth> sent;
    int summaries = 0;

    // One poll: link 0 gains `errors` symbol errors at the host end.
    void poll(double errors, const std::vector<v1::Job>& jobs = {}) {
        FleetChanges changes;
        changes.time = fromUnixMs(nowMs);
        for (std::uint32_t link = 0; link < 4; ++link) {
            const bool moved = link == 0 && errors > 0;
            if (link == 0) symbol[0] += errors;
            if (!everyPoll && !moved && nowMs != kStartMs) continue;
            changes.samples.push_back(
                {100 + link, v1::IB_SYMBOL_ERROR_COUNTER, blank[link] ? std::nanf("") : float(symbol[link])});
            changes.samples.push_back({100 + link, v1::IB_PHY_STATE, up[link] ? 5.0F : 3.0F});
            if (rateSent[link]) changes.samples.push_back({100 + link, v1::IB_LINK_RATE_GBPS, rateGbps[link]});
        }
        changes.jobs = jobs;
        keeper.observe(changes);
        sent.insert(sent.end(), changes.linkHealth.begin(), changes.linkHealth.end());
        summaries += changes.hasLinkSummary ? 1 : 0;
        nowMs += kPollMs;
    }
};

}  // namespace

class TstLinkHealthKeeper : public QObject {
    Q_OBJECT

private slots:
    void aLinkFarOverTheErrorLineIsListedWithItsJobsAtStake() {
        Feed f;
        const std::int64_t checkpoint = kStartMs - 20 * 60'000;  // 20 min of progress since
        f.poll(0, {jobOn(10, checkpoint)});
        // 6e12 bits a poll; 50 errors a poll is a BER near 8e-12, far over 1e-14.
        for (int i = 0; i < 4; ++i) f.poll(50);
        const auto& listed = f.keeper.listed();
        QCOMPARE(listed.size(), std::size_t(1));
        const v1::LinkHealth& h = listed.begin()->second;
        QCOMPARE(h.nic_port_index(), 100U);
        QCOMPARE(QString::fromStdString(h.name()), QString("r01-n01-ib0"));
        QCOMPARE(h.verdict(), v1::LINK_VERDICT_ERROR);
        QCOMPARE(h.host_end().verdict(), v1::LINK_VERDICT_ERROR);
        QVERIFY(h.host_end().lower() > 1e-14);
        QVERIFY(h.one_end_seen());
        QCOMPARE(h.switch_end().verdict(), v1::LINK_VERDICT_NO_DATA);
        QVERIFY(h.at_risk());
        QCOMPARE(h.stage(), v1::LINK_STAGE_WATCH);
        QVERIFY(!h.stage_reason().empty());
        QCOMPARE(h.at_stake().job_indexes_size(), 1);
        QCOMPARE(h.at_stake().gpus(), 4U);
        // 4 GPUs x (300 s restart + ~21 min since the checkpoint) against 4 x 300 s planned.
        const double sinceCheckpointS = double(f.nowMs - kPollMs - checkpoint) / 1000;
        QVERIFY(std::fabs(h.at_stake().planned_gpu_hours() - 4 * 300.0 / 3600) < 0.001);  // 3 digits sent
        QVERIFY(std::fabs(h.at_stake().unplanned_gpu_hours() - 4 * (300 + sinceCheckpointS) / 3600) < 0.02);
        QCOMPARE(h.at_stake().next_checkpoint_unix_ms(), checkpoint + 1'800'000);
        QVERIFY(h.forecast().history_size() >= 1);
        QCOMPARE(f.keeper.summary().links(), 4U);
        QCOMPARE(f.keeper.summary().at_risk(), 1U);
        QVERIFY(f.keeper.summary().at_stake_gpu_hours() > 0);
        QVERIFY(f.summaries >= 1);
    }

    // The ladder's stages on the record; a treated link's window starts again and its clean window
    // passes after 3e15 quiet bits (125 min at 400 Gb/s); a returned link is listed for an hour.
    void theLaddersStagesAreListedAndATreatedLinkEarnsItsCleanWindow() {
        Feed f;
        LinkLadderBook book(4, {{"r01-n01-ib0", "r01-n01"},
                                {"r01-n01-ib1", "r01-n01"},
                                {"r01-n02-ib0", "r01-n02"},
                                {"r01-n02-ib1", "r01-n02"}});
        f.keeper.setLadder(&book);
        for (int i = 0; i < 4; ++i) f.poll(50);
        QVERIFY(f.keeper.listed().at(100).at_risk());
        // The ladder's times are wall-clock times (its operations'), the keeper's are fleet time.
        const std::int64_t wall = wallNowMs();
        book.isolated("r01-n01-ib0", "op-1", "isolated by alice: BER over the Error line", false, wall - 60'000);
        f.poll(0);
        const v1::LinkHealth& isolated = f.keeper.listed().at(100);
        QCOMPARE(isolated.stage(), v1::LINK_STAGE_ISOLATED);
        QCOMPARE(isolated.operation_id(), std::string("op-1"));
        QCOMPARE(isolated.isolations_30d(), 1U);
        QCOMPARE(f.keeper.summary().isolated(), 1U);

        book.treated("r01-n01-ib0", "op-2", v1::LINK_TREATMENT_RESEAT_AND_CLEAN, v1::LINK_END_UNSPECIFIED, "alice",
                     wall - 50'000);
        f.poll(0);
        v1::LinkHealth treated = f.keeper.listed().at(100);
        QCOMPARE(treated.stage(), v1::LINK_STAGE_TREATED);
        QCOMPARE(treated.treated_by(), std::string("alice"));
        QVERIFY(!treated.at_risk());  // the burst before the treatment no longer counts
        QVERIFY2(treated.stage_reason().starts_with("clean window"), treated.stage_reason().c_str());
        QVERIFY(!book.get("r01-n01-ib0")->cleanWindowPassed);
        // About 125 min ahead at 400 Gb/s.
        QVERIFY2(treated.return_after_unix_ms() > f.nowMs + 115 * 60'000 &&
                     treated.return_after_unix_ms() < f.nowMs + 130 * 60'000,
                 qPrintable(QString::number((treated.return_after_unix_ms() - f.nowMs) / 60'000.0)));
        for (int i = 0; i < 480; ++i) f.poll(0);  // 2 h: short of 3e15 bits
        QVERIFY(!book.get("r01-n01-ib0")->cleanWindowPassed);
        const std::string judging = f.keeper.listed().at(100).stage_reason();
        QVERIFY2(judging.starts_with("clean window, host end: judging, 1"), judging.c_str());
        for (int i = 0; i < 40; ++i) f.poll(0);
        treated = f.keeper.listed().at(100);
        QVERIFY(book.get("r01-n01-ib0")->cleanWindowPassed);
        QCOMPARE(treated.stage_reason(), std::string("clean window passed: ready to return"));

        book.returned("r01-n01-ib0", "op-3", wall - 40'000);
        f.poll(0);
        QCOMPARE(f.keeper.listed().at(100).stage(), v1::LINK_STAGE_RETURNED);
        for (int i = 0; i < 250; ++i) f.poll(0);  // an hour later it is off the list, retired once
        QVERIFY(f.keeper.listed().empty());
        QVERIFY(f.sent.back().retired());
        QCOMPARE(f.keeper.summary().isolated(), 0U);
        QCOMPARE(book.get("r01-n01-ib0")->isolationsUnixMs.size(), std::size_t(1));  // still counted
        // An isolation older than 30 days is held but no longer counted.
        book.isolated("r01-n02-ib0", "op-4", "isolated by alice", false, wall - 31LL * 24 * 3'600'000);
        QCOMPARE(book.get("r01-n02-ib0")->isolationsUnixMs.size(), std::size_t(1));
        QCOMPARE(book.get("r01-n02-ib0")->isolationsWithin30Days(wall), std::size_t(0));
        f.poll(0);
        QCOMPARE(f.keeper.listed().at(102).stage(), v1::LINK_STAGE_ISOLATED);
        QCOMPARE(f.keeper.listed().at(102).isolations_30d(), 0U);
        QCOMPARE(book.isolationsWithin30Days("r01-n01-ib0", wall), std::size_t(1));
    }

    // A tray powered off or rebooting takes its links down at both ends: that is the host's event.
    // The same downs with the tray up are the cable's, and put the link at risk.
    void linkDownsWhileTheTrayIsDownAreTheHostsNotTheCables() {
        for (const bool trayDown : {true, false}) {
            LinkHealthKeeper keeper(twoTrays());
            std::int64_t nowMs = kStartMs;
            float downed = 0;
            for (int poll = 0; poll < 12; ++poll) {
                FleetChanges changes;
                changes.time = fromUnixMs(nowMs);
                if (poll == 2 && trayDown) {
                    v1::EntityState state;
                    state.set_entity_index(10);
                    state.set_node_state(v1::NODE_STATE_DOWN);
                    changes.states.push_back(state);
                }
                if (poll == 4 && trayDown) {
                    v1::EntityState state;
                    state.set_entity_index(10);
                    state.set_node_state(v1::NODE_STATE_IDLE);
                    changes.states.push_back(state);
                }
                if (poll >= 3 && poll <= 5) downed += 1;  // three downs, both ends
                for (const v1::Metric m : {v1::IB_LINK_DOWNED_COUNTER, v1::IB_FAR_LINK_DOWNED_COUNTER})
                    changes.samples.push_back({100, m, downed});
                changes.samples.push_back({100, v1::IB_SYMBOL_ERROR_COUNTER, 0.0F});
                changes.samples.push_back({100, v1::IB_FAR_SYMBOL_ERROR_COUNTER, 0.0F});
                keeper.observe(changes);
                nowMs += kPollMs;
            }
            const bool listed = keeper.listed().count(100) && keeper.listed().at(100).at_risk();
            QVERIFY2(listed != trayDown, trayDown ? "downs of a DOWN tray put its link at risk"
                                                  : "the cable's downs did not put the link at risk");
        }
    }

    void quietLinksAreNeverListedAndAnUnchangedSummaryIsNotResent() {
        Feed f;
        for (int i = 0; i < 40; ++i) f.poll(0);
        QVERIFY(f.keeper.listed().empty());
        QVERIFY(f.sent.empty());
        QCOMPARE(f.keeper.summary().at_risk(), 0U);
        QCOMPARE(f.keeper.summary().judged(), 0U);  // 10 min of a 125-min window: still judging
        QCOMPARE(f.summaries, 1);
        QCOMPARE(f.keeper.polls(), std::uint64_t(40));
    }

    void aLinkWhoseErrorsLeftTheWindowIsRetiredOnce() {
        Feed f;
        for (int i = 0; i < 4; ++i) f.poll(50);
        QCOMPARE(f.keeper.listed().size(), std::size_t(1));
        // Nine clean hours: the 8-hour buckets no longer hold the burst.
        for (int i = 0; i < 9 * 240; ++i) f.poll(0);
        QVERIFY(f.keeper.listed().empty());
        int retired = 0;
        for (const auto& h : f.sent) retired += h.retired() ? 1 : 0;
        QCOMPARE(retired, 1);
        QVERIFY(f.sent.back().retired());
    }

    void countersSentOnlyOnChangeAreJudgedAsCountersSentEveryPoll() {
        Feed periodic, onChange(true);
        for (int i = 0; i < 10; ++i) {
            const double errors = i % 3 == 0 ? 20 : 0;
            periodic.poll(errors);
            onChange.poll(errors);
        }
        const auto a = periodic.keeper.watch().estimate(0, LinkEnd::Host);
        const auto b = onChange.keeper.watch().estimate(0, LinkEnd::Host);
        QCOMPARE(a.errors, b.errors);
        QCOMPARE(a.bits, b.bits);
        QVERIFY(a.bits > 0);
        // A quiet link under a source that sends on change still carries bits: it is judged.
        QVERIFY(onChange.keeper.watch().estimate(1, LinkEnd::Host).bits > 0);
        // Under a polled source, a value that comes again without a newer scrape time is no new
        // sample: the same counters sent with one old timestamp carry no bits.
        Feed stale;
        for (int i = 0; i < 2; ++i) stale.poll(0);
        const double bitsBefore = stale.keeper.watch().estimate(1, LinkEnd::Host).bits;
        for (int i = 0; i < 3; ++i) {
            FleetChanges again;
            again.time = fromUnixMs(stale.nowMs);
            again.samples.push_back({101, v1::IB_SYMBOL_ERROR_COUNTER, 0.0F});
            again.sampleTimesMs.push_back(stale.nowMs - 3 * kPollMs);
            stale.keeper.observe(again);
            stale.nowMs += kPollMs;
        }
        QCOMPARE(stale.keeper.watch().estimate(1, LinkEnd::Host).bits, bitsBefore);
    }

    void theRateTheHostReportsIsTheBitsCarriedAndAnAbsurdOneFallsBack() {
        Feed f;
        f.rateGbps[0] = 200;   // an NDR port trained down to 200 Gb/s
        f.rateGbps[1] = 0;     // zero: no reading, the topology's 400 Gb/s stands
        f.rateGbps[2] = -400;  // negative: no reading
        f.rateGbps[3] = 1e6;   // 1 Pb/s: absurd, no reading
        std::fill(std::begin(f.rateSent), std::end(f.rateSent), true);
        for (int i = 0; i < 5; ++i) f.poll(0);
        const LinkWatch& watch = f.keeper.watch();
        const double seconds = 4 * kPollMs / 1000.0;
        QVERIFY(sameBits(watch.estimate(0, LinkEnd::Host).bits, 200e9 * seconds));
        for (std::size_t link = 1; link < 4; ++link)
            QVERIFY(sameBits(watch.estimate(link, LinkEnd::Host).bits, 400e9 * seconds));
        // Half the rate: the 3e15-bit window takes twice as long (250 min, not 125).
        QCOMPARE(watch.estimate(0, LinkEnd::Host).neededSeconds, 15'000.0);
        QCOMPARE(watch.estimate(1, LinkEnd::Host).neededSeconds, 7'500.0);
        // The quiet bound is over the bits carried: twice as loose at half the rate.
        QVERIFY(std::fabs(watch.estimate(0, LinkEnd::Host).upper / watch.estimate(1, LinkEnd::Host).upper - 2) < 1e-9);
        QCOMPARE(watch.stats().negativeRates, std::uint64_t(0));
        // A blank rate later: the topology's again, never no bits. The interval between a 200 and a
        // 400 Gb/s sample counts at the lower rate.
        f.rateGbps[0] = std::nanf("");
        f.poll(0);
        f.poll(0);
        QVERIFY(sameBits(watch.estimate(0, LinkEnd::Host).bits, 200e9 * (seconds + 15) + 400e9 * 15));
    }

    void aDownPortCarriesNoBitsAndBlankCountersAreMissingNotZero() {
        Feed f;
        f.up[1] = false;  // Disabled
        for (int i = 0; i < 2; ++i) f.poll(30);
        f.blank[0] = true;  // the exporter could not read it this once
        f.poll(30);
        f.blank[0] = false;
        for (int i = 0; i < 2; ++i) f.poll(30);
        QCOMPARE(f.keeper.watch().estimate(1, LinkEnd::Host).bits, 0.0);
        QVERIFY(f.keeper.watch().estimate(2, LinkEnd::Host).bits > 0);
        // A negative counter (a broken exporter) is no reading either: skipped, not a clear.
        f.symbol[0] = -5;
        f.poll(0);
        f.symbol[0] = 5 * 30;
        f.poll(0);
        // The blank was not a 0: no clear, and every error counted once.
        QCOMPARE(f.keeper.watch().stats().clears, std::uint64_t(0));
        QCOMPARE(f.keeper.watch().estimate(0, LinkEnd::Host).errors, 5 * 30.0 - 30.0);
        QCOMPARE(f.keeper.watch().stats().negativeRates, std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TstLinkHealthKeeper)
#include "tst_linkhealthkeeper.moc"
