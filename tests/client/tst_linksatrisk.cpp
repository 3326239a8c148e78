// Issue 31 item 7, the console's reading of fleetd's link health: the "Links at risk" rows over two
// endpoints, worst first (at risk, then P 6 h, then the verdict); both ends' BER with an upper bound
// as "≤ … (95 %)" and never 0, "one end seen"; the probabilities, the time to the Error line in
// words ("now", "—", the 90 % interval); the GPU-hours at stake against a drain at the next
// checkpoint with what it saves; a retired link leaving the list; the sentence an empty list shows.
#include "FleetStore.h"
#include "LinkRiskModel.h"
#include "LinksAtRisk.h"
#include "ModelRoles.h"

#include "SyntheticFleet.h"
#include "SyntheticLinkHealth.h"

#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;
namespace wt = watchfloor::testing;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;
constexpr std::int64_t kMinute = 60'000;

v1::SubscribeResponse delta(std::uint64_t sequence, std::int64_t time) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_first_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(time);
    return m;
}

QStringList column(const LinkRiskModel& model, int column) {
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row) out << model.index(row, column).data().toString();
    return out;
}
}  // namespace

class TestLinksAtRisk : public QObject {
    Q_OBJECT

private:
    SyntheticFleet m_east{SyntheticFleetSpec{.racks = 2, .withLinks = true, .fleetName = "east"}};
    SyntheticFleet m_west{SyntheticFleetSpec{.racks = 1, .withLinks = true, .fleetName = "west"}};

    static std::uint32_t port(const SyntheticFleet& fleet, int rack, int node, int p) {
        const std::uint32_t nodeIndex = fleet.nodeIndex(rack, node);
        for (const v1::Node& n : fleet.topology().nodes())
            if (n.index() == nodeIndex) return n.nic_port_indexes(p);
        return 0;
    }

