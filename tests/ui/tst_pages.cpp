// Every page builds, renders and shows the expected entity from a FleetStore fed through its
// real ingest path (a synthetic Subscribe snapshot); navigation: Ctrl+K, breadcrumbs,
// back/forward.

#include "FleetGoodputMerge.h"
#include "PageTestFleet.h"

#include "AuditPage.h"
#include "BreadcrumbBar.h"
#include "EntityTableView.h"
#include "EttrBudgetPanel.h"
#include "EventsPage.h"
#include "FailSlowPanel.h"
#include "FleetPage.h"
#include "GoodputPage.h"
#include "IncidentsDock.h"
#include "JobsPage.h"
#include "JumpBox.h"
#include "KpiStrip.h"
#include "LinksPage.h"
#include "MainWindow.h"
#include "Page.h"
#include "RackLens.h"
#include "RackPage.h"

#include "FleetStore.h"
#include "JobTableModel.h"
#include "NodeTableModel.h"
#include "RackMapWidget.h"
#include "TimeSeriesChart.h"

#include <QAbstractButton>
#include <QLabel>
#include <QListWidget>
#include <QScopeGuard>
#include <QSet>
#include <QTableWidget>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>
#include <QTreeWidget>

using namespace watchfloor;
using ui::Location;
using ui::PageId;

namespace {

// Everything the wall header's labels say, as plain text.
QString wallHeaderText(const QWidget& wall) {
    QStringList parts;
    for (const QLabel* label : wall.findChild<QWidget*>(QStringLiteral("wallHeader"))->findChildren<QLabel*>()) {
        QTextDocument doc;
        doc.setHtml(label->text());
        parts << doc.toPlainText();
    }
    return parts.join(u' ');
}

int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
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
    void openWindow(bool snapshotFirst, QSize size) {
        m_window.reset();
        m_store = std::make_unique<client::FleetStore>();
        m_endpoint = m_store->addEndpoint(QStringLiteral("synthetic"));
        if (snapshotFirst) applySnapshot();
        ui::PageContext context;
        context.store = m_store.get();
        m_window = std::make_unique<ui::MainWindow>(context, ui::MainWindowOptions{});
        m_window->resize(size);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }
    void applySnapshot() {
        m_store->apply(m_endpoint, m_fleet.snapshot);
        m_store->flushChanges();
        const QString error = m_store->lastError();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(m_store->rackCount(), 2);
    }

private slots:
    void init() { openWindow(true, {1600, 1000}); }
    void cleanup() {
        m_window.reset();
        m_store.reset();
    }

