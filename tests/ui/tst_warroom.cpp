// War-room wall display against the real fleetd: read-only (no action or edit controls), and
// when fleetd dies and comes back the wall shows a reconnecting banner and recovers by itself,
// never opening a modal dialog.

#include "FleetdProcess.h"  // testbeds/

#include "ConnectionBanner.h"
#include "MainWindow.h"

#include "EndpointConnection.h"
#include "FleetStore.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QMenuBar>
#include <QTest>
#include <QTimer>
#include <QToolBar>

using namespace watchfloor;

namespace {

// Controls an operator could use to change something: buttons, editors, selectors, toolbars.
QStringList visibleControls(const QWidget& window) {
    QStringList found;
    for (QWidget* w : window.findChildren<QWidget*>()) {
        if (!w->isVisibleTo(&window)) continue;
        if (qobject_cast<QAbstractButton*>(w) || qobject_cast<QLineEdit*>(w) || qobject_cast<QComboBox*>(w) ||
            qobject_cast<QToolBar*>(w))
            found << QStringLiteral("%1 '%2'").arg(QString::fromLatin1(w->metaObject()->className()), w->objectName());
    }
    return found;
}

}  // namespace

class TestWarRoom : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void wallHasNoControlsAndSurvivesAFleetdRestart() {
        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start(
                     {QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--speed"), QStringLiteral("60")}),
                 qPrintable(fleetd.errorString()));
        const QString target = QString::fromStdString(fleetd.address());

        client::FleetStore store;
        client::EndpointConfig config;
        config.target = target;
        config.staleAfter = std::chrono::milliseconds(2000);
        config.backoff.initial = std::chrono::milliseconds(200);
        config.backoff.cap = std::chrono::milliseconds(1000);
        client::EndpointConnection connection(config);
        const int endpoint = store.attach(&connection);
        ui::PageContext context;
        context.store = &store;
        context.connections = {&connection};

        // The desk console has controls: the check below would see them.
        {
            ui::MainWindow desk(context, ui::MainWindowOptions{});
            desk.show();
            QVERIFY(!visibleControls(desk).isEmpty());
        }

        ui::MainWindowOptions options;
        options.wallDisplay = true;
        options.rotateInterval = std::chrono::seconds(2);
        options.rotatePages = {ui::PageId::Fleet, ui::PageId::Goodput, ui::PageId::Events};
        ui::MainWindow wall(context, options);
        wall.resize(1920, 1080);
        wall.show();
        connection.start();

        bool sawModal = false;
        QTimer modalWatch;
        QObject::connect(&modalWatch, &QTimer::timeout,
                         [&] { sawModal = sawModal || QApplication::activeModalWidget(); });
        modalWatch.start(50);

        QTRY_VERIFY_WITH_TIMEOUT(store.endpointState(endpoint) == client::ConnectionState::Live, 15000);
        QTRY_VERIFY_WITH_TIMEOUT(!wall.connectionBanner()->isVisible(), 5000);
        QVERIFY2(visibleControls(wall).isEmpty(), qPrintable(visibleControls(wall).join(u',')));
        QVERIFY(wall.menuWidget() == nullptr || !wall.menuWidget()->isVisible());
        QCOMPARE(wall.contextMenuPolicy(), Qt::NoContextMenu);

        // Rotation moves on by itself.
        const ui::PageId first = wall.currentLocation().page;
        QTRY_VERIFY_WITH_TIMEOUT(wall.currentLocation().page != first, 6000);

        fleetd.kill();
        QTRY_VERIFY_WITH_TIMEOUT(wall.connectionBanner()->isVisible(), 10000);
        QVERIFY(wall.connectionBanner()->text().contains(target));

        QVERIFY2(fleetd.restartOnSamePort(), qPrintable(fleetd.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(store.endpointState(endpoint) == client::ConnectionState::Live, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!wall.connectionBanner()->isVisible(), 5000);
        QVERIFY2(!sawModal, "a modal dialog appeared on the wall display");
        QVERIFY(visibleControls(wall).isEmpty());
    }
};

QTEST_MAIN(TestWarRoom)
#include "tst_warroom.moc"
