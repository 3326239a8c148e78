// Issue 30 items 5 and 6, the console's side: the break/fix step offered for an Xid (the tray's open
// repair case's next rung wins over the Xid's bucket; IGNORE and RESTART_APP offer none; a step
// running offers none; a fault a closed case dealt with offers none), the request and words it
// makes, the Repairs view's rows as a snapshot and deltas open a case, run a step and close it,
// the closed cases held as FleetStateKinds bounds them, the fleet's repair numbers merged over two
// endpoints, and the handoff report's repairs.
#include "FleetStateKinds.h"
#include "FleetStore.h"
#include "ModelRoles.h"
#include "RepairCaseModel.h"
#include "RepairCases.h"
#include "ShiftHandoff.h"

#include "SyntheticFleet.h"

#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;
constexpr std::int64_t kMinute = 60'000;

v1::Event xid(std::uint64_t id, std::uint32_t entity, std::uint32_t code, v1::XidAction action,
              std::int64_t time = kT0) {
    v1::Event e;
    e.set_id(id);
    e.set_time_unix_ms(time);
    e.set_type(v1::EVENT_TYPE_XID);
    e.set_severity(v1::SEVERITY_CRITICAL);
    e.set_entity_index(entity);
    e.set_message("Xid " + std::to_string(code));
    e.mutable_xid()->set_xid(code);
    e.mutable_xid()->set_recommended_action(action);
    return e;
}

v1::RepairCase repairCase(std::uint64_t id, std::uint32_t node, const char* name, v1::RepairCaseState state,
                          std::int64_t opened, v1::RepairRung next = v1::REPAIR_RUNG_UNSPECIFIED) {
    v1::RepairCase c;
    c.set_id(id);
    c.set_node_index(node);
    c.set_node_name(name);
    c.set_state(state);
    c.set_opened_unix_ms(opened);
    c.set_fault(std::string("Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on ") + name + "-g2");
    c.set_recommended_action(v1::XID_ACTION_RESTART_BM);
    c.set_gpu_index(2);
    c.set_next_rung(next);
    c.set_out_of_service_gpu_hours(1.5);
    return c;
}

v1::SubscribeResponse delta(std::uint64_t sequence, std::int64_t time) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_first_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(time);
    return m;
}

void send(FleetStore& store, int endpoint, std::uint64_t sequence, std::int64_t time,
          const std::vector<v1::Event>& events, const std::vector<v1::RepairCase>& cases = {}) {
    v1::SubscribeResponse m = delta(sequence, time);
    for (const v1::Event& e : events) *m.mutable_delta()->add_events() = e;
    for (const v1::RepairCase& c : cases) *m.mutable_delta()->add_repair_cases() = c;
    store.apply(endpoint, m);
    store.flushChanges();
}

// The store serial of the event with fleetd id `id` on `endpoint`.
const StoredEvent* eventWithId(const FleetStore& store, int endpoint, std::uint64_t id) {
    for (quint64 serial = store.firstEventSerial(); serial < store.nextEventSerial(); ++serial)
        if (const StoredEvent* e = store.eventBySerial(serial); e && e->endpoint == endpoint && e->event.id() == id)
            return e;
    return nullptr;
}

QStringList column(const RepairCaseModel& model, int column) {
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row) out << model.index(row, column).data().toString();
    return out;
}
}  // namespace

class TestRepairCases : public QObject {
    Q_OBJECT

private:
    SyntheticFleet m_fleet{SyntheticFleetSpec{.racks = 2}};

