// Issue 30 items 5 and 6, the console: an Xid's recommended break/fix step as a button in the
// Alerts dock, on the Events page and in the tray's menus (the tray's open case's next rung over
// the Xid's bucket), none for a viewer or on the war-room wall; the action dialog's break/fix
// inputs and the request they build; the Repairs page (rows, numbers, the selected case's timeline
// and step, double-click to the rack); the Rack page's repair case; the Fleet page's MTTR. Against
// fleetd's ControlService in process (roles), with recorded repair cases (fleetd's cases arrive as
// Snapshot/Delta repair_cases).
// WATCHFLOOR_REPAIRS_SCREENSHOT=FILE.png and WATCHFLOOR_RACK_REPAIR_SCREENSHOT=FILE.png keep the
// Repairs page and the Rack page with r02-n07's case (docs/screenshots/repairs.png,
// rack-repair-case.png).
#include "InProcessControl.h"
#include "PageTestFleet.h"

#include "ActionBar.h"
#include "ActionDialog.h"
#include "ActionWording.h"
#include "EntityTableView.h"
#include "EventsPage.h"
#include "FleetPage.h"
#include "IncidentsDock.h"
#include "KpiStrip.h"
#include "MainWindow.h"
#include "OperatorActions.h"
#include "PageHeader.h"
#include "RackPage.h"
#include "RepairCaseView.h"
#include "RepairsPage.h"

#include "FleetStore.h"
#include "ModelRoles.h"
#include "RepairCaseModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableWidget>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;
using ui::ActionDialog;
using ui::PageId;

namespace {

constexpr std::int64_t kNow = testing::PageTestFleet::kNowMs;
constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;

QStringList entryTexts(const QMenu& menu) {
    QStringList texts;
    for (const QAction* action : menu.actions()) texts << action->text();
    return texts;
}

v1::RepairStep step(v1::RepairRung rung, const char* who, std::int64_t started, std::int64_t ended, bool ok,
                    const char* outcome) {
    v1::RepairStep s;
    s.set_rung(rung);
    s.set_principal(who);
    s.set_started_unix_ms(started);
    s.set_ended_unix_ms(ended);
    s.set_succeeded(ok);
    s.set_outcome(outcome);
    s.set_operation_id("op-" + std::to_string(started % 100000));
    return s;
}

void note(v1::RepairCase& c, std::int64_t time, const char* actor, const char* text) {
    v1::RepairCaseNote* n = c.add_timeline();
    n->set_time_unix_ms(time);
    n->set_actor(actor);
    n->set_text(text);
}

// A fleet's repairs as fleetd streams them: four open cases (one waiting for diagnostics after a
// power cycle, one with automation's reset running, one in burn-in, one proposed for RMA) and four
// closed, with the fleet's RepairStats and auto-remediation on.
struct RepairFleet {
    client::FleetStore& store;
    int endpoint;
    std::uint64_t sequence = 2;

    std::uint32_t tray(const char* name) const { return store.findByName(QString::fromLatin1(name)).index; }

    v1::RepairCase open(std::uint64_t id, const char* name, const char* fault, v1::XidAction action,
                        std::int64_t opened, v1::RepairRung next, const char* why) const {
        v1::RepairCase c;
        c.set_id(id);
        c.set_node_index(tray(name));
        c.set_node_name(name);
        c.set_state(v1::REPAIR_CASE_STATE_OPEN);
        c.set_opened_unix_ms(opened);
        c.set_fault(fault);
        c.set_recommended_action(action);
        c.set_gpu_index(2);
        c.set_next_rung(next);
        c.set_next_reason(why);
        c.set_faults(1);
        c.set_out_of_service_gpu_hours(4.0 * double(kNow - opened) / double(kHour));
        note(c, opened, "fleetd", (std::string("opened by ") + fault).c_str());
        return c;
    }

