// Repair cases (control::RepairCaseBook): a repair-bucket Xid opens one case a tray (TRIAGE asked),
// the ladder's next rung after each step (a fix that worked -> diagnostics, one that failed -> the
// next fix rung, failed diagnostics -> up the ladder, RMA after a power cycle or twice), burn-in
// that counts only while the tray serves and closes FIXED (PRODUCTION asked), a fault in burn-in
// reopening it one rung up, a person's RMA or PRODUCTION closing it (a state set before the case
// does not), rack power cycles, bounds, dry runs, MTTR split automated / manual and the outcome
// mix; RepairCaseFile: cases saved and read back on a later run's clock, damaged lines skipped.
#include "RepairCaseBook.h"
#include "RepairCaseFile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kT0 = 1'800'000'000'000;  // any tick clock

RepairFault xid(const std::string& node, v1::XidAction action, std::int64_t timeMs, std::uint32_t gpu = 2) {
    RepairFault fault;
    fault.nodeIndex = 40;
    fault.node = node;
    fault.gpu = gpu;
    fault.eventId = 7;
    fault.timeMs = timeMs;
    fault.text = "Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on " + node + "-g" + std::to_string(gpu);
    fault.action = action;
    return fault;
}

v1::Operation step(const std::string& id, v1::ActionType type, const std::string& node, v1::OperationState state,
                   bool succeeded = true, const std::string& principal = "alice") {
    v1::Operation op;
    op.set_id(id);
    op.mutable_request()->set_type(type);
    op.mutable_request()->set_node_name(node);
    op.set_principal(principal);
    op.set_automated(principal == "auto");
    op.set_state(state);
    op.set_progress_message("draining");
    if (state == v1::OPERATION_STATE_SUCCEEDED || state == v1::OPERATION_STATE_FAILED) {
        op.mutable_repair()->set_backend("twin");
        op.mutable_repair()->set_succeeded(succeeded);
        op.mutable_repair()->set_command_ran(true);
        op.mutable_repair()->set_exit_status(succeeded ? 0 : 1);
        if (!succeeded && state == v1::OPERATION_STATE_FAILED) op.set_error("the step failed on the tray");
    }
    return op;
}

// Runs one step to its end: accepted (running), then ended.
void take(RepairCaseBook& book, const std::string& id, v1::ActionType type, const std::string& node,
          std::int64_t startMs, std::int64_t endMs, bool succeeded, const std::string& principal = "alice") {
    book.operation(step(id, type, node, v1::OPERATION_STATE_RUNNING, true, principal), startMs);
    book.operation(step(id, type, node, succeeded ? v1::OPERATION_STATE_SUCCEEDED : v1::OPERATION_STATE_FAILED,
                        succeeded, principal),
                   endMs);
}

bool serving(const std::string&) { return true; }
bool drained(const std::string&) { return false; }

}  // namespace

