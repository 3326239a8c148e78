// Repair cases through the real fleetd on the digital twin: the scenario's Xid 79 on r01-n04-g2
// opens the tray's case proposing a power cycle, the lifecycle goes to TRIAGE; an operator's power
// cycle (waiting for the drain of a tray whose job it interrupted) and diagnostics climb the ladder;
// passing diagnostics put the tray in burn-in, and the case closes FIXED once it served
// --repair-burn-in (lifecycle PRODUCTION, the fleet's MTTR counting a manual repair, /metrics
// saying so) — or, when the twin's power cycle did not clear the fault (its odds are 0.9), the
// ladder proposes RMA and a person's RMA closes it. The case survives a restart of fleetd with its
// id and duration, and ids go on. With --auto-remediate act automation takes the same steps as
// "auto" (an automated repair); with dry-run it records the step it would take and does nothing.

#include "FleetdControlFixture.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <httplib.h>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;
using watchfloor::testing::kSanitizerSlowdown;

namespace {

constexpr const char* kTray = "r01-n04";

QStringList twinWithXid79(const QTemporaryDir& dir, QStringList extra) {
    QFile scenario(dir.filePath("xid79.scn"));
    scenario.open(QIODevice::WriteOnly);
    scenario.write("at 5s xid 79 gpu=r01-n04-g2\n");
    scenario.close();
    QStringList args{"--seed",           "11",
                     "--speed",          "300",
                     "--scenario",       dir.filePath("xid79.scn"),
                     "--tokens",         writeTokens(dir),
                     "--audit-log",      dir.filePath("audit.jsonl"),
                     "--repair-burn-in", "1m"};
    return args + extra;
}

bool openOnTray(const v1::RepairCase& c) { return c.node_name() == kTray && c.state() == v1::REPAIR_CASE_STATE_OPEN; }

v1::ActionRequest onTray(v1::ActionType type, const std::string& requestId) {
    auto request = action(type, requestId, "repair case: Xid 79 on r01-n04-g2");
    request.set_node_name(kTray);
    request.set_wait_for_drain(true);
    return request;
}

}  // namespace

class TestFleetdRepairCases : public QObject {
    Q_OBJECT