    v1::RepairCase closed(std::uint64_t id, const char* name, const char* fault, v1::RepairCaseState state,
                          std::int64_t opened, std::int64_t closedAt, v1::RepairRung fixedBy, const char* who) const {
        v1::RepairCase c = open(id, name, fault, v1::XID_ACTION_RESET_GPU, opened, v1::REPAIR_RUNG_UNSPECIFIED, "");
        c.set_state(state);
        c.set_closed_unix_ms(closedAt);
        c.set_fixed_by(fixedBy);
        c.set_automated(std::string(who) == "auto");
        if (!c.automated()) c.set_owner(who);
        c.set_out_of_service_gpu_hours(4.0 * double(closedAt - opened) / double(kHour));
        *c.add_steps() = step(fixedBy == v1::REPAIR_RUNG_UNSPECIFIED ? v1::REPAIR_RUNG_DIAGNOSTICS : fixedBy, who,
                              opened + 5 * kMinute, opened + 16 * kMinute, true, "exit status 0");
        note(c, closedAt, "fleetd",
             state == v1::REPAIR_CASE_STATE_RMA ? "set to RMA: closed, sent back" : "burn-in passed: PRODUCTION");
        return c;
    }

    std::vector<v1::RepairCase> cases() const {
        std::vector<v1::RepairCase> out;
        v1::RepairCase n07 = open(11, "r02-n07", "Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on r02-n07-g2",
                                  v1::XID_ACTION_RESTART_BM, kNow - 55 * kMinute, v1::REPAIR_RUNG_DIAGNOSTICS,
                                  "the power cycle succeeded: verify with diagnostics before the tray returns");
        n07.set_owner("alice");
        *n07.add_steps() = step(v1::REPAIR_RUNG_POWER_CYCLE, "alice", kNow - 41 * kMinute, kNow - 30 * kMinute, true,
                                "power state On");
        note(n07, kNow - 41 * kMinute, "alice", "power-cycle r02-n07: Xid 79, GPU off the bus");
        note(n07, kNow - 30 * kMinute, "fleetd", "back after 11 min; the GPUs answer again");
        out.push_back(n07);

        v1::RepairCase n03 =
            open(14, "r02-n03", "Xid 145 NVLINK5_ERROR on r02-n03-g1", v1::XID_ACTION_WORKFLOW_NVLINK5_ERR,
                 kNow - 9 * kMinute, v1::REPAIR_RUNG_UNSPECIFIED, "");
        n03.set_gpu_index(1);
        n03.set_automated(true);
        *n03.add_steps() = step(v1::REPAIR_RUNG_RESET_GPU, "auto", kNow - 4 * kMinute, 0, false, "");
        note(n03, kNow - 4 * kMinute, "auto", "reset GPU r02-n03-g1: drained, no job holds the tray");
        out.push_back(n03);

        v1::RepairCase n11 = open(9, "r01-n11", "Xid 48 GPU_ECC_DBE on r01-n11-g0", v1::XID_ACTION_WORKFLOW_XID_48,
                                  kNow - 150 * kMinute, v1::REPAIR_RUNG_UNSPECIFIED, "");
        n11.set_state(v1::REPAIR_CASE_STATE_BURN_IN);
        n11.set_gpu_index(0);
        n11.set_automated(true);
        n11.set_burn_in_until_unix_ms(kNow + 40 * kMinute);
        *n11.add_steps() =
            step(v1::REPAIR_RUNG_RESET_GPU, "auto", kNow - 140 * kMinute, kNow - 132 * kMinute, true, "exit status 0");
        *n11.add_steps() = step(v1::REPAIR_RUNG_DIAGNOSTICS, "auto", kNow - 130 * kMinute, kNow - 128 * kMinute, true,
                                "9 of 9 tests passed");
        out.push_back(n11);

        v1::RepairCase n15 =
            open(6, "r02-n15", "Xid 64 ROW_REMAP_FAILURE on r02-n15-g3", v1::XID_ACTION_RMA, kNow - 26 * kHour,
                 v1::REPAIR_RUNG_RMA, "diagnostics failed twice (memory on GPU 3): propose RMA");
        n15.set_gpu_index(3);
        n15.set_owner("bob");
        n15.set_faults(2);
        *n15.add_steps() = step(v1::REPAIR_RUNG_DIAGNOSTICS, "bob", kNow - 25 * kHour, kNow - 24 * kHour, false,
                                "1 of 9 tests failed: memory");
        *n15.add_steps() = step(v1::REPAIR_RUNG_DIAGNOSTICS, "bob", kNow - 3 * kHour, kNow - 2 * kHour, false,
                                "2 of 12 tests failed: memory, targeted_stress");
        out.push_back(n15);

        out.push_back(closed(8, "r01-n05", "Xid 119 GSP_RPC_TIMEOUT on r01-n05-g1", v1::REPAIR_CASE_STATE_FIXED,
                             kNow - 4 * kHour, kNow - 3 * kHour - 13 * kMinute, v1::REPAIR_RUNG_REBOOT, "carol"));
        out.push_back(closed(7, "r01-n08", "Xid 94 CONTAINED_ECC_ERROR on r01-n08-g3", v1::REPAIR_CASE_STATE_FIXED,
                             kNow - 5 * kHour - 22 * kMinute, kNow - 5 * kHour, v1::REPAIR_RUNG_RESET_GPU, "auto"));
        out.push_back(closed(5, "r01-n16", "Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on r01-n16-g0",
                             v1::REPAIR_CASE_STATE_FIXED, kNow - 9 * kHour, kNow - 7 * kHour - 24 * kMinute,
                             v1::REPAIR_RUNG_POWER_CYCLE, "alice"));
        out.push_back(closed(2, "r02-n01", "Xid 64 ROW_REMAP_FAILURE on r02-n01-g2", v1::REPAIR_CASE_STATE_RMA,
                             kNow - 70 * kHour, kNow - 20 * kHour, v1::REPAIR_RUNG_UNSPECIFIED, "bob"));
        return out;
    }