    // East: a link drifting toward Error (at risk, P 6 h 0.82), one at risk by a lower P, one whose
    // errors prove it over the Error line, one above Warning not at risk; west: one at risk with
    // P 6 h 0.55 whose switch end no source has.
    void load(FleetStore& store, int east, int west) {
        v1::SubscribeResponse e = m_east.snapshot(1, kT0);
        v1::Snapshot& es = *e.mutable_snapshot();

        v1::LinkHealth drifting =
            wt::linkHealth(port(m_east, 0, 6, 2), "r01-n07-ib2", v1::LINK_VERDICT_WARNING, true, 0.31, 0.82, 0.97, kT0);
        *drifting.mutable_host_end() = wt::linkBerPoint(7.2e-15, v1::LINK_VERDICT_WARNING);
        *drifting.mutable_switch_end() = wt::linkBerUpper(1e-15);
        v1::LinkForecast& f = *drifting.mutable_forecast();
        f.set_hours_to_error(3.2);
        f.set_hours_to_error_low(1.9);
        f.set_hours_to_error_high(6.0);
        f.add_influencers()->set_text("symbol errors 40x their 7-day baseline");
        f.add_influencers()->set_text("link recoveries 6x their 7-day baseline");
        v1::LinkAtStake& stake = *drifting.mutable_at_stake();
        stake.add_job_indexes(m_east.jobIndex(0));
        stake.set_gpus(64);
        stake.set_unplanned_gpu_hours(412);
        stake.set_planned_gpu_hours(8);
        stake.set_next_checkpoint_unix_ms(kT0 + 25 * kMinute);
        drifting.set_stage_reason("P(Error or down within 6 h) 82 %");
        *es.add_link_health() = drifting;

        v1::LinkHealth lesser = wt::linkHealth(port(m_east, 1, 2, 0), "r02-n03-ib0", v1::LINK_VERDICT_ELEVATED, true,
                                               0.05, 0.40, 0.71, kT0);
        *lesser.mutable_host_end() = wt::linkBerPoint(2.1e-15, v1::LINK_VERDICT_ELEVATED);
        *lesser.mutable_switch_end() = wt::linkBerPoint(1.9e-15, v1::LINK_VERDICT_ELEVATED);
        lesser.mutable_forecast()->set_hours_to_error(31.4);
        lesser.mutable_forecast()->set_hours_to_error_low(18);
        lesser.mutable_forecast()->set_hours_to_error_high(60);
        *es.add_link_health() = lesser;

        v1::LinkHealth error =
            wt::linkHealth(port(m_east, 0, 1, 1), "r01-n02-ib1", v1::LINK_VERDICT_ERROR, true, 0.9, 0.95, 0.99, kT0);
        *error.mutable_host_end() = wt::linkBerPoint(2.4e-14, v1::LINK_VERDICT_ERROR);
        error.mutable_host_end()->set_text("2.4e-14 (1.7e-14 – 3.4e-14)");
        *error.mutable_switch_end() = wt::linkBerPoint(2.2e-14, v1::LINK_VERDICT_ERROR);
        error.mutable_forecast()->set_confirmed_error(true);
        *es.add_link_health() = error;

        // Above Warning but under fleetd's at-risk line: after every link at risk, whatever its P.
        v1::LinkHealth warning =
            wt::linkHealth(port(m_east, 0, 9, 0), "r01-n10-ib0", v1::LINK_VERDICT_WARNING, false, 0.02, 0.45, 0.6, kT0);
        *warning.mutable_host_end() = wt::linkBerPoint(5.5e-15, v1::LINK_VERDICT_WARNING);
        *warning.mutable_switch_end() = wt::linkBerPoint(5.1e-15, v1::LINK_VERDICT_WARNING);
        *es.add_link_health() = warning;
        *es.mutable_link_summary() = wt::linkSummary(144, 120, 2);
        store.apply(east, e);

        v1::SubscribeResponse w = m_west.snapshot(1, kT0);
        v1::LinkHealth oneEnd =
            wt::linkHealth(port(m_west, 0, 3, 3), "r01-n04-ib3", v1::LINK_VERDICT_WARNING, true, 0.08, 0.55, 0.9, kT0);
        *oneEnd.mutable_host_end() = wt::linkBerPoint(6.0e-15, v1::LINK_VERDICT_WARNING);
        *oneEnd.mutable_switch_end() = wt::linkBerNoData();
        oneEnd.set_one_end_seen(true);
        *w.mutable_snapshot()->add_link_health() = oneEnd;
        *w.mutable_snapshot()->mutable_link_summary() = wt::linkSummary(72, 50, 1);
        store.apply(west, w);
        store.flushChanges();
    }

private slots:
    void theWordsOfOneLink_data() {
        QTest::addColumn<double>("p");
        QTest::addColumn<QString>("text");
        QTest::newRow("a forecast is never a sure 0") << 0.0 << QStringLiteral("< 1 %");
        QTest::newRow("under 1 %") << 0.004 << QStringLiteral("< 1 %");
        QTest::newRow("82 %") << 0.82 << QStringLiteral("82 %");
        QTest::newRow("rounds") << 0.555 << QStringLiteral("56 %");
        QTest::newRow("nearly sure") << 0.999 << QStringLiteral("> 99 %");
    }
    void theWordsOfOneLink() {
        QFETCH(double, p);
        QFETCH(QString, text);
        QCOMPARE(linkProbabilityText(p), text);
    }

    void theEtaInWords() {
        v1::LinkForecast f;
        f.set_hours_to_error(-1);
        QCOMPARE(linkEtaText(f), QStringLiteral("—"));
        f.set_hours_to_error(3.2);
        f.set_hours_to_error_low(1.9);
        f.set_hours_to_error_high(6.0);
        QCOMPARE(linkEtaText(f), QStringLiteral("3.2 h (1.9–6.0)"));
        f.set_hours_to_error(31.4);
        f.set_hours_to_error_low(18);
        f.set_hours_to_error_high(60);
        QCOMPARE(linkEtaText(f), QStringLiteral("31 h (18–60)"));
        f.set_hours_to_error_low(-1);
        QCOMPARE(linkEtaText(f), QStringLiteral("31 h"));
        f.set_confirmed_error(true);
        QCOMPARE(linkEtaText(f), QStringLiteral("now"));
    }

