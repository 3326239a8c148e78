// Every page builds, renders and shows the expected entity from a FleetStore fed through its
// real ingest path (a synthetic Subscribe snapshot); navigation: Ctrl+K, breadcrumbs,
// back/forward.

#include "PageTestFleet.h"

#include "AuditPage.h"
#include "BreadcrumbBar.h"
#include "EventsPage.h"
#include "FleetPage.h"
#include "JobsPage.h"
#include "JumpBox.h"
#include "KpiStrip.h"
#include "LinksPage.h"
#include "MainWindow.h"
#include "Page.h"
#include "RackPage.h"

#include "client/FleetStore.h"
#include "widgets/RackMapWidget.h"
#include "widgets/TimeSeriesChart.h"

#include <QAbstractButton>
#include <QSet>
#include <QTest>
#include <QToolBar>

using namespace watchfloor;
using ui::Location;
using ui::PageId;

namespace {

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

}  // namespace

class TestPages : public QObject {
    Q_OBJECT
private:
    testing::PageTestFleet m_fleet;
    std::unique_ptr<client::FleetStore> m_store;
    std::unique_ptr<ui::MainWindow> m_window;
    int m_endpoint = -1;

    // A fresh store and window; the snapshot is applied before the window exists unless the test
    // wants the window up first (as the console starts: it waits for the first snapshot).
    void openWindow(bool snapshotFirst, QSize size)
    {
        m_window.reset();
        m_store = std::make_unique<client::FleetStore>();
        m_endpoint = m_store->addEndpoint(QStringLiteral("synthetic"));
        if (snapshotFirst)
            applySnapshot();
        ui::PageContext context;
        context.store = m_store.get();
        m_window = std::make_unique<ui::MainWindow>(context, ui::MainWindowOptions{});
        m_window->resize(size);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }
    void applySnapshot()
    {
        m_store->apply(m_endpoint, m_fleet.snapshot);
        m_store->flushChanges();
        const QString error = m_store->lastError();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(m_store->rackCount(), 2);
    }

private slots:
    void init() { openWindow(true, {1600, 1000}); }
    void cleanup()
    {
        m_window.reset();
        m_store.reset();
    }

    void eachPageShowsItsMostTellingEntity_data()
    {
        QTest::addColumn<int>("page");
        QTest::addColumn<QString>("expected");
        QTest::newRow("fleet") << int(PageId::Fleet) << QString();
        QTest::newRow("rack: worst rack") << int(PageId::Rack) << QStringLiteral("r02");
        QTest::newRow("cooling: the wet loop") << int(PageId::Cooling) << QStringLiteral("r02");
        QTest::newRow("links: the flapping link") << int(PageId::Links) << QStringLiteral("r02-n03-g1-l05");
        QTest::newRow("goodput: fleet") << int(PageId::Goodput) << QString();
        QTest::newRow("jobs: biggest job") << int(PageId::Jobs) << QStringLiteral("llm-405b-pretrain");
        QTest::newRow("events: all") << int(PageId::Events) << QString();
        QTest::newRow("audit: everyone") << int(PageId::Audit) << QString();
    }
    void eachPageShowsItsMostTellingEntity()
    {
        QFETCH(int, page);
        QFETCH(QString, expected);
        QVERIFY(m_window->navigate({PageId(page), {}}));
        ui::Page* shown = m_window->currentPage();
        QCOMPARE(int(shown->id()), page);
        if (PageId(page) == PageId::Rack || PageId(page) == PageId::Cooling)
            QCOMPARE(m_store->name(m_store->rackOf(m_store->findByName(shown->entity()))), expected);
        else
            QCOMPARE(shown->entity(), expected);
        QTRY_VERIFY2(distinctColours(m_window->grab().toImage()) > 20, "the page rendered (nearly) blank");
    }