    static v1::RepairStats stats() {
        v1::RepairStats r;
        r.set_window_s(7 * 86400);
        r.set_open_cases(4);
        r.set_fixed(11);
        r.set_sent_to_rma(2);
        r.set_mttr_s(6840);
        r.set_fixed_automated(6);
        r.set_mttr_automated_s(2460);
        r.set_fixed_manual(5);
        r.set_mttr_manual_s(12240);
        r.set_fixed_by_reset(5);
        r.set_fixed_by_reboot(3);
        r.set_fixed_by_power_cycle(2);
        r.set_fixed_by_diagnostics(1);
        r.set_out_of_service_gpu_hours(111.3);
        return r;
    }

    void send(const std::vector<v1::RepairCase>& cases, bool withStats) {
        v1::SubscribeResponse m;
        v1::Delta& d = *m.mutable_delta();
        d.set_sequence(sequence);
        d.set_first_sequence(sequence);
        ++sequence;
        d.set_server_time_unix_ms(kNow);
        for (const v1::RepairCase& c : cases) *d.add_repair_cases() = c;
        if (withStats) {
            // Every field of the fleet's numbers travels whole: the snapshot's, plus the repairs.
            v1::FleetGoodput fleet = *store.endpointFleet(endpoint).fleetGoodput();
            *fleet.mutable_repairs() = stats();
            *d.mutable_fleet() = fleet;
            v1::AutomationStatus automation;
            automation.set_state(v1::BREAKER_STATE_CLOSED);
            automation.set_max_actions_per_window(3);
            automation.set_window_s(3600);
            automation.set_effective_limit(3);
            automation.set_auto_remediation(v1::AUTO_REMEDIATION_ACTS);
            *d.mutable_automation() = automation;
        }
        store.apply(endpoint, m);
        store.flushChanges();
    }
};

struct Console {
    testing::PageTestFleet fleet;
    client::FleetStore store;
    int endpoint = store.addEndpoint(QStringLiteral("synthetic"));
    ui::PageContext context;
    std::unique_ptr<ui::MainWindow> window;

