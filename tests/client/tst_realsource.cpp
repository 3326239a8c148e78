// The console against a real site's fleetd (Prometheus-compatible store, Slurm jobs): freshness
// follows each endpoint's telemetry period and counter reporting, the store keeps each endpoint's
// source statuses, jobs without step telemetry have no numbers and stay out of fleet averages.
#include "EventListModel.h"
#include "FleetGoodputMerge.h"
#include "FleetStore.h"
#include "JobTableModel.h"
#include "MetricCadence.h"
#include "ModelRoles.h"
#include "SourceHealth.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

SyntheticFleet smallFleet() {
    SyntheticFleetSpec spec;
    spec.racks = 2;
    return SyntheticFleet(spec);
}

// A real site's snapshot: polled every `periodMs`, counters re-read every poll.
v1::SubscribeResponse realSnapshot(const SyntheticFleet& fleet, std::int64_t periodMs, bool countersPeriodic = true) {
    v1::SubscribeResponse m = fleet.snapshot(1, kT0);
    m.mutable_snapshot()->set_telemetry_period_ms(periodMs);
    m.mutable_snapshot()->set_counters_periodic(countersPeriodic);
    return m;
}

v1::SourceStatus source(const std::string& name, v1::SourceHealth health, std::int64_t lastGoodMs,
                        const std::string& error = {}) {
    v1::SourceStatus s;
    s.set_name(name);
    s.set_kind(name.substr(0, name.find('=')));
    s.set_health(health);
    s.set_last_good_poll_unix_ms(lastGoodMs);
    s.set_last_poll_unix_ms(kT0);
    s.set_last_error(error);
    s.set_series(1234);
    return s;
}

v1::SubscribeResponse sample(std::uint64_t sequence, std::int64_t serverMs, v1::Metric metric, std::uint32_t entity,
                             float value, std::int64_t sampleMs) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(serverMs);
    auto* b = m.mutable_delta()->add_samples();
    b->set_metric(metric);
    b->set_sample_time_unix_ms(sampleMs);
    b->add_entity_indexes(entity);
    b->add_values(value);
    return m;
}

const int kProm = 0;  // index of the Prometheus source in sourcesSnapshot()

v1::SubscribeResponse sourcesSnapshot(const SyntheticFleet& fleet) {
    v1::SubscribeResponse m = realSnapshot(fleet, 30'000);
    *m.mutable_snapshot()->add_sources() = source("prometheus=http://prom:9090", v1::SOURCE_HEALTH_UP, kT0);
    *m.mutable_snapshot()->add_sources() = source("slurm", v1::SOURCE_HEALTH_UP, kT0);
    return m;
}
}  // namespace

