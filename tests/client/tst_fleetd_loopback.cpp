// The client against a real fleetd on loopback (FLEETD_BIN): go Live, survive a fleetd restart
// with a restart snapshot (and a chart history that starts over), resume on the same server
// without gap or duplicate, merge two fleetd endpoints into one fleet, and a warm-started twin. Skipped only when the
// fleetd binary is not built.
#include "EndpointConnection.h"
#include "FleetGoodputMerge.h"
#include "FleetStore.h"

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
        // Live: the first message was accepted; the store swaps the snapshot in a moment later.
        QTRY_VERIFY_WITH_TIMEOUT(store.rackCount() > 0, 10000);
        const EntityId gpu = store.children(store.children(store.rackAt(0)).front()).front();
        QTRY_COMPARE_WITH_TIMEOUT(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh, 5000);
        // Only a stream that delivered data for 2 s counts as fleetd going away (a shorter one is
        // backed off, "Subscribing again in 1.0 s"); on a fast machine the lines above take less.
        const quint64 before = connection.lastSequence();
        QTest::qWait(2500);
        QVERIFY(connection.lastSequence() > before);

        fleetd.kill();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Reconnecting, 10000);
        QVERIFY2(connection.statusText().contains("as soon as it answers"), qPrintable(connection.statusText()));
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Stale);  // shown, not trusted

        QVERIFY2(fleetd.restartOnSamePort(), qPrintable(fleetd.errorString()));
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(connection.stats().snapshots, quint64(2), 5000);  // the restart snapshot
        QVERIFY(connection.runId() != firstRun);
        QVERIFY(store.rackCount() > 0);
    }

    // Issue 14, item 5: the twin restarts its clock with every run, so the old run's chart points
    // would sit among the new run's and a chart joined them across the restart. The history
    // starts over (said by lastRunChange) and stays in time order.
    void restartStartsTheChartHistoryOver() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--seed", "4", "--speed", "60"}), qPrintable(fleetd.errorString()));
        EndpointConnection connection(configFor(fleetd, "east"));
        FleetStore store;
        store.attach(&connection);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!store.fleetRoots().isEmpty(), 10000);
        const EntityId fleet = store.fleetRoots().first();
        QTRY_VERIFY_WITH_TIMEOUT(store.historyPoints(fleet, v1::FLEET_GPUS_HEALTHY).size() >= 5, 10000);
        QVERIFY(!store.endpointFleet(0).lastRunChange());
        // The new run's clock starts where this one's did, so its first snapshot is behind this
        // run's last point only if this run went on longer than the restart and reconnect take
        // (seconds under ASan, i.e. simulated minutes at 60x): let it run 10 simulated minutes.
        const auto historySpanMs = [&] {
            const QList<QPointF> points = store.historyPoints(fleet, v1::FLEET_GPUS_HEALTHY);
            return points.size() < 2 ? 0.0 : points.last().x() - points.first().x();
        };
        QTRY_VERIFY_WITH_TIMEOUT(historySpanMs() >= 600'000, 30000);

        QVERIFY2(fleetd.restartOnSamePort(), qPrintable(fleetd.errorString()));
        QTRY_COMPARE_WITH_TIMEOUT(connection.stats().snapshots, quint64(2), 20000);
        // The connection counts the snapshot when it reads it; the store takes it on the GUI thread after.
        QTRY_VERIFY_WITH_TIMEOUT(store.endpointFleet(0).lastRunChange().has_value(), 10000);
        const auto change = store.endpointFleet(0).lastRunChange();
        QVERIFY(change->historyCleared);
        QTRY_VERIFY_WITH_TIMEOUT(store.historyPoints(fleet, v1::FLEET_GPUS_HEALTHY).size() >= 3, 10000);
        const QList<QPointF> points = store.historyPoints(fleet, v1::FLEET_GPUS_HEALTHY);
        for (qsizetype i = 1; i < points.size(); ++i)
            QVERIFY2(points[i].x() > points[i - 1].x(),
                     qPrintable(QStringLiteral("point %1 goes back in time").arg(i)));
        QVERIFY(points.first().x() >= double(change->serverTimeMs));
    }

    // Issue 14, item 6: fleetd --warm-start: a newcomer's first screen is a fleet that has been
    // running (jobs mid-run, ledgers with hours of history), not every job initialising at 0 %.
    void warmStartJobsAreMidRunWithHistory() {
        auto firstSnapshot = [](const QStringList& args, FleetStore& store, FleetdProcess& fleetd,
                                std::unique_ptr<EndpointConnection>& connection) {
            if (!fleetd.start(args)) return false;
            connection = std::make_unique<EndpointConnection>(configFor(fleetd, "twin"));
            store.attach(connection.get());
            connection->start();
            QElapsedTimer t;
            t.start();
            while (store.jobCount() == 0 && t.elapsed() < 15000) QTest::qWait(50);
            return store.jobCount() > 0;
        };
        {
            // Without it every job is still initialising: what the flag is for.
            FleetdProcess cold;
            FleetStore store;
            std::unique_ptr<EndpointConnection> connection;
            QVERIFY2(firstSnapshot({"--seed", "5"}, store, cold, connection), qPrintable(cold.errorString()));
            QVERIFY(summarizeFleet(store).jobsStarting == store.jobCount());
        }
        FleetdProcess fleetd;
        FleetStore store;
        std::unique_ptr<EndpointConnection> connection;
        QVERIFY2(firstSnapshot({"--seed", "5", "--warm-start"}, store, fleetd, connection),
                 qPrintable(fleetd.errorString()));
        const std::int64_t nowMs = store.endpointFleet(0).serverTimeUnixMs();
        for (int row = 0; row < store.jobCount(); ++row) {
            const v1::Job& job = *store.job(row);
            const QString what = QString::fromStdString(job.name());
            QVERIFY2(job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_CHECKPOINTING,
                     qPrintable(what));
            QVERIFY2(job.step() > 100, qPrintable(what));
            QVERIFY2(job.breakdown().total_s() >= 0.6 * 6 * 3600 - 1, qPrintable(what));
            QVERIFY2(job.breakdown().productive_s() > 0.5 * job.breakdown().total_s(), qPrintable(what));
            QVERIFY2(job.breakdown().checkpoint_save_s() > 0 && job.breakdown().accelerator_init_s() > 0,
                     qPrintable(what));
            QVERIFY2(job.last_checkpoint_unix_ms() > 0 && nowMs - job.last_checkpoint_unix_ms() < 3600 * 1000,
                     qPrintable(what));
            QVERIFY2(job.started_unix_ms() <= nowMs - 3 * 3600 * 1000, qPrintable(what));
            QVERIFY2(job.goodput_ratio() > 0.5 && job.ettr_sliding_1h_ratio() > 0.5, qPrintable(what));
        }
        QTRY_VERIFY_WITH_TIMEOUT(summarizeFleet(store).endpointsReporting == 1, 5000);
        const FleetSummary summary = summarizeFleet(store);
        QCOMPARE(summary.jobsStarting, 0);
        QVERIFY2(summary.goodputRatio > 0.5 && summary.goodputRatio < 1.0,
                 qPrintable(QString::number(summary.goodputRatio)));
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
        // Live means the stream's first message was accepted; the store builds each snapshot on
        // its worker thread and swaps it in a moment later.
        const auto racksOf = [&](int endpoint) {
            return store.endpointFleet(endpoint).topology().topology().racks_size();
        };
        QTRY_VERIFY_WITH_TIMEOUT(racksOf(ea) > 0 && racksOf(eb) > 0, 10000);
        const int racksA = racksOf(ea);
        const int racksB = racksOf(eb);
        QTRY_COMPARE_WITH_TIMEOUT(store.rackCount(), racksA + racksB, 10000);
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