    Console(client::ControlClient* control, bool wall) {
        store.apply(endpoint, fleet.snapshot);
        store.flushChanges();
        context.store = &store;
        context.controls = {control};
        ui::MainWindowOptions options;
        options.wallDisplay = wall;
        window = std::make_unique<ui::MainWindow>(context, options);
        window->resize(1920, 1080);
        window->show();
    }
    RepairFleet repairs() { return RepairFleet{store, endpoint}; }
    template <class P>
    P* page(PageId id) const {
        return qobject_cast<P*>(window->page(id));
    }
};

// The labels of the dock's step bar for every alert row selected in turn, those with a button.
QStringList dockSteps(ui::IncidentsDock& dock) {
    QStringList steps;
    for (int row = 0; row < dock.alertCount(); ++row) {
        dock.selectAlert(row);
        steps += dock.stepBar()->buttonLabels();
    }
    return steps;
}

// The Events page with the Xid's row selected: its step bar's labels.
QStringList eventSteps(ui::EventsPage& events) {
    auto* proxy = events.table()->proxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        if (proxy->index(row, 0).data(client::EventTypeRole).toInt() != v1::EVENT_TYPE_XID) continue;
        events.table()->selectRow(row);
        return events.stepBar()->buttonLabels();
    }
    return {QStringLiteral("no Xid row")};
}

QStringList trayMenu(ui::RackPage& rack, const QString& tray) {
    auto* proxy = rack.nodesTable()->proxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        if (proxy->index(row, 0).data().toString() != tray) continue;
        QMenu menu;
        rack.nodesTable()->populateMenu(menu, proxy->index(row, 0));
        return entryTexts(menu);
    }
    return {};
}

}  // namespace

class TestRepairsUi : public QObject {
    Q_OBJECT

    std::unique_ptr<testing::InProcessControl> m_server;
    std::unique_ptr<client::ControlClient> m_alice;
    std::unique_ptr<client::ControlClient> m_viewer;

private slots:
    void initTestCase() {
        m_server = std::make_unique<testing::InProcessControl>();
        QVERIFY(m_server->isUp());
        m_alice = m_server->client(testing::kAliceToken);
        m_viewer = m_server->client(testing::kViewerToken);
        QTRY_VERIFY_WITH_TIMEOUT(m_alice->canAct() && m_viewer->role() == v1::ROLE_VIEWER, 10000);
    }

    // The Xid 79 on r02-n07-g2 (NVIDIA: restart bare metal) is "Power-cycle r02-n07…" wherever an
    // operator meets it; a viewer and the wall get no such control.
    void theXidsStepIsAButtonForOperatorsOnly_data() {
        QTest::addColumn<bool>("viewer");
        QTest::addColumn<bool>("wall");
        QTest::newRow("operator") << false << false;
        QTest::newRow("viewer") << true << false;
        QTest::newRow("operator on the war-room wall") << false << true;
    }
    void theXidsStepIsAButtonForOperatorsOnly() {
        QFETCH(bool, viewer);
        QFETCH(bool, wall);
        Console console(viewer ? m_viewer.get() : m_alice.get(), wall);
        const QStringList expected =
            viewer || wall ? QStringList{} : QStringList{QStringLiteral("Power-cycle r02-n07…")};
        if (wall) {
            QVERIFY(!console.window->incidentsDock());  // the wall has no docks at all
            QVERIFY(!console.window->page(PageId::Repairs));
        } else {
            ui::IncidentsDock& dock = *console.window->incidentsDock();
            QCOMPARE(dockSteps(dock), expected);
            QCOMPARE(dock.stepBar()->isVisibleTo(&dock), !expected.isEmpty());
        }
        auto* events = console.page<ui::EventsPage>(PageId::Events);
        QVERIFY(console.window->navigate({PageId::Events, {}}));
        QCOMPARE(eventSteps(*events), expected);
        QCOMPARE(events->stepBar()->isVisibleTo(events), !expected.isEmpty());

        auto* rack = console.page<ui::RackPage>(PageId::Rack);
        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02-n07")}));
        QCOMPARE(trayMenu(*rack, QStringLiteral("r02-n07")).contains(QStringLiteral("Power-cycle r02-n07…")),
                 !expected.isEmpty());
        QCOMPARE(rack->actionBar()->buttonLabels().contains(QStringLiteral("Power-cycle r02-n07…")),
                 !expected.isEmpty());
        // A tray without an Xid has no step.
        QVERIFY(!trayMenu(*rack, QStringLiteral("r02-n02")).join(u',').contains(QStringLiteral("Power-cycle")));
    }