class TestRepairCases : public QObject {
    Q_OBJECT
private slots:
    void aRepairXidOpensOneCaseATray() {
        RepairCaseBook book({});
        QCOMPARE(book.fault(xid("r01-n04", v1::XID_ACTION_RESTART_APP, kT0)), std::uint64_t(0));  // not a repair
        QCOMPARE(book.fault(xid("r01-n04", v1::XID_ACTION_IGNORE, kT0)), std::uint64_t(0));
        const std::uint64_t id = book.fault(xid("r01-n04", v1::XID_ACTION_RESTART_BM, kT0));
        QCOMPARE(id, std::uint64_t(1));
        const v1::RepairCase* c = book.openCase("r01-n04");
        QVERIFY(c);
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_OPEN);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_POWER_CYCLE);  // the RESTART_BM bucket
        QCOMPARE(c->gpu_index(), 2u);
        QCOMPARE(c->opened_unix_ms(), kT0);
        const auto asked = book.takeLifecycleRequests();
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(asked[0].state, v1::TRAY_LIFECYCLE_TRIAGE);
        QCOMPARE(asked[0].node, std::string("r01-n04"));
        // A second fault on the same tray is counted on the open case, not a second case.
        QCOMPARE(book.fault(xid("r01-n04", v1::XID_ACTION_RESET_GPU, kT0 + kMinuteMs)), id);
        QCOMPARE(book.openCase("r01-n04")->faults(), 2u);
        QVERIFY(book.takeLifecycleRequests().empty());
        QCOMPARE(book.fault(xid("r02-n01", v1::XID_ACTION_RESET_GPU, kT0)), std::uint64_t(2));
        QCOMPARE(book.openCase("r02-n01")->next_rung(), v1::REPAIR_RUNG_RESET_GPU);
        QCOMPARE(book.takeChanges().size(), std::size_t(2));
        QVERIFY(book.takeChanges().empty());
    }

    void theLadderGoesThroughBurnInToProduction() {
        RepairCaseBook book({std::chrono::minutes(30), std::chrono::hours(24), 4});
        book.fault(xid("r01-n04", v1::XID_ACTION_RESTART_BM, kT0));
        book.takeLifecycleRequests();
        book.operation(step("op-1", v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n04", v1::OPERATION_STATE_RUNNING),
                       kT0 + kMinuteMs);
        const v1::RepairCase* c = book.openCase("r01-n04");
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_UNSPECIFIED);  // a step runs
        QVERIFY(c->next_reason().find("power cycle in progress") != std::string::npos);
        QCOMPARE(c->owner(), std::string("alice"));
        QVERIFY(!c->automated());
        book.operation(step("op-1", v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n04", v1::OPERATION_STATE_SUCCEEDED),
                       kT0 + 10 * kMinuteMs);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_DIAGNOSTICS);
        QCOMPARE(c->steps_size(), 1);
        QCOMPARE(c->steps(0).ended_unix_ms(), kT0 + 10 * kMinuteMs);
        QVERIFY(c->steps(0).succeeded());
        QCOMPARE(c->steps(0).outcome(), std::string("exit status 0"));
        take(book, "op-2", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n04", kT0 + 11 * kMinuteMs, kT0 + 20 * kMinuteMs,
             true);
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_BURN_IN);
        QCOMPARE(c->fixed_by(), v1::REPAIR_RUNG_POWER_CYCLE);
        auto asked = book.takeLifecycleRequests();
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(asked[0].state, v1::TRAY_LIFECYCLE_BURN_IN);

        // Burn-in counts only while the tray serves.
        book.advance(kT0 + 21 * kMinuteMs, drained);
        QCOMPARE(c->burn_in_until_unix_ms(), std::int64_t(0));
        QVERIFY(c->next_reason().find("resume") != std::string::npos);
        book.advance(kT0 + 60 * kMinuteMs, serving);
        QCOMPARE(c->burn_in_until_unix_ms(), kT0 + 90 * kMinuteMs);
        book.advance(kT0 + 89 * kMinuteMs, serving);
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_BURN_IN);
        book.advance(kT0 + 90 * kMinuteMs, serving);
        QVERIFY(!book.openCase("r01-n04"));
        const v1::RepairCase* closed = book.find(1);
        QCOMPARE(closed->state(), v1::REPAIR_CASE_STATE_FIXED);
        QCOMPARE(closed->closed_unix_ms(), kT0 + 90 * kMinuteMs);
        QCOMPARE(closed->out_of_service_gpu_hours(), 4 * 1.5);
        asked = book.takeLifecycleRequests();
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(asked[0].state, v1::TRAY_LIFECYCLE_PRODUCTION);

        const v1::RepairStats stats = book.stats(kT0 + 90 * kMinuteMs);
        QCOMPARE(stats.fixed(), 1u);
        QCOMPARE(stats.fixed_manual(), 1u);
        QCOMPARE(stats.fixed_automated(), 0u);
        QCOMPARE(stats.fixed_by_power_cycle(), 1u);
        QCOMPARE(stats.mttr_s(), 90 * 60.0);
        QCOMPARE(stats.mttr_manual_s(), 90 * 60.0);
        QCOMPARE(stats.mttr_automated_s(), 0.0);
        QCOMPARE(stats.open_cases(), 0u);
        // Outside the window it no longer counts.
        QCOMPARE(book.stats(kT0 + 90 * kMinuteMs + 25 * 60 * kMinuteMs).fixed(), 0u);
    }

    void failuresClimbTheLadderToRma() {
        RepairCaseBook book({});
        book.fault(xid("r01-n03", v1::XID_ACTION_RESET_GPU, kT0));
        take(book, "op-1", v1::ACTION_TYPE_RESET_GPU, "r01-n03", kT0, kT0 + kMinuteMs, false);
        const v1::RepairCase* c = book.openCase("r01-n03");
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_REBOOT);  // the reset failed
        QVERIFY(c->next_reason().find("GPU reset failed") != std::string::npos);
        take(book, "op-2", v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", kT0 + 2 * kMinuteMs, kT0 + 5 * kMinuteMs, true);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_DIAGNOSTICS);
        take(book, "op-3", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n03", kT0 + 6 * kMinuteMs, kT0 + 9 * kMinuteMs, false);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_POWER_CYCLE);  // above the reboot
        take(book, "op-4", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n03", kT0 + 10 * kMinuteMs, kT0 + 12 * kMinuteMs,
             false);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_RMA);  // failed twice
        QVERIFY(c->next_reason().find("twice") != std::string::npos);
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_OPEN);

        // A person sends it back: closed RMA.
        book.lifecycle("r01-n03", {v1::TRAY_LIFECYCLE_TRIAGE, "auto", "auto: case", kT0}, kT0 + 12 * kMinuteMs);
        book.lifecycle("r01-n03", {v1::TRAY_LIFECYCLE_RMA, "bob", "bob: back to vendor", kT0 + 1},
                       kT0 + 13 * kMinuteMs);
        QVERIFY(!book.openCase("r01-n03"));
        QCOMPARE(book.find(1)->state(), v1::REPAIR_CASE_STATE_RMA);
        QCOMPARE(book.stats(kT0 + 13 * kMinuteMs).sent_to_rma(), 1u);
        QCOMPARE(book.stats(kT0 + 13 * kMinuteMs).fixed(), 0u);
    }

    void diagnosticsFailingAfterAPowerCycleProposeRma() {
        RepairCaseBook book({});
        book.fault(xid("r01-n05", v1::XID_ACTION_RESTART_BM, kT0));
        take(book, "op-1", v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n05", kT0, kT0 + kMinuteMs, true);
        take(book, "op-2", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n05", kT0 + kMinuteMs, kT0 + 2 * kMinuteMs, false);
        QCOMPARE(book.openCase("r01-n05")->next_rung(), v1::REPAIR_RUNG_RMA);
    }

    void aFaultInBurnInReopensOneRungUp() {
        RepairCaseBook book({});
        book.fault(xid("r01-n04", v1::XID_ACTION_RESET_GPU, kT0));
        take(book, "op-1", v1::ACTION_TYPE_RESET_GPU, "r01-n04", kT0, kT0 + kMinuteMs, true);
        take(book, "op-2", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n04", kT0 + kMinuteMs, kT0 + 2 * kMinuteMs, true);
        QCOMPARE(book.openCase("r01-n04")->state(), v1::REPAIR_CASE_STATE_BURN_IN);
        book.takeLifecycleRequests();
        book.advance(kT0 + 3 * kMinuteMs, serving);
        QCOMPARE(book.fault(xid("r01-n04", v1::XID_ACTION_RESET_GPU, kT0 + 10 * kMinuteMs)), std::uint64_t(1));
        const v1::RepairCase* c = book.openCase("r01-n04");
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_OPEN);
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_REBOOT);  // above the reset that did not hold
        QCOMPARE(c->faults(), 2u);
        QCOMPARE(c->burn_in_until_unix_ms(), std::int64_t(0));
        const auto asked = book.takeLifecycleRequests();
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(asked[0].state, v1::TRAY_LIFECYCLE_TRIAGE);
    }

    void onlyAPersonsChangeWhileOpenClosesTheCase() {
        RepairCaseBook book({});
        book.fault(xid("r01-n04", v1::XID_ACTION_RESET_GPU, kT0));
        // Set PRODUCTION by a person last week: the first look is the baseline, not a close.
        const LifecycleEntry before{v1::TRAY_LIFECYCLE_PRODUCTION, "alice", "alice: vouched",
                                    kT0 - 7 * 1440 * kMinuteMs};
        book.lifecycle("r01-n04", before, kT0);
        book.lifecycle("r01-n04", before, kT0 + kMinuteMs);
        QVERIFY(book.openCase("r01-n04"));
        // Automation's TRIAGE is no close either.
        book.lifecycle("r01-n04", {v1::TRAY_LIFECYCLE_TRIAGE, "auto", "auto: case 1", kT0 + 1}, kT0 + 2 * kMinuteMs);
        QVERIFY(book.openCase("r01-n04"));
        book.lifecycle("r01-n04", {v1::TRAY_LIFECYCLE_PRODUCTION, "carol", "carol: checked by hand", kT0 + 2},
                       kT0 + 3 * kMinuteMs);
        QVERIFY(!book.openCase("r01-n04"));
        const v1::RepairCase* c = book.find(1);
        QCOMPARE(c->state(), v1::REPAIR_CASE_STATE_FIXED);
        QCOMPARE(c->fixed_by(), v1::REPAIR_RUNG_DIAGNOSTICS);  // no step was needed
        QVERIFY(!c->automated());
        QCOMPARE(c->timeline(c->timeline_size() - 1).actor(), std::string("carol"));
    }

    void automatedAndManualRepairsAreCountedApart() {
        RepairCaseBook book({std::chrono::minutes(10), std::chrono::hours(24), 4});
        book.fault(xid("r01-n01", v1::XID_ACTION_RESET_GPU, kT0));
        take(book, "a-1", v1::ACTION_TYPE_RESET_GPU, "r01-n01", kT0, kT0 + kMinuteMs, true, "auto");
        take(book, "a-2", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n01", kT0 + kMinuteMs, kT0 + 2 * kMinuteMs, true,
             "auto");
        QVERIFY(book.openCase("r01-n01")->automated());
        QCOMPARE(book.openCase("r01-n01")->owner(), std::string());
        book.advance(kT0 + 2 * kMinuteMs, serving);  // r01-n01's burn-in starts
        book.fault(xid("r01-n02", v1::XID_ACTION_RESET_GPU, kT0));
        take(book, "m-1", v1::ACTION_TYPE_REBOOT_NODE, "r01-n02", kT0, kT0 + 5 * kMinuteMs, true, "bob");
        take(book, "m-2", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n02", kT0 + 5 * kMinuteMs, kT0 + 6 * kMinuteMs, true,
             "auto");
        book.advance(kT0 + 6 * kMinuteMs, serving);
        book.advance(kT0 + 12 * kMinuteMs, serving);
        book.advance(kT0 + 16 * kMinuteMs, serving);
        QVERIFY(book.open().empty());
        const v1::RepairStats s = book.stats(kT0 + 16 * kMinuteMs);
        QCOMPARE(s.fixed(), 2u);
        QCOMPARE(s.fixed_automated(), 1u);
        QCOMPARE(s.fixed_manual(), 1u);  // one step by a person makes the repair manual
        QCOMPARE(s.fixed_by_reset(), 1u);
        QCOMPARE(s.fixed_by_reboot(), 1u);
        QCOMPARE(s.mttr_automated_s(), 12 * 60.0);  // burn-in counted from the first look in service: 2 + 10 min
        QCOMPARE(s.mttr_manual_s(), 16 * 60.0);
        QCOMPARE(s.mttr_s(), 14 * 60.0);
    }

    void aRackPowerCycleIsAStepOfEveryTraysCase() {
        RepairCaseBook book({});
        book.fault(xid("r01-n01", v1::XID_ACTION_RESTART_BM, kT0));
        book.fault(xid("r01-n02", v1::XID_ACTION_RESTART_BM, kT0));
        v1::Operation op = step("rk-1", v1::ACTION_TYPE_POWER_CYCLE_RACK, "", v1::OPERATION_STATE_RUNNING);
        op.mutable_request()->set_rack_name("r01");
        for (const char* tray : {"r01-n01", "r01-n02", "r01-n03"}) op.mutable_preview()->add_trays(tray);
        book.operation(op, kT0 + kMinuteMs);
        QCOMPARE(book.openCase("r01-n01")->steps_size(), 1);
        QCOMPARE(book.openCase("r01-n02")->steps(0).rung(), v1::REPAIR_RUNG_POWER_CYCLE);
        QVERIFY(!book.openCase("r01-n03"));  // no case: a step alone opens none
    }

    void otherOperationsAndStepsWithoutACaseChangeNothing() {
        RepairCaseBook book({});
        book.operation(step("op-1", v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n01", v1::OPERATION_STATE_RUNNING), kT0);
        QVERIFY(book.all().empty());
        book.fault(xid("r01-n01", v1::XID_ACTION_RESET_GPU, kT0));
        book.takeChanges();
        book.operation(step("op-2", v1::ACTION_TYPE_DRAIN_NODE, "r01-n01", v1::OPERATION_STATE_SUCCEEDED), kT0);
        QVERIFY(book.takeChanges().empty());
        QCOMPARE(book.openCase("r01-n01")->steps_size(), 0);
    }

    void stepsNotesAndTheEndedStepAreBounded() {
        RepairCaseBook book({});
        book.fault(xid("r01-n01", v1::XID_ACTION_RESET_GPU, kT0));
        for (int i = 0; i < 40; ++i)
            take(book, "op-" + std::to_string(i), v1::ACTION_TYPE_RESET_GPU, "r01-n01", kT0 + i, kT0 + i, true);
        const v1::RepairCase* c = book.openCase("r01-n01");
        QCOMPARE(c->steps_size(), RepairCaseBook::kMaxSteps);
        QCOMPARE(c->steps(0).operation_id(), std::string("op-8"));
        QCOMPARE(c->timeline_size(), RepairCaseBook::kMaxNotes);
        // A repeat of a finished operation's state is not a second end.
        const std::int64_t ended = c->steps(c->steps_size() - 1).ended_unix_ms();
        book.operation(step("op-39", v1::ACTION_TYPE_RESET_GPU, "r01-n01", v1::OPERATION_STATE_SUCCEEDED),
                       kT0 + kMinuteMs);
        QCOMPARE(c->steps(c->steps_size() - 1).ended_unix_ms(), ended);
    }

    void gpuHoursAreStreamedEveryMinuteButNotSaved() {
        RepairCaseBook book({});
        book.fault(xid("r01-n01", v1::XID_ACTION_RESET_GPU, kT0));
        book.takeChanges();
        const std::uint64_t revision = book.revision();
        book.advance(kT0 + 30'000, drained);  // within the minute: nothing
        QVERIFY(book.takeChanges().empty());
        book.advance(kT0 + 2 * kMinuteMs, drained);
        const auto changes = book.takeChanges();
        QCOMPARE(changes.size(), std::size_t(1));
        QCOMPARE(changes[0].out_of_service_gpu_hours(), 4 * 2 / 60.0);
        QCOMPARE(book.revision(), revision);  // the file is not rewritten for the clock
    }

    void aDryRunIsRecordedAsSuch() {
        RepairCaseBook book({});
        const std::uint64_t id = book.fault(xid("r01-n01", v1::XID_ACTION_RESET_GPU, kT0));
        book.dryRun(id, v1::REPAIR_RUNG_RESET_GPU, "would drain r01-n01, reset GPU 2, run diagnostics", kT0 + 1);
        const v1::RepairCase* c = book.openCase("r01-n01");
        QCOMPARE(c->steps_size(), 1);
        QVERIFY(c->steps(0).dry_run());
        QVERIFY(c->steps(0).operation_id().empty());
        QCOMPARE(c->next_rung(), v1::REPAIR_RUNG_RESET_GPU);  // still what the ladder proposes: nothing was done
    }

    void casesComeBackOnTheNextRunsClock() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("audit.jsonl.repair-cases").toStdString();
        RepairCaseBook book({});
        book.fault(xid("r01-n04", v1::XID_ACTION_RESTART_BM, kT0));
        take(book, "op-1", v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n04", kT0 + kMinuteMs, kT0 + 5 * kMinuteMs, true);
        book.fault(xid("r01-n05", v1::XID_ACTION_RESET_GPU, kT0));
        book.lifecycle("r01-n05", {}, kT0);
        book.lifecycle("r01-n05", {v1::TRAY_LIFECYCLE_RMA, "bob", "bob: rma", 5}, kT0 + 2 * kMinuteMs);
        std::vector<const v1::RepairCase*> all;
        for (const auto& [id, c] : book.all()) all.push_back(&c);
        RepairCaseFile file(path);
        const std::int64_t wall = 1'700'000'000'000;
        QVERIFY(file.save(all, book.nextId(), kT0 + 10 * kMinuteMs, wall).empty());

        // The next run's clock starts elsewhere (the twin's), and fleetd was down 2 minutes.
        const std::int64_t next = 5'000'000;
        const RepairCaseLoad loaded =
            file.load([](const std::string& t) { return t != "r09-n01"; }, next, wall + 2 * kMinuteMs);
        QVERIFY(loaded.found);
        QVERIFY2(loaded.error.empty(), loaded.error.c_str());
        QCOMPARE(loaded.cases.size(), std::size_t(2));
        QCOMPARE(loaded.nextId, std::uint64_t(3));
        const v1::RepairCase& c = loaded.cases[0];
        QCOMPARE(c.node_name(), std::string("r01-n04"));
        // Saved 10 minutes after it opened, down 2: it opened 12 minutes before this run's now.
        QCOMPARE(c.opened_unix_ms(), next - 12 * kMinuteMs);
        QCOMPARE(c.steps(0).ended_unix_ms() - c.steps(0).started_unix_ms(), 4 * kMinuteMs);
        QCOMPARE(c.next_rung(), v1::REPAIR_RUNG_DIAGNOSTICS);
        QCOMPARE(loaded.cases[1].closed_unix_ms() - loaded.cases[1].opened_unix_ms(), 2 * kMinuteMs);

        RepairCaseBook again({});
        again.restore(loaded.cases, loaded.nextId);
        QVERIFY(again.openCase("r01-n04"));
        QVERIFY(!again.openCase("r01-n05"));
        QCOMPARE(again.fault(xid("r02-n01", v1::XID_ACTION_RESET_GPU, next)), std::uint64_t(3));  // ids go on
        QCOMPARE(again.takeChanges().size(), std::size_t(3));  // restored ones are sent too
    }

    void aDamagedFileLosesOnlyItsBadLines() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("cases").toStdString();
        QFile out(QString::fromStdString(path));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(
            "watchfloor-repair-cases 1\nsaved 100 200 9\n"
            "{\"id\":\"4\",\"nodeName\":\"r01-n01\",\"state\":\"REPAIR_CASE_STATE_OPEN\",\"openedUnixMs\":\"50\"}\n"
            "{\"id\":\"5\",\"nodeName\":\"r01-n02\",\"sta\n"
            "not json at all\n"
            "{\"id\":\"6\",\"nodeName\":\"r77-n01\"}\n"
            "{\"id\":\"0\",\"nodeName\":\"r01-n03\"}\n");
        out.close();
        const RepairCaseLoad loaded =
            RepairCaseFile(path).load([](const std::string& t) { return t.rfind("r01", 0) == 0; }, 100, 200);
        QVERIFY(loaded.error.empty());
        QCOMPARE(loaded.cases.size(), std::size_t(1));
        QCOMPARE(loaded.cases[0].opened_unix_ms(), std::int64_t(50));
        QCOMPARE(loaded.skippedLines, std::size_t(4));
        QCOMPARE(loaded.nextId, std::uint64_t(9));

        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write("watchfloor-lemon-failures 1\nsaved 1 2\n");
        out.close();
        const RepairCaseLoad foreign = RepairCaseFile(path).load([](const std::string&) { return true; }, 0, 0);
        QVERIFY(foreign.found);
        QVERIFY(foreign.error.find("not a repair case file") != std::string::npos);
        QVERIFY(foreign.cases.empty());
        QVERIFY(!RepairCaseFile(dir.filePath("none").toStdString())
                     .load([](const std::string&) { return true; }, 0, 0)
                     .found);
    }
};

QTEST_GUILESS_MAIN(TestRepairCases)
#include "tst_control_repair_cases.moc"