    std::uint32_t tray(int node) const { return m_fleet.nodeIndex(0, node); }
    std::uint32_t gpu(int node, int g) const { return m_fleet.gpuIndex(0, node, g); }

private slots:
    void theXidsBucketGivesTheFirstRung_data() {
        QTest::addColumn<int>("action");
        QTest::addColumn<int>("rung");
        QTest::addColumn<QString>("label");
        QTest::newRow("reset GPU") << int(v1::XID_ACTION_RESET_GPU) << int(v1::REPAIR_RUNG_RESET_GPU)
                                   << QStringLiteral("Reset GPU r01-n04-g2");
        QTest::newRow("Xid 48 workflow") << int(v1::XID_ACTION_WORKFLOW_XID_48) << int(v1::REPAIR_RUNG_RESET_GPU)
                                         << QStringLiteral("Reset GPU r01-n04-g2");
        QTest::newRow("restart bare metal") << int(v1::XID_ACTION_RESTART_BM) << int(v1::REPAIR_RUNG_POWER_CYCLE)
                                            << QStringLiteral("Power-cycle r01-n04");
        QTest::newRow("contact support") << int(v1::XID_ACTION_CONTACT_SUPPORT) << int(v1::REPAIR_RUNG_DIAGNOSTICS)
                                         << QStringLiteral("Run diagnostics r01-n04");
        QTest::newRow("ignore: no button")
            << int(v1::XID_ACTION_IGNORE) << int(v1::REPAIR_RUNG_UNSPECIFIED) << QString();
        QTest::newRow("restart the app: no button")
            << int(v1::XID_ACTION_RESTART_APP) << int(v1::REPAIR_RUNG_UNSPECIFIED) << QString();
    }
    void theXidsBucketGivesTheFirstRung() {
        QFETCH(int, action);
        QFETCH(int, rung);
        QFETCH(QString, label);
        FleetStore store;
        const int endpoint = store.addEndpoint("east");
        store.apply(endpoint, m_fleet.snapshot(1, kT0));
        send(store, endpoint, 2, kT0 + kMinute, {xid(1, gpu(3, 2), 79, v1::XidAction(action))});
        const StoredEvent* event = eventWithId(store, endpoint, 1);
        QVERIFY(event);
        const std::optional<RepairStepProposal> step = repairStepForEvent(store, *event);
        QCOMPARE(step.has_value(), rung != v1::REPAIR_RUNG_UNSPECIFIED);
        if (!step) return;
        QCOMPARE(int(step->rung), rung);
        QVERIFY(!step->fromCase);
        QCOMPARE(step->trayName, QStringLiteral("r01-n04"));
        QCOMPARE(step->gpu, std::optional<std::uint32_t>(2));
        QCOMPARE(repairStepLabel(*step), label);
        // The tray's context menu offers the same step from the tray's newest Xid.
        const std::optional<RepairStepProposal> forTray = repairStepForTray(store, EntityId{0, tray(3)});
        QVERIFY(forTray && forTray->rung == step->rung);
    }

    void theRequestCarriesTheStepAndTheDialogsDefaults() {
        RepairStepProposal step;
        step.trayName = QStringLiteral("r01-n04");
        step.rung = v1::REPAIR_RUNG_RESET_GPU;
        step.gpu = 2;
        v1::ActionRequest reset = repairStepRequest(step);
        QCOMPARE(reset.type(), v1::ACTION_TYPE_RESET_GPU);
        QCOMPARE(reset.node_name(), "r01-n04");
        QVERIFY(reset.has_gpu_index());
        QCOMPARE(reset.gpu_index(), 2u);
        QCOMPARE(reset.after_repair(), v1::TRAY_AFTER_REPAIR_STAY_DRAINED);
        step.gpu.reset();
        QVERIFY(!repairStepRequest(step).has_gpu_index());  // every GPU of the tray

        step.rung = v1::REPAIR_RUNG_DIAGNOSTICS;
        const v1::ActionRequest diagnostics = repairStepRequest(step);
        QCOMPARE(diagnostics.type(), v1::ACTION_TYPE_RUN_DIAGNOSTICS);
        QCOMPARE(diagnostics.diagnostic_level(), 2u);
        QCOMPARE(diagnostics.after_repair(), v1::TRAY_AFTER_REPAIR_RESUME);
        QVERIFY(!diagnostics.has_gpu_index());

        step.rung = v1::REPAIR_RUNG_RMA;
        const v1::ActionRequest rma = repairStepRequest(step);
        QCOMPARE(rma.type(), v1::ACTION_TYPE_SET_LIFECYCLE);
        QCOMPARE(rma.lifecycle(), v1::TRAY_LIFECYCLE_RMA);
        QCOMPARE(repairStepLabel(step), QStringLiteral("Set r01-n04 to RMA"));
        step.rung = v1::REPAIR_RUNG_REBOOT;
        QCOMPARE(repairStepLabel(step), QStringLiteral("Reboot r01-n04"));
    }

