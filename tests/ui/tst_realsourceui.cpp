// The console in front of a real site's fleetd: the Sources dock, the status bar indicator and the
// banner when a telemetry source is down; jobs without step telemetry; telemetry-source events.
// Set WATCHFLOOR_SOURCES_SCREENSHOT=path.png to keep the rendered window (docs/screenshots/sources.png).

#include "PageTestFleet.h"

#include "ConnectionBanner.h"
#include "EventsPage.h"
#include "FleetPage.h"
#include "GoodputPage.h"
#include "IncidentsDock.h"
#include "JobsPage.h"
#include "KpiStrip.h"
#include "MainWindow.h"
#include "SourcesDock.h"
#include "SourcesIndicator.h"

#include "FleetStore.h"
#include "JobTableModel.h"
#include "Theme.h"

#include <QComboBox>
#include <QListWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor;
using ui::PageId;

namespace {

constexpr std::int64_t kNow = testing::PageTestFleet::kNowMs;
const char* const kProm = "prometheus=http://prom.dc1.example:9090";

v1::SourceStatus source(const char* name, const char* kind, v1::SourceHealth health, std::int64_t lastGoodMs,
                        const char* error = "") {
    v1::SourceStatus s;
    s.set_name(name);
    s.set_kind(kind);
    s.set_health(health);
    s.set_last_good_poll_unix_ms(lastGoodMs);
    s.set_last_poll_unix_ms(kNow - 5'000);
    s.set_last_poll_duration_s(health == v1::SOURCE_HEALTH_DOWN ? 10.0 : 0.42);
    s.set_last_error(error);
    s.set_series(health == v1::SOURCE_HEALTH_DOWN ? 48'312 : 3);
    s.set_unmapped_series(health == v1::SOURCE_HEALTH_DOWN ? 12 : 0);
    return s;
}

v1::SourceStatus promDown() {
    v1::SourceStatus s =
        source(kProm, "prometheus", v1::SOURCE_HEALTH_DOWN, kNow - 125'000, "query_range: connection refused");
    s.add_warnings("12 series from host gpu-spare-07, not in the inventory");
    s.set_delivery_lag_ms(4'200);  // learned while it answered
    return s;
}

}  // namespace

class TestRealSourceUi : public QObject {
    Q_OBJECT
private:
    testing::PageTestFleet m_fleet;
    std::unique_ptr<client::FleetStore> m_store;
    std::unique_ptr<ui::MainWindow> m_window;
    int m_endpoint = -1;

    // The synthetic fleet as a real site reports it: polled every 30 s, two sources, a Slurm job
    // that publishes no step progress, and the event fleetd raised when the store went down.
    static void makeRealSite(testing::PageTestFleet& site) {
        v1::Snapshot& s = site.s();
        s.set_telemetry_period_ms(30'000);
        s.set_counters_periodic(true);
        *s.add_sources() = promDown();
        *s.add_sources() = source("slurm", "slurm", v1::SOURCE_HEALTH_UP, kNow - 5'000);
        v1::Job* job = s.add_jobs();
        job->set_index(site.nextIndex++);
        job->set_name("slurm-58213");
        job->set_slurm_job_id("58213");
        job->set_user("alice");
        job->set_state(v1::JOB_STATE_RUNNING);
        job->set_no_step_telemetry(true);
        job->add_node_indexes(s.jobs(0).node_indexes(0));
        job->set_gpu_count(4);
        job->set_started_unix_ms(kNow - 1'800'000);
        site.addEvent(5, v1::SEVERITY_WARNING, v1::EVENT_TYPE_SOURCE, s.topology().fleet_index(),
                      "prometheus=http://prom.dc1.example:9090 is down: query_range: connection refused",
                      [](v1::Event&) {});
    }

    void openWindow(bool realSite) {
        m_window.reset();
        m_store = std::make_unique<client::FleetStore>();
        m_endpoint = m_store->addEndpoint(QStringLiteral("dc1"));
        v1::SubscribeResponse snapshot = m_fleet.snapshot;
        if (realSite) {
            testing::PageTestFleet site;
            makeRealSite(site);
            snapshot = site.snapshot;
        }
        m_store->apply(m_endpoint, snapshot);
        m_store->flushChanges();
        QVERIFY2(m_store->lastError().isEmpty(), qPrintable(m_store->lastError()));
        ui::PageContext context;
        context.store = m_store.get();
        m_window = std::make_unique<ui::MainWindow>(context, ui::MainWindowOptions{});
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void applySources(std::initializer_list<v1::SourceStatus> sources, std::int64_t serverMs) {
        v1::SubscribeResponse m;
        m.mutable_delta()->set_sequence(2);
        m.mutable_delta()->set_server_time_unix_ms(serverMs);
        for (const v1::SourceStatus& s : sources) *m.mutable_delta()->add_sources() = s;
        m_store->apply(m_endpoint, m);
        m_store->flushChanges();
    }

    ui::SourcesIndicator* indicator() const { return m_window->findChild<ui::SourcesIndicator*>(); }
    const widgets::ThemeColors& colours() const { return m_window->theme().colors(); }

private slots:
    void cleanup() {
        m_window.reset();
        m_store.reset();
    }

    void twinOnlyConsoleShowsNoSources() {
        openWindow(false);
        QVERIFY(m_window->sourcesDock());
        QVERIFY(!m_window->sourcesDock()->isVisible());
        QVERIFY(!indicator()->isVisible());
        QVERIFY(m_window->connectionBanner()->text().isEmpty());
    }

    void sourcesDockListsEverySourceWithItsHealth() {
        openWindow(true);
        ui::SourcesDock* dock = m_window->sourcesDock();
        QTRY_VERIFY(dock->isVisible());
        QTableWidget* table = dock->table();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, ui::SourcesDock::Source)->text(), QString::fromLatin1(kProm));
        QCOMPARE(table->item(0, ui::SourcesDock::Health)->text(), QStringLiteral("down"));
        QCOMPARE(table->item(0, ui::SourcesDock::Health)->foreground().color(), colours().crit);
        QCOMPARE(table->item(1, ui::SourcesDock::Health)->text(), QStringLiteral("up"));
        QCOMPARE(table->item(1, ui::SourcesDock::Health)->foreground().color(), colours().ok);
        QCOMPARE(table->item(0, ui::SourcesDock::LastGoodPoll)->text(), QStringLiteral("2 min ago"));
        QCOMPARE(table->item(0, ui::SourcesDock::PollDuration)->text(), QStringLiteral("10.00 s"));
        // How late the store delivers, learned from its answers; Slurm reads no store.
        QCOMPARE(table->item(0, ui::SourcesDock::DeliveryLag)->text(), QStringLiteral("4.2 s"));
        QCOMPARE(table->item(1, ui::SourcesDock::DeliveryLag)->text(), QStringLiteral("—"));
        QCOMPARE(table->item(1, ui::SourcesDock::DeliveryLag)->foreground().color(), colours().textDim);
        QCOMPARE(table->item(0, ui::SourcesDock::Series)->text(), QStringLiteral("48312"));
        QCOMPARE(table->item(0, ui::SourcesDock::Unmapped)->text(), QStringLiteral("12"));
        QCOMPARE(table->item(0, ui::SourcesDock::LastError)->text(), QStringLiteral("query_range: connection refused"));
        QVERIFY(table->item(0, ui::SourcesDock::Warnings)->text().contains(QStringLiteral("gpu-spare-07")));
        QVERIFY(table->isColumnHidden(ui::SourcesDock::Endpoint));  // one endpoint: nothing to tell apart

        const QString headline = QStringLiteral(
                                     "Sources: 1 of 2 down — %1: query_range: connection refused "
                                     "(last good 2 min ago)")
                                     .arg(QString::fromLatin1(kProm));
        QCOMPARE(dock->summaryText(), headline);
        QVERIFY2(m_window->connectionBanner()->text().contains(headline),
                 qPrintable(m_window->connectionBanner()->text()));
        QVERIFY(m_window->connectionBanner()->isVisible());
        QVERIFY(indicator()->isVisible());
        QCOMPARE(indicator()->text(), QStringLiteral("● Sources: 1 of 2 down"));
        QVERIFY(indicator()->styleSheet().contains(colours().warn.name()));
        QVERIFY(dock->height() < m_window->height() / 4);  // rows, not a third of the screen

        const QString path = qEnvironmentVariable("WATCHFLOOR_SOURCES_SCREENSHOT");
        QTemporaryDir scratch;
        const QString out = path.isEmpty() ? scratch.filePath(QStringLiteral("sources.png")) : path;
        QVERIFY(m_window->grab().save(out));
        QVERIFY(!QImage(out).isNull());

        // The last good poll keeps aging while the source stays down.
        m_store->apply(m_endpoint, [] {
            v1::SubscribeResponse h;
            h.mutable_heartbeat()->set_sequence(1);
            h.mutable_heartbeat()->set_server_time_unix_ms(kNow + 240'000);
            return h;
        }());
        QTRY_COMPARE(table->item(0, ui::SourcesDock::LastGoodPoll)->text(), QStringLiteral("6 min ago"));
    }

    void endpointWithEverySourceDownIsCritical() {
        openWindow(true);
        applySources({source("slurm", "slurm", v1::SOURCE_HEALTH_DOWN, kNow - 5'000, "squeue: timed out")},
                     kNow + 1000);
        QTRY_COMPARE(indicator()->text(), QStringLiteral("● Sources: 2 of 2 down"));
        QVERIFY(indicator()->styleSheet().contains(colours().crit.name()));
        QVERIFY2(m_window->connectionBanner()->text().contains(QStringLiteral("no live telemetry")),
                 qPrintable(m_window->connectionBanner()->text()));
        QVERIFY(m_window->connectionBanner()->styleSheet().contains(QStringLiteral("#b3261e")));  // critical
        QVERIFY(m_window->sourcesDock()->windowTitle().contains(QStringLiteral("2 of 2 not up")));
    }

    void recoveredSourceClearsTheBanner() {
        openWindow(true);
        QVERIFY(!m_window->connectionBanner()->text().isEmpty());
        applySources({source(kProm, "prometheus", v1::SOURCE_HEALTH_UP, kNow + 1000)}, kNow + 1000);
        QTRY_COMPARE(m_window->sourcesDock()->table()->item(0, ui::SourcesDock::Health)->text(), QStringLiteral("up"));
        QVERIFY(m_window->connectionBanner()->text().isEmpty());
        QCOMPARE(indicator()->text(), QStringLiteral("● Sources: 2 up"));
        QVERIFY(indicator()->styleSheet().contains(colours().ok.name()));
        QCOMPARE(m_window->sourcesDock()->summaryText(), QStringLiteral("Sources: all 2 up."));
    }

    void jobWithoutStepTelemetryShowsNoNumbers() {
        openWindow(true);
        QVERIFY(m_window->navigate({PageId::Jobs, QStringLiteral("slurm-58213")}));
        auto* jobs = qobject_cast<ui::JobsPage*>(m_window->currentPage());
        QVERIFY(jobs);
        const QString detail = jobs->detailText();
        QVERIFY2(detail.contains(QStringLiteral("no step telemetry")), qPrintable(detail));
        QVERIFY2(detail.contains(QStringLiteral("alice")), qPrintable(detail));
        QVERIFY2(!detail.contains(QStringLiteral("0.0 %")), qPrintable(detail));

        auto* goodput = qobject_cast<ui::GoodputPage*>(m_window->page(PageId::Goodput));
        QVERIFY(m_window->navigate({PageId::Goodput, {}}));
        // The two measured jobs only: the averages say so.
        QVERIFY2(goodput->kpis()->detail(QStringLiteral("goodput")).contains(QStringLiteral("over 2 of 3 jobs")),
                 qPrintable(goodput->kpis()->detail(QStringLiteral("goodput"))));
        auto* table = goodput->findChild<QTableWidget*>(QStringLiteral("goodputJobs"));
        QVERIFY(table);
        int row = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            row = table->item(r, 0)->text() == QStringLiteral("slurm-58213") ? r : row;
        QVERIFY(row >= 0);
        for (int c = 2; c < table->columnCount(); ++c) {
            QCOMPARE(table->item(row, c)->text(), QStringLiteral("no step telemetry"));
            QCOMPARE(table->item(row, c)->foreground().color(), colours().textDim);
        }
        QVERIFY(m_window->navigate({PageId::Goodput, QStringLiteral("slurm-58213")}));
        QCOMPARE(goodput->kpis()->value(QStringLiteral("goodput")), QStringLiteral("no step telemetry"));
        QCOMPARE(goodput->kpis()->value(QStringLiteral("mfu")), QStringLiteral("no step telemetry"));
        QCOMPARE(goodput->kpis()->value(QStringLiteral("checkpoint")), QStringLiteral("no step telemetry"));

        auto* fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        QCOMPARE(fleet->kpis()->value(QStringLiteral("goodput")), QStringLiteral("87.5 %"));  // as without the job
        QVERIFY(fleet->kpis()->detail(QStringLiteral("goodput")).contains(QStringLiteral("over 2 of 3 jobs")));
    }

    void sourceEventsAreNamed() {
        openWindow(true);
        QVERIFY(m_window->navigate({PageId::Events, {}}));
        bool listed = false;
        for (QComboBox* box : m_window->page(PageId::Events)->findChildren<QComboBox*>()) {
            const int i = box->findData(int(v1::EVENT_TYPE_SOURCE));
            listed = listed || (i >= 0 && box->itemText(i) == QStringLiteral("telemetry source"));
        }
        QVERIFY(listed);
        auto* alerts = m_window->findChild<ui::IncidentsDock*>();
        QVERIFY(alerts);
        auto* list = alerts->findChild<QListWidget*>();
        QTRY_VERIFY(list->count() > 0);
        bool shown = false;
        for (int i = 0; i < list->count(); ++i) {
            const QString text = list->item(i)->text();
            shown =
                shown || (text.startsWith(QStringLiteral("⛁")) && text.contains(QStringLiteral("telemetry source")));
        }
        QVERIFY(shown);
    }
};

QTEST_MAIN(TestRealSourceUi)
#include "tst_realsourceui.moc"
