// The client against a real fleetd on loopback (FLEETD_BIN): go Live, survive a fleetd restart
// with a restart snapshot, resume on the same server without gap or duplicate, and merge two
// fleetd endpoints into one fleet. Skipped only when the fleetd binary is not built.
#include "client/EndpointConnection.h"
#include "client/FleetStore.h"

#include "ClientTestPrinters.h"

#include "FleetdProcess.h"

#include <QFileInfo>
#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::FleetdProcess;
namespace v1 = watchfloor::v1;

namespace {

QString targetOf(const FleetdProcess& fleetd) { return QString::fromStdString(fleetd.address()); }

// A real-time twin (speed 1) seeded per site, on a port of its own.
QStringList twinArgs(int seed) { return {"--seed", QString::number(seed), "--speed", "1"}; }

EndpointConfig configFor(const FleetdProcess& fleetd, const QString& label) {
    EndpointConfig c;
    c.target = targetOf(fleetd);
    c.label = label;
    return c;
}

}  // namespace

class TestFleetdLoopback : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!QFileInfo(FleetdProcess::binary()).isExecutable()) {
            QSKIP("fleetd is not built (FLEETD_BIN)");
        }
    }

    void connectsAndGoesLive() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinArgs(1)), qPrintable(fleetd.errorString()));
        EndpointConnection connection(configFor(fleetd, "east"));
        FleetStore store;
        store.attach(&connection);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(store.rackCount() > 0, 5000);
        QVERIFY2(connection.statusText().contains(targetOf(fleetd)), qPrintable(connection.statusText()));
        // Values keep flowing and are fresh.
        const EntityId rack = store.rackAt(0);
        const EntityId gpu = store.children(store.children(rack).front()).front();
        QCOMPARE(store.kind(gpu), v1::ENTITY_KIND_GPU);
        QTRY_COMPARE_WITH_TIMEOUT(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh, 5000);
        const quint64 seq = connection.lastSequence();
        QTRY_VERIFY_WITH_TIMEOUT(connection.lastSequence() > seq, 5000);
        QCOMPARE(connection.stats().sequenceGaps, quint64(0));
    }

    void survivesARestart() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinArgs(1)), qPrintable(fleetd.errorString()));
        EndpointConnection connection(configFor(fleetd, "east"));
        FleetStore store;
        store.attach(&connection);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 10000);
        const QString firstRun = connection.runId();
        QVERIFY(!firstRun.isEmpty());
        const EntityId gpu = store.children(store.children(store.rackAt(0)).front()).front();
        QTRY_COMPARE_WITH_TIMEOUT(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh, 5000);

        fleetd.kill();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Reconnecting, 10000);
        QVERIFY2(connection.statusText().contains("Retrying in"), qPrintable(connection.statusText()));
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);  // shown, not trusted

        QVERIFY2(fleetd.restartOnSamePort(), qPrintable(fleetd.errorString()));
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(connection.stats().snapshots, quint64(2), 5000);  // the restart snapshot
        QVERIFY(connection.runId() != firstRun);
        QVERIFY(store.rackCount() > 0);
    }

    void resumesOnTheSameServerWithoutGapOrDuplicate() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinArgs(1)), qPrintable(fleetd.errorString()));
        EndpointConnection connection(configFor(fleetd, "east"));
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(connection.stats().deltas >= 2, 10000);
        const quint64 before = connection.lastSequence();
        connection.reconnectNow();
        QTRY_VERIFY_WITH_TIMEOUT(connection.lastSequence() > before + 1, 10000);
        QCOMPARE(connection.state(), ConnectionState::Live);
        QCOMPARE(connection.stats().snapshots, quint64(1));
        QCOMPARE(connection.stats().resumedWithoutSnapshot, quint64(1));
        QCOMPARE(connection.stats().sequenceGaps, quint64(0));
        QCOMPARE(connection.stats().duplicateDeltasDropped, quint64(0));
    }

    void mergesTwoEndpoints() {
        FleetdProcess one, two;
        QVERIFY2(one.start(twinArgs(1)), qPrintable(one.errorString()));
        QVERIFY2(two.start(twinArgs(2)), qPrintable(two.errorString()));
        EndpointConnection a(configFor(one, "site-a"));
        EndpointConnection b(configFor(two, "site-b"));
        FleetStore store;
        const int ea = store.attach(&a);
        const int eb = store.attach(&b);
        a.start();
        b.start();
        QTRY_COMPARE_WITH_TIMEOUT(a.state(), ConnectionState::Live, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(b.state(), ConnectionState::Live, 10000);
        const int racksA = store.endpointFleet(ea).topology().topology().racks_size();
        const int racksB = store.endpointFleet(eb).topology().topology().racks_size();
        QVERIFY(racksA > 0 && racksB > 0);
        QCOMPARE(store.rackCount(), racksA + racksB);
        // Both twins name their racks alike: the fleet shows them qualified by endpoint.
        const QString first = store.name(store.rackAt(0));
        const QString other = store.name(store.rackAt(racksA));
        QVERIFY2(first.startsWith("site-a/") && other.startsWith("site-b/"), qPrintable(first + " " + other));
        QCOMPARE(store.findByName(first), store.rackAt(0));
        QCOMPARE(store.fleetRoots().size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestFleetdLoopback)
#include "tst_fleetd_loopback.moc"