    // The case's next rung wins over the bucket; a step running offers none; a fault a closed case
    // dealt with offers none.
    void theOpenCasesNextRungWins() {
        FleetStore store;
        const int endpoint = store.addEndpoint("east");
        store.apply(endpoint, m_fleet.snapshot(1, kT0));
        send(store, endpoint, 2, kT0 + kMinute, {xid(1, gpu(3, 2), 79, v1::XID_ACTION_RESTART_BM)},
             {repairCase(7, tray(3), "r01-n04", v1::REPAIR_CASE_STATE_OPEN, kT0, v1::REPAIR_RUNG_REBOOT)});
        const StoredEvent* event = eventWithId(store, endpoint, 1);
        QVERIFY(event);
        std::optional<RepairStepProposal> step = repairStepForEvent(store, *event);
        QVERIFY(step);
        QCOMPARE(step->rung, v1::REPAIR_RUNG_REBOOT);  // not the bucket's power cycle
        QVERIFY(step->fromCase);
        QCOMPARE(repairStepLabel(*step), QStringLiteral("Reboot r01-n04"));
        QCOMPARE(openRepairCase(store, EntityId{0, tray(3)})->id(), 7u);

        // A step runs: no next rung, no button.
        v1::RepairCase running = repairCase(7, tray(3), "r01-n04", v1::REPAIR_CASE_STATE_OPEN, kT0);
        v1::RepairStep* reboot = running.add_steps();
        reboot->set_rung(v1::REPAIR_RUNG_REBOOT);
        reboot->set_principal("alice");
        reboot->set_started_unix_ms(kT0 + 2 * kMinute);
        send(store, endpoint, 3, kT0 + 3 * kMinute, {}, {running});
        QVERIFY(!repairStepForEvent(store, *eventWithId(store, endpoint, 1)));

        // Closed: the Xid it was opened by is dealt with.
        v1::RepairCase fixed = running;
        fixed.set_state(v1::REPAIR_CASE_STATE_FIXED);
        fixed.mutable_steps(0)->set_ended_unix_ms(kT0 + 12 * kMinute);
        fixed.mutable_steps(0)->set_succeeded(true);
        fixed.set_closed_unix_ms(kT0 + 40 * kMinute);
        fixed.set_fixed_by(v1::REPAIR_RUNG_REBOOT);
        send(store, endpoint, 4, kT0 + 41 * kMinute, {}, {fixed});
        QVERIFY(!openRepairCase(store, EntityId{0, tray(3)}));
        QVERIFY(!repairStepForEvent(store, *eventWithId(store, endpoint, 1)));
        QVERIFY(!repairStepForTray(store, EntityId{0, tray(3)}));
        // A new Xid after the close is a new fault: its bucket again.
        send(store, endpoint, 5, kT0 + 50 * kMinute,
             {xid(2, gpu(3, 1), 48, v1::XID_ACTION_WORKFLOW_XID_48, kT0 + 45 * kMinute)});
        step = repairStepForEvent(store, *eventWithId(store, endpoint, 2));
        QVERIFY(step && step->rung == v1::REPAIR_RUNG_RESET_GPU && step->gpu == 1u);
    }

