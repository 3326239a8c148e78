// Issue 12, item 3: the console side of incidents. The Alerts dock's context menu offers the
// lifecycle steps fleetd allows in each state (an operator through fleetd's real ControlService
// in the test process); opening an incident (double-click, "Open incident") shows the Incident
// page with its timeline rows, its blast radius on the mini rack map and charts annotated with its
// timeline; every chart can overlay its entity's events; the Fleet KPI counts the dock's open
// incidents.

#include "InProcessControl.h"
#include "PageTestFleet.h"

#include "ActionBar.h"
#include "ActionDialog.h"
#include "ChartAnnotationSource.h"
#include "CoolingPage.h"
#include "FleetPage.h"
#include "IncidentPage.h"
#include "IncidentRackMap.h"
#include "IncidentTimelineView.h"
#include "IncidentsDock.h"
#include "KpiStrip.h"
#include "MainWindow.h"
#include "PageHeader.h"

#include "FleetStore.h"
#include "TimeSeriesChart.h"

#include <QMenu>
#include <QPushButton>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

using namespace watchfloor;
using ui::PageId;

namespace {

constexpr std::int64_t kStart = testing::PageTestFleet::kNowMs - 10 * 60'000;

QList<int> offeredSteps(const QMenu& menu) {
    QList<int> types;
    for (const QAction* action : menu.actions())
        if (action->objectName() == QStringLiteral("operatorAction")) types << action->data().toInt();
    return types;
}

void addEntry(v1::Incident* incident, v1::TimelineEntryKind kind, std::int64_t atMs, const char* who, const char* text,
              auto extra) {
    v1::IncidentTimelineEntry* e = incident->add_timeline();
    e->set_kind(kind);
    e->set_time_unix_ms(atMs);
    e->set_principal(who);
    e->set_text(text);
    extra(*e);
    incident->set_timeline_count(std::uint32_t(incident->timeline_size()));
}

}  // namespace

class TestIncidentPage : public QObject {
    Q_OBJECT
    std::unique_ptr<testing::InProcessControl> m_server;
    std::unique_ptr<client::ControlClient> m_alice;
    testing::PageTestFleet m_fleet;
    std::unique_ptr<client::FleetStore> m_store;
    std::unique_ptr<ui::MainWindow> m_window;
    ui::IncidentsDock* m_dock = nullptr;

    v1::Incident* addIncident(std::uint64_t id, v1::IncidentState state, std::uint32_t activeMembers) {
        v1::Incident* i = m_fleet.s().add_incidents();
        i->set_id(id);
        i->set_state(state);
        i->set_severity(v1::SEVERITY_CRITICAL);
        i->mutable_root_cause()->set_scope(v1::CAUSE_SCOPE_RACK);
        i->mutable_root_cause()->set_has_entity(true);
        i->mutable_root_cause()->set_entity_index(m_fleet.r02);
        i->mutable_root_cause()->set_name("r02");
        i->mutable_root_cause()->set_summary(QStringLiteral("r02: coolant leak (incident %1)").arg(id).toStdString());
        i->set_title(i->root_cause().summary() + " · 1 rack");
        i->set_started_unix_ms(kStart + std::int64_t(id) * 1000);
        i->set_resolved_unix_ms(state == v1::INCIDENT_STATE_RESOLVED ? testing::PageTestFleet::kNowMs - 1000 : 0);
        i->set_active_members(activeMembers);
        return i;
    }