    // fleetd's case for the tray proposes the next rung: the button follows it, not the bucket; a
    // step running has none; the Rack page shows the case.
    void theCasesNextRungWinsOverTheBucket() {
        Console console(m_alice.get(), false);
        RepairFleet repairs = console.repairs();
        v1::RepairCase c =
            repairs.open(3, "r02-n07", "Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on r02-n07-g2", v1::XID_ACTION_RESTART_BM,
                         kNow - 20 * kMinute, v1::REPAIR_RUNG_REBOOT, "operator's choice: reboot first");
        repairs.send({c}, false);
        ui::IncidentsDock& dock = *console.window->incidentsDock();
        QCOMPARE(dockSteps(dock), QStringList{QStringLiteral("Reboot r02-n07…")});
        auto* rack = console.page<ui::RackPage>(PageId::Rack);
        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02-n07")}));
        QTRY_VERIFY(rack->repairPanel()->isVisibleTo(rack));
        QCOMPARE(rack->repairStepBar()->buttonLabels(), QStringList{QStringLiteral("Reboot r02-n07…")});
        QVERIFY2(rack->repairCase()->summaryText().contains(QStringLiteral("operator's choice: reboot first")),
                 qPrintable(rack->repairCase()->summaryText()));
        QVERIFY(trayMenu(*rack, QStringLiteral("r02-n07")).contains(QStringLiteral("Reboot r02-n07…")));

        // The reboot runs: no second step is offered anywhere.
        c.set_next_rung(v1::REPAIR_RUNG_UNSPECIFIED);
        *c.add_steps() = step(v1::REPAIR_RUNG_REBOOT, "alice", kNow - 2 * kMinute, 0, false, "");
        repairs.send({c}, false);
        QCOMPARE(dockSteps(dock), QStringList{});
        QTRY_VERIFY(rack->repairStepBar()->buttonLabels().isEmpty());
        QVERIFY(!rack->repairStepBar()->isVisibleTo(rack));
        QVERIFY(rack->repairCase()->summaryText().contains(QStringLiteral("reboot running (alice)")));
        QCOMPARE(rack->repairCase()->timeline()->rowCount(), 2);  // the opening note, the reboot

        // A tray without a case has no panel.
        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02-n02")}));
        QVERIFY(!rack->repairPanel()->isVisibleTo(rack));
    }