    // Charts on a page are laid out long before their first data (the console waits for a
    // snapshot); QtCharts then kept the time axis at zero height and never drew its labels.
    void everyChartShowsItsTimeAxis_data()
    {
        QTest::addColumn<int>("page");
        QTest::newRow("cooling") << int(PageId::Cooling);
        QTest::newRow("goodput") << int(PageId::Goodput);
    }
    void everyChartShowsItsTimeAxis()
    {
        QFETCH(int, page);
        openWindow(false, {1920, 1080});
        QTest::qWait(200);
        applySnapshot();
        QVERIFY(m_window->navigate({PageId(page), {}}));
        QTest::qWait(200);
        const auto charts = m_window->currentPage()->findChildren<widgets::TimeSeriesChart*>();
        QVERIFY(!charts.isEmpty());
        for (const widgets::TimeSeriesChart* chart : charts) {
            if (!chart->isVisible())
                continue;
            const QStringList labels = chart->visibleTimeLabels();
            QVERIFY2(labels.size() >= 2, qPrintable(QStringLiteral("%1 x %2 chart shows time labels '%3'")
                                                        .arg(chart->width())
                                                        .arg(chart->height())
                                                        .arg(labels.join(QLatin1Char(' ')))));
        }
    }

    void auditPageWithoutAControlConnectionSaysHowToGetOne()
    {
        QVERIFY(m_window->navigate({PageId::Audit, {}}));
        auto* audit = qobject_cast<ui::AuditPage*>(m_window->currentPage());
        QVERIFY(audit);
        QVERIFY(audit->explanation().contains(QStringLiteral("--token-file")));
        QVERIFY(audit->hasContent());  // a headless render does not wait for a trail that cannot come
    }

    void fleetPageShowsKpisAndEveryRack()
    {
        auto* fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        QVERIFY(fleet);
        m_window->navigate({PageId::Fleet, {}});
        QCOMPARE(fleet->rackMap()->rackCount(), 2);
        QCOMPARE(fleet->kpis()->value(QStringLiteral("goodput")), QStringLiteral("87.5 %"));
        QCOMPARE(fleet->kpis()->value(QStringLiteral("down")), QStringLiteral("1"));
        for (const QString& lens : ui::lensKeys()) {
            fleet->setLens(lens);
            QCOMPARE(fleet->lens(), lens);
        }
    }

    // A job with no durable checkpoint yet says so (it read "last at step 0, n/a ago").
    void jobDetailSaysWhenThereIsNoCheckpointYet()
    {
        QVERIFY(m_window->navigate({PageId::Jobs, QStringLiteral("vision-ft")}));
        auto* jobs = qobject_cast<ui::JobsPage*>(m_window->currentPage());
        QVERIFY2(jobs->detailText().contains(QStringLiteral("last at step")), qPrintable(jobs->detailText()));

        v1::Job* job = m_fleet.snapshot.mutable_snapshot()->mutable_jobs(1);
        QCOMPARE(job->name(), std::string("vision-ft"));
        const std::int64_t last = job->last_checkpoint_unix_ms();
        job->set_last_checkpoint_unix_ms(0);
        openWindow(true, {1600, 1000});
        job->set_last_checkpoint_unix_ms(last);
        QVERIFY(m_window->navigate({PageId::Jobs, QStringLiteral("vision-ft")}));
        jobs = qobject_cast<ui::JobsPage*>(m_window->currentPage());
        QVERIFY2(jobs->detailText().contains(QStringLiteral("none durable yet")), qPrintable(jobs->detailText()));
        QVERIFY(!jobs->detailText().contains(QStringLiteral("n/a ago")));
    }

    void rackPageListsTheXidWithItsAction()
    {
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r02-n07-g2")}));
        auto* rack = qobject_cast<ui::RackPage*>(m_window->currentPage());
        QCOMPARE(rack->rackName(), QStringLiteral("r02"));
        QCOMPARE(rack->xidRowCount(), 1);
        QVERIFY(m_window->breadcrumbBar()->path().contains(QStringLiteral("r02 \u203A r02-n07 \u203A r02-n07-g2")));
    }