    // Runs `request` as alice and waits for it to end; the operation as it ended.
    static v1::Operation run(ControlConnection& control, const v1::ActionRequest& request) {
        std::string why;
        const v1::Operation op = control.runToEnd(kAlice, request, nullptr, &why, 60s * kSanitizerSlowdown);
        if (op.id().empty()) qWarning("%s refused: %s", request.request_id().c_str(), why.c_str());
        return op;
    }

private slots:
    void anOperatorClimbsTheLadderAndTheCaseSurvivesARestart() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinWithXid79(dir, {"--metrics-listen", "127.0.0.1:0"})),
                 qPrintable(fleetd.errorString()));
        ControlConnection control(fleetd.address());
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());

        v1::RepairCase opened;
        QVERIFY(watch.waitForRepairCase(openOnTray, 30s, &opened));
        QCOMPARE(opened.next_rung(), v1::REPAIR_RUNG_POWER_CYCLE);  // Xid 79: RESTART_BM
        QCOMPARE(opened.recommended_action(), v1::XID_ACTION_RESTART_BM);
        QVERIFY2(opened.fault().find("Xid 79") != std::string::npos, opened.fault().c_str());
        QCOMPARE(opened.gpu_index(), 2u);
        const auto tray = watch.nodeIndex(kTray);
        QVERIFY(tray);
        // Without --auto-lifecycle the case proposes the tray's lifecycle moves.
        QVERIFY(watch.waitForState(
            *tray, [](const v1::EntityState& s) { return s.proposed_lifecycle() == v1::TRAY_LIFECYCLE_TRIAGE; }, 20s));

        // The power cycle on a tray whose job the Xid interrupted: drained first, then run.
        auto power = onTray(v1::ACTION_TYPE_POWER_CYCLE_NODE, "pc-1");
        const v1::Operation cycled = run(control, power);
        QVERIFY2(cycled.state() == v1::OPERATION_STATE_SUCCEEDED, cycled.DebugString().c_str());
        QCOMPARE(cycled.repair().power_state(), std::string("On"));
        v1::RepairCase c;
        QVERIFY(watch.waitForRepairCase(
            [&](const v1::RepairCase& k) {
                return k.id() == opened.id() && k.steps_size() == 1 && k.steps(0).ended_unix_ms() != 0;
            },
            20s, &c));
        QCOMPARE(c.steps(0).operation_id(), cycled.id());
        QCOMPARE(c.steps(0).principal(), std::string("alice"));
        QCOMPARE(c.owner(), std::string("alice"));
        QCOMPARE(c.next_rung(), v1::REPAIR_RUNG_DIAGNOSTICS);

        auto diagnostics = onTray(v1::ACTION_TYPE_RUN_DIAGNOSTICS, "diag-1");
        diagnostics.set_diagnostic_level(2);
        diagnostics.set_after_repair(v1::TRAY_AFTER_REPAIR_RESUME);
        const v1::Operation diagnosed = run(control, diagnostics);
        QVERIFY(isFinished(diagnosed));
        std::int64_t repairMs = 0;
        if (diagnosed.repair().succeeded()) {
            // Burn-in: the tray serves again; a simulated minute later the case closes.
            QVERIFY(watch.waitForRepairCase(
                [&](const v1::RepairCase& k) {
                    return k.id() == opened.id() && k.state() == v1::REPAIR_CASE_STATE_FIXED;
                },
                30s, &c));
            QCOMPARE(c.fixed_by(), v1::REPAIR_RUNG_POWER_CYCLE);
            QVERIFY(!c.automated());
            // Back in production: a tray never set reads PRODUCTION, so nothing is left to propose.
            QVERIFY(watch.waitForState(
                *tray,
                [](const v1::EntityState& s) {
                    return s.proposed_lifecycle() == v1::TRAY_LIFECYCLE_UNSPECIFIED &&
                           s.lifecycle() == v1::TRAY_LIFECYCLE_UNSPECIFIED;
                },
                20s));
            v1::FleetGoodput fleet;
            QVERIFY(
                watch.waitForFleet([](const v1::FleetGoodput& f) { return f.repairs().fixed() == 1; }, 20s, &fleet));
            QCOMPARE(fleet.repairs().fixed_manual(), 1u);
            QCOMPARE(fleet.repairs().fixed_by_power_cycle(), 1u);
            QVERIFY(fleet.repairs().mttr_manual_s() > 60);  // at least the burn-in
            QCOMPARE(fleet.repairs().mttr_automated_s(), 0.0);
            const auto port = QRegularExpression("metrics on port (\\d+)").match(QString::fromUtf8(fleetd.log()));
            QVERIFY(port.hasMatch());
            httplib::Client metrics("127.0.0.1", port.captured(1).toInt());
            const auto page = metrics.Get("/metrics");
            QVERIFY(page && page->status == 200);
            QVERIFY2(page->body.find("fleetd_repairs_fixed{repair=\"manual\"} 1") != std::string::npos,
                     page->body.c_str());
            QVERIFY(page->body.find("fleetd_repair_mttr_seconds{repair=\"manual\"}") != std::string::npos);
            qInfo(
                "the demo's Xid 79 repaired by hand: power cycle, diagnostics, 1 min burn-in: MTTR %.0f s (fleet "
                "clock), fixed by power cycle",
                fleet.repairs().mttr_manual_s());
        } else {
            // The fault outlived the power cycle: after it, the ladder proposes RMA; a person decides.
            QVERIFY(watch.waitForRepairCase(
                [&](const v1::RepairCase& k) { return k.id() == opened.id() && k.next_rung() == v1::REPAIR_RUNG_RMA; },
                20s, &c));
            auto rma = action(v1::ACTION_TYPE_SET_LIFECYCLE, "rma-1", "GPU off the bus after a power cycle");
            rma.set_node_name(kTray);
            rma.set_lifecycle(v1::TRAY_LIFECYCLE_RMA);
            QVERIFY(run(control, rma).state() == v1::OPERATION_STATE_SUCCEEDED);
            QVERIFY(watch.waitForRepairCase(
                [&](const v1::RepairCase& k) {
                    return k.id() == opened.id() && k.state() == v1::REPAIR_CASE_STATE_RMA;
                },
                20s, &c));
        }
        repairMs = c.closed_unix_ms() - c.opened_unix_ms();
        QVERIFY(repairMs > 0);
        QCOMPARE(fleetd.terminate(), 0);

        // Restarted on the same audit log: the closed case is back with its id and duration; the
        // scenario's Xid (the twin starts again) opens the next id.
        FleetdProcess again;
        QVERIFY2(again.start(twinWithXid79(dir, {})), qPrintable(again.errorString()));
        FleetWatch after(again.address());
        QVERIFY(after.ready());
        const auto restored = after.repairCases().find(opened.id());
        QVERIFY(restored != after.repairCases().end());
        QCOMPARE(restored->second.state(), c.state());
        QCOMPARE(restored->second.closed_unix_ms() - restored->second.opened_unix_ms(), repairMs);
        QCOMPARE(restored->second.steps_size(), c.steps_size());
        v1::RepairCase next;
        QVERIFY(after.waitForRepairCase(openOnTray, 30s, &next));
        QCOMPARE(next.id(), opened.id() + 1);
        QCOMPARE(again.terminate(), 0);
    }

    void automationWorksTheCaseAsAuto() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(
            fleetd.start(twinWithXid79(dir, {"--auto-drain", "5/1h", "--auto-remediate", "act", "--auto-lifecycle"})),
            qPrintable(fleetd.errorString()));
        ControlConnection control(fleetd.address());
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        QVERIFY(watch.waitForAutomation(
            [](const v1::AutomationStatus& a) { return a.auto_remediation() == v1::AUTO_REMEDIATION_ACTS; }, 10s));
        // Power cycle, then diagnostics, both as "auto"; then burn-in or (the fault outlived the
        // power cycle) automation stands back at the RMA proposal.
        v1::RepairCase c;
        QVERIFY(watch.waitForRepairCase(
            [](const v1::RepairCase& k) {
                return k.node_name() == kTray &&
                       (k.state() == v1::REPAIR_CASE_STATE_FIXED || k.next_rung() == v1::REPAIR_RUNG_RMA);
            },
            60s, &c));
        QVERIFY2(c.steps_size() >= 2, c.DebugString().c_str());
        QCOMPARE(c.steps(0).rung(), v1::REPAIR_RUNG_POWER_CYCLE);
        QCOMPARE(c.steps(1).rung(), v1::REPAIR_RUNG_DIAGNOSTICS);
        for (const auto& step : c.steps()) {
            QCOMPARE(step.principal(), std::string("auto"));
            QVERIFY(!step.dry_run());
            v1::Operation op;
            QVERIFY(control.get(kAlice, step.operation_id(), {}, &op).ok());
            QVERIFY(op.automated());
            QVERIFY(op.request().wait_for_drain());
        }
        QVERIFY(c.owner().empty());
        if (c.state() == v1::REPAIR_CASE_STATE_FIXED) {
            QVERIFY(c.automated());
            // --auto-lifecycle: the case set TRIAGE, BURN_IN and PRODUCTION itself, as "auto".
            v1::EntityState state;
            QVERIFY(watch.waitForState(
                *watch.nodeIndex(kTray),
                [](const v1::EntityState& s) { return s.lifecycle() == v1::TRAY_LIFECYCLE_PRODUCTION; }, 20s, &state));
            QCOMPARE(state.lifecycle_set_by(), std::string("auto"));
            v1::FleetGoodput fleet;
            QVERIFY(watch.waitForFleet([](const v1::FleetGoodput& f) { return f.repairs().fixed_automated() == 1; },
                                       20s, &fleet));
            QVERIFY(fleet.repairs().mttr_automated_s() > 0);
            qInfo("the demo's Xid 79 repaired by automation: MTTR %.0f s (fleet clock)",
                  fleet.repairs().mttr_automated_s());
        } else {
            bool stoodBack = false;
            for (const auto& note : c.timeline()) stoodBack |= note.text().find("stands back") != std::string::npos;
            QVERIFY2(stoodBack, c.DebugString().c_str());
        }
        QCOMPARE(fleetd.terminate(), 0);
    }

    void aDryRunOnlyRecordsWhatItWouldDo() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinWithXid79(dir, {"--auto-drain", "5/1h", "--auto-remediate", "dry-run"})),
                 qPrintable(fleetd.errorString()));
        ControlConnection control(fleetd.address());
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        v1::RepairCase c;
        QVERIFY(watch.waitForRepairCase(
            [](const v1::RepairCase& k) { return k.node_name() == kTray && k.steps_size() > 0; }, 30s, &c));
        QCOMPARE(c.steps_size(), 1);
        QVERIFY(c.steps(0).dry_run());
        QVERIFY(c.steps(0).operation_id().empty());
        QVERIFY2(c.steps(0).outcome().find("would drain r01-n04") != std::string::npos, c.steps(0).outcome().c_str());
        QCOMPARE(c.next_rung(), v1::REPAIR_RUNG_POWER_CYCLE);  // still proposed: nothing was done
        std::this_thread::sleep_for(2s);                       // a few simulated minutes: automation must still not act
        v1::ListOperationsResponse operations;
        QVERIFY(control.list(kAlice, &operations).ok());
        for (const auto& op : operations.operations())
            QVERIFY2(op.request().type() < v1::ACTION_TYPE_RESET_GPU, op.DebugString().c_str());
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFleetdRepairCases)
#include "tst_fleetd_repair_cases.moc"