    void anUpperBoundIsNeverZero() {
        v1::LinkBer quiet = wt::linkBerUpper(1e-15);
        quiet.set_point(0);
        QCOMPARE(linkEndBerText(quiet), QStringLiteral("≤ 1.0e-15 (95 %)"));
        QCOMPARE(linkEndBerText(wt::linkBerPoint(3.2e-14, v1::LINK_VERDICT_ERROR)), QStringLiteral("3.2e-14"));
        QCOMPARE(linkEndBerText(wt::linkBerNoData()), QStringLiteral("no BER"));
        v1::LinkBer judging = wt::linkBerUpper(4e-15);
        judging.set_text("judging, 37 of 125 min");
        QCOMPARE(linkEndBerText(judging), QStringLiteral("judging, 37 of 125 min"));
    }

    void theCostOfAnUnplannedFailure() {
        v1::LinkAtStake stake;
        QCOMPARE(linkAtStakeText(stake, kT0), QStringLiteral("no job"));
        stake.add_job_indexes(7);
        stake.set_unplanned_gpu_hours(412);
        stake.set_planned_gpu_hours(8);
        stake.set_next_checkpoint_unix_ms(kT0 + 25 * kMinute);
        stake.set_gpus(64);
        QCOMPARE(linkAtStakeText(stake, kT0), QStringLiteral("412 vs 8.0 GPU-h, saves 404 (checkpoint in 25 min)"));
        QCOMPARE(linkAtStakeDetail(stake, kT0),
                 QStringLiteral("An unplanned failure costs 412 GPU-h (64 GPUs: restart + progress since the last "
                                "checkpoint); a drain at the next checkpoint (in 25 min) costs 8.0 GPU-h: draining "
                                "saves 404 GPU-h."));
        QCOMPARE(linkAtStakeText(stake, kT0 + 30 * kMinute),
                 QStringLiteral("412 vs 8.0 GPU-h, saves 404 (checkpoint due now)"));
        stake.set_next_checkpoint_unix_ms(0);
        stake.set_unplanned_gpu_hours(5.25);
        stake.set_planned_gpu_hours(1.5);
        QCOMPARE(linkAtStakeText(stake, kT0), QStringLiteral("5.3 vs 1.5 GPU-h, saves 3.8"));
    }

