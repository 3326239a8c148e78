// Fleet policy on a real fleet, end to end with real peers: a site whose Slurm knows its trays by
// host name (gb200-r01-n03, a loopback munge + slurmctld + slurmd), whose GPUs report through
// dcgm-exporter pages (the twin's, as those hosts) scraped by a real Prometheus. The twin raises
// Xid 62 (its policy: drain and reset the GPU) on one GPU; fleetd --source prometheus sees the
// last-Xid gauge change, raises the Xid event and, with --auto-drain, drains that tray through
// Slurm as principal "auto": sinfo shows the site's host drained with the automation's reason.
// Needs root (Slurm); skips only when not root or the Slurm packages are missing.

#include "FleetdProcess.h"
#include "LoopbackStore.h"
#include "SlurmTestSupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using watchfloor::testing::FleetdProcess;

class TstRealFleetAutodrain : public QObject {
    Q_OBJECT

private slots:
    void xidFromTheStoreDrainsTheHostThroughSlurm() {
        QTemporaryDir dir;
        slurm_test::LoopbackCluster cluster;
        if (!cluster.start(dir.filePath("slurm"), {"--prefix", "gb200-", "--slurmd", "gb200-r01-n01"})) {
            if (!cluster.skipReason().isEmpty()) QSKIP(qPrintable(cluster.skipReason()));
            QFAIL(qPrintable(cluster.error()));
        }
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
            file.close();
            ::chmod(QFile::encodeName(file.fileName()).constData(), 0600);
        };
        write("site.fleet", "region east\nrack r01 hosts=gb200-r01-n[01-18]\n");
        write("xid.scn", "at 25s xid 62 gpu=r01-n03-g1\n");
        write("tokens", "token 0123456789abcdef0123 principal=alice role=admin\n");

        // The site: the twin answering as gb200-r01-n01..18, scraped every second.
        FleetdProcess twin;
        QVERIFY2(twin.start({"--fleet", dir.filePath("site.fleet"), "--scenario", dir.filePath("xid.scn"),
                             "--serve-exporters", "127.0.0.1:0", "--exporters-config", dir.filePath("scrape"),
                             "--exporters-scrape-interval", "1s"}),
                 qPrintable(twin.errorString()));
        QFile config(dir.filePath("scrape/prometheus.yml"));
        QTRY_VERIFY_WITH_TIMEOUT(config.exists(), 10'000);
        QVERIFY(config.open(QIODevice::ReadOnly));
        std::string error;
        watchfloor::test::LoopbackStore::Options storeOptions;
        storeOptions.config = config.readAll().toStdString();
        auto store = watchfloor::test::LoopbackStore::start(storeOptions, error);
        QVERIFY2(store, error.c_str());

        // fleetd reading the site, acting through Slurm.
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--fleet", dir.filePath("site.fleet"), "--source",
                               QString::fromStdString("prometheus=" + store->url()), "--poll", "1s",
                               "--store-scrape-interval", "1s", "--tokens", dir.filePath("tokens"), "--audit-log",
                               dir.filePath("audit.jsonl"), "--scheduler", "slurm", "--slurm-conf", cluster.slurmConf(),
                               "--auto-drain", "5/1h"}),
                 qPrintable(fleetd.errorString()));

        // Slurm shows the site's host (not the entity name) drained by automation, for Xid 62.
        QString state;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (state = cluster.run("sinfo", {"-h", "-N", "-n", "gb200-r01-n03", "-o", "%T|%E"}).trimmed(),
             state.startsWith("drain") && state.contains("auto:")),
            qPrintable("sinfo: " + state + "\nfleetd: " + QString::fromUtf8(fleetd.log().right(3000))), 90'000);
        QVERIFY2(state.contains("62"), qPrintable(state));
        // Only that tray: its neighbours are untouched.
        const QString neighbour = cluster.run("sinfo", {"-h", "-N", "-n", "gb200-r01-n04", "-o", "%T"}).trimmed();
        QVERIFY2(!neighbour.startsWith("drain"), qPrintable(neighbour));
        QVERIFY(fleetd.terminate() == 0);
    }
};

QTEST_GUILESS_MAIN(TstRealFleetAutodrain)
#include "tst_real_fleet_autodrain.moc"