    void eachPageShowsItsMostTellingEntity_data() {
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
    void eachPageShowsItsMostTellingEntity() {
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
    void everyChartShowsItsTimeAxis_data() {
        QTest::addColumn<int>("page");
        QTest::newRow("cooling") << int(PageId::Cooling);
        QTest::newRow("goodput") << int(PageId::Goodput);
    }
    void everyChartShowsItsTimeAxis() {
        QFETCH(int, page);
        openWindow(false, {1920, 1080});  // shown and laid out (exposed) before any data arrives
        applySnapshot();
        QVERIFY(m_window->navigate({PageId(page), {}}));
        const auto charts = m_window->currentPage()->findChildren<widgets::TimeSeriesChart*>();
        QVERIFY(!charts.isEmpty());
        for (const widgets::TimeSeriesChart* chart : charts) {
            if (!chart->isVisible()) continue;
            // Labels appear once the chart has its data and a layout pass: waited for, not slept on.
            QTRY_VERIFY2(chart->visibleTimeLabels().size() >= 2,
                         qPrintable(QStringLiteral("%1 x %2 chart shows time labels '%3'")
                                        .arg(chart->width())
                                        .arg(chart->height())
                                        .arg(chart->visibleTimeLabels().join(QLatin1Char(' ')))));
        }
    }

    void auditPageWithoutAControlConnectionSaysHowToGetOne() {
        QVERIFY(m_window->navigate({PageId::Audit, {}}));
        auto* audit = qobject_cast<ui::AuditPage*>(m_window->currentPage());
        QVERIFY(audit);
        QVERIFY(audit->explanation().contains(QStringLiteral("--token-file")));
        QVERIFY(audit->hasContent());  // a headless render does not wait for a trail that cannot come
    }

    void fleetPageShowsKpisAndEveryRack() {
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

    // Issue 16, items 1 and 2: ETTR and goodput named for what they are, what separates E[ETTR]
    // and the measured ETTR from 100 %, and both failure rates with their intervals.
    void goodputPageSeparatesEttrFromGoodput() {
        const auto restore = qScopeGuard([this, saved = m_fleet.snapshot] { m_fleet.snapshot = saved; });
        v1::FleetGoodput& fleet = *m_fleet.s().mutable_fleet();
        fleet.set_expected_ettr_ratio(0.93);
        fleet.set_goodput_sliding_1h_ratio(0.85);
        fleet.set_hardware_failures(0);
        fleet.set_powered_gpu_hours(1000);
        fleet.set_failures_per_gpu_hour(0);
        fleet.set_failures_per_gpu_hour_high(3.69e-3);
        fleet.set_interruptions(5);
        fleet.set_job_gpu_hours(500);
        fleet.set_interruptions_per_gpu_hour(0.01);
        fleet.set_interruptions_per_gpu_hour_low(3.2e-3);
        fleet.set_interruptions_per_gpu_hour_high(2.3e-2);
        fleet.set_failure_rate_causes("hardware fail-stops (GPU hard fault); not software bug / dependency");
        v1::EttrBudget& b = *fleet.mutable_ettr_budget();
        b.set_expected_failures_per_hour(0.1);
        b.set_measured_failures_per_hour(0.2);
        b.set_restart_overhead_s(600);
        b.set_measured_restart_overhead_s(900);
        b.set_checkpoint_interval_s(1800);
        b.set_checkpoint_save_s(30);
        b.set_expected_restart_ratio(0.0164);
        b.set_expected_rework_ratio(0.0492);
        b.set_expected_checkpoint_ratio(0.0164);
        b.set_measured_restart_ratio(0.04);
        b.set_measured_rework_ratio(0.05);
        b.set_measured_checkpoint_ratio(0.01);
        b.set_measured_slowness_ratio(0.025);
        b.set_measured_other_ratio(0.0);
        b.set_expected_ettr_at_measured_rates_ratio(0.87);
        openWindow(true, {1600, 1000});
        QVERIFY(m_window->navigate({PageId::Goodput, {}}));
        auto* goodput = qobject_cast<ui::GoodputPage*>(m_window->currentPage());
        const QString summary = goodput->summary();
        QVERIFY2(summary.contains(QStringLiteral("hardware failures 0 per GPU-hour (95 %: 0–3.69e-03)")),
                 qPrintable(summary));
        QVERIFY2(
            summary.contains(QStringLiteral("all-cause interruptions 1.00e-02 per GPU-hour (95 %: 3.20e-03–2.30e-02)")),
            qPrintable(summary));
        QCOMPARE(goodput->kpis()->value(QStringLiteral("ettr")), QStringLiteral("90.0 %"));
        QVERIFY2(goodput->kpis()
                     ->detail(QStringLiteral("ettr"))
                     .contains(QStringLiteral("E[ETTR] 93.0 % · slow steps 2.5 %")),
                 qPrintable(goodput->kpis()->detail(QStringLiteral("ettr"))));
        QVERIFY(goodput->kpis()->detail(QStringLiteral("ettr1h")).contains(QStringLiteral("goodput (1 h) 85.0 %")));
        QVERIFY(
            goodput->kpis()->detail(QStringLiteral("interruptions")).contains(QStringLiteral("all causes 1.00e-02")));
        const ui::EttrBudgetPanel* panel = goodput->budgetPanel();
        auto row = [&](const char* label) {
            const int r = panel->rowOf(QString::fromUtf8(label));
            return QStringList{panel->cell(r, 1), panel->cell(r, 2)};
        };
        QCOMPARE(row("Job failure rate"), (QStringList{QStringLiteral("0.1 / h"), QStringLiteral("0.2 / h")}));
        QCOMPARE(row("Restarts"), (QStringList{QStringLiteral("− 1.6 %"), QStringLiteral("− 4.0 %")}));
        QCOMPARE(row("Rework"), (QStringList{QStringLiteral("− 4.9 %"), QStringLiteral("− 5.0 %")}));
        QCOMPARE(row("= ETTR"), (QStringList{QStringLiteral("93.0 %"), QStringLiteral("90.0 %")}));
        QCOMPARE(row("Slow steps"), (QStringList{QStringLiteral("not modelled"), QStringLiteral("− 2.5 %")}));
        QCOMPARE(row("= Goodput"), (QStringList{QStringLiteral("—"), QStringLiteral("87.5 %")}));
        QCOMPARE(row("E[ETTR] at the measured"), (QStringList{QStringLiteral("—"), QStringLiteral("87.0 %")}));
    }

    // Issue 16, items 4 and 6: the fail-slow ladder's findings on the Goodput page, and a tray's
    // lifecycle and lemon standing on the map's lens, the rack tooltip and the rack page.
    void failSlowFindingsAndTrayLifecycleAreShown() {
        const auto restore = qScopeGuard([this, saved = m_fleet.snapshot] { m_fleet.snapshot = saved; });
        v1::Snapshot& snap = m_fleet.s();
        auto nodeNamed = [&](const std::string& name) {
            for (const auto& node : snap.topology().nodes())
                if (node.name() == name) return node.index();
            return 0u;
        };
        v1::Job& job = *snap.mutable_jobs(0);
        v1::FailSlowFinding& proposed = *job.add_fail_slow();
        proposed.set_node_index(nodeNamed("r02-n03"));
        proposed.set_node_name("r02-n03");
        proposed.set_slowdown(1.15);
        proposed.set_windows_slow(3);
        proposed.set_windows_needed(3);
        proposed.set_stage(v1::FAIL_SLOW_STAGE_PROPOSED);
        proposed.set_gain_gpu_hours_per_day(375.7);
        proposed.set_cost_gpu_hours(20.8);
        v1::FailSlowFinding& observed = *job.add_fail_slow();
        observed.set_node_name("r02-n04");
        observed.set_node_index(nodeNamed("r02-n04"));
        observed.set_slowdown(1.06);
        observed.set_windows_slow(1);
        observed.set_windows_needed(3);
        observed.set_stage(v1::FAIL_SLOW_STAGE_OBSERVED);
        const std::uint32_t triaged = nodeNamed("r02-n05");
        for (v1::EntityState& state : *snap.mutable_states())
            if (state.entity_index() == triaged) {
                state.set_lifecycle(v1::TRAY_LIFECYCLE_TRIAGE);
                state.set_lifecycle_set_by("alice");
                state.set_lifecycle_reason("alice: 3 Xid 79 this week");
                state.set_recent_failures(3);
                state.set_lemon(true);
            }
        openWindow(true, {1600, 1000});

        QVERIFY(m_window->navigate({PageId::Goodput, {}}));
        auto* goodput = qobject_cast<ui::GoodputPage*>(m_window->currentPage());
        const QTableWidget* table = goodput->failSlowPanel()->table();
        QCOMPARE(table->rowCount(), 2);
        auto cell = [&](int row, int column) { return table->item(row, column)->text(); };
        QCOMPARE(cell(0, ui::FailSlowPanel::Tray), QStringLiteral("r02-n03"));
        QCOMPARE(cell(0, ui::FailSlowPanel::Slowdown), QStringLiteral("1.15×"));
        QCOMPARE(cell(0, ui::FailSlowPanel::Gain), QStringLiteral("376 GPU-h/day"));
        QCOMPARE(cell(0, ui::FailSlowPanel::Cost), QStringLiteral("21 GPU-h"));
        QCOMPARE(cell(0, ui::FailSlowPanel::Stage), QStringLiteral("confirmed, proposed for eviction"));
        QCOMPARE(cell(1, ui::FailSlowPanel::Stage), QStringLiteral("observed (1/3 windows)"));
        QVERIFY(!table->cellWidget(0, ui::FailSlowPanel::Action));  // no operator actions in this window

        const int r02 = m_store->rackRow(client::EntityId{quint16(m_endpoint), m_fleet.r02});
        client::RackJobs jobs;
        jobs.rebuild(*m_store);
        auto lifecycle = [&](int row) {
            return int(
                ui::rackLensReading(*m_store, client::rackRollup(*m_store, row, jobs), widgets::Lens::Lifecycle).value);
        };
        QCOMPARE(lifecycle(r02), int(widgets::LifecycleCategory::TriageOrRma));
        QCOMPARE(lifecycle(1 - r02), int(widgets::LifecycleCategory::Production));
        const QString tooltip = ui::rackTooltip(*m_store, r02, jobs);
        QVERIFY2(tooltip.contains(QStringLiteral("r02-n05: triage (alice) · lemon: 3 failures")), qPrintable(tooltip));

        client::NodeTableModel nodes(*m_store);
        nodes.setRack(client::EntityId{quint16(m_endpoint), m_fleet.r02});
        QCOMPARE(nodes.index(4, client::NodeTableModel::Lifecycle).data().toString(),
                 QStringLiteral("triage (alice) · lemon: 3 failures"));
        QVERIFY(nodes.index(4, client::NodeTableModel::Lifecycle)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("Why: alice: 3 Xid 79 this week")));
        QCOMPARE(nodes.index(0, client::NodeTableModel::Lifecycle).data().toString(), QStringLiteral("production"));

        // The rack page's Lifecycle column is as wide as that text, not cut at "triage (ali…".
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r02-n05")}));
        auto* rack = qobject_cast<ui::RackPage*>(m_window->currentPage());
        QVERIFY(rack);
        const int textWidth =
            rack->nodesTable()->fontMetrics().horizontalAdvance(QStringLiteral("triage (alice) · lemon: 3 failures"));
        QVERIFY2(rack->nodesTable()->columnWidth(client::NodeTableModel::Lifecycle) >= textWidth,
                 qPrintable(QString("%1 < %2")
                                .arg(rack->nodesTable()->columnWidth(client::NodeTableModel::Lifecycle))
                                .arg(textWidth)));
    }

    // Issue 16, item 7: the breaker and who holds each tray out of service, on the Fleet page.
    void fleetPageShowsTheBreakerAndDrainOwners() {
        const auto restore = qScopeGuard([this, saved = m_fleet.snapshot] { m_fleet.snapshot = saved; });
        auto* fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        m_window->navigate({PageId::Fleet, {}});
        QCOMPARE(fleet->kpis()->value(QStringLiteral("breaker")), QStringLiteral("off"));
        QCOMPARE(fleet->kpis()->detail(QStringLiteral("breaker")), QStringLiteral("operator actions off"));

        v1::AutomationStatus& a = *m_fleet.s().mutable_automation();
        a.set_state(v1::BREAKER_STATE_TRIPPED);
        a.set_max_actions_per_window(5);
        a.set_window_s(600);
        a.set_max_fleet_ratio(0.005);
        a.set_fleet_trays(36);
        a.set_effective_limit(1);
        a.set_trip_reason("automation circuit breaker tripped: 1 automated actions within 600 s");
        a.set_tripped_unix_ms(testing::PageTestFleet::kNowMs - 60'000);
        a.set_last_reset_by("carol");
        a.set_last_reset_unix_ms(testing::PageTestFleet::kNowMs - 3'600'000);
        int drained = 0;
        for (v1::EntityState& st : *m_fleet.s().mutable_states()) {
            if (st.node_state() != v1::NODE_STATE_UNSPECIFIED && drained < 2) {
                st.set_node_state(drained == 0 ? v1::NODE_STATE_DRAINED : v1::NODE_STATE_DOWN);
                st.set_reason(drained == 0 ? "alice: fan noise" : "Xid 79");
                st.mutable_drain_owner()->set_kind(drained == 0 ? v1::DRAIN_OWNER_KIND_OPERATOR
                                                                : v1::DRAIN_OWNER_KIND_HEALTH_CHECK);
                if (drained == 0) st.mutable_drain_owner()->set_principal("alice");
                ++drained;
            }
        }
        QCOMPARE(drained, 2);
        openWindow(true, {1600, 1000});
        fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        m_window->navigate({PageId::Fleet, {}});
        QCOMPARE(fleet->kpis()->value(QStringLiteral("breaker")), QStringLiteral("TRIPPED"));
        const QString detail = fleet->kpis()->detail(QStringLiteral("breaker"));
        QVERIFY2(
            detail.contains(QStringLiteral("an admin resets it")) && detail.contains(QStringLiteral("reset by carol")),
            qPrintable(detail));
        QCOMPARE(fleet->drainList()->count(), 2);
        QVERIFY2(fleet->drainList()->item(0)->text().endsWith(QStringLiteral(" · drained by alice: fan noise")),
                 qPrintable(fleet->drainList()->item(0)->text()));
        QVERIFY2(
            fleet->drainList()->item(1)->text().endsWith(QStringLiteral(" · down, held by the health check: Xid 79")),
            qPrintable(fleet->drainList()->item(1)->text()));

        // Closed, with the share of the fleet binding below the count.
        a.set_state(v1::BREAKER_STATE_CLOSED);
        a.set_actions_in_window(1);
        a.set_fleet_trays(400);
        a.set_effective_limit(2);
        openWindow(true, {1600, 1000});
        fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        m_window->navigate({PageId::Fleet, {}});
        QCOMPARE(fleet->kpis()->value(QStringLiteral("breaker")), QStringLiteral("closed"));
        QVERIFY2(fleet->kpis()
                     ->detail(QStringLiteral("breaker"))
                     .contains(QStringLiteral("1 of 2 per 10 min (0.50 % of 400 trays = 2, below 5: the share binds)")),
                 qPrintable(fleet->kpis()->detail(QStringLiteral("breaker"))));
    }

    // A job with no durable checkpoint yet says so (it read "last at step 0, n/a ago").
    void jobDetailSaysWhenThereIsNoCheckpointYet() {
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

    // Issue 14, item 3: a Jobs page opened before any job arrived stayed empty ("nothing to show
    // within 30 s"): it picked its job only when activated. Here the window and page come first,
    // then a snapshot without jobs, then the jobs in a delta, still initialising (PENDING).
    void jobsPageOpenedBeforeTheJobsArrivePicksOne() {
        openWindow(false, {1600, 1000});
        QVERIFY(m_window->navigate({PageId::Jobs, {}}));
        auto* jobs = qobject_cast<ui::JobsPage*>(m_window->currentPage());
        QVERIFY(jobs && !jobs->hasContent());

        testing::PageTestFleet fleet;
        google::protobuf::RepeatedPtrField<v1::Job> pending;
        pending.Swap(fleet.s().mutable_jobs());
        m_store->apply(m_endpoint, fleet.snapshot);
        m_store->flushChanges();
        QVERIFY(!jobs->hasContent());
        QVERIFY2(jobs->detailText().contains(QStringLiteral("No jobs")), qPrintable(jobs->detailText()));

        v1::SubscribeResponse message;
        v1::Delta& delta = *message.mutable_delta();
        delta.set_sequence(2);
        delta.set_first_sequence(2);
        delta.set_server_time_unix_ms(testing::PageTestFleet::kNowMs + 1000);
        for (v1::Job& job : pending) {
            job.set_state(v1::JOB_STATE_PENDING);
            *delta.add_jobs() = job;
        }
        m_store->apply(m_endpoint, message);
        m_store->flushChanges();
        QTRY_COMPARE(jobs->entity(), QStringLiteral("llm-405b-pretrain"));
        QVERIFY(jobs->hasContent());
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Jobs, QStringLiteral("llm-405b-pretrain")}));
    }

    // Issue 14, item 6: right after start every KPI read 0.0 % (goodput, ETTR, MFU) while the jobs
    // initialised, which reads as broken. Jobs running their first step (no productive time yet)
    // and fleet numbers of 0: every place says "starting" instead.
    // The Alerts dock lists fleetd's incidents with their members; alerts in no incident stay
    // below; the Fleet page's KPI counts the open incidents of the same list.
    void alertsDockListsIncidentsAndTheKpiCountsThem() {
        auto incident = [&](std::uint64_t id, v1::IncidentState state, std::vector<std::uint64_t> members) {
            v1::Incident* i = m_fleet.s().add_incidents();
            i->set_id(id);
            i->set_state(state);
            i->set_severity(v1::SEVERITY_CRITICAL);
            i->mutable_root_cause()->set_scope(v1::CAUSE_SCOPE_COOLING_LOOP);
            i->mutable_root_cause()->set_has_entity(true);
            i->mutable_root_cause()->set_entity_index(m_fleet.r02);
            i->mutable_root_cause()->set_summary(id == 1 ? "r02-loop: coolant leak" : "r01-n01: GPU hard fault");
            i->mutable_blast_radius()->set_racks(1);
            i->mutable_blast_radius()->set_gpus(72);
            i->set_started_unix_ms(testing::PageTestFleet::kNowMs - 600'000);
            i->set_resolved_unix_ms(state == v1::INCIDENT_STATE_RESOLVED ? testing::PageTestFleet::kNowMs : 0);
            i->set_member_count(std::uint32_t(members.size()));
            for (auto m : members) i->add_member_event_ids(m);
            i->set_goodput_cost_gpu_hours(12.5);
            return *i;
        };
        const v1::Incident leak = incident(1, v1::INCIDENT_STATE_OPEN, {1, 3});  // the Xid and the leak
        incident(2, v1::INCIDENT_STATE_RESOLVED, {});
        openWindow(true, {1600, 1000});
        m_fleet.s().clear_incidents();
        auto* dock = m_window->findChild<ui::IncidentsDock*>();
        QVERIFY(dock);
        QCOMPARE(dock->incidentCount(), 2);
        auto* tree = dock->findChild<QTreeWidget*>();
        QTreeWidgetItem* top = tree->topLevelItem(0);
        QVERIFY2(top->text(0).contains(QStringLiteral("r02-loop: coolant leak")), qPrintable(top->text(0)));
        QVERIFY2(top->text(0).contains(QStringLiteral("2 alerts")) &&
                     top->text(0).contains(QStringLiteral("1 rack, 72 GPUs")) &&
                     top->text(0).contains(QStringLiteral("12.5 GPU-h")) &&
                     top->text(0).contains(QStringLiteral(" open ")),
                 qPrintable(top->text(0)));
        QCOMPARE(top->childCount(), 2);
        QVERIFY(top->child(0)->text(0).contains(QStringLiteral("Xid 79")));
        QCOMPARE(dock->alertCount(), 1);  // the flapping link is in no incident
        QCOMPARE(client::summarizeFleet(*m_store).activeIncidents, 1u);
        auto* fleet = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        QTRY_COMPARE(fleet->kpis()->value(QStringLiteral("incidents")), QStringLiteral("1"));
        // Resolved in a delta: the KPI and the dock follow the same list.
        v1::SubscribeResponse update;
        v1::Delta* delta = update.mutable_delta();
        delta->set_sequence(m_fleet.s().sequence() + 1);
        delta->set_first_sequence(delta->sequence());
        delta->set_server_time_unix_ms(testing::PageTestFleet::kNowMs + 1000);
        v1::Incident resolved = leak;
        resolved.set_state(v1::INCIDENT_STATE_RESOLVED);
        resolved.set_resolved_unix_ms(testing::PageTestFleet::kNowMs + 1000);
        *delta->add_incidents() = resolved;
        m_store->apply(m_endpoint, update);
        m_store->flushChanges();
        QCOMPARE(client::summarizeFleet(*m_store).activeIncidents, 0u);
        QTRY_COMPARE(fleet->kpis()->value(QStringLiteral("incidents")), QStringLiteral("0"));
        QTRY_VERIFY(dock->windowTitle().startsWith(QStringLiteral("Alerts — 0 open incidents")));
    }

    void kpisSayStartingBeforeThereIsAValue() {
        for (v1::Job& job : *m_fleet.s().mutable_jobs()) {
            job.mutable_breakdown()->set_productive_s(0);
            job.mutable_breakdown()->set_accelerator_init_s(job.breakdown().total_s());
            job.set_step(0);
            job.set_goodput_ratio(0);
            job.set_confirmed_goodput_ratio(0);
            job.set_ettr_ratio(0);
            job.set_ettr_sliding_1h_ratio(0);
            job.set_mfu_ratio(0);
        }
        v1::FleetGoodput& fleet = *m_fleet.s().mutable_fleet();
        fleet.set_goodput_ratio(0);
        fleet.set_ettr_sliding_1h_ratio(0);
        fleet.set_mfu_ratio(0);
        fleet.mutable_breakdown()->set_productive_s(0);
        openWindow(true, {1600, 1000});
        m_fleet = testing::PageTestFleet();

        auto* fleetPage = qobject_cast<ui::FleetPage*>(m_window->page(PageId::Fleet));
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        for (const char* card : {"goodput", "ettr", "mfu"}) {
            QCOMPARE(fleetPage->kpis()->value(QLatin1String(card)), QStringLiteral("starting"));
            QVERIFY2(fleetPage->kpis()->detail(QLatin1String(card)).contains(QStringLiteral("initialising")),
                     qPrintable(fleetPage->kpis()->detail(QLatin1String(card))));
        }

        QVERIFY(m_window->navigate({PageId::Jobs, QStringLiteral("llm-405b-pretrain")}));
        auto* jobs = qobject_cast<ui::JobsPage*>(m_window->currentPage());
        const QAbstractItemModel* table = jobs->table()->model();
        for (int row = 0; row < table->rowCount(); ++row) {
            for (int column : {int(client::JobTableModel::Goodput), int(client::JobTableModel::Ettr1h),
                               int(client::JobTableModel::Mfu)})
                QCOMPARE(table->index(row, column).data().toString(), QStringLiteral("starting"));
        }
        QVERIFY2(!jobs->detailText().contains(QStringLiteral("0.0 %")), qPrintable(jobs->detailText()));

        for (const QString& scope : {QString(), QStringLiteral("vision-ft")}) {
            QVERIFY(m_window->navigate({PageId::Goodput, scope}));
            auto* goodput = qobject_cast<ui::GoodputPage*>(m_window->currentPage());
            for (const char* card : {"goodput", "ettr", "ettr1h", "mfu"})
                QCOMPARE(goodput->kpis()->value(QLatin1String(card)), QStringLiteral("starting"));
        }

        ui::PageContext context;
        context.store = m_store.get();
        ui::MainWindowOptions options;
        options.wallDisplay = true;
        ui::MainWindow wall(context, options);
        const QString header = wallHeaderText(wall);
        QVERIFY2(header.contains(QStringLiteral("starting")) && !header.contains(QStringLiteral("0.0 %")),
                 qPrintable(header));
    }

    // Issue 14, item 5: after a fleetd restart (new run id) the Goodput chart joined the old run's
    // last point to the new run's first with a straight line. Now the line breaks there and the
    // chart says why.
    void goodputChartBreaksAcrossAFleetdRestart() {
        const std::int64_t t0 = testing::PageTestFleet::kNowMs;
        auto delta = [&](std::uint64_t sequence, std::int64_t timeMs, float goodput) {
            v1::SubscribeResponse message;
            v1::Delta& d = *message.mutable_delta();
            d.set_sequence(sequence);
            d.set_first_sequence(sequence);
            d.set_server_time_unix_ms(timeMs);
            v1::SampleBlock* block = d.add_samples();
            block->set_metric(v1::FLEET_GOODPUT_RATIO);
            block->set_sample_time_unix_ms(timeMs);
            block->add_entity_indexes(0);
            block->add_values(goodput);
            m_store->apply(m_endpoint, message);
        };
        for (int s = 1; s <= 5; ++s) delta(std::uint64_t(1 + s), t0 + 1000 * s, 0.80f + 0.01f * float(s));
        // fleetd restarted: a new run whose clock went on (a real site's), same topology.
        testing::PageTestFleet restarted;
        restarted.s().set_run_id("run-2");
        restarted.s().set_server_time_unix_ms(t0 + 9000);
        restarted.s().set_reason("restart");
        m_store->apply(m_endpoint, restarted.snapshot);
        for (int s = 10; s <= 14; ++s) delta(std::uint64_t(s - 8), t0 + 1000 * s, 0.60f);
        m_store->flushChanges();

        QVERIFY(m_window->navigate({PageId::Goodput, {}}));
        auto* goodput = qobject_cast<ui::GoodputPage*>(m_window->currentPage());
        QTRY_VERIFY(goodput->historyChart()->rawPoints(0).size() >= 10);
        QCOMPARE(goodput->historyChart()->drawnRunCount(0), 2);
        QVERIFY2(goodput->historyChart()->note().contains(QStringLiteral("restarted")) &&
                     goodput->historyChart()->note().contains(QStringLiteral("break")),
                 qPrintable(goodput->historyChart()->note()));
    }

    void rackPageListsTheXidWithItsAction() {
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r02-n07-g2")}));
        auto* rack = qobject_cast<ui::RackPage*>(m_window->currentPage());
        QCOMPARE(rack->rackName(), QStringLiteral("r02"));
        QCOMPARE(rack->xidRowCount(), 1);
        QVERIFY(m_window->breadcrumbBar()->path().contains(QStringLiteral("r02 \u203A r02-n07 \u203A r02-n07-g2")));
    }

    void linksPagePutsTheWorstPortFirst() {
        QVERIFY(m_window->navigate({PageId::Links, QStringLiteral("r02")}));
        auto* links = qobject_cast<ui::LinksPage*>(m_window->currentPage());
        QCOMPARE(links->portRowCount(), 72);
        QCOMPARE(links->worstPortName(), QStringLiteral("r02-n03-ib1"));
    }

    // fleetd's NVLink5 estimate for a GPU's links (a real site's DCGM 1214) in the NVLink
    // heatmap's "Symbol BER": a quiet GPU's 95 % upper bound, never 0; a GPU fleetd judged
    // nothing for keeps its links' own ratio.
    void linksPageShowsTheNvlink5BoundOfAQuietGpu() {
        const auto restore = qScopeGuard([this, saved = m_fleet.snapshot] {
            m_fleet.snapshot = saved;
            applySnapshot();
        });
        m_fleet.sample(v1::NVLINK5_SYMBOL_BER_VERDICT, m_fleet.failedGpu, float(v1::LINK_VERDICT_JUDGING));
        m_fleet.sample(v1::NVLINK5_SYMBOL_BER_POINT, m_fleet.failedGpu, 0.0f);
        m_fleet.sample(v1::NVLINK5_SYMBOL_BER_LOWER, m_fleet.failedGpu, 0.0f);
        m_fleet.sample(v1::NVLINK5_SYMBOL_BER_UPPER, m_fleet.failedGpu, 2.1e-15f);
        applySnapshot();
        QVERIFY(m_window->navigate({PageId::Links, QStringLiteral("r02")}));
        auto* links = qobject_cast<ui::LinksPage*>(m_window->currentPage());
        int withBound = 0, withoutBound = 0;
        for (int row = 0; row < 72; ++row) {
            const QString tip = links->linkTooltip(row, 0);
            if (tip.contains(QStringLiteral("r02-n07-g2 link 0"))) {
                QVERIFY2(tip.contains(QStringLiteral("Symbol BER: ≤ 2.1e-15 (95 %), ")), qPrintable(tip));
                ++withBound;
            } else if (!tip.contains(QStringLiteral("≤"))) {
                ++withoutBound;
            }
        }
        QCOMPARE(withBound, 1);
        QCOMPARE(withoutBound, 71);
    }

    void eventsPageFiltersByEntityAndSeverity() {
        QVERIFY(m_window->navigate({PageId::Events, {}}));
        auto* events = qobject_cast<ui::EventsPage*>(m_window->currentPage());
        QCOMPARE(events->visibleEventCount(), 4);
        QVERIFY(m_window->navigate({PageId::Events, QStringLiteral("r02")}));
        QCOMPARE(events->visibleEventCount(), 3);  // Xid, link flap and leak are inside r02
        events->setMinimumSeverity(v1::SEVERITY_CRITICAL);
        QCOMPARE(events->visibleEventCount(), 2);
        QVERIFY(!m_window->navigate({PageId::Events, QStringLiteral("no-such-entity")}));
    }

    void ctrlKJumpsToAnyEntity() {
        QTest::keyClick(m_window.get(), Qt::Key_K, Qt::ControlModifier);
        QTRY_VERIFY(m_window->jumpBox()->isVisible());
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("r02-n07-g2"));
        QVERIFY(m_window->jumpBox()->matchCount() >= 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Rack, QStringLiteral("r02-n07-g2")}));
        QVERIFY(m_window->jumpBox()->jumpTo(QStringLiteral("vision")));
        QCOMPARE(m_window->currentLocation(), (Location{PageId::Jobs, QStringLiteral("vision-ft")}));
    }

    void backAndForwardWithAltArrows() {
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

    void wallJumpsToANewCriticalIncident() {
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

    void breadcrumbNavigatesUp() {
        QVERIFY(m_window->navigate({PageId::Rack, QStringLiteral("r02-n07")}));
        const QVector<ui::Breadcrumb> crumbs = m_window->breadcrumbBar()->crumbs();
        QVERIFY(crumbs.size() >= 3);
        emit m_window->breadcrumbBar()->crumbActivated(crumbs[0].target);
        QCOMPARE(m_window->currentLocation().page, PageId::Fleet);
    }
};

QTEST_MAIN(TestPages)
#include "tst_pages.moc"