class TestRealSource : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<FleetChangeSet>(); }

    void cadenceFollowsTheSource() {
        const SourceCadence twin;
        QCOMPARE(metricCadence(v1::DCGM_FI_DEV_GPU_TEMP, twin).period, std::chrono::milliseconds(1000));
        QCOMPARE(metricCadence(v1::DCGM_FI_DEV_XID_ERRORS, twin).reporting, MetricReporting::OnChange);
        const SourceCadence real{std::chrono::milliseconds(30'000), true};
        for (v1::Metric m :
             {v1::DCGM_FI_DEV_GPU_TEMP, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, v1::IB_PORT_XMIT_WAIT,
              v1::DCGM_FI_DEV_XID_ERRORS, v1::IB_PHY_STATE, v1::DCGM_FI_DEV_NVLINK_GET_STATE}) {
            const MetricCadence c = metricCadence(m, real);
            QCOMPARE(c.reporting, MetricReporting::Periodic);
            QCOMPARE(c.period, std::chrono::milliseconds(30'000));
        }
        // A period without periodic counters: counters keep the on-change contract.
        const SourceCadence slowTwin{std::chrono::milliseconds(5000), false};
        QCOMPARE(metricCadence(v1::IB_LINK_DOWNED_COUNTER, slowTwin).reporting, MetricReporting::OnChange);
        QCOMPARE(metricCadence(v1::DCGM_FI_DEV_GPU_TEMP, slowTwin).period, std::chrono::milliseconds(5000));
    }

    void freshness_data() {
        QTest::addColumn<qint64>("periodMs");
        QTest::addColumn<bool>("countersPeriodic");
        QTest::addColumn<int>("metric");
        QTest::addColumn<qint64>("ageMs");
        QTest::addColumn<Freshness>("expected");
        const int temp = v1::DCGM_FI_DEV_GPU_TEMP;
        const int xid = v1::DCGM_FI_DEV_XID_ERRORS;
        const int linkState = v1::DCGM_FI_DEV_NVLINK_GET_STATE;
        QTest::newRow("twin gauge, 4 s") << qint64(0) << false << temp << qint64(4000) << Freshness::Stale;
        QTest::newRow("30 s source gauge, 60 s")
            << qint64(30'000) << true << temp << qint64(60'000) << Freshness::Fresh;
        QTest::newRow("30 s source gauge, 90 s")
            << qint64(30'000) << true << temp << qint64(90'000) << Freshness::Fresh;
        QTest::newRow("30 s source gauge, 91 s")
            << qint64(30'000) << true << temp << qint64(91'000) << Freshness::Stale;
        QTest::newRow("twin counter, 10 min") << qint64(0) << false << xid << qint64(600'000) << Freshness::Fresh;
        QTest::newRow("periodic counter, 60 s") << qint64(30'000) << true << xid << qint64(60'000) << Freshness::Fresh;
        QTest::newRow("periodic counter, 10 min")
            << qint64(30'000) << true << xid << qint64(600'000) << Freshness::Stale;
        QTest::newRow("periodic link state, 10 min")
            << qint64(30'000) << true << linkState << qint64(600'000) << Freshness::Stale;
        QTest::newRow("on-change counters at a 30 s period, 10 min")
            << qint64(30'000) << false << xid << qint64(600'000) << Freshness::Fresh;
    }
    void freshness() {
        QFETCH(qint64, periodMs);
        QFETCH(bool, countersPeriodic);
        QFETCH(int, metric);
        QFETCH(qint64, ageMs);
        QFETCH(Freshness, expected);
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, realSnapshot(fleet, periodMs, countersPeriodic));
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 1, 2)};
        store.apply(ep, sample(2, kT0, v1::Metric(metric), gpu.index, 1.0f, kT0));
        store.apply(ep, fleet.heartbeat(2, kT0 + ageMs));
        const Reading r = store.reading(gpu, v1::Metric(metric));
        QCOMPARE(r.freshness, expected);
        QCOMPARE(r.age, std::chrono::milliseconds(ageMs));
    }

    // A store that delivers its newest samples late (SourceStatus.delivery_lag_ms) moves the stale
    // age by that much: 3 periods plus the largest lag of the endpoint's sources, learned from the
    // snapshot and from every delta that carries a source.
    void storeDeliveryLagMovesTheStaleAge() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, realSnapshot(fleet, 10'000));  // poll 5 s + scrape 5 s
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 1, 2)};
        store.apply(ep, sample(2, kT0, v1::DCGM_FI_DEV_GPU_TEMP, gpu.index, 61.0f, kT0));
        store.apply(ep, fleet.heartbeat(2, kT0 + 35'000));
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);  // no lag known: 30 s

        v1::SubscribeResponse lagging;
        lagging.mutable_delta()->set_sequence(3);
        lagging.mutable_delta()->set_server_time_unix_ms(kT0 + 35'000);
        v1::SourceStatus prom = source("prometheus=http://vm:8428", v1::SOURCE_HEALTH_UP, kT0);
        prom.set_delivery_lag_ms(31'500);
        *lagging.mutable_delta()->add_sources() = prom;
        *lagging.mutable_delta()->add_sources() = source("slurm", v1::SOURCE_HEALTH_UP, kT0);  // no lag: no say
        store.apply(ep, lagging);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        store.apply(ep, fleet.heartbeat(3, kT0 + 61'500));
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        store.apply(ep, fleet.heartbeat(3, kT0 + 61'501));
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);

        // A reconnect's snapshot carries the sources, and their lag, again.
        FleetStore again;
        const int ep2 = again.addEndpoint("site");
        v1::SubscribeResponse snapshot = realSnapshot(fleet, 10'000);
        *snapshot.mutable_snapshot()->add_sources() = prom;
        again.apply(ep2, snapshot);
        const EntityId gpu2{quint16(ep2), gpu.index};
        again.apply(ep2, sample(2, kT0, v1::DCGM_FI_DEV_GPU_TEMP, gpu2.index, 61.0f, kT0));
        again.apply(ep2, fleet.heartbeat(2, kT0 + 50'000));
        QCOMPARE(again.reading(gpu2, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
    }

    void periodicCounterNeverSentIsMissingNotZero() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int twin = store.addEndpoint("twin");
        const int site = store.addEndpoint("site");
        store.apply(twin, fleet.snapshot(1, kT0));
        store.apply(site, realSnapshot(fleet, 30'000));
        const std::uint32_t gpu = fleet.gpuIndex(1, 0, 0);
        // The twin sends counters on change: never sent = 0 since the run began.
        const Reading onChange = store.reading({quint16(twin), gpu}, v1::DCGM_FI_DEV_ROW_REMAP_FAILURE);
        QCOMPARE(onChange.freshness, Freshness::Fresh);
        QCOMPARE(onChange.value, 0.0f);
        // A real site re-reads them every poll: one not read is unknown, not a healthy zero.
        QCOMPARE(store.reading({quint16(site), gpu}, v1::DCGM_FI_DEV_ROW_REMAP_FAILURE).freshness, Freshness::Missing);
    }

    void eachEndpointKeepsItsOwnCadence() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int twin = store.addEndpoint("twin");
        const int site = store.addEndpoint("site");
        store.apply(twin, fleet.snapshot(1, kT0));
        store.apply(site, realSnapshot(fleet, 30'000));
        const std::uint32_t gpu = fleet.gpuIndex(0, 0, 0);
        // Both last sampled at kT0 (the snapshot); 20 s later on both server clocks.
        store.apply(twin, fleet.heartbeat(1, kT0 + 20'000));
        store.apply(site, fleet.heartbeat(1, kT0 + 20'000));
        QCOMPARE(store.reading({quint16(twin), gpu}, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);
        QCOMPARE(store.reading({quint16(site), gpu}, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        // A resync snapshot of the real site that became a twin-like source takes effect too.
        store.apply(site, fleet.snapshot(2, kT0 + 20'000));
        store.apply(site, fleet.heartbeat(2, kT0 + 24'000));
        QCOMPARE(store.reading({quint16(site), gpu}, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);
    }

    void snapshotReplacesSourcesAndDeltaUpdatesByName() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        QSignalSpy spy(&store, &FleetStore::changed);
        store.apply(ep, sourcesSnapshot(fleet));
        store.flushChanges();
        QVERIFY(!spy.isEmpty());
        QVERIFY(spy.last().at(0).value<FleetChangeSet>().sourcesChanged);
        QCOMPARE(store.endpointFleet(ep).sources().size(), std::size_t(2));
        QVERIFY(overviewOfSources(store).allUp());
        QVERIFY(sourcesHeadline(store, overviewOfSources(store)).isEmpty());

        // The store stops answering: only that source is in the delta.
        v1::SubscribeResponse d;
        d.mutable_delta()->set_sequence(2);
        d.mutable_delta()->set_server_time_unix_ms(kT0 + 120'000);
        *d.mutable_delta()->add_sources() =
            source("prometheus=http://prom:9090", v1::SOURCE_HEALTH_DOWN, kT0, "connection refused");
        *d.mutable_delta()->add_sources() = source("unmapped-hosts", v1::SOURCE_HEALTH_DEGRADED, kT0 + 120'000);
        spy.clear();
        store.apply(ep, d);
        store.flushChanges();
        QVERIFY(spy.last().at(0).value<FleetChangeSet>().sourcesChanged);
        const auto& sources = store.endpointFleet(ep).sources();
        QCOMPARE(sources.size(), std::size_t(3));
        QCOMPARE(sources[kProm].health(), v1::SOURCE_HEALTH_DOWN);
        QCOMPARE(sources[kProm].last_error(), std::string("connection refused"));
        QCOMPARE(sources[1].health(), v1::SOURCE_HEALTH_UP);  // untouched
        QCOMPARE(sources[2].name(), std::string("unmapped-hosts"));

        const SourcesOverview o = overviewOfSources(store);
        QCOMPARE(o.total, 3);
        QCOMPARE(o.down, 1);
        QCOMPARE(o.degraded, 1);
        QVERIFY(o.blindEndpoints.isEmpty());
        QCOMPARE(o.problems.front().status->name(), std::string("prometheus=http://prom:9090"));
        QCOMPARE(sourcesHeadline(store, o),
                 QStringLiteral("Sources: 1 of 3 down, 1 degraded — prometheus=http://prom:9090: connection refused "
                                "(last good 2 min ago) and 1 more"));

        // A resync snapshot replaces the list.
        v1::SubscribeResponse again = sourcesSnapshot(fleet);
        again.mutable_snapshot()->mutable_sources()->RemoveLast();
        store.apply(ep, again);
        QCOMPARE(store.endpointFleet(ep).sources().size(), std::size_t(1));
        QCOMPARE(store.endpointFleet(ep).sources()[0].health(), v1::SOURCE_HEALTH_UP);
    }

    void endpointWithEverySourceDownIsBlind() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int twin = store.addEndpoint("twin");
        const int site = store.addEndpoint("site");
        store.apply(twin, fleet.snapshot(1, kT0));
        v1::SubscribeResponse m = realSnapshot(fleet, 30'000);
        *m.mutable_snapshot()->add_sources() =
            source("prometheus=http://prom:9090", v1::SOURCE_HEALTH_DOWN, 0, "context deadline exceeded");
        store.apply(site, m);
        const SourcesOverview o = overviewOfSources(store);
        QCOMPARE(o.blindEndpoints, QList<int>{site});
        const QString headline = sourcesHeadline(store, o);
        QVERIFY2(headline.contains(QStringLiteral("no live telemetry from fleetd site")), qPrintable(headline));
        QVERIFY2(headline.contains(QStringLiteral("site/prometheus=http://prom:9090: context deadline exceeded "
                                                  "(never polled successfully)")),
                 qPrintable(headline));
    }

    void jobWithoutStepTelemetryHasNoNumbers() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        v1::SubscribeResponse m = realSnapshot(fleet, 30'000);
        v1::Job blind = m.snapshot().jobs(0);
        blind.set_index(blind.index() + 100);
        blind.set_name("slurm-4242");
        blind.set_no_step_telemetry(true);
        blind.set_goodput_ratio(0);  // what fleetd sends for fields it did not compute
        blind.set_mfu_ratio(0);
        blind.set_ettr_sliding_1h_ratio(0);
        blind.set_gpu_count(8);
        blind.set_interruptions(2);
        *m.mutable_snapshot()->add_jobs() = blind;
        store.apply(ep, m);
        QCOMPARE(store.jobCount(), 2);

        JobTableModel model(store);
        const int row = model.rowOf(EntityId{quint16(ep), blind.index()});
        QVERIFY(row >= 0);
        for (int column : {JobTableModel::Goodput, JobTableModel::Ettr1h, JobTableModel::Mfu, JobTableModel::StepTime,
                           JobTableModel::CheckpointAge, JobTableModel::Straggler}) {
            const QModelIndex cell = model.index(row, column);
            QCOMPARE(cell.data(Qt::DisplayRole).toString(), QStringLiteral("no step telemetry"));
            QCOMPARE(Freshness(cell.data(FreshnessRole).toInt()), Freshness::Missing);  // drawn dim
            QVERIFY(std::isnan(cell.data(ValueRole).toDouble()));
        }
        QCOMPARE(model.index(row, JobTableModel::Gpus).data().toString(), QStringLiteral("8"));
        QCOMPARE(model.index(row, JobTableModel::Interruptions).data().toString(), QStringLiteral("2"));
        const int measured = row == 0 ? 1 : 0;
        QCOMPARE(model.index(measured, JobTableModel::Goodput).data().toString(), QStringLiteral("90.0 %"));
        // No chart, lens or reading carries its zeros.
        QCOMPARE(store.reading(EntityId{quint16(ep), blind.index()}, v1::JOB_GOODPUT_RATIO).freshness,
                 Freshness::Blank);

        const FleetSummary s = summarizeFleet(store);
        QCOMPARE(s.jobsActive, 2);
        QCOMPARE(s.jobsInGoodput, 1);
        QVERIFY(qFuzzyCompare(s.goodputRatio, 0.9));  // fleetd's number, weighted by the measured job only
    }

    // Two endpoints with different goodput: the Fleet page's KPI and the Goodput page read one
    // derivation, weighted by each endpoint's measured-job GPUs (issue 15 item 5).
    void twoEndpointsMergeGoodputOnceForEveryPage() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int twin = store.addEndpoint("twin");
        const int site = store.addEndpoint("site");
        store.apply(twin, fleet.snapshot(1, kT0));
        v1::SubscribeResponse m = realSnapshot(fleet, 30'000);
        m.mutable_snapshot()->mutable_fleet()->set_goodput_ratio(0.5);
        m.mutable_snapshot()->mutable_fleet()->set_mfu_ratio(0.2);
        store.apply(site, m);
        const double wTwin = goodputWeight(store.endpointFleet(twin)), wSite = goodputWeight(store.endpointFleet(site));
        QVERIFY(wTwin > 0 && wSite > 0);
        const double twinGoodput = store.endpointFleet(twin).fleetGoodput()->goodput_ratio();
        const double expected = (twinGoodput * wTwin + 0.5 * wSite) / (wTwin + wSite);
        const MergedFleetGoodput merged = mergeFleetGoodput(store);
        QVERIFY(merged.measured);
        QVERIFY2(std::abs(merged.goodput - expected) < 1e-12, qPrintable(QString::number(merged.goodput)));
        const FleetSummary s = summarizeFleet(store);
        QCOMPARE(s.goodputRatio, merged.goodput);
        QCOMPARE(s.mfuRatio, merged.mfu);
        QCOMPARE(s.ettrSliding1hRatio, merged.ettr1h);
        // With no measured job anywhere there is no fleet goodput on either page, not 0 %.
        FleetStore blind;
        const int only = blind.addEndpoint("site");
        m.mutable_snapshot()->mutable_jobs(0)->set_no_step_telemetry(true);
        blind.apply(only, m);
        QVERIFY(std::isnan(mergeFleetGoodput(blind).goodput));
        QVERIFY(std::isnan(summarizeFleet(blind).goodputRatio));
    }

    void endpointWhoseJobsAllLackStepTelemetryLeavesTheAverage() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int twin = store.addEndpoint("twin");
        const int site = store.addEndpoint("site");
        store.apply(twin, fleet.snapshot(1, kT0));
        v1::SubscribeResponse m = realSnapshot(fleet, 30'000);
        m.mutable_snapshot()->mutable_jobs(0)->set_no_step_telemetry(true);
        m.mutable_snapshot()->mutable_fleet()->set_goodput_ratio(0);  // over no job at all
        store.apply(site, m);
        QCOMPARE(goodputWeight(store.endpointFleet(site)), 0.0);
        QVERIFY(goodputWeight(store.endpointFleet(twin)) > 0);
        const FleetSummary s = summarizeFleet(store);
        QVERIFY(qFuzzyCompare(s.goodputRatio, 0.9));
        QCOMPARE(s.jobsActive, 2);
        QCOMPARE(s.jobsInGoodput, 1);
    }

    void sourceEventsHaveAName() {
        QCOMPARE(toString(v1::EVENT_TYPE_SOURCE), QStringLiteral("telemetry source"));
        QCOMPARE(toString(v1::EVENT_TYPE_LINK_FLAP), QStringLiteral("link flap"));
        QCOMPARE(sourceHealthLabel(v1::SOURCE_HEALTH_UNSPECIFIED), QStringLiteral("not polled yet"));
    }
};

QTEST_GUILESS_MAIN(TestRealSource)
#include "tst_realsource.moc"