    // The dialog asks for the break/fix inputs and the request carries them.
    void theDialogBuildsTheBreakFixRequest() {
        Console console(m_alice.get(), false);
        ui::OperatorActions actions(console.store, {m_alice.get()});
        const client::StoredEvent* xid = nullptr;
        for (quint64 s = console.store.firstEventSerial(); s < console.store.nextEventSerial(); ++s)
            if (const client::StoredEvent* e = console.store.eventBySerial(s); e->event.type() == v1::EVENT_TYPE_XID)
                xid = e;
        QVERIFY(xid);

        // A GPU reset for the Xid's GPU, preselected; "all GPUs" unsets it.
        client::RepairStepProposal reset = *client::repairStepForEvent(console.store, *xid);
        reset.rung = v1::REPAIR_RUNG_RESET_GPU;
        ActionDialog resetDialog(*m_alice, client::repairStepRequest(reset));
        QVERIFY(resetDialog.gpuBox() && resetDialog.waitForDrainBox() && resetDialog.afterRepairBox());
        QVERIFY(!resetDialog.diagnosticLevelBox());
        QCOMPARE(resetDialog.gpuBox()->currentData().toInt(), 2);
        QCOMPARE(resetDialog.windowTitle(), QStringLiteral("Reset GPU r02-n07-g2 — Watchfloor"));
        v1::ActionRequest request = resetDialog.request();
        QCOMPARE(request.type(), v1::ACTION_TYPE_RESET_GPU);
        QCOMPARE(request.node_name(), "r02-n07");
        QVERIFY(request.has_gpu_index() && request.gpu_index() == 2);
        QVERIFY(!request.wait_for_drain());
        QCOMPARE(request.after_repair(), v1::TRAY_AFTER_REPAIR_STAY_DRAINED);
        resetDialog.gpuBox()->setCurrentIndex(resetDialog.gpuBox()->findData(-1));
        resetDialog.waitForDrainBox()->setChecked(true);
        resetDialog.afterRepairBox()->setCurrentIndex(
            resetDialog.afterRepairBox()->findData(int(v1::TRAY_AFTER_REPAIR_RESUME)));
        request = resetDialog.request();
        QVERIFY(!request.has_gpu_index());
        QVERIFY(request.wait_for_drain());
        QCOMPARE(request.after_repair(), v1::TRAY_AFTER_REPAIR_RESUME);
        QCOMPARE(resetDialog.windowTitle(), QStringLiteral("Reset GPU r02-n07 — Watchfloor"));
        QVERIFY(resetDialog.findChild<QLabel*>(QStringLiteral("actionHeading"))->text().contains("(all GPUs)"));

        // Diagnostics: level 2 unless chosen otherwise; no GPU.
        client::RepairStepProposal diagnose = reset;
        diagnose.rung = v1::REPAIR_RUNG_DIAGNOSTICS;
        ActionDialog diagnoseDialog(*m_alice, client::repairStepRequest(diagnose));
        QVERIFY(!diagnoseDialog.gpuBox() && diagnoseDialog.diagnosticLevelBox());
        QCOMPARE(diagnoseDialog.request().diagnostic_level(), 2u);
        QCOMPARE(diagnoseDialog.request().after_repair(), v1::TRAY_AFTER_REPAIR_RESUME);
        diagnoseDialog.diagnosticLevelBox()->setCurrentIndex(diagnoseDialog.diagnosticLevelBox()->findData(4));
        diagnoseDialog.afterRepairBox()->setCurrentIndex(
            diagnoseDialog.afterRepairBox()->findData(int(v1::TRAY_AFTER_REPAIR_DOWN)));
        QCOMPARE(diagnoseDialog.request().diagnostic_level(), 4u);
        QCOMPARE(diagnoseDialog.request().after_repair(), v1::TRAY_AFTER_REPAIR_DOWN);
        QVERIFY(!diagnoseDialog.request().has_gpu_index());

        // A rack's power cycle: the rack's name typed, as isolating it.
        v1::ActionRequest rackCycle;
        rackCycle.set_type(v1::ACTION_TYPE_POWER_CYCLE_RACK);
        rackCycle.set_rack_name("r02");
        ActionDialog rackDialog(*m_alice, rackCycle);
        QVERIFY(rackDialog.confirmNameEdit() && rackDialog.waitForDrainBox() && rackDialog.afterRepairBox());
        QVERIFY(!rackDialog.gpuBox() && !rackDialog.diagnosticLevelBox());
        rackDialog.confirmNameEdit()->setText(QStringLiteral("r02"));
        QCOMPARE(rackDialog.request().confirm_rack_name(), "r02");

        // Actions without break/fix fields ask for none.
        v1::ActionRequest drain;
        drain.set_type(v1::ACTION_TYPE_DRAIN_NODE);
        drain.set_node_name("r02-n07");
        ActionDialog drainDialog(*m_alice, drain);
        QVERIFY(!drainDialog.gpuBox() && !drainDialog.waitForDrainBox() && !drainDialog.afterRepairBox());
        QVERIFY(!drainDialog.request().has_gpu_index() && drainDialog.request().after_repair() == 0);

        // The preview's break/fix lines in words.
        v1::ActionPreview preview;
        preview.set_expected_out_of_service_s(660);
        preview.set_tray_after(v1::TRAY_AFTER_REPAIR_STAY_DRAINED);
        for (int n = 1; n <= 18; ++n)
            preview.add_trays("r02-n" + QStringLiteral("%1").arg(n, 2, 10, QChar(u'0')).toStdString());
        QStringList lines;
        for (const ui::PreviewLine& line : ui::previewLines(preview)) lines << line.label + ": " + line.value;
        QVERIFY2(lines.contains(QStringLiteral("Out of service for: about 11 min (the step itself, after any drain)")),
                 qPrintable(lines.join(" | ")));
        QVERIFY2(lines.contains(QStringLiteral("Trays: r02-n01, r02-n02, r02-n03 … (18 trays)")),
                 qPrintable(lines.join(" | ")));
        QVERIFY2(lines.contains(QStringLiteral("Afterwards: the tray stays drained")), qPrintable(lines.join(" | ")));
    }