    // Incident 1: open, the leak on r02 (its members the Xid and the leak, a drain of r02-n07 and
    // a note on its timeline); 2 acknowledged, 3 mitigated (nothing active), 4 resolved.
    void buildIncidents() {
        v1::Incident* leak = addIncident(1, v1::INCIDENT_STATE_OPEN, 2);
        leak->set_member_count(2);
        leak->add_member_event_ids(1);
        leak->add_member_event_ids(3);
        leak->set_goodput_cost_gpu_hours(42.5);
        v1::BlastRadius* blast = leak->mutable_blast_radius();
        blast->set_racks(1);
        blast->set_trays(2);
        blast->set_gpus(8);
        blast->set_jobs(1);
        blast->add_rack_indexes(m_fleet.r02);
        for (const v1::Node& node : m_fleet.s().topology().nodes())
            if (node.name() == "r02-n07" || node.name() == "r02-n03") blast->add_node_indexes(node.index());
        blast->add_job_indexes(m_fleet.bigJob);
        const auto none = [](v1::IncidentTimelineEntry&) {};
        addEntry(leak, v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT, kStart + 60'000, "", "Leak sensor wet on r02",
                 [](v1::IncidentTimelineEntry& e) { e.set_event_id(3); });
        addEntry(leak, v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT, kStart + 120'000, "", "Xid 79 on r02-n07-g2",
                 [](v1::IncidentTimelineEntry& e) { e.set_event_id(1); });
        addEntry(leak, v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION, kStart + 240'000, "alice", "drain r02-n07: succeeded",
                 [](v1::IncidentTimelineEntry& e) {
                     e.set_action("DRAIN_NODE");
                     e.set_target("r02-n07");
                     e.set_operation_id("op-1");
                 });
        addEntry(leak, v1::TIMELINE_ENTRY_KIND_NOTE, kStart + 300'000, "alice", "facilities on their way", none);
        addIncident(2, v1::INCIDENT_STATE_ACKNOWLEDGED, 0)->set_owner("bob");
        addIncident(3, v1::INCIDENT_STATE_MITIGATED, 0)->set_owner("bob");
        addIncident(4, v1::INCIDENT_STATE_RESOLVED, 0);
    }

    int dockRowOf(std::uint64_t id) const {
        auto* tree = m_dock->findChild<QTreeWidget*>();
        for (int row = 0; row < tree->topLevelItemCount(); ++row)
            if (tree->topLevelItem(row)->text(0).contains(QStringLiteral("(incident %1)").arg(id))) return row;
        return -1;
    }

private slots:
    void initTestCase() {
        m_server = std::make_unique<testing::InProcessControl>();
        QVERIFY(m_server->isUp());
        m_alice = m_server->client(testing::kAliceToken);
        QTRY_VERIFY_WITH_TIMEOUT(m_alice->canAct(), 10000);
        buildIncidents();
    }

    void init() {
        m_store = std::make_unique<client::FleetStore>();
        m_store->apply(m_store->addEndpoint(QStringLiteral("synthetic")), m_fleet.snapshot);
        m_store->flushChanges();
        QVERIFY2(m_store->lastError().isEmpty(), qPrintable(m_store->lastError()));
        ui::PageContext context;
        context.store = m_store.get();
        context.controls = {m_alice.get()};
        m_window = std::make_unique<ui::MainWindow>(context, ui::MainWindowOptions{});
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_dock = m_window->findChild<ui::IncidentsDock*>();
        QVERIFY(m_dock);
        QTRY_COMPARE(m_dock->incidentCount(), 4);
    }

    void cleanup() {
        m_window.reset();
        m_store.reset();
    }

    void cleanupTestCase() {
        m_alice.reset();
        m_server.reset();
    }

    void dockMenuOffersTheLifecycleStepsOfEachState_data() {
        QTest::addColumn<int>("incident");
        QTest::addColumn<QList<int>>("steps");
        QTest::newRow("open, members active: no resolve")
            << 1
            << QList<int>{v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, v1::ACTION_TYPE_MITIGATE_INCIDENT,
                          v1::ACTION_TYPE_NOTE_INCIDENT};
        QTest::newRow("acknowledged") << 2
                                      << QList<int>{v1::ACTION_TYPE_MITIGATE_INCIDENT, v1::ACTION_TYPE_RESOLVE_INCIDENT,
                                                    v1::ACTION_TYPE_NOTE_INCIDENT};
        QTest::newRow("mitigated") << 3 << QList<int>{v1::ACTION_TYPE_RESOLVE_INCIDENT, v1::ACTION_TYPE_NOTE_INCIDENT};
        QTest::newRow("resolved: a note only") << 4 << QList<int>{v1::ACTION_TYPE_NOTE_INCIDENT};
    }
    void dockMenuOffersTheLifecycleStepsOfEachState() {
        QFETCH(int, incident);
        QFETCH(QList<int>, steps);
        const int row = dockRowOf(std::uint64_t(incident));
        QVERIFY(row >= 0);
        QMenu menu;
        m_dock->populateIncidentMenu(menu, row);
        QCOMPARE(offeredSteps(menu), steps);
        QCOMPARE(menu.actions().first()->text(), QStringLiteral("Open incident %1").arg(incident));
    }

    void openIncidentShowsItsTimelineMapAndAnnotatedCharts() {
        QMenu menu;
        m_dock->populateIncidentMenu(menu, dockRowOf(1));
        menu.actions().first()->trigger();  // "Open incident 1"
        QCOMPARE(m_window->currentLocation(), (ui::Location{PageId::Incident, QStringLiteral("1")}));
        auto* page = qobject_cast<ui::IncidentPage*>(m_window->currentPage());
        QVERIFY(page);
        QVERIFY(page->incident());
        QCOMPARE(page->incident()->id(), 1u);
        QVERIFY2(page->header()->summary().contains(QStringLiteral("r02: coolant leak")),
                 qPrintable(page->header()->summary()));
        QCOMPARE(page->facts()->value(QStringLiteral("state")), QStringLiteral("open"));
        QCOMPARE(page->facts()->value(QStringLiteral("owner")), QStringLiteral("nobody"));
        QCOMPARE(page->facts()->value(QStringLiteral("cost")), QStringLiteral("42.5 GPU-h"));
        QCOMPARE(page->facts()->detail(QStringLiteral("blast")), QStringLiteral("1 rack, 2 trays, 8 GPUs, 1 job"));

        ui::IncidentTimelineView* timeline = page->timeline();
        QCOMPARE(timeline->entryRowCount(), 4);
        QCOMPARE(timeline->topLevelItem(0)->text(ui::IncidentTimelineView::What),
                 QStringLiteral("Leak sensor wet on r02"));
        QCOMPARE(timeline->topLevelItem(2)->text(ui::IncidentTimelineView::Kind), QStringLiteral("action"));
        QCOMPARE(timeline->topLevelItem(2)->text(ui::IncidentTimelineView::Who), QStringLiteral("alice"));
        QCOMPARE(timeline->topLevelItem(3)->text(ui::IncidentTimelineView::What),
                 QStringLiteral("facilities on their way"));

        QCOMPARE(page->rackMap()->touchOf(QStringLiteral("r02")), ui::IncidentRackMap::RootCause);
        QCOMPARE(page->rackMap()->touchOf(QStringLiteral("r01")), ui::IncidentRackMap::NotAffected);
        QCOMPARE(page->rackMap()->affectedTrays(QStringLiteral("r02")), 2);

        // Both charts mark the timeline inside their window: the burst of the two member events
        // (a minute apart) as one marker, the drain, the note.
        for (widgets::TimeSeriesChart* chart : {page->rackChart(), page->jobChart()}) {
            QVERIFY(chart->isVisible());
            QTRY_COMPARE(chart->annotationsInView(), 3);
            QCOMPARE(chart->annotations()[0].label, QStringLiteral("2 alerts"));
            QCOMPARE(chart->annotations()[0].kind, widgets::AnnotationKind::Critical);
            QCOMPARE(chart->annotations()[1].label, QStringLiteral("drain node r02-n07"));
            QCOMPARE(chart->annotations()[1].kind, widgets::AnnotationKind::Action);
            QCOMPARE(chart->annotations()[2].label, QStringLiteral("note (alice)"));
            chart->grab();  // paints: the labels are placed while painting
            QVERIFY2(chart->annotationLabelsDrawn() >= 3, qPrintable(QString::number(chart->annotationLabelsDrawn())));
        }
        // Back goes where the operator came from.
        m_window->goBack();
        QCOMPARE(m_window->currentLocation().page, PageId::Fleet);
    }

    void doubleClickOpensTheIncidentAndItsButtonsOpenTheActionDialog() {
        auto* tree = m_dock->findChild<QTreeWidget*>();
        QTreeWidgetItem* item = tree->topLevelItem(dockRowOf(2));
        emit tree->itemActivated(item, 0);
        QCOMPARE(m_window->currentLocation(), (ui::Location{PageId::Incident, QStringLiteral("2")}));
        auto* page = qobject_cast<ui::IncidentPage*>(m_window->currentPage());
        QCOMPARE(page->facts()->value(QStringLiteral("owner")), QStringLiteral("bob"));
        QTRY_COMPARE(page->actionBar()->buttonLabels(),
                     (QStringList{QStringLiteral("Mark incident mitigated 2…"), QStringLiteral("Resolve incident 2…"),
                                  QStringLiteral("Add note to incident 2…")}));
        QPushButton* resolve = nullptr;
        for (QPushButton* button : page->actionBar()->findChildren<QPushButton*>())
            if (button->text().startsWith(QStringLiteral("Resolve"))) resolve = button;
        QVERIFY(resolve);
        resolve->click();
        ui::ActionDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<ui::ActionDialog*>()));
        QCOMPARE(dialog->request().type(), v1::ACTION_TYPE_RESOLVE_INCIDENT);
        QCOMPARE(dialog->request().incident_id(), 2u);
        dialog->close();
    }

    void anUnknownIncidentIsRefused() {
        QVERIFY(!m_window->navigate({PageId::Incident, QStringLiteral("99")}));
        QVERIFY(!m_window->navigate({PageId::Incident, QStringLiteral("leak")}));
        // No key: the dock's first row (open, the worst, then the newest: all critical, 3 is newest).
        QVERIFY(m_window->navigate({PageId::Incident, {}}));
        QCOMPARE(dockRowOf(3), 0);
        QCOMPARE(m_window->currentPage()->entity(), QStringLiteral("3"));
    }

    // Every chart's "Events" toggle overlays the events of what it plots: the Cooling page's
    // power chart of r02 shows r02's leak, its GPU's Xid and the flapping link inside it.
    void everyChartCanShowItsEntitysEvents() {
        QVERIFY(m_window->navigate({PageId::Cooling, QStringLiteral("r02")}));
        auto* cooling = qobject_cast<ui::CoolingPage*>(m_window->currentPage());
        widgets::TimeSeriesChart* power = nullptr;
        const QList<widgets::TimeSeriesChart*> charts = cooling->findChildren<widgets::TimeSeriesChart*>();
        QCOMPARE(charts.size(), 4);
        for (widgets::TimeSeriesChart* chart : charts) {
            QVERIFY(!chart->annotationsShown());
            QCOMPARE(chart->annotationsInView(), 0);
            chart->findChild<QToolButton*>(QStringLiteral("annotationToggle"))->click();
            QVERIFY(chart->annotationsShown());
            for (const widgets::ChartAnnotation& a : chart->annotations())
                if (a.label.startsWith(QStringLiteral("Xid")))
                    power = chart;  // the rack's chart: the loop's hold no GPU
        }
        QVERIFY(power);
        QStringList labels;
        for (const widgets::ChartAnnotation& a : power->annotations()) labels << a.label;
        QCOMPARE(labels, (QStringList{QStringLiteral("Xid 79 r02-n07-g2"), QStringLiteral("link flap r02-n03-g1-l05"),
                                      QStringLiteral("leak r02")}));
        QCOMPARE(power->annotations()[2].kind, widgets::AnnotationKind::Critical);
    }

    // The Fleet page's "Active incidents" KPI and the dock count the same open incidents.
    void kpiCountsTheDocksOpenIncidents() {
        QVERIFY(m_window->navigate({PageId::Fleet, {}}));
        auto* fleet = qobject_cast<ui::FleetPage*>(m_window->currentPage());
        int open = 0;
        auto* tree = m_dock->findChild<QTreeWidget*>();
        for (int row = 0; row < tree->topLevelItemCount(); ++row)
            open += tree->topLevelItem(row)->text(0).startsWith(QStringLiteral("○")) ? 0 : 1;
        QCOMPARE(open, 3);
        QTRY_COMPARE(fleet->kpis()->value(QStringLiteral("incidents")), QString::number(open));
        QVERIFY(m_dock->windowTitle().startsWith(QStringLiteral("Alerts — 3 open incidents")));
    }
};

QTEST_MAIN(TestIncidentPage)
#include "tst_incidentpage.moc"
