// FleetIngest alone, with a sink that records what reaches it: a queued snapshot is built off the
// caller's thread and holds back the messages behind it; they follow in order, a slice at a time;
// an unusable snapshot is handed over with its reason and the stream goes on; destroying the
// ingest mid-build delivers nothing.
#include "FleetIngest.h"

#include "SyntheticFleet.h"

#include <QtTest>

#include <thread>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

// What reached the sink, in order: "snapshot <racks> (<n> events)", "error: <why>", "delta <sequence>",
// "heartbeat", "empty".
struct Recorder {
    QStringList calls;
    std::vector<std::thread::id> adoptThreads;
    std::vector<std::unique_ptr<EndpointFleet>> adopted;

    FleetIngest::Sink sink() {
        return FleetIngest::Sink{[](int endpoint) {
                                     return SnapshotInputs{QStringLiteral("east"), 60, quint16(endpoint), {}};
                                 },
                                 [this](int, PreparedSnapshot&& prepared) {
                                     adoptThreads.push_back(std::this_thread::get_id());
                                     if (!prepared.fleet) {
                                         calls << QStringLiteral("error: ") + prepared.error;
                                         return;
                                     }
                                     calls << QStringLiteral("snapshot %1 (%2 events)")
                                                  .arg(prepared.fleet->topology().count(v1::ENTITY_KIND_RACK))
                                                  .arg(prepared.recentEvents.size());
                                     adopted.push_back(std::move(prepared.fleet));
                                 },
                                 [this](int, const v1::SubscribeResponse& m) {
                                     calls << (m.has_delta() ? QStringLiteral("delta %1").arg(m.delta().sequence())
                                               : m.has_heartbeat() ? QStringLiteral("heartbeat")
                                                                   : QStringLiteral("empty"));
                                 }};
    }
};

SyntheticFleet smallFleet(int racks = 5) {
    SyntheticFleetSpec spec;
    spec.racks = racks;
    return SyntheticFleet(spec);
}
}  // namespace

class TestFleetIngest : public QObject {
    Q_OBJECT

private slots:
    void applyIsSynchronous() {
        const SyntheticFleet fleet = smallFleet();
        Recorder r;
        FleetIngest ingest(r.sink(), std::chrono::milliseconds(12));
        ingest.addEndpoint();
        v1::SubscribeResponse snapshot = fleet.snapshot(1, kT0);
        snapshot.mutable_snapshot()->add_recent_events()->set_id(7);
        ingest.apply(0, snapshot);  // the const path copies
        QVERIFY(snapshot.snapshot().has_topology());
        ingest.apply(0, fleet.delta(2, kT0 + 1000));
        ingest.apply(0, fleet.heartbeat(3, kT0 + 1500));
        ingest.apply(0, v1::SubscribeResponse{});  // no payload: the sink's to ignore
        QCOMPARE(r.calls, (QStringList{"snapshot 5 (1 events)", "delta 2", "heartbeat", "empty"}));
        QCOMPARE(r.adoptThreads.front(), std::this_thread::get_id());
    }

    void queuedSnapshotHoldsBackWhatFollows() {
        const SyntheticFleet fleet = smallFleet();
        Recorder r;
        FleetIngest ingest(r.sink(), std::chrono::milliseconds(1000));
        ingest.addEndpoint();
        ingest.addEndpoint();
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(fleet.snapshot(1, kT0));
        batch.push_back(fleet.delta(2, kT0 + 1000));
        batch.push_back(fleet.delta(3, kT0 + 2000));
        ingest.enqueue(1, std::move(batch));
        QVERIFY(ingest.isPreparing(1));
        QVERIFY(!ingest.isPreparing(0));
        QCOMPARE(ingest.queued(1), std::size_t(2));
        QVERIFY(r.calls.isEmpty());  // nothing built or applied on this thread

        // More arrives while it builds: it waits behind the snapshot too.
        batch.clear();
        batch.push_back(fleet.delta(4, kT0 + 3000));
        ingest.enqueue(1, std::move(batch));
        QCOMPARE(ingest.queued(1), std::size_t(3));

        QTRY_VERIFY_WITH_TIMEOUT(!ingest.isPreparing(1) && ingest.queued(1) == 0, 10000);
        QCOMPARE(r.calls, (QStringList{"snapshot 5 (0 events)", "delta 2", "delta 3", "delta 4"}));
        QCOMPARE(r.adoptThreads.front(), std::this_thread::get_id());                // adopted on the owner's thread
        QCOMPARE(r.adopted.front()->names().find("r03").index, fleet.rackIndex(2));  // built with its names
    }

    void deltasAreHandedOutASliceAtATime() {
        const SyntheticFleet fleet = smallFleet();
        Recorder r;
        FleetIngest ingest(r.sink(), std::chrono::milliseconds(0));  // one message per turn
        ingest.addEndpoint();
        std::vector<v1::SubscribeResponse> batch;
        for (int i = 1; i <= 4; ++i) batch.push_back(fleet.delta(quint64(i), kT0 + 1000 * i));
        ingest.enqueue(0, std::move(batch));
        QCOMPARE(r.calls, QStringList{"delta 1"});
        QCOMPARE(ingest.queued(0), std::size_t(3));
        QTRY_COMPARE_WITH_TIMEOUT(ingest.queued(0), std::size_t(0), 5000);
        QCOMPARE(r.calls, (QStringList{"delta 1", "delta 2", "delta 3", "delta 4"}));
    }

    void unusableSnapshotIsReportedAndTheStreamGoesOn() {
        const SyntheticFleet fleet = smallFleet();
        Recorder r;
        FleetIngest ingest(r.sink(), std::chrono::milliseconds(12));
        ingest.addEndpoint();
        v1::SubscribeResponse bad = fleet.snapshot(1, kT0);
        bad.mutable_snapshot()->mutable_topology()->mutable_racks(1)->set_index(fleet.rackIndex(0));  // used twice
        std::vector<v1::SubscribeResponse> batch;
        batch.push_back(std::move(bad));
        batch.push_back(fleet.delta(2, kT0 + 1000));
        ingest.enqueue(0, std::move(batch));
        QTRY_VERIFY_WITH_TIMEOUT(!ingest.isPreparing(0) && ingest.queued(0) == 0, 10000);
        QCOMPARE(r.calls.size(), 2);
        QVERIFY2(r.calls[0].startsWith("error: ") && r.calls[0].contains("used twice"), qPrintable(r.calls[0]));
        QCOMPARE(r.calls[1], QStringLiteral("delta 2"));
    }

    void destroyedWhileBuildingDeliversNothing() {
        SyntheticFleetSpec spec;
        spec.racks = 60;
        const SyntheticFleet fleet(spec);
        Recorder r;
        for (int round = 0; round < 3; ++round) {
            auto ingest = std::make_unique<FleetIngest>(r.sink(), std::chrono::milliseconds(12));
            ingest->addEndpoint();
            std::vector<v1::SubscribeResponse> batch;
            batch.push_back(fleet.snapshot(1, kT0));
            batch.push_back(fleet.delta(2, kT0 + 1000));
            ingest->enqueue(0, std::move(batch));
            ingest->dispose(std::make_unique<EndpointFleet>(QStringLiteral("old"), 60));
            if (round == 1) QTest::qWait(1);
            ingest.reset();  // waits for the worker
        }
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents();
        QVERIFY2(r.calls.isEmpty(), qPrintable(r.calls.join(", ")));
    }
};

QTEST_GUILESS_MAIN(TestFleetIngest)
#include "tst_fleetstore_ingest.moc"