    void anEmptyListSaysWhy() {
        Console console(m_alice.get(), false);
        auto* page = console.page<ui::RepairsPage>(PageId::Repairs);
        QVERIFY(console.window->navigate({PageId::Repairs, {}}));
        QCOMPARE(page->model()->rowCount(), 0);
        QVERIFY2(page->header()->summary().startsWith(QStringLiteral("No repair cases")),
                 qPrintable(page->header()->summary()));
    }

    void theRepairsPageListsTheCases() {
        Console console(m_alice.get(), false);
        RepairFleet repairs = console.repairs();
        repairs.send(repairs.cases(), true);
        auto* page = console.page<ui::RepairsPage>(PageId::Repairs);
        QVERIFY(console.window->navigate({PageId::Repairs, {}}));
        client::RepairCaseModel& model = *page->model();
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.openCount(), 4);
        QStringList trays;
        for (int row = 0; row < model.rowCount(); ++row)
            trays << model.index(row, client::RepairCaseModel::Tray).data().toString();
        // Open, longest open first; then closed, newest closed first.
        QCOMPARE(trays,
                 (QStringList{"r02-n15", "r01-n11", "r02-n07", "r02-n03", "r01-n05", "r01-n08", "r01-n16", "r02-n01"}));
        QCOMPARE(model.index(1, client::RepairCaseModel::State).data().toString(), QStringLiteral("burn-in"));
        QCOMPARE(model.index(3, client::RepairCaseModel::Step).data().toString(),
                 QStringLiteral("GPU reset running (auto)"));
        QCOMPARE(model.index(4, client::RepairCaseModel::Step).data().toString(), QStringLiteral("fixed by reboot"));
        QCOMPARE(model.index(4, client::RepairCaseModel::Age).data().toString(), QStringLiteral("47 min"));
        QCOMPARE(model.index(7, client::RepairCaseModel::State).data().toString(), QStringLiteral("RMA"));

