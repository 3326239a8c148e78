// Issue 14, item 2: a console merging two fleetd endpoints, one of them down. Every aggregate says
// how much of it is stale and how many endpoints are live, Needs attention names the endpoint that
// is down before saying anything is healthy, racks whose names both fleets use are qualified only
// where ambiguous and readably (tiles show "r01", their region band says which fleet), the header
// names every fleet and the status bar names each endpoint once.

#include "PageTestFleet.h"

#include "FleetPage.h"
#include "KpiStrip.h"
#include "MainWindow.h"

#include "FleetStore.h"
#include "RackMapWidget.h"

#include <QLabel>
#include <QTest>
#include <QTextDocument>

using namespace watchfloor;
using client::ConnectionState;
using ui::PageId;

namespace {

QString plain(const QString& html) {
    QTextDocument doc;
    doc.setHtml(html);
    return doc.toPlainText();
}

}  // namespace

class TestMergedFleet : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<client::FleetStore> m_store;
    std::unique_ptr<ui::MainWindow> m_window;

    // Two fleetd on one host, as two twins (or two regions' fleetd behind one bastion) look.
    void openMerged(const std::string& fleetA, const std::string& fleetB, bool wall = false) {
        m_window.reset();
        m_store = std::make_unique<client::FleetStore>();
        const std::string names[] = {fleetA, fleetB};
        for (int i = 0; i < 2; ++i) {
            const QString target = QStringLiteral("127.0.0.1:5055%1").arg(i + 1);
            const int endpoint = m_store->addEndpoint(target, client::EndpointIdentity{{}, target, {}});
            testing::PageTestFleet fleet;
            fleet.s().mutable_topology()->set_fleet_name(names[i]);
            m_store->apply(endpoint, fleet.snapshot);
        }
        m_store->flushChanges();
        QCOMPARE(m_store->rackCount(), 4);
        ui::PageContext context;
        context.store = m_store.get();
        ui::MainWindowOptions options;
        options.wallDisplay = wall;
        m_window = std::make_unique<ui::MainWindow>(context, options);
        m_window->resize(1920, 1080);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void takeDown(int endpoint) {
        m_store->setEndpointState(
            endpoint, ConnectionState::Reconnecting,
            QStringLiteral("Cannot reach fleetd at 127.0.0.1:5055%1 (UNAVAILABLE: Connection refused)")
                .arg(endpoint + 1));
        m_store->flushChanges();
    }

    ui::FleetPage* fleetPage() const { return qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet)); }

private slots:
    void cleanup() {
        m_window.reset();
        m_store.reset();
    }

    void sharedRackNamesAreQualifiedReadably() {
        openMerged("synthetic", "synthetic");
        const widgets::RackMapWidget* map = fleetPage()->rackMap();
        QCOMPARE(map->rackCount(), 4);
        QStringList ids, labels, regions;
        for (int i = 0; i < map->rackCount(); ++i) {
            ids << map->rack(i).id;
            labels << map->rack(i).label;
            regions << map->rack(i).region;
        }
        // Both fleets are "synthetic" on one host: the port tells them apart, not "127.0.0.1:5055…".
        QCOMPARE(ids, (QStringList{":50551/r01", ":50551/r02", ":50552/r01", ":50552/r02"}));
        QCOMPARE(labels, (QStringList{"r01", "r02", "r01", "r02"}));
        QCOMPARE(regions,
                 (QStringList{"us-east · :50551", "us-east · :50551", "us-east · :50552", "us-east · :50552"}));
        QCOMPARE(m_store->findByName(QStringLiteral(":50552/r02")), m_store->rackAt(3));
        // The long form still finds it (typed, or from older notes).
        QCOMPARE(m_store->findByName(QStringLiteral("127.0.0.1:50552/r02")), m_store->rackAt(3));

        openMerged("us-fleet", "eu-fleet");
        QCOMPARE(fleetPage()->rackMap()->rack(2).id, QStringLiteral("eu-fleet/r01"));
        QCOMPARE(fleetPage()->rackMap()->rack(2).label, QStringLiteral("r01"));
    }

    void headerAndStatusBarNameEveryFleetOnce() {
        openMerged("us-fleet", "eu-fleet");
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        const QString summary = fleetPage()->headerSummary();
        QVERIFY2(summary.contains(QStringLiteral("us-fleet")) && summary.contains(QStringLiteral("eu-fleet")),
                 qPrintable(summary));
        const auto* status = m_window->findChild<QLabel*>(QStringLiteral("endpointStatus1"));
        QVERIFY(status);
        QCOMPARE(plain(status->text()), QStringLiteral("● eu-fleet (127.0.0.1:50552) — Live"));
    }

    void oneEndpointDownEveryAggregateSaysHowMuchIsStale() {
        openMerged("synthetic", "synthetic");
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        ui::KpiStrip* kpis = fleetPage()->kpis();
        QCOMPARE(kpis->value(QStringLiteral("healthy")), QStringLiteral("286"));
        QVERIFY(!kpis->detail(QStringLiteral("healthy")).contains(QStringLiteral("stale")));

        takeDown(1);
        QTRY_VERIFY(kpis->detail(QStringLiteral("healthy")).contains(QStringLiteral("143 of them stale")));
        for (const char* card : {"goodput", "ettr", "mfu", "healthy", "degraded", "down", "incidents"}) {
            const QString detail = kpis->detail(QLatin1String(card));
            QVERIFY2(detail.contains(QStringLiteral("1 of 2 endpoints live")),
                     qPrintable(QStringLiteral("%1: %2").arg(card, detail)));
        }
        QVERIFY2(kpis->detail(QStringLiteral("goodput")).contains(QStringLiteral("% of it stale")),
                 qPrintable(kpis->detail(QStringLiteral("goodput"))));
        QVERIFY(kpis->detail(QStringLiteral("down")).contains(QStringLiteral("1 of them stale")));

        const QStringList attention = fleetPage()->attentionLines();
        QVERIFY(!attention.isEmpty());
        QVERIFY2(attention.first().startsWith(QStringLiteral(":50552")) &&
                     attention.first().contains(QStringLiteral("reconnecting")) &&
                     attention.first().contains(QStringLiteral("2 racks show last-known values")),
                 qPrintable(attention.join(u'\n')));
        QVERIFY2(!attention.join(u'\n').contains(QStringLiteral("Every rack is healthy")),
                 qPrintable(attention.join(u'\n')));
        QVERIFY2(fleetPage()->headerSummary().contains(QStringLiteral("2 endpoints (1 live)")),
                 qPrintable(fleetPage()->headerSummary()));
    }

    void wallHeaderSaysHowManyEndpointsAreLive() {
        openMerged("synthetic", "synthetic", true);
        takeDown(0);
        QStringList texts;
        for (const QLabel* label : m_window->findChild<QWidget*>(QStringLiteral("wallHeader"))->findChildren<QLabel*>())
            texts << plain(label->text());
        QVERIFY2(texts.join(u' ').contains(QStringLiteral("1 of 2 endpoints live")), qPrintable(texts.join(u' ')));
    }
};

QTEST_MAIN(TestMergedFleet)
#include "tst_mergedfleet.moc"