    void linksPagePutsTheWorstPortFirst()
    {
        QVERIFY(m_window->navigate({PageId::Links, QStringLiteral("r02")}));
        auto* links = qobject_cast<ui::LinksPage*>(m_window->currentPage());
        QCOMPARE(links->portRowCount(), 72);
        QCOMPARE(links->worstPortName(), QStringLiteral("r02-n03-ib1"));
    }

    void eventsPageFiltersByEntityAndSeverity()
    {
        QVERIFY(m_window->navigate({PageId::Events, {}}));
        auto* events = qobject_cast<ui::EventsPage*>(m_window->currentPage());
        QCOMPARE(events->visibleEventCount(), 4);
        QVERIFY(m_window->navigate({PageId::Events, QStringLiteral("r02")}));
        QCOMPARE(events->visibleEventCount(), 3);  // Xid, link flap and leak are inside r02
        events->setMinimumSeverity(v1::SEVERITY_CRITICAL);
        QCOMPARE(events->visibleEventCount(), 2);
        QVERIFY(!m_window->navigate({PageId::Events, QStringLiteral("no-such-entity")}));
    }

    void ctrlKJumpsToAnyEntity()
    {
        QTest::keyClick(m_window.get(), Qt::Key_K, Qt::ControlModifier);
        QTRY_VERIFY(m_window->jumpBox()->isVisible());
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("r02-n07-g2"));
        QVERIFY(m_window->jumpBox()->matchCount() >= 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Rack, QStringLiteral("r02-n07-g2")}));
        QVERIFY(m_window->jumpBox()->jumpTo(QStringLiteral("vision")));
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Jobs, QStringLiteral("vision-ft")}));
    }

    void backAndForwardWithAltArrows()
    {
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r01")}));
        QVERIFY(m_window->navigate({PageId::Jobs, QStringLiteral("vision-ft")}));
        QTest::keyClick(m_window.get(), Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Rack, QStringLiteral("r01")}));
        QTest::keyClick(m_window.get(), Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(m_window->currentLocation().page, PageId::Fleet);
        QTest::keyClick(m_window.get(), Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Rack, QStringLiteral("r01")}));
        QVERIFY(m_window->canGoForward());
    }

    void wallJumpsToANewCriticalIncident()
    {
        ui::PageContext context;
        context.store = m_store.get();
        ui::MainWindowOptions options;
        options.wallDisplay = true;
        ui::MainWindow wall(context, options);
        wall.show();
        QCOMPARE(wall.currentLocation().page, PageId::Fleet);

        v1::SubscribeResponse message;
        v1::Delta& delta = *message.mutable_delta();
        delta.set_sequence(2);
        delta.set_first_sequence(2);
        delta.set_server_time_unix_ms(testing::PageTestFleet::kNowMs + 1000);
        v1::Event& event = *delta.add_events();
        event.set_id(10);
        event.set_time_unix_ms(testing::PageTestFleet::kNowMs + 1000);
        event.set_severity(v1::SEVERITY_CRITICAL);
        event.set_type(v1::EVENT_TYPE_LEAK);
        event.set_entity_index(m_store->rackInfo(m_store->findByName(QStringLiteral("r01")))->cooling_loop_index());
        event.set_message("Leak sensor wet on r01");
        m_store->apply(0, message);
        m_store->flushChanges();
        QTRY_COMPARE(wall.currentLocation(), (Location{PageId::Cooling, QStringLiteral("r01")}));
    }

    void breadcrumbNavigatesUp()
    {
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r02-n07")}));
        const QVector<ui::Breadcrumb> crumbs = m_window->breadcrumbBar()->crumbs();
        QVERIFY(crumbs.size() >= 3);
        emit m_window->breadcrumbBar()->crumbActivated(crumbs[0].target);
        QCOMPARE(m_window->currentLocation().page, PageId::Fleet);
    }
};

QTEST_MAIN(TestPages)
#include "tst_pages.moc"