        ui::KpiStrip& kpis = *page->kpis();
        QCOMPARE(kpis.value(QStringLiteral("open")), QStringLiteral("4"));
        QCOMPARE(kpis.value(QStringLiteral("mttr")), QStringLiteral("1.9 h"));
        QCOMPARE(kpis.value(QStringLiteral("automated")), QStringLiteral("41 min"));
        QCOMPARE(kpis.value(QStringLiteral("manual")), QStringLiteral("3.4 h"));
        QCOMPARE(kpis.detail(QStringLiteral("mix")),
                 QStringLiteral("5 reset · 3 reboot · 2 power cycle · 1 diagnostics only · 2 RMA"));
        QCOMPARE(kpis.value(QStringLiteral("auto")), QStringLiteral("acts"));

        // The first case is selected; the RMA proposal is "Set r02-n15 to RMA…".
        QTRY_COMPARE(page->stepBar()->buttonLabels(), QStringList{QStringLiteral("Set r02-n15 to RMA…")});
        QVERIFY(page->showEntity(QStringLiteral("r02-n07")));
        QCOMPARE(page->stepBar()->buttonLabels(), QStringList{QStringLiteral("Run diagnostics r02-n07…")});
        QVERIFY(page->caseView()->summaryText().contains(QStringLiteral("verify with diagnostics")));
        QCOMPARE(page->caseView()->timeline()->rowCount(), 4);  // opened, power cycle + its two notes
        // A closed case has no step to take.
        page->selectRow(4);
        QVERIFY(page->stepBar()->buttonLabels().isEmpty());
        QVERIFY2(page->caseView()->summaryText().startsWith(QStringLiteral("r01-n05 · fixed after 47 min")),
                 qPrintable(page->caseView()->summaryText()));

        if (const QString shot = qEnvironmentVariable("WATCHFLOOR_REPAIRS_SCREENSHOT"); !shot.isEmpty()) {
            QVERIFY(page->showEntity(QStringLiteral("r02-n07")));
            QTest::qWait(200);
            QVERIFY(console.window->grab().save(shot));
        }

        // Double-click: the tray's rack.
        const QModelIndex index = page->table()->proxy()->index(2, 0);
        emit page->table()->activated(index);
        QCOMPARE(console.window->currentLocation(), (ui::Location{PageId::Rack, QStringLiteral("r02-n07")}));
        auto* rack = console.page<ui::RackPage>(PageId::Rack);
        QTRY_VERIFY(rack->repairPanel()->isVisibleTo(rack));
        QCOMPARE(rack->repairStepBar()->buttonLabels(), QStringList{QStringLiteral("Run diagnostics r02-n07…")});
        if (const QString shot = qEnvironmentVariable("WATCHFLOOR_RACK_REPAIR_SCREENSHOT"); !shot.isEmpty()) {
            QTest::qWait(200);
            QVERIFY(console.window->grab().save(shot));
        }
    }

    void theFleetPageShowsTheMttrSplit() {
        Console console(m_alice.get(), false);
        auto* fleet = console.page<ui::FleetPage>(PageId::Fleet);
        QVERIFY(console.window->navigate({PageId::Fleet, {}}));
        // fleetd without repair cases (operator actions off): no MTTR card, no line.
        QVERIFY(!fleet->kpis()->isCardVisible(QStringLiteral("mttr")));
        QVERIFY(fleet->repairLine().isEmpty());
        RepairFleet repairs = console.repairs();
        repairs.send(repairs.cases(), true);
        QTRY_VERIFY(fleet->kpis()->isCardVisible(QStringLiteral("mttr")));
        QCOMPARE(fleet->kpis()->value(QStringLiteral("mttr")), QStringLiteral("1.9 h"));
        QCOMPARE(fleet->kpis()->detail(QStringLiteral("mttr")), QStringLiteral("auto 41 min · manual 3.4 h · 4 open"));
        QVERIFY2(fleet->repairLine().contains(
                     QStringLiteral("11 fixed — 5 reset · 3 reboot · 2 power cycle · 1 diagnostics only · 2 RMA · "
                                    "4 open, 111.3 GPU-h out")),
                 qPrintable(fleet->repairLine()));
    }
};

QTEST_MAIN(TestRepairsUi)
#include "tst_repairsui.moc"
