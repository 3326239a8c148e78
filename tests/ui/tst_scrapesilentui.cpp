// The console in front of a real fleetd that scrapes exporters itself (--source scrape), end to
// end on loopback: one fleetd serves the twin's dcgm-exporter and node_exporter pages
// (--serve-exporters), a second reads them with `--fleet FILE --source scrape`, and the console
// follows the second. One host's dcgm-exporter sits behind a TCP proxy; when the proxy starts
// refusing, the console's store shows that tray silent (within two scrape rounds of fleetd's,
// counted on the rounds the console saw, not on the wall clock) while every other tray stays live;
// the rack map, the elevation, the node table, the KPI strip and the Sources page say so. When the
// proxy answers again the tray is live again. Then the exporters' fleetd dies: fleetd is still
// reachable, but every target is down, and the banner and status bar say so as loudly as for an
// unreachable endpoint.
// WATCHFLOOR_SCRAPE_SCREENSHOTS=DIR keeps the rendered pages (scrape-silent-{fleet,rack,sources}.png).

#include "FleetdProcess.h"  // testbeds/
#include "TcpDropProxy.h"

#include "ConnectionBanner.h"
#include "EntityTableView.h"
#include "FleetPage.h"
#include "KpiStrip.h"
#include "MainWindow.h"
#include "RackPage.h"
#include "SourcesPage.h"

#include "EndpointConnection.h"
#include "FleetStore.h"
#include "ModelRoles.h"
#include "NodeTableModel.h"
#include "RackElevationWidget.h"
#include "RackMapWidget.h"
#include "ScrapeTargetModel.h"
#include "SourceHealth.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSet>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <memory>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

constexpr int kTrays = 2 * 18;
const char* const kDeadHost = "gb200-r02-n05";
const char* const kDeadTray = "r02-n05";

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

const v1::SourceStatus* scrapeStatus(const client::FleetStore& store, int endpoint) {
    for (const v1::SourceStatus& s : store.endpointFleet(endpoint).sources())
        if (s.kind() == "scrape") return &s;
    return nullptr;
}

int liveTrays(const client::FleetStore& store, int endpoint) {
    int live = 0;
    for (const auto& [node, telemetry] : store.endpointFleet(endpoint).telemetryByTray())
        live += telemetry.state() == v1::TELEMETRY_STATE_LIVE ? 1 : 0;
    return live;
}

}  // namespace

class TestScrapeSilentUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void silentTrayEndToEnd() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        };
        write(QStringLiteral("site.fleet"),
              "fleet scrape-site\nregion us-east\nracks 2 hall=h1 row=1 hosts=gb200-{rack}-n[01-18]\n");

        // The site: the twin answering as every host's exporters.
        testing::FleetdProcess exporters;
        QVERIFY2(exporters.start({QStringLiteral("--fleet"), dir.filePath(QStringLiteral("site.fleet")),
                                  QStringLiteral("--serve-exporters"), QStringLiteral("127.0.0.1:0")}),
                 qPrintable(exporters.errorString()));
        const QRegularExpressionMatch announce = exporters.waitForLog(
            QRegularExpression(QStringLiteral("exporters listening on 127\\.0\\.0\\.1:(\\d+)")), 20'000);
        QVERIFY2(announce.hasMatch(), exporters.log().constData());
        const quint16 exporterPort = quint16(announce.captured(1).toUInt());
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(exporterPort);

        // One host's dcgm-exporter behind a proxy the test can make refuse.
        testing::TcpDropProxy proxy(exporterPort);
        write(QStringLiteral("targets"), QStringLiteral("host %1 dcgm=http://127.0.0.1:%2/dcgm/{host}/metrics\n")
                                             .arg(QLatin1String(kDeadHost))
                                             .arg(proxy.port())
                                             .toUtf8());

        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({QStringLiteral("--fleet"), dir.filePath(QStringLiteral("site.fleet")),
                               QStringLiteral("--source"),
                               // Rounds every 10 s, each page given as long (the default timeout): a loaded
                               // CI machine renders the twin's pages slowly, and a slow page is not a
                               // silent host.
                               QStringLiteral("scrape"), QStringLiteral("--scrape-interval"), QStringLiteral("10s"),
                               QStringLiteral("--scrape-dcgm"), base + QStringLiteral("/dcgm/{host}/metrics"),
                               QStringLiteral("--scrape-node"), base + QStringLiteral("/node/{host}/metrics"),
                               QStringLiteral("--scrape-targets"), dir.filePath(QStringLiteral("targets")),
                               // One server answers for every host here: a handful of transfers at once.
                               QStringLiteral("--scrape-concurrency"), QStringLiteral("8"),
                               // An idle twin's pages can hold still for a minute; frozen is not what
                               // this test is about (tst_scrape_source_e2e covers it).
                               QStringLiteral("--scrape-frozen-after"), QStringLiteral("10m")}),
                 qPrintable(fleetd.errorString()));

        client::FleetStore store;
        client::EndpointConfig config;
        config.target = QString::fromStdString(fleetd.address());
        client::EndpointConnection connection(config);
        const int endpoint = store.attach(&connection);
        ui::PageContext context;
        context.store = &store;
        context.connections = {&connection};
        ui::MainWindow window(context, ui::MainWindowOptions{});
        window.resize(1920, 1080);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        connection.start();
        auto describe = [&] {
            const v1::SourceStatus* s = scrapeStatus(store, endpoint);
            return QStringLiteral("state %1, live trays %2, source %3\nfleetd: %4")
                .arg(client::displayName(store.endpointState(endpoint)))
                .arg(liveTrays(store, endpoint))
                .arg(s ? QString::fromStdString(s->ShortDebugString()) : QStringLiteral("none"),
                     QString::fromUtf8(fleetd.log().right(2000)));
        };

        // Every tray live: both exporters of each answer with values that change.
        QTRY_VERIFY2_WITH_TIMEOUT(liveTrays(store, endpoint) == kTrays, qPrintable(describe()), 90'000);
        const client::EntityId dead = store.findByName(QString::fromLatin1(kDeadTray));
        const client::EntityId neighbour = store.findByName(QStringLiteral("r02-n06"));
        QVERIFY(dead.isValid() && neighbour.isValid());
        const v1::Node* deadInfo = store.nodeInfo(dead);
        QVERIFY(deadInfo && deadInfo->gpu_indexes_size() == 4);
        const client::EntityId deadGpu{dead.endpoint, deadInfo->gpu_indexes(1)};
        const client::EntityId liveGpu{neighbour.endpoint, store.nodeInfo(neighbour)->gpu_indexes(1)};
        QTRY_COMPARE_WITH_TIMEOUT(store.reading(deadGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, client::Freshness::Fresh,
                                  15'000);
        QVERIFY(!window.connectionBanner()->isVisible());

        // Count fleetd's scrape rounds (each ends with the source's status) that begin after the cut.
        std::int64_t cutMs = 0;
        QSet<qint64> roundsAfterCut;
        bool silentSeen = false;
        int roundsWhenSilent = -1;
        connect(&store, &client::FleetStore::changed, this, [&](const client::FleetChangeSet&) {
            if (cutMs == 0 || silentSeen) return;
            if (const v1::SourceStatus* s = scrapeStatus(store, endpoint); s && s->last_poll_unix_ms() >= cutMs)
                roundsAfterCut.insert(s->last_poll_unix_ms());
            if (store.isTraySilent(dead)) {
                silentSeen = true;
                roundsWhenSilent = int(roundsAfterCut.size());
            }
        });

        // The exporter stops answering.
        cutMs = wallMs();
        proxy.setRefusing(true);
        proxy.dropConnections();
        QTRY_VERIFY2_WITH_TIMEOUT(silentSeen, qPrintable(describe()), 30'000);
        QVERIFY2(roundsWhenSilent <= 2, qPrintable(QStringLiteral("silent after %1 rounds").arg(roundsWhenSilent)));
        QCOMPARE(liveTrays(store, endpoint), kTrays - 1);
        const v1::TelemetryHealth* telemetry = store.trayTelemetry(deadGpu);
        QVERIFY(telemetry);
        QVERIFY2(QString::fromStdString(telemetry->reason()).startsWith(QStringLiteral("dcgm-exporter: ")),
                 telemetry->reason().c_str());
        QCOMPARE(store.reading(deadGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, client::Freshness::Silent);
        QCOMPARE(store.reading(liveGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, client::Freshness::Fresh);
        QCOMPARE(store.silentTraysInRack(store.rackOf(dead)), 1);
        // The source's own count comes with the end of its round.
        QTRY_VERIFY2_WITH_TIMEOUT(scrapeStatus(store, endpoint)->hosts_silent() == 1, qPrintable(describe()), 20'000);

        // Fleet page: the rack carries its silent tray; the KPI counts the host.
        QVERIFY(window.navigate({ui::PageId::Fleet, {}}));
        auto* fleetPage = qobject_cast<ui::FleetPage*>(window.page(ui::PageId::Fleet));
        const int rackRow = store.rackRow(store.rackOf(dead));
        QTRY_COMPARE_WITH_TIMEOUT(fleetPage->rackMap()->statuses().at(std::size_t(rackRow)).silentTrays, 1, 5'000);
        QCOMPARE(fleetPage->rackMap()->statuses().at(std::size_t(1 - rackRow)).silentTrays, 0);
        QTRY_COMPARE_WITH_TIMEOUT(fleetPage->kpis()->value(QStringLiteral("silent")), QStringLiteral("1"), 5'000);
        QVERIFY(fleetPage->kpis()->isCardVisible(QStringLiteral("silent")));
        QVERIFY2(fleetPage->kpis()->detail(QStringLiteral("silent")).startsWith(QStringLiteral("1 of 36 hosts silent")),
                 qPrintable(fleetPage->kpis()->detail(QStringLiteral("silent"))));
        // One silent host of 36 is the Sources indicator's business, not the banner's.
        QVERIFY(!window.connectionBanner()->isVisible());
        const QString shots = qEnvironmentVariable("WATCHFLOOR_SCRAPE_SCREENSHOTS");
        auto keep = [&](const char* name) {
            if (shots.isEmpty()) return;
            QTest::qWait(1500);  // a few frames at the server's pace
            QVERIFY(window.grab().save(QDir(shots).filePath(QString::fromLatin1(name))));
        };
        keep("scrape-silent-fleet.png");

        // Rack page: the elevation draws the tray silent, the node table says why.
        QVERIFY(window.navigate({ui::PageId::Rack, store.name(store.rackOf(dead))}));
        auto* rackPage = qobject_cast<ui::RackPage*>(window.page(ui::PageId::Rack));
        const int slot = int(deadInfo->slot()) - 1;
        QTRY_VERIFY_WITH_TIMEOUT(rackPage->elevation()->elevation().compute[std::size_t(slot)].silent, 5'000);
        QVERIFY(!rackPage->elevation()->elevation().compute[std::size_t(slot + 1)].silent);
        QVERIFY(rackPage->elevation()->elevation().compute[std::size_t(slot)].gpus[1].value.isSilent());
        QCOMPARE(rackPage->elevation()->elevation().compute[std::size_t(slot)].silentReason,
                 QStringLiteral("dcgm-exporter down"));
        QVERIFY(rackPage->elevation()->elevation().compute[std::size_t(slot)].silentDetail.startsWith(
            QStringLiteral("dcgm-exporter: ")));
        QAbstractItemModel* nodes = rackPage->nodesTable()->proxy()->sourceModel();
        QTRY_VERIFY_WITH_TIMEOUT(nodes->index(slot, client::NodeTableModel::Telemetry)
                                     .data()
                                     .toString()
                                     .startsWith(QStringLiteral("silent: dcgm-exporter")),
                                 5'000);
        QCOMPARE(nodes->index(slot, client::NodeTableModel::GpuPowerW).data(client::FreshnessRole).toInt(),
                 int(client::Freshness::Silent));
        keep("scrape-silent-rack.png");

        // Sources page: every target, the dead one first.
        QVERIFY(window.navigate({ui::PageId::Sources, {}}));
        auto* sourcesPage = qobject_cast<ui::SourcesPage*>(window.page(ui::PageId::Sources));
        QTRY_COMPARE_WITH_TIMEOUT(sourcesPage->targetModel()->counts().down, 1, 5'000);
        QCOMPARE(sourcesPage->targetModel()->rowCount(), 2 * kTrays);
        QCOMPARE(sourcesPage->targetModel()->counts().up, 2 * kTrays - 1);
        sourcesPage->targets()->proxy()->sort(client::ScrapeTargetModel::State, Qt::DescendingOrder);
        QCOMPARE(sourcesPage->targets()->entityAtRow(0), dead);
        const QModelIndex first = sourcesPage->targets()->proxy()->index(0, client::ScrapeTargetModel::State);
        QCOMPARE(first.data().toString(), QStringLiteral("down"));
        QCOMPARE(first.data(client::FreshnessRole).toInt(), int(client::Freshness::Silent));
        QVERIFY(!first.siblingAtColumn(client::ScrapeTargetModel::LastError).data().toString().isEmpty());
        QVERIFY2(sourcesPage->targetsSummary().contains(QStringLiteral("1 down")),
                 qPrintable(sourcesPage->targetsSummary()));
        keep("scrape-silent-sources.png");

        // The exporter answers again: live again.
        proxy.setRefusing(false);
        QTRY_VERIFY2_WITH_TIMEOUT(!store.isTraySilent(dead) && liveTrays(store, endpoint) == kTrays,
                                  qPrintable(describe()), 30'000);
        QTRY_COMPARE_WITH_TIMEOUT(store.reading(deadGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, client::Freshness::Fresh,
                                  15'000);

        // Every exporter gone: fleetd answers, but hears nothing. As wrong as an unreachable fleetd.
        exporters.kill();
        QTRY_VERIFY2_WITH_TIMEOUT(client::overviewOfSources(store).blindEndpoints == QList<int>{endpoint},
                                  qPrintable(describe()), 30'000);
        QCOMPARE(store.endpointState(endpoint), client::ConnectionState::Live);
        QTRY_VERIFY_WITH_TIMEOUT(window.connectionBanner()->isVisible(), 5'000);
        QCOMPARE(window.connectionBanner()->level(), ui::ConnectionBanner::Level::Critical);
        QVERIFY2(window.connectionBanner()->text().contains(QStringLiteral("reachable, but no live telemetry")),
                 qPrintable(window.connectionBanner()->text()));
        QLabel* status = window.findChild<QLabel*>(QStringLiteral("endpointStatus0"));
        QVERIFY(status);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("no live telemetry")), 5'000);
        QTRY_COMPARE_WITH_TIMEOUT(liveTrays(store, endpoint), 0, 30'000);
        keep("scrape-silent-all.png");
    }
};

QTEST_MAIN(TestScrapeSilentUi)
#include "tst_scrapesilentui.moc"
