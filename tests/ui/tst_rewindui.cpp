// Rewind in the console against the real fleetd: the time field takes the window back to a moment
// before a scripted leak; the rack map, the Rack page and the Alerts dock show that moment under
// the "AS OF … press Esc for live" banner while the live stream goes on underneath; Esc (and the
// Live button) bring the live fleet back at once.
// WATCHFLOOR_REWIND_SCREENSHOT=FILE keeps the rewound window (docs/screenshots/rewind.png).

#include "LeakFleetd.h"  // testbeds/
#include "SanitizerBuild.h"

#include "FleetFormat.h"
#include "FleetPage.h"
#include "IncidentsDock.h"
#include "MainWindow.h"
#include "RackPage.h"
#include "RewindBar.h"
#include "RewindController.h"
#include "RewindView.h"

#include "EndpointConnection.h"
#include "FleetStore.h"
#include "PastFleet.h"
#include "RackMapWidget.h"

#include <QDateTimeEdit>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimeZone>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

bool tileIsolated(const ui::FleetPage& page, const QString& rack) {
    const auto* map = page.rackMap();
    const int index = map->indexOfRack(rack);
    return index >= 0 && std::size_t(index) < map->statuses().size() && map->statuses()[std::size_t(index)].isolated;
}

// An operator typing a moment: each keystroke changes the field on the way, so the bar knows a new
// moment was typed even when it is the one the field already shows. The field shows the live time of
// the last window refresh, once a wall second (a fleet minute at 60x): setting 00:01:00 alone where it
// already read 00:01:00 changed nothing, the bar took Enter for focus leaving, and no move was asked
// (tst_rewindui's flake, one run in three).
void typeMoment(ui::RewindBar& bar, std::int64_t ms) {
    const QDateTime moment = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc());
    bar.timeEdit()->setDateTime(moment.addSecs(-1));
    bar.timeEdit()->setDateTime(moment);
    emit bar.timeEdit()->editingFinished();
}

// What the bar was asked and shows, for the failure message.
QString whyNoBanner(const ui::RewindBar& bar, const client::FleetStore& store, client::EntityId rack,
                    std::int64_t typedMs, const QSignalSpy& asked) {
    return QStringLiteral(
               "typed %1 (rack since %2, fleet time %3); %4 move(s) asked; time field '%5'; banner "
               "'%6'; status '%7'")
        .arg(ui::formatUnixMs(typedMs))
        .arg(ui::formatUnixMs(store.status(rack).sinceUnixMs))
        .arg(ui::formatUnixMs(store.endpointFleet(0).serverTimeUnixMs()))
        .arg(asked.count())
        .arg(bar.timeEdit()->text(), bar.bannerText(), bar.statusText());
}

}  // namespace

class TestRewindUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    // Before fleetd's window arrives the bar has no time to show: it said 1970-01-01 (a broken
    // clock to an operator) and offered a slider over nothing.
    void beforeTheWindowTheTimeFieldWaits() {
        ui::RewindBar bar;
        QVERIFY(!bar.timeEdit()->isEnabled());
        QCOMPARE(bar.timeEdit()->text(), QStringLiteral("waiting for fleetd's time"));
        const std::int64_t live = QDateTime(QDate(2027, 1, 1), QTime(6, 30), QTimeZone::utc()).toMSecsSinceEpoch();
        bar.setWindow(live - 3'600'000, live);
        QVERIFY(bar.timeEdit()->isEnabled());
        QCOMPARE(bar.timeEdit()->text(), QStringLiteral("2027-01-01 06:30:00 UTC"));
    }

    // The window is refreshed once a second; at a fast twin that is minutes of fleet time. A
    // moment typed from those minutes is the past, not live (under TSan the end-to-end test below
    // typed r03's leak minus 30 s, which the bar's one-second-old live end placed in the future).
    void aTypedMomentIsPastAgainstTheLiveClockNotTheLastWindow() {
        ui::RewindBar bar;
        const std::int64_t live = QDateTime(QDate(2027, 1, 1), QTime(6, 30), QTimeZone::utc()).toMSecsSinceEpoch();
        bar.setWindow(live - 3'600'000, live);
        bar.setLiveClock([live] { return live + 120'000; });
        QSignalSpy moved(&bar, &ui::RewindBar::moveRequested);
        QSignalSpy wentLive(&bar, &ui::RewindBar::liveRequested);
        typeMoment(bar, live + 60'000);
        QCOMPARE(moved.count(), 1);
        QCOMPARE(moved.front().at(0).value<std::int64_t>(), live + 60'000);
        QCOMPARE(wentLive.count(), 0);
        typeMoment(bar, live + 120'000);
        QCOMPARE(wentLive.count(), 1);
    }

    void rewindShowsThePastUnderABannerAndEscIsLive() {
        QTemporaryDir dir;
        testing::FleetdProcess fleetd;
        QString error;
        QVERIFY2(testing::startLeakFleetd(fleetd, dir, &error), qPrintable(error));

        client::FleetStore store;
        client::EndpointConfig config;
        config.target = QString::fromStdString(fleetd.address());
        client::EndpointConnection connection(config);
        store.attach(&connection);
        ui::PageContext context;
        context.store = &store;
        context.connections = {&connection};
        ui::MainWindow window(context, ui::MainWindowOptions{});
        window.resize(1600, 960);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        connection.start();

        auto* liveFleet = qobject_cast<ui::FleetPage*>(window.page(ui::PageId::Fleet));
        QVERIFY(liveFleet);
        QTRY_VERIFY_WITH_TIMEOUT(tileIsolated(*liveFleet, QStringLiteral("r03")), 30000);
        const client::EntityId r03 = store.findByName(QStringLiteral("r03"));
        const std::int64_t before = store.status(r03).sinceUnixMs - 30'000;
        const std::int64_t isolatedSeen = store.endpointFleet(0).serverTimeUnixMs();  // r03 isolated by then

        ui::RewindController* rewind = window.rewind();
        QVERIFY(rewind);
        ui::RewindBar* bar = rewind->bar();
        QVERIFY(!bar->banner()->isVisible());
        QVERIFY(!bar->liveButton()->isEnabled());
        auto* liveDock = window.findChild<ui::IncidentsDock*>(QStringLiteral("incidentsDock"));
        QVERIFY(liveDock && liveDock->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(liveDock->incidentCount() > 0, 10000);  // the leak's incident

        // Back to 30 s before the leak, from the open Fleet page.
        QSignalSpy asked(bar, &ui::RewindBar::moveRequested);
        typeMoment(*bar, before);
        QTRY_VERIFY2_WITH_TIMEOUT(bar->banner()->isVisible(), qPrintable(whyNoBanner(*bar, store, r03, before, asked)),
                                  10000 * watchfloor::testing::kSanitizerSlowdown);
        QVERIFY2(bar->bannerText().contains(QStringLiteral("AS OF %1 UTC").arg(ui::formatUnixMs(before))),
                 qPrintable(bar->bannerText()));
        QVERIFY(bar->bannerText().contains(QStringLiteral("NOT LIVE")));
        QVERIFY(bar->bannerText().contains(QStringLiteral("press Esc for live")));
        // The status bar names the connection without calling what is shown live.
        auto* status = window.findChild<QLabel*>(QStringLiteral("endpointStatus0"));
        QVERIFY(status);
        QTRY_VERIFY_WITH_TIMEOUT(
            status->text().contains(
                QStringLiteral("connected, viewing the past as of %1 UTC").arg(ui::formatUnixMs(before))),
            5000);
        QVERIFY2(!status->text().endsWith(QStringLiteral("— Live")), qPrintable(status->text()));
        ui::FleetPage* pastFleet = rewind->view()->fleetPage();
        QTRY_VERIFY_WITH_TIMEOUT(
            pastFleet->isVisible() && pastFleet->rackMap()->indexOfRack(QStringLiteral("r03")) >= 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!tileIsolated(*pastFleet, QStringLiteral("r03")), 5000);
        QVERIFY(!liveFleet->isVisible());
        QVERIFY(!liveDock->isVisible());
        QVERIFY(rewind->pastDock()->isVisible());
        QVERIFY(rewind->pastDock()->windowTitle().contains(ui::formatUnixMs(before)));
        QTRY_COMPARE_WITH_TIMEOUT(rewind->pastDock()->incidentCount() < liveDock->incidentCount(), true, 5000);

        // The live stream is still ingested underneath: r03 stays isolated there, time moves on.
        const std::int64_t liveNow = store.endpointFleet(0).serverTimeUnixMs();
        QTRY_VERIFY_WITH_TIMEOUT(store.endpointFleet(0).serverTimeUnixMs() > liveNow + 2'000, 5000);
        QVERIFY(tileIsolated(*liveFleet, QStringLiteral("r03")));

        // The rack page of the past: open r03 from the past map.
        emit pastFleet->navigationRequested(ui::Location{ui::PageId::Rack, QStringLiteral("r03")});
        QTRY_VERIFY_WITH_TIMEOUT(rewind->view()->rackPage()->isVisible(), 3000);
        QCOMPARE(rewind->view()->rackPage()->rackName(), QStringLiteral("r03"));
        QVERIFY(bar->banner()->isVisible());

        // Esc: live at once, on the same rack.
        QTest::keyClick(&window, Qt::Key_Escape);
        QVERIFY(!bar->banner()->isVisible());
        QVERIFY2(status->text().endsWith(QStringLiteral("— Live")), qPrintable(status->text()));
        QVERIFY(!rewind->view()->isVisible());
        QVERIFY(liveDock->isVisible());
        QVERIFY(!rewind->pastDock()->isVisible());
        QCOMPARE(window.currentLocation().page, ui::PageId::Rack);
        QCOMPARE(window.currentPage()->entity(), QStringLiteral("r03"));
        QVERIFY(window.currentPage()->isVisible());

        // Again from the live Rack page: the past opens on the same rack; back with the Live button.
        asked.clear();
        typeMoment(*bar, before);
        QTRY_VERIFY2_WITH_TIMEOUT(bar->banner()->isVisible(), qPrintable(whyNoBanner(*bar, store, r03, before, asked)),
                                  10000 * watchfloor::testing::kSanitizerSlowdown);
        QTRY_VERIFY_WITH_TIMEOUT(rewind->view()->rackPage()->isVisible(), 5000);
        QCOMPARE(rewind->view()->rackPage()->rackName(), QStringLiteral("r03"));
        QVERIFY(bar->liveButton()->isEnabled());
        QTest::mouseClick(bar->liveButton(), Qt::LeftButton);
        QVERIFY(!bar->banner()->isVisible());
        QCOMPARE(window.currentPage()->entity(), QStringLiteral("r03"));
        window.navigate({ui::PageId::Fleet, {}});
        QVERIFY(liveFleet->isVisible());
        QVERIFY(tileIsolated(*liveFleet, QStringLiteral("r03")));

        // The screenshot: just after the leak, r03 isolated and its incident open in the past dock.
        if (const QString shot = qEnvironmentVariable("WATCHFLOOR_REWIND_SCREENSHOT"); !shot.isEmpty()) {
            typeMoment(*bar, isolatedSeen + 5'000);
            QTRY_VERIFY_WITH_TIMEOUT(bar->banner()->isVisible() && tileIsolated(*pastFleet, QStringLiteral("r03")),
                                     10000);
            QTRY_VERIFY_WITH_TIMEOUT(rewind->pastDock()->incidentCount() > 0, 5000);
            QTest::qWait(1000);  // a few frames of the past pages
            QVERIFY(window.grab().save(shot));
        }
    }
};

QTEST_MAIN(TestRewindUi)
#include "tst_rewindui.moc"