    void notAnXidOrNotOnATrayOffersNothing() {
        FleetStore store;
        const int endpoint = store.addEndpoint("east");
        store.apply(endpoint, m_fleet.snapshot(1, kT0));
        v1::Event leak = xid(1, m_fleet.rackIndex(0), 0, v1::XID_ACTION_RESET_GPU);
        leak.set_type(v1::EVENT_TYPE_LEAK);
        v1::Event onRack = xid(2, m_fleet.rackIndex(0), 79, v1::XID_ACTION_RESTART_BM);
        send(store, endpoint, 2, kT0, {leak, onRack});
        QVERIFY(!repairStepForEvent(store, *eventWithId(store, endpoint, 1)));
        QVERIFY(!repairStepForEvent(store, *eventWithId(store, endpoint, 2)));
    }

    // The Repairs view from a snapshot and deltas: a case opens, a step runs, the case closes.
    void theModelFollowsTheCases() {
        FleetStore store;
        const int endpoint = store.addEndpoint("east");
        v1::SubscribeResponse snapshot = m_fleet.snapshot(1, kT0 + 30 * kMinute);
        *snapshot.mutable_snapshot()->add_repair_cases() =
            repairCase(3, tray(1), "r01-n02", v1::REPAIR_CASE_STATE_OPEN, kT0, v1::REPAIR_RUNG_RESET_GPU);
        store.apply(endpoint, snapshot);
        store.flushChanges();
        RepairCaseModel model(store);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RepairCaseModel::Tray).data().toString(), QStringLiteral("r01-n02"));
        QCOMPARE(model.index(0, RepairCaseModel::State).data().toString(), QStringLiteral("open"));
        QCOMPARE(model.index(0, RepairCaseModel::Step).data().toString(), QStringLiteral("next: GPU reset"));
        QCOMPARE(model.index(0, RepairCaseModel::Age).data().toString(), QStringLiteral("30 min"));
        QCOMPARE(model.index(0, RepairCaseModel::Owner).data().toString(), QStringLiteral("—"));
        QCOMPARE(model.index(0, RepairCaseModel::OutOfService).data().toString(), QStringLiteral("1.5 GPU-h"));
        QCOMPARE(model.index(0, 0).data(EntityIdRole).value<EntityId>(), (EntityId{0, tray(1)}));

        // A second case opens, older: open cases list the longest open first.
        send(store, endpoint, 2, kT0 + 31 * kMinute, {},
             {repairCase(4, tray(5), "r01-n06", v1::REPAIR_CASE_STATE_OPEN, kT0 - 10 * kMinute,
                         v1::REPAIR_RUNG_POWER_CYCLE)});
        QCOMPARE(column(model, RepairCaseModel::Tray), (QStringList{"r01-n06", "r01-n02"}));
        QCOMPARE(model.openCount(), 2);

        // Automation runs the reset on r01-n02.
        v1::RepairCase resetting = repairCase(3, tray(1), "r01-n02", v1::REPAIR_CASE_STATE_OPEN, kT0);
        v1::RepairStep* reset = resetting.add_steps();
        reset->set_rung(v1::REPAIR_RUNG_RESET_GPU);
        reset->set_principal("auto");
        reset->set_started_unix_ms(kT0 + 32 * kMinute);
        resetting.set_automated(true);
        send(store, endpoint, 3, kT0 + 32 * kMinute, {}, {resetting});
        QCOMPARE(model.index(1, RepairCaseModel::Step).data().toString(), QStringLiteral("GPU reset running (auto)"));
        QCOMPARE(model.index(1, RepairCaseModel::Owner).data().toString(), QStringLiteral("auto"));

        // It closes fixed: after the open ones, with its time to repair.
        v1::RepairCase fixed = resetting;
        fixed.mutable_steps(0)->set_ended_unix_ms(kT0 + 40 * kMinute);
        fixed.mutable_steps(0)->set_succeeded(true);
        fixed.set_state(v1::REPAIR_CASE_STATE_FIXED);
        fixed.set_fixed_by(v1::REPAIR_RUNG_RESET_GPU);
        fixed.set_closed_unix_ms(kT0 + 2 * 3'600'000);
        send(store, endpoint, 4, kT0 + 121 * kMinute, {}, {fixed});
        QCOMPARE(column(model, RepairCaseModel::Tray), (QStringList{"r01-n06", "r01-n02"}));
        QCOMPARE(model.openCount(), 1);
        QCOMPARE(model.index(1, RepairCaseModel::State).data().toString(), QStringLiteral("fixed (auto)"));
        QCOMPARE(model.index(1, RepairCaseModel::Step).data().toString(), QStringLiteral("fixed by GPU reset"));
        QCOMPARE(model.index(1, RepairCaseModel::Age).data().toString(), QStringLiteral("2.0 h"));
        // The open case ages with the fleet clock.
        QCOMPARE(model.index(0, RepairCaseModel::Age).data().toString(), QStringLiteral("2.2 h"));
    }

    // Every open case and the newest 200 closed (FleetStateKinds RepairCases) are held; the view
    // lists the newest 50 closed after the open ones.
    void closedCasesAreBoundedAsFleetdBoundsThem() {
        FleetStore store;
        const int endpoint = store.addEndpoint("east");
        store.apply(endpoint, m_fleet.snapshot(1, kT0));
        std::vector<v1::RepairCase> cases;
        constexpr int kClosed = 230;
        for (int i = 1; i <= kClosed; ++i) {
            v1::RepairCase c =
                repairCase(std::uint64_t(i), tray(i % 18), "r01-n01", v1::REPAIR_CASE_STATE_RMA, kT0 + i * kMinute);
            c.set_closed_unix_ms(kT0 + i * kMinute + 1000);
            cases.push_back(c);
        }
        cases.push_back(repairCase(1000, tray(2), "r01-n03", v1::REPAIR_CASE_STATE_BURN_IN, kT0));
        send(store, endpoint, 2, kT0 + 300 * kMinute, {}, cases);
        const auto& held = store.endpointFleet(endpoint).repairCases();
        QCOMPARE(held.size(), watchfloor::fleetstate::RepairCases::kRetiredKept + 1);
        QCOMPARE(held.begin()->first, std::uint64_t(kClosed - 200 + 1));  // the oldest closed dropped
        QVERIFY(held.count(1000));                                        // open: always held
        RepairCaseModel model(store);
        QCOMPARE(model.rowCount(), 1 + RepairCaseModel::kClosedShown);
        QCOMPARE(model.caseAt(0)->record.id(), 1000u);
        QCOMPARE(model.caseAt(1)->record.id(), std::uint64_t(kClosed));  // newest closed first
    }

    void fleetNumbersMergeOverEndpoints() {
        FleetStore store;
        const int east = store.addEndpoint("east");
        const int west = store.addEndpoint("west");
        store.apply(east, m_fleet.snapshot(1, kT0));
        store.apply(west, m_fleet.snapshot(1, kT0));
        QVERIFY(!summarizeRepairs(store).any());
        auto stats = [](std::uint32_t automated, double mttrAuto, std::uint32_t manual, double mttrManual) {
            v1::SubscribeResponse m = delta(2, kT0);
            v1::FleetGoodput* fleet = m.mutable_delta()->mutable_fleet();
            fleet->set_time_unix_ms(kT0);
            v1::RepairStats* r = fleet->mutable_repairs();
            r->set_window_s(7 * 86400);
            r->set_open_cases(2);
            r->set_fixed(automated + manual);
            r->set_fixed_automated(automated);
            r->set_fixed_manual(manual);
            r->set_mttr_automated_s(mttrAuto);
            r->set_mttr_manual_s(mttrManual);
            r->set_mttr_s((mttrAuto * automated + mttrManual * manual) / double(automated + manual));
            r->set_fixed_by_reset(automated);
            r->set_fixed_by_power_cycle(manual);
            r->set_sent_to_rma(1);
            r->set_out_of_service_gpu_hours(10);
            return m;
        };
        store.apply(east, stats(3, 1800, 1, 7200));
        store.apply(west, stats(1, 3600, 3, 14400));
        store.flushChanges();
        const RepairSummary s = summarizeRepairs(store);
        QCOMPARE(s.endpoints, 2);
        QCOMPARE(s.fixed, 8u);
        QCOMPARE(s.open, 4u);
        QCOMPARE(s.sentToRma, 2u);
        QCOMPARE(s.mttrAutomatedS, (3 * 1800.0 + 3600.0) / 4.0);
        QCOMPARE(s.mttrManualS, (7200.0 + 3 * 14400.0) / 4.0);
        QCOMPARE(s.mttrS, (3 * 1800.0 + 7200 + 3600 + 3 * 14400.0) / 8.0);
        QCOMPARE(formatRepairDuration(s.mttrAutomatedS), QStringLiteral("38 min"));
        QCOMPARE(formatRepairDuration(s.mttrManualS), QStringLiteral("3.5 h"));
        QCOMPARE(repairOutcomeMix(s),
                 QStringLiteral("4 reset · 0 reboot · 4 power cycle · 0 diagnostics only · 2 RMA"));
    }

    void theHandoffListsThePeriodsRepairs() {
        HandoffInput in;
        in.fleet = QStringLiteral("demo");
        in.periodHours = 8;
        in.fleetNowUnixMs = kT0 + 10 * 3'600'000;
        in.wallNowUnixMs = in.fleetNowUnixMs;
        // Before the period and closed before it: left out.
        v1::RepairCase old = repairCase(1, 1, "r01-n01", v1::REPAIR_CASE_STATE_FIXED, kT0);
        old.set_closed_unix_ms(kT0 + 3'600'000);
        // Opened before the period, fixed in it by automation after 3 h.
        v1::RepairCase automated = repairCase(2, 2, "r01-n02", v1::REPAIR_CASE_STATE_FIXED, kT0);
        automated.set_closed_unix_ms(kT0 + 3 * 3'600'000);
        automated.set_automated(true);
        automated.set_fixed_by(v1::REPAIR_RUNG_REBOOT);
        // Opened and fixed in the period by a person after 1 h.
        v1::RepairCase manual = repairCase(3, 3, "r01-n03", v1::REPAIR_CASE_STATE_FIXED, kT0 + 4 * 3'600'000);
        manual.set_closed_unix_ms(kT0 + 5 * 3'600'000);
        manual.set_fixed_by(v1::REPAIR_RUNG_POWER_CYCLE);
        manual.set_owner("alice");
        // Opened in the period and open.
        v1::RepairCase open =
            repairCase(4, 4, "r01-n04", v1::REPAIR_CASE_STATE_OPEN, kT0 + 9 * 3'600'000, v1::REPAIR_RUNG_DIAGNOSTICS);
        for (const v1::RepairCase& c : {old, automated, manual, open}) in.repairs.push_back({QString(), c});
        const QString md = handoffMarkdown(in);
        QVERIFY2(md.contains(QStringLiteral("## Repairs (2 opened, 2 closed in the period)")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("Fixed 2 (MTTR 2.0 h; automated 3.0 h in 1, manual 60 min in 1) · sent to "
                                            "RMA 0 · fixed by reset 0, reboot 1, power cycle 1, diagnostics only 0")),
                 qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("| 4 | r01-n04 |")));
        QVERIFY(md.contains(QStringLiteral("| next: diagnostics |")));
        QVERIFY(md.contains(QStringLiteral("| fixed (auto) | fixed by reboot |")));
        QVERIFY(!md.contains(QStringLiteral("| 1 | r01-n01 |")));
        QVERIFY(md.indexOf(QStringLiteral("## Repairs")) < md.indexOf(QStringLiteral("## Goodput per job")));
    }
};

QTEST_GUILESS_MAIN(TestRepairCases)
#include "tst_repaircases.moc"