    void worstFirstOverEveryEndpoint() {
        FleetStore store;
        const int east = store.addEndpoint("east");
        const int west = store.addEndpoint("west");
        load(store, east, west);
        LinkRiskModel model(store);
        QCOMPARE(model.rowCount(), 5);
        // Names shared by the two fleets are qualified by the endpoint (r02 is east's alone).
        // At risk first, by P 6 h (the confirmed Error's 95 %, then 82 %, 55 % on the other
        // endpoint, 40 %); then the Warning link under the at-risk line, though its P 6 h is 45 %.
        const QStringList names = column(model, LinkRiskModel::Link);
        QCOMPARE(names, (QStringList{QStringLiteral("▲ east/r01-n02-ib1"), QStringLiteral("▲ east/r01-n07-ib2"),
                                     QStringLiteral("▲ west/r01-n04-ib3"), QStringLiteral("▲ r02-n03-ib0"),
                                     QStringLiteral("east/r01-n10-ib0")}));
        QCOMPARE(column(model, LinkRiskModel::P6h),
                 (QStringList{QStringLiteral("95 %"), QStringLiteral("82 %"), QStringLiteral("55 %"),
                              QStringLiteral("40 %"), QStringLiteral("45 %")}));
        QCOMPARE(column(model, LinkRiskModel::Eta),
                 (QStringList{QStringLiteral("now"), QStringLiteral("3.2 h (1.9–6.0)"), QStringLiteral("—"),
                              QStringLiteral("31 h (18–60)"), QStringLiteral("—")}));
        QCOMPARE(column(model, LinkRiskModel::Ber),
                 (QStringList{QStringLiteral("2.4e-14 (1.7e-14 – 3.4e-14) / 2.2e-14"),
                              QStringLiteral("7.2e-15 / ≤ 1.0e-15 (95 %)"), QStringLiteral("6.0e-15 / one end seen"),
                              QStringLiteral("2.1e-15 / 1.9e-15"), QStringLiteral("5.5e-15 / 5.1e-15")}));
        QCOMPARE(column(model, LinkRiskModel::Verdict),
                 (QStringList{QStringLiteral("Error"), QStringLiteral("Warning"), QStringLiteral("Warning"),
                              QStringLiteral("elevated"), QStringLiteral("Warning")}));

        const LinkRiskRow* top = model.linkAt(1);
        QVERIFY(top);
        QCOMPARE(top->port, (EntityId{quint16(east), port(m_east, 0, 6, 2)}));
        QCOMPARE(top->tray, (EntityId{quint16(east), m_east.nodeIndex(0, 6)}));
        QCOMPARE(top->p1h, QStringLiteral("31 %"));
        QCOMPARE(top->p24h, QStringLiteral("97 %"));
        QCOMPARE(top->influencer, QStringLiteral("symbol errors 40x their 7-day baseline"));
        QCOMPARE(top->jobs, QStringLiteral("east/train-1"));
        QCOMPARE(top->atStake, QStringLiteral("412 vs 8.0 GPU-h, saves 404 (checkpoint in 25 min)"));
        QCOMPARE(top->stage, QStringLiteral("watch: P(Error or down within 6 h) 82 %"));
        QCOMPARE(model.index(1, LinkRiskModel::P6h).data(SortRole).toDouble(), 0.82);
        QCOMPARE(model.index(1, LinkRiskModel::Influencer).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("symbol errors 40x their 7-day baseline\nlink recoveries 6x their 7-day baseline"));
        QCOMPARE(model.rowOf(top->port), 1);
        QCOMPARE(model.linkAt(2)->jobs, QStringLiteral("no job"));

        // The tray's links and one port's record: what the rack and the ports table mark.
        QVERIFY(linkHealthOf(store, top->port));
        QVERIFY(!linkHealthOf(store, EntityId{quint16(east), port(m_east, 0, 6, 1)}));
        QCOMPARE(linkHealthOfTray(store, top->tray).size(), std::size_t(1));
        QVERIFY(linkHealthOfTray(store, EntityId{quint16(east), m_east.nodeIndex(0, 5)}).empty());
    }

    void aRetiredLinkLeavesTheList() {
        FleetStore store;
        const int east = store.addEndpoint("east");
        const int west = store.addEndpoint("west");
        load(store, east, west);
        LinkRiskModel model(store);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        v1::SubscribeResponse m = delta(2, kT0 + kMinute);
        v1::LinkHealth gone;
        gone.set_nic_port_index(port(m_east, 0, 6, 2));
        gone.set_name("r01-n07-ib2");
        gone.set_retired(true);
        *m.mutable_delta()->add_link_health() = gone;
        store.apply(east, m);
        store.flushChanges();
        QVERIFY(reset.count() >= 1);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.rowOf(EntityId{quint16(east), port(m_east, 0, 6, 2)}), -1);
        QCOMPARE(model.linkAt(1)->name, QStringLiteral("west/r01-n04-ib3"));
    }

    void anEmptyListSaysWhy() {
        FleetStore store;
        const int east = store.addEndpoint("east");
        store.apply(east, m_east.snapshot(1, kT0));
        store.flushChanges();
        QCOMPARE(linksAtRiskEmptyText(store), QStringLiteral("fleetd judges no links."));

        v1::SubscribeResponse m = delta(2, kT0 + kMinute);
        *m.mutable_delta()->mutable_link_summary() = wt::linkSummary(144, 108, 0);
        store.apply(east, m);
        store.flushChanges();
        QCOMPARE(linksAtRiskEmptyText(store), QStringLiteral("No link at risk: 108 links judged, 36 still judging."));

        // A second endpoint's summary adds to the first.
        const int west = store.addEndpoint("west");
        v1::SubscribeResponse w = m_west.snapshot(1, kT0);
        *w.mutable_snapshot()->mutable_link_summary() = wt::linkSummary(72, 72, 0);
        store.apply(west, w);
        store.flushChanges();
        QCOMPARE(linksAtRiskEmptyText(store), QStringLiteral("No link at risk: 180 links judged, 36 still judging."));
    }
};

QTEST_GUILESS_MAIN(TestLinksAtRisk)
#include "tst_linksatrisk.moc"
