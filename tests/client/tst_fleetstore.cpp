// FleetStore against synthetic and recorded streams: snapshot then deltas, coalesced deltas and
// notifications, resync snapshots, freshness, bounded events, names, history, worst queries.
#include "FleetGoodputMerge.h"
#include "FleetRankings.h"
#include "FleetStore.h"
#include "RecordedStream.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

SyntheticFleet smallFleet(std::string regionPrefix = "region") {
    SyntheticFleetSpec spec;
    spec.racks = 7;
    spec.regionPrefix = std::move(regionPrefix);
    return SyntheticFleet(spec);
}

FleetChangeSet lastChange(const QSignalSpy& spy) { return spy.last().at(0).value<FleetChangeSet>(); }
}  // namespace

class TestFleetStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<FleetChangeSet>(); }

    void snapshotThenDeltas() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(10, kT0));
        QVERIFY(store.lastError().isEmpty());
        QCOMPARE(store.rackCount(), 7);
        QCOMPARE(store.jobCount(), 1);

        const EntityId gpu{quint16(ep), fleet.gpuIndex(2, 4, 1)};
        Reading r = store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP);
        QCOMPARE(r.freshness, Freshness::Fresh);
        QCOMPARE(r.value, SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, gpu.index, kT0));

        store.apply(ep, fleet.delta(11, kT0 + 1000));
        r = store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP);
        QCOMPARE(r.value, SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, gpu.index, kT0 + 1000));
        QCOMPARE(r.sampleTimeUnixMs, kT0 + 1000);
        // Rack metrics come from the rack; cooling metrics from its loop, through the same call.
        QCOMPARE(store.rackReading(0, v1::RACK_POWER_KW).freshness, Freshness::Fresh);
        QCOMPARE(store.rackReading(0, v1::RACK_LIQUID_FLOW_LPM).value,
                 SyntheticFleet::valueFor(v1::RACK_LIQUID_FLOW_LPM, fleet.loopIndex(0), kT0 + 1000));
        // Aggregates over a node's GPUs.
        const EntityId node{quint16(ep), fleet.nodeIndex(2, 4)};
        const Reading hottest = store.gpuAggregate(node, v1::DCGM_FI_DEV_GPU_TEMP, FleetStore::Aggregate::Max);
        float expected = 0;
        for (int g = 0; g < 4; ++g)
            expected = std::max(
                expected, SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, fleet.gpuIndex(2, 4, g), kT0 + 1000));
        QCOMPARE(hottest.value, expected);
        QCOMPARE(summarizeFleet(store).gpusTotal, 7u * 72u);
    }

    void notificationsAreCoalesced() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        QSignalSpy spy(&store, &FleetStore::changed);
        store.apply(ep, fleet.snapshot(1, kT0));
        for (int i = 0; i < 20; ++i) store.apply(ep, fleet.delta(2 + quint64(i), kT0 + 1000 * (i + 1)));
        QVERIFY(spy.wait(1000));
        QTest::qWait(100);
        QCOMPARE(spy.count(), 1);  // 21 messages, one notification
        const FleetChangeSet c = lastChange(spy);
        QVERIFY(c.topologyChanged);
        QCOMPARE(int(c.dirtyRackRows.size()), 7);
        QCOMPARE(c.jobsAppended, 0);  // the snapshot reset the jobs
        QVERIFY(c.jobsReset);
        QVERIFY(c.freshnessTick);
    }

    void partialDeltaMarksOnlyItsRacks() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        store.flushChanges();
        QSignalSpy spy(&store, &FleetStore::changed);
        // A coalesced delta (first_sequence < sequence) touching GPUs of racks 1 and 4 only.
        v1::SubscribeResponse m;
        v1::Delta* d = m.mutable_delta();
        d->set_first_sequence(2);
        d->set_sequence(5);
        d->set_server_time_unix_ms(kT0 + 500);  // same server second: no freshness tick
        v1::SampleBlock* b = d->add_samples();
        b->set_metric(v1::DCGM_FI_DEV_GPU_TEMP);
        b->set_sample_time_unix_ms(kT0 + 400);
        b->add_entity_indexes(fleet.gpuIndex(1, 0, 0));
        b->add_values(91.0f);
        b->add_entity_indexes(fleet.gpuIndex(4, 17, 3));
        b->add_values(88.0f);
        store.apply(ep, m);
        store.flushChanges();
        QCOMPARE(spy.count(), 1);
        const FleetChangeSet c = lastChange(spy);
        QCOMPARE(c.dirtyRackRows, (std::vector<int>{1, 4}));
        QVERIFY(!c.freshnessTick);
        QCOMPARE(store.reading(EntityId{quint16(ep), fleet.gpuIndex(1, 0, 0)}, v1::DCGM_FI_DEV_GPU_TEMP).value, 91.0f);
    }

    void resyncSnapshotReplacesState() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        // A delta isolates rack 3 and reports a metric the next snapshot will not carry.
        v1::SubscribeResponse m = fleet.delta(2, kT0 + 1000);
        v1::EntityState* st = m.mutable_delta()->add_states();
        st->set_entity_index(fleet.rackIndex(3));
        st->set_rack_state(v1::RACK_STATE_ISOLATED);
        st->set_health(v1::HEALTH_STATE_FAILED);
        st->set_reason("leak: auto-isolated");
        v1::SampleBlock* extra = m.mutable_delta()->add_samples();
        extra->set_metric(v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL);
        extra->set_sample_time_unix_ms(kT0 + 1000);
        extra->add_entity_indexes(fleet.gpuIndex(0, 0, 0));
        extra->add_values(3.0f);
        store.apply(ep, m);
        const EntityId rack{quint16(ep), fleet.rackIndex(3)};
        QCOMPARE(store.status(rack).rackState, v1::RACK_STATE_ISOLATED);
        QCOMPARE(store.statusReason(rack), QStringLiteral("leak: auto-isolated"));
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 0, 0)};
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL).value, 3.0f);
        store.flushChanges();

        QSignalSpy spy(&store, &FleetStore::changed);
        store.apply(ep, fleet.snapshot(40, kT0 + 5000, "run-1", "resync: fell off log"));
        store.flushChanges();
        QCOMPARE(store.status(rack).rackState, v1::RACK_STATE_IN_SERVICE);
        QVERIFY(store.statusReason(rack).isEmpty());
        // ECC is sent on change: a snapshot without it says "unchanged since the run began" (0),
        // and the value from before the resync is not kept.
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL).freshness, Freshness::Fresh);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL).value, 0.0f);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).sampleTimeUnixMs, kT0 + 5000);
        // Same topology: rows and chart history survive the resync.
        QCOMPARE(spy.count(), 1);
        QVERIFY(!lastChange(spy).topologyChanged);
        std::vector<HistoryPoint> h;
        store.history(EntityId{quint16(ep), fleet.rackIndex(0)}, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 3);
    }

    void freshness_data() {
        QTest::addColumn<int>("caseId");
        QTest::addColumn<Freshness>("expected");
        QTest::newRow("fresh") << 0 << Freshness::Fresh;
        QTest::newRow("blank sentinel (NaN)") << 1 << Freshness::Blank;
        QTest::newRow("never reported") << 2 << Freshness::Missing;
        QTest::newRow("older than 3 periods") << 3 << Freshness::Stale;
        QTest::newRow("endpoint not live") << 4 << Freshness::Stale;
        QTest::newRow("on-change counter never sent = 0 since run start") << 5 << Freshness::Fresh;
        QTest::newRow("on-change counter does not age") << 6 << Freshness::Fresh;
        QTest::newRow("on-change counter, endpoint not live") << 7 << Freshness::Stale;
    }
    void freshness() {
        QFETCH(int, caseId);
        QFETCH(Freshness, expected);
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 1, 2)};
        v1::Metric metric = v1::DCGM_FI_DEV_GPU_TEMP;
        switch (caseId) {
        case 1: {
            v1::SubscribeResponse m;
            m.mutable_delta()->set_sequence(2);
            m.mutable_delta()->set_server_time_unix_ms(kT0 + 1000);
            auto* b = m.mutable_delta()->add_samples();
            b->set_metric(metric);
            b->set_sample_time_unix_ms(kT0 + 1000);
            b->add_entity_indexes(gpu.index);
            b->add_values(std::numeric_limits<float>::quiet_NaN());
            store.apply(ep, m);
            break;
        }
        case 2: metric = v1::DCGM_FI_DEV_GPU_RECOVERY_ACTION; break;     // periodic, never sent here
        case 3: store.apply(ep, fleet.heartbeat(1, kT0 + 3500)); break;  // 3.5 s of server time, no new sample
        case 4: store.setEndpointState(ep, ConnectionState::Reconnecting, "lost"); break;
        case 5: metric = v1::DCGM_FI_DEV_ROW_REMAP_FAILURE; break;
        case 6:
            metric = v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL;
            store.apply(ep, fleet.heartbeat(1, kT0 + 60'000));
            break;
        case 7:
            metric = v1::DCGM_FI_DEV_ROW_REMAP_FAILURE;
            store.setEndpointState(ep, ConnectionState::Reconnecting, "lost");
            break;
        default: break;
        }
        const Reading r = store.reading(gpu, metric);
        QCOMPARE(r.freshness, expected);
        QCOMPARE(r.hasValue(), expected == Freshness::Fresh || expected == Freshness::Stale);
        if (caseId == 3) QCOMPARE(r.age, std::chrono::milliseconds(3500));
        if (caseId == 5) QCOMPARE(r.value, 0.0f);
    }

    void sampleTimesSurviveAnEpochRebase() {
        // Stamps are 32-bit ms offsets: 60 days of uptime forces a rebase. A value not updated
        // since must stay old (stale), never turn fresh; recent values keep their exact time.
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        const std::int64_t later = kT0 + 60LL * 24 * 3600 * 1000;
        store.apply(ep, fleet.delta(2, later - 2000));  // everything reported 2 s before...
        v1::SubscribeResponse m;
        m.mutable_delta()->set_sequence(3);
        m.mutable_delta()->set_server_time_unix_ms(later);
        auto* b = m.mutable_delta()->add_samples();
        b->set_metric(v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL);  // ...and one new metric now
        b->set_sample_time_unix_ms(later);
        b->add_entity_indexes(fleet.gpuIndex(0, 0, 0));
        b->add_values(1.0f);
        store.apply(ep, m);
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 0, 0)};
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL).sampleTimeUnixMs, later);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).sampleTimeUnixMs, later - 2000);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        // A sample from before the new epoch's one-day lead is clamped to it: still old, stale.
        v1::SubscribeResponse old = m;
        old.mutable_delta()->set_sequence(4);
        old.mutable_delta()->mutable_samples(0)->set_metric(v1::DCGM_FI_DEV_GPU_RECOVERY_ACTION);  // periodic: ages
        old.mutable_delta()->mutable_samples(0)->set_sample_time_unix_ms(kT0);
        store.apply(ep, old);
        const Reading ancient = store.reading(gpu, v1::DCGM_FI_DEV_GPU_RECOVERY_ACTION);
        QCOMPARE(ancient.freshness, Freshness::Stale);
        QVERIFY(ancient.age >= std::chrono::hours(24));
    }

    void eventListIsBounded() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore::Options options;
        options.maxEvents = 100;
        FleetStore store(options);
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        store.flushChanges();
        QSignalSpy spy(&store, &FleetStore::changed);
        for (int i = 0; i < 10; ++i) store.apply(ep, fleet.delta(2 + quint64(i), kT0 + 1000 * (i + 1), 30));
        store.flushChanges();
        QCOMPARE(store.eventCount(), 100);
        QCOMPARE(store.firstEventSerial(), quint64(201));
        QCOMPARE(store.nextEventSerial(), quint64(301));
        QCOMPARE(lastChange(spy).eventsAdded, 300);
        QCOMPARE(lastChange(spy).eventsTrimmed, 200);
        QVERIFY(store.eventBySerial(200) == nullptr);
        QCOMPARE(store.eventBySerial(300)->event.id(), quint64(11 * 1000 + 29));
    }

    void resyncDoesNotDuplicateEvents() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        const v1::SubscribeResponse d = fleet.delta(2, kT0 + 1000, 5);
        store.apply(ep, d);
        QCOMPARE(store.eventCount(), 5);
        v1::SubscribeResponse resync = fleet.snapshot(9, kT0 + 9000, "run-1", "resync");
        for (const auto& e : d.delta().events()) *resync.mutable_snapshot()->add_recent_events() = e;
        store.apply(ep, resync);
        QCOMPARE(store.eventCount(), 5);
        // After a restart (new run id) ids start over: the same ids are new events.
        v1::SubscribeResponse restart = fleet.snapshot(1, kT0 + 20000, "run-2", "restart");
        for (const auto& e : d.delta().events()) *restart.mutable_snapshot()->add_recent_events() = e;
        store.apply(ep, restart);
        QCOMPARE(store.eventCount(), 10);
    }

    void namesAndNavigation() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        const EntityId gpu = store.findByName("R03-N05-G2");
        QVERIFY(gpu.isValid());
        QCOMPARE(store.kind(gpu), v1::ENTITY_KIND_GPU);
        QCOMPARE(store.name(gpu), QStringLiteral("r03-n05-g2"));
        const EntityId node = store.parent(gpu);
        QCOMPARE(store.name(node), QStringLiteral("r03-n05"));
        const EntityId rack = store.rackOf(gpu);
        QCOMPARE(store.name(rack), QStringLiteral("r03"));
        QVERIFY(store.isWithin(gpu, rack));
        QVERIFY(!store.isWithin(rack, gpu));
        QCOMPARE(store.children(node).size(), 4 + 2);  // GPUs and CPUs (no NIC ports at STANDARD)
        const QList<EntityId> roots = store.fleetRoots();
        QCOMPARE(roots.size(), 1);
        QCOMPARE(store.children(roots.front()).size(), 2);  // regions
        QCOMPARE(store.name(store.jobAt(0)), QStringLiteral("train-1"));
        QVERIFY(!store.findByName("r99").isValid());

        const QList<EntityId> prefix = store.search("r03-n05", 5);
        QCOMPARE(prefix.front(), node);                    // the shortest prefix match first
        QCOMPARE(store.search("r3n5g2", 5).front(), gpu);  // subsequence
        QVERIFY(store.search("loop", 50).size() == 7);
    }

    void twoEndpointsQualifyClashingNames() {
        const SyntheticFleet east = smallFleet("east");
        const SyntheticFleet west = smallFleet("west");
        FleetStore store;
        const int a = store.addEndpoint("a");
        const int b = store.addEndpoint("b");
        store.apply(a, east.snapshot(1, kT0));
        store.apply(b, west.snapshot(1, kT0));
        QCOMPARE(store.rackCount(), 14);
        QCOMPARE(store.name(store.rackAt(0)), QStringLiteral("a/r01"));
        QCOMPARE(store.name(store.rackAt(7)), QStringLiteral("b/r01"));
        QVERIFY(!store.findByName("r01").isValid());  // ambiguous
        QCOMPARE(store.findByName("b/r01"), store.rackAt(7));
        QCOMPARE(store.findByName("b/r01-n02-g3").endpoint, quint16(b));
        QCOMPARE(store.search("r01", 2).size(), 2);
        // Region names differ, so they stay as they are.
        QCOMPARE(store.name(EntityId{quint16(a), east.topology().regions(0).index()}), QStringLiteral("east-1"));
        QCOMPARE(summarizeFleet(store).gpusTotal, 2u * 7u * 72u);
        QCOMPARE(store.jobCount(), 2);
    }

    // The path attach() uses: a snapshot is built on the store's worker thread; the GUI thread
    // sees nothing of it until the finished fleet is swapped in, and messages that arrive while it
    // is being built wait and are applied after it, in order.
    void queuedSnapshotIsBuiltOnTheWorkerAndSwappedIn() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        QSignalSpy spy(&store, &FleetStore::changed);
        // The new endpoint's own notification first (a slow worker, as under TSan, let it come
        // between the enqueue and the swap).
        QTRY_VERIFY_WITH_TIMEOUT(!spy.isEmpty(), 1000);
        QVERIFY(!spy.front().at(0).value<FleetChangeSet>().topologyChanged);
        spy.clear();
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(fleet.snapshot(1, kT0));
        for (int i = 1; i <= 3; ++i) batch.push_back(fleet.delta(1 + quint64(i), kT0 + 1000 * i, 1));
        store.enqueue(ep, std::move(batch));

        // enqueue() returned without building anything on this thread.
        QVERIFY(store.isPreparingSnapshot(ep));
        QCOMPARE(store.rackCount(), 0);
        QCOMPARE(store.queuedMessages(ep), std::size_t(3));
        QVERIFY(!store.findByName("r03").isValid());

        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep) && store.queuedMessages(ep) == 0, 10000);
        QVERIFY(store.lastError().isEmpty());
        QCOMPARE(store.rackCount(), 7);
        // The deltas were applied after the snapshot: the latest values are the last delta's.
        const EntityId gpu{quint16(ep), fleet.gpuIndex(1, 2, 3)};
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).value,
                 SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, gpu.index, kT0 + 3000));
        QCOMPARE(store.eventCount(), 3);
        // The name index was built with the fleet, on the worker.
        QCOMPARE(store.name(gpu), QStringLiteral("r02-n03-g3"));
        QCOMPARE(store.findByName("R02-N03-G3"), gpu);
        QCOMPARE(store.search("r2n3g3", 3).front(), gpu);
        QTRY_VERIFY_WITH_TIMEOUT(!spy.isEmpty(), 1000);
        QVERIFY(spy.front().at(0).value<FleetChangeSet>().topologyChanged);
    }

    // Deltas queued behind a snapshot are applied a slice at a time: with a zero slice, one
    // message per event-loop turn, and the order is never disturbed.
    void queuedDeltasAreAppliedInSlices() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore::Options options;
        options.applySlice = std::chrono::milliseconds(0);
        FleetStore store(options);
        const int ep = store.addEndpoint("east");
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(fleet.snapshot(1, kT0));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep), 10000);

        std::vector<v1::SubscribeResponse> deltas;
        for (int i = 1; i <= 6; ++i) deltas.push_back(fleet.delta(1 + quint64(i), kT0 + 1000 * i));
        store.enqueue(ep, std::move(deltas));
        QCOMPARE(store.queuedMessages(ep), std::size_t(5));  // one applied now, the rest wait their turn
        const EntityId rack{quint16(ep), fleet.rackIndex(4)};
        QCOMPARE(store.reading(rack, v1::RACK_POWER_KW).sampleTimeUnixMs, kT0 + 1000);
        QTRY_COMPARE_WITH_TIMEOUT(store.queuedMessages(ep), std::size_t(0), 5000);
        QCOMPARE(store.reading(rack, v1::RACK_POWER_KW).sampleTimeUnixMs, kT0 + 6000);
        std::vector<HistoryPoint> h;
        store.history(rack, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 7);  // the snapshot's second and each delta's
    }

    // A resync of the same fleet through the worker keeps chart history and rows and says the
    // topology is unchanged; a different fleet resets them.
    void queuedResyncKeepsHistoryOnlyForTheSameTopology() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(fleet.snapshot(1, kT0));
        for (int i = 1; i <= 4; ++i) batch.push_back(fleet.delta(1 + quint64(i), kT0 + 1000 * i));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep) && store.queuedMessages(ep) == 0, 10000);
        store.flushChanges();
        const EntityId rack{quint16(ep), fleet.rackIndex(0)};
        std::vector<HistoryPoint> h;
        store.history(rack, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 5);

        QSignalSpy spy(&store, &FleetStore::changed);
        batch.clear();
        batch.push_back(fleet.snapshot(20, kT0 + 6000, "run-1", "resync: fell off log"));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep), 10000);
        store.flushChanges();
        QCOMPARE(spy.count(), 1);
        QVERIFY(!lastChange(spy).topologyChanged);
        store.history(rack, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 6);
        QCOMPARE(store.findByName("r01"), rack);

        SyntheticFleetSpec bigger;
        bigger.racks = 9;
        const SyntheticFleet other{bigger};
        batch.clear();
        batch.push_back(other.snapshot(1, kT0 + 8000, "run-2", "restart"));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep), 10000);
        store.flushChanges();
        QVERIFY(lastChange(spy).topologyChanged);
        QCOMPARE(store.rackCount(), 9);
        store.history(EntityId{quint16(ep), other.rackIndex(0)}, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 1);
        QVERIFY(store.findByName("r09").isValid());
    }

    // An unusable topology from the worker leaves the store as it was, with the reason.
    void queuedBadSnapshotKeepsTheStoreUsable() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(fleet.snapshot(1, kT0));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep), 10000);

        v1::SubscribeResponse bad = fleet.snapshot(2, kT0 + 1000);
        bad.mutable_snapshot()->mutable_topology()->mutable_racks(1)->set_index(fleet.rackIndex(0));  // used twice
        batch.clear();
        batch.push_back(std::move(bad));
        batch.push_back(fleet.delta(3, kT0 + 2000));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("cannot use: entity index .* is used twice"));
        store.enqueue(ep, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isPreparingSnapshot(ep) && store.queuedMessages(ep) == 0, 10000);
        QVERIFY(store.lastError().contains(QStringLiteral("used twice")));
        QCOMPARE(store.rackCount(), 7);
        const EntityId rack{quint16(ep), fleet.rackIndex(2)};
        QCOMPARE(store.reading(rack, v1::RACK_POWER_KW).sampleTimeUnixMs, kT0 + 2000);
    }

    // Destroying the store while the worker builds a snapshot waits for it and frees everything.
    void destroyedWhileBuilding() {
        SyntheticFleetSpec spec;
        spec.racks = 60;
        const SyntheticFleet fleet(spec);
        for (int round = 0; round < 3; ++round) {
            auto store = std::make_unique<FleetStore>();
            const int ep = store->addEndpoint("east");
            std::vector<v1::SubscribeResponse> batch;
            batch.push_back(fleet.snapshot(1, kT0));
            batch.push_back(fleet.delta(2, kT0 + 1000));
            store->enqueue(ep, std::move(batch));
            QVERIFY(store->isPreparingSnapshot(ep));
            if (round == 1) QTest::qWait(1);  // let the worker be mid-build or just done
            store.reset();
        }
        QCoreApplication::processEvents();  // nothing queued for the dead stores may run
    }

    void historyIsBoundedAndPerRackNotPerGpu() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore::Options options;
        options.historyPoints = 10;
        FleetStore store(options);
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        for (int i = 1; i <= 25; ++i) store.apply(ep, fleet.delta(1 + quint64(i), kT0 + 1000 * i));
        const EntityId rack{quint16(ep), fleet.rackIndex(2)};
        std::vector<HistoryPoint> h;
        store.history(rack, v1::RACK_POWER_KW, h);
        QCOMPARE(int(h.size()), 10);
        QCOMPARE(h.back().timeUnixMs, kT0 + 25000);
        QCOMPARE(h.front().timeUnixMs, kT0 + 16000);
        QCOMPARE(h.back().value, SyntheticFleet::valueFor(v1::RACK_POWER_KW, rack.index, kT0 + 25000));
        store.history(EntityId{quint16(ep), fleet.loopIndex(2)}, v1::RACK_LIQUID_FLOW_LPM, h);
        QCOMPARE(int(h.size()), 10);
        store.history(store.jobAt(0), v1::JOB_GOODPUT_RATIO, h);
        QCOMPARE(int(h.size()), 10);
        store.history(store.fleetRoots().front(), v1::FLEET_GOODPUT_RATIO, h);
        QCOMPARE(int(h.size()), 10);
        store.history(EntityId{quint16(ep), fleet.gpuIndex(0, 0, 0)}, v1::DCGM_FI_DEV_GPU_TEMP, h);
        QVERIFY(h.empty());
        QCOMPARE(store.historyPoints(rack, v1::RACK_POWER_KW).size(), 10);
    }

    void recordedStreamRoundTrip() {
        const SyntheticFleet fleet = smallFleet();
        RecordedStream recording;
        recording.append(fleet.snapshot(1, kT0));
        for (int i = 1; i <= 5; ++i) recording.append(fleet.delta(1 + quint64(i), kT0 + 1000 * i, 2));
        QTemporaryDir dir;
        const QString path = dir.filePath("stream.wfrec");
        QString error;
        QVERIFY2(recording.save(path, &error), qPrintable(error));
        const auto loaded = RecordedStream::load(path, &error);
        QVERIFY2(loaded.has_value(), qPrintable(error));
        QCOMPARE(loaded->size(), recording.size());

        FleetStore store;
        const int ep = store.addEndpoint("east");
        loaded->replayInto(store, ep);
        const EntityId gpu{quint16(ep), fleet.gpuIndex(6, 17, 3)};
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_POWER_USAGE).value,
                 SyntheticFleet::valueFor(v1::DCGM_FI_DEV_POWER_USAGE, gpu.index, kT0 + 5000));
        QCOMPARE(store.eventCount(), 10);

        QFile truncated(path);
        QVERIFY(truncated.open(QIODevice::ReadWrite));
        QVERIFY(truncated.resize(truncated.size() - 7));
        truncated.close();
        QVERIFY(!RecordedStream::load(path, &error).has_value());
        QVERIFY(error.contains("corrupt"));
    }

    // The same recorded stream (snapshot, deltas with events, a state change, a resync) gives
    // the same store whether applied synchronously or through the worker path attach() uses.
    void recordedStreamSameThroughWorkerAndSynchronous() {
        const SyntheticFleet fleet = smallFleet();
        RecordedStream recording;
        recording.append(fleet.snapshot(1, kT0));
        for (int i = 1; i <= 4; ++i) recording.append(fleet.delta(1 + quint64(i), kT0 + 1000 * i, 2));
        v1::SubscribeResponse isolate = fleet.delta(6, kT0 + 5000, 1);
        v1::EntityState* st = isolate.mutable_delta()->add_states();
        st->set_entity_index(fleet.rackIndex(5));
        st->set_rack_state(v1::RACK_STATE_ISOLATED);
        st->set_reason("leak: auto-isolated");
        recording.append(std::move(isolate));
        v1::SubscribeResponse resync = fleet.snapshot(9, kT0 + 7000, "run-1", "resync: fell off log");
        *resync.mutable_snapshot()->add_states() = *st;
        recording.append(std::move(resync));
        recording.append(fleet.delta(10, kT0 + 8000, 1));

        FleetStore direct;
        const int a = direct.addEndpoint("east");
        recording.replayInto(direct, a);
        FleetStore viaWorker;
        const int b = viaWorker.addEndpoint("east");
        viaWorker.enqueue(b, std::vector<v1::SubscribeResponse>(recording.messages()));
        QTRY_VERIFY_WITH_TIMEOUT(!viaWorker.isPreparingSnapshot(b) && viaWorker.queuedMessages(b) == 0, 10000);

        QCOMPARE(viaWorker.rackCount(), direct.rackCount());
        QCOMPARE(viaWorker.jobCount(), direct.jobCount());
        QCOMPARE(viaWorker.eventCount(), direct.eventCount());
        QCOMPARE(viaWorker.eventCount(), 4 * 2 + 1 + 1);
        for (int rack = 0; rack < fleet.rackCount(); ++rack) {
            for (const std::uint32_t index :
                 {fleet.rackIndex(rack), fleet.gpuIndex(rack, 9, 1), fleet.loopIndex(rack)}) {
                const EntityId x{quint16(a), index}, y{quint16(b), index};
                QCOMPARE(viaWorker.name(y), direct.name(x));
                QCOMPARE(viaWorker.status(y).rackState, direct.status(x).rackState);
                for (v1::Metric m : {v1::DCGM_FI_DEV_GPU_TEMP, v1::RACK_POWER_KW, v1::RACK_LIQUID_FLOW_LPM}) {
                    const Reading r = viaWorker.reading(y, m), s = direct.reading(x, m);
                    QCOMPARE(r.freshness, s.freshness);
                    QCOMPARE(r.sampleTimeUnixMs, s.sampleTimeUnixMs);
                    QVERIFY(r.value == s.value || (std::isnan(r.value) && std::isnan(s.value)));
                }
            }
        }
        QCOMPARE(viaWorker.status(EntityId{quint16(b), fleet.rackIndex(5)}).rackState, v1::RACK_STATE_ISOLATED);
        std::vector<HistoryPoint> h1, h2;
        direct.history(direct.rackAt(3), v1::RACK_POWER_KW, h1);
        viaWorker.history(viaWorker.rackAt(3), v1::RACK_POWER_KW, h2);
        QCOMPARE(h2.size(), h1.size());
        QCOMPARE(int(h2.size()), 8);  // 0..5 s, the resync at 7 s and 8 s: history survived the resync
        QCOMPARE(viaWorker.search("r06", 3).front(), viaWorker.rackAt(5));
        QCOMPARE(viaWorker.findByName("train-1"), viaWorker.jobAt(0));
    }

    void worstQueries() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        v1::SubscribeResponse m = fleet.delta(2, kT0 + 1000);
        auto* b = m.mutable_delta()->add_samples();
        b->set_metric(v1::RACK_GPUS_DOWN);
        b->set_sample_time_unix_ms(kT0 + 1000);
        b->add_entity_indexes(fleet.rackIndex(5));
        b->add_values(4.0f);
        store.apply(ep, m);
        auto worst = worstRack(store);
        QVERIFY(worst.has_value());
        QCOMPARE(worst->id, (EntityId{quint16(ep), fleet.rackIndex(5)}));
        QVERIFY2(worst->why.contains("4 GPU(s) down"), qPrintable(worst->why));

        v1::SubscribeResponse iso = fleet.delta(3, kT0 + 2000);
        auto* st = iso.mutable_delta()->add_states();
        st->set_entity_index(fleet.rackIndex(1));
        st->set_rack_state(v1::RACK_STATE_ISOLATED);
        store.apply(ep, iso);
        QCOMPARE(worstRack(store)->id, (EntityId{quint16(ep), fleet.rackIndex(1)}));
        QCOMPARE(worstRacks(store, 3).size(), size_t(3));

        const auto job = biggestJob(store);
        QVERIFY(job.has_value());
        QCOMPARE(job->score, 7.0 * 72.0);

        // STANDARD detail has no link entities: the GPU with most NVLink CRC errors stands in.
        const auto link = worstLink(store);
        QVERIFY(link.has_value());
        QCOMPARE(store.kind(link->id), v1::ENTITY_KIND_GPU);
        QCOMPARE(link->id.index % 7, 6u);
    }

    void worstLinkWithLinkEntities() {
        SyntheticFleetSpec spec;
        spec.racks = 2;
        spec.withLinks = true;
        const SyntheticFleet fleet(spec);
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, fleet.snapshot(1, kT0));
        v1::SubscribeResponse m = fleet.delta(2, kT0 + 1000);
        auto* b = m.mutable_delta()->add_samples();
        b->set_metric(v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO);
        b->set_sample_time_unix_ms(kT0 + 1000);
        b->add_entity_indexes(fleet.nvlinkIndex(1, 3, 2, 7));
        b->add_values(1e-6f);
        b->add_entity_indexes(fleet.nvlinkIndex(0, 0, 0, 0));
        b->add_values(1e-12f);
        store.apply(ep, m);
        auto link = worstLink(store);
        QVERIFY(link.has_value());
        QCOMPARE(store.name(link->id), QStringLiteral("r02-n04-g2-l07"));
        auto* st = m.mutable_delta()->add_states();
        st->set_entity_index(fleet.nvlinkIndex(0, 5, 1, 3));
        st->set_link_state(v1::LINK_STATE_DOWN);
        m.mutable_delta()->set_sequence(3);
        store.apply(ep, m);
        QCOMPARE(store.name(worstLink(store)->id), QStringLiteral("r01-n06-g1-l03"));
        QVERIFY(worstLink(store)->why.startsWith("down"));
    }
};

QTEST_GUILESS_MAIN(TestFleetStore)
#include "tst_fleetstore.moc"
