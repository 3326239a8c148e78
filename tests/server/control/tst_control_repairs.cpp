// The operations engine's break/fix steps (ActionType 50-54) over a scripted RepairBackend: the
// preview's rules (busy trays, GPU index, levels, a rack's two-person rule), the drain before
// every step, one start per step however often the engine ticks, the outcome as the back end
// reported it, and one step per tray at a time. The back ends themselves are tested against the
// twin (tests/server/sim) and a real Slurm (tests/server/repair).

#include "ControlTestFleet.h"
#include "OperationsEngine.h"
#include "RedfishRepairBackend.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <mutex>

using namespace watchfloor::server::control;
using control_test::kAlice;
using control_test::kBob;
using control_test::kVal;
using control_test::RecordingActuator;
using control_test::TestFleet;
namespace v1 = watchfloor::v1;

namespace {

// Each step ends after `pollsToFinish` polls with `succeed`; records every start and poll.
class ScriptedBackend : public RepairBackend {
public:
    std::string name() const override { return label; }
    double expectedOutOfServiceSeconds(const RepairStep& step) const override {
        return step.type == v1::ACTION_TYPE_REBOOT_NODE ? 600 : 120;
    }
    RepairProgress start(const RepairStep& step) override {
        std::lock_guard lock(mutex_);
        starts.push_back(step);
        RepairProgress progress;
        if (!refuseStart.empty()) {
            progress.finished = true;
            progress.message = refuseStart;
            return progress;
        }
        progress.outcome.set_handle("h-" + step.node);
        progress.message = "started on " + step.node;
        polls[progress.outcome.handle()] = 0;
        return progress;
    }
    RepairProgress poll(const RepairStep& step, const std::string& handle) override {
        std::lock_guard lock(mutex_);
        RepairProgress progress;
        const int n = ++polls[handle];
        progress.ratio = double(n) / pollsToFinish;
        if (n < pollsToFinish) {
            progress.message = "rebooting " + step.node;
            return progress;
        }
        progress.finished = true;
        progress.message = step.node + (succeed ? " is back" : " did not come back");
        progress.outcome.set_succeeded(succeed);
        progress.outcome.set_command_ran(true);
        progress.outcome.set_exit_status(succeed ? 0 : 255);
        return progress;
    }
    std::size_t startsOn(const std::string& node) const {
        std::lock_guard lock(mutex_);
        return std::size_t(std::count_if(starts.begin(), starts.end(), [&](const auto& s) { return s.node == node; }));
    }

    std::string label = "scripted";
    int pollsToFinish = 3;
    bool succeed = true;
    std::string refuseStart;
    std::vector<RepairStep> starts;
    std::map<std::string, int> polls;
    mutable std::mutex mutex_;
};

v1::ActionRequest step(v1::ActionType type, const std::string& node, const std::string& requestId) {
    v1::ActionRequest request;
    request.set_request_id(requestId);
    request.set_type(type);
    request.set_node_name(node);
    request.set_reason("Xid 79 on g2");
    return request;
}

struct Harness {
    QTemporaryDir dir;
    TestFleet fleet;
    std::unique_ptr<AuditLog> audit;
    std::unique_ptr<RecordingActuator> actuator;
    ScriptedBackend backend;
    std::unique_ptr<OperationsEngine> engine;

    explicit Harness(bool withBackend = true) {
        const std::string path = dir.filePath("audit.jsonl").toStdString();
        audit = AuditLog::open(path).log;
        actuator = std::make_unique<RecordingActuator>(path);
        engine = std::make_unique<OperationsEngine>(fleet, *actuator, *audit, OperationsConfig{});
        if (withBackend) engine->setRepairBackend(&backend);
    }
    v1::Operation get(const std::string& id) const { return engine->get(id, {}).operation; }
    // What the twin or Slurm would report after the engine's drain: the tray is DRAINED.
    void drained(const std::string& node) { fleet.setNodeState(node, v1::NODE_STATE_DRAINED); }
};

}  // namespace

class TestRepairs : public QObject {
    Q_OBJECT
private slots:
    void aRoutedBackEndSendsEachStepToItsOwnAndNamesIt() {
        ScriptedBackend slurm, bmc;
        slurm.label = "slurm";
        bmc.label = "redfish";
        StepRoutedRepairBackend routed(bmc, slurm);
        QCOMPARE(routed.name(), std::string("slurm+redfish"));
        RepairStep power, diagnostics;
        power.type = v1::ACTION_TYPE_POWER_CYCLE_NODE;
        power.node = "r01-n01";
        diagnostics.type = v1::ACTION_TYPE_RUN_DIAGNOSTICS;
        diagnostics.node = "r01-n02";
        QCOMPARE(routed.start(power).outcome.backend(), std::string("redfish"));
        QCOMPARE(routed.start(diagnostics).outcome.backend(), std::string("slurm"));
        QCOMPARE(bmc.startsOn("r01-n01"), std::size_t(1));
        QCOMPARE(slurm.startsOn("r01-n02"), std::size_t(1));
        QCOMPARE(bmc.startsOn("r01-n02") + slurm.startsOn("r01-n01"), std::size_t(0));
        QCOMPARE(routed.poll(power, "h-r01-n01").outcome.backend(), std::string("redfish"));
    }

    void previewRefusesABusyTrayUnlessItWaitsForTheDrain() {
        Harness h;
        h.fleet.placeJob("llm-405b", {"r01-n03", "r01-n04"}, 600);
        auto request = step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-1");
        auto [status, busy] = h.engine->preview(kAlice, request);
        QVERIFY(status.ok());
        QVERIFY(!busy.allowed());
        QVERIFY2(busy.refusal().find("r01-n03 still runs llm-405b") != std::string::npos, busy.refusal().c_str());
        QVERIFY(busy.refusal().find("wait_for_drain") != std::string::npos);
        QCOMPARE(h.engine->execute(kAlice, request).status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(h.actuator->calls().empty());

        request.set_wait_for_drain(true);
        const v1::ActionPreview preview = h.engine->preview(kAlice, request).preview;
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QCOMPARE(preview.jobs_hit_size(), 1);
        QCOMPARE(preview.gpus_lost(), 4u);
        QCOMPARE(preview.expected_out_of_service_s(), 600.0);
        QCOMPARE(preview.tray_after(), v1::TRAY_AFTER_REPAIR_STAY_DRAINED);  // unset: a person decides
        QCOMPARE(preview.trays_size(), 1);
        QVERIFY(preview.expected_goodput_cost_gpu_s() > 0);
    }

    void aDownTrayIsFreeForItsRepairWhateverStillNamesIt() {
        Harness h;
        // The Xid took the tray down; the job it interrupted still lists it while it waits.
        h.fleet.placeJob("llm-405b", {"r01-n04"}, 600);
        h.fleet.setNodeState("r01-n04", v1::NODE_STATE_DOWN);
        const auto request = step(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n04", "pc-1");
        const auto preview = h.engine->preview(kAlice, request).preview;
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QCOMPARE(preview.jobs_hit_size(), 0);
        QCOMPARE(preview.gpus_lost(), 0u);
        const auto op = h.engine->execute(kAlice, request).operation;
        // Drained all the same, so that it cannot come back into service before the step.
        QCOMPARE(h.actuator->calls(), std::vector<std::string>{"drain r01-n04 reason=alice: Xid 79 on g2"});
        h.engine->tick();
        QCOMPARE(h.backend.startsOn("r01-n04"), std::size_t(1));
        QCOMPARE(h.get(op.id()).state(), v1::OPERATION_STATE_RUNNING);
    }

    void badFieldsAreRefusedBeforeAnythingHappens() {
        Harness h;
        auto reset = step(v1::ACTION_TYPE_RESET_GPU, "r01-n03", "r-1");
        reset.set_gpu_index(4);  // a tray has GPUs 0-3
        QCOMPARE(h.engine->preview(kAlice, reset).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        auto reboot = step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-2");
        reboot.set_gpu_index(1);
        QCOMPARE(h.engine->preview(kAlice, reboot).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        for (std::uint32_t level : {0u, 5u}) {
            auto diag = step(v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n03", "r-3");
            diag.set_diagnostic_level(level);
            const auto status = h.engine->execute(kAlice, diag).status;
            QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
            QVERIFY(status.error_message().find("diagnostic_level 1-4") != std::string::npos);
        }
        auto drain = step(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "r-4");
        drain.set_wait_for_drain(true);
        QCOMPARE(h.engine->preview(kAlice, drain).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        auto after = step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-5");
        after.set_after_repair(v1::TrayAfterRepair(9));
        QCOMPARE(h.engine->preview(kAlice, after).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(h.engine->preview(kAlice, step(v1::ACTION_TYPE_REBOOT_NODE, "r09-n01", "r-6")).status.error_code(),
                 grpc::StatusCode::NOT_FOUND);
        QCOMPARE(h.engine->execute(kVal, step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-7")).status.error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY(h.actuator->calls().empty());
        QVERIFY(h.backend.starts.empty());
    }

    void withoutABackEndTheStepsAreRefused() {
        Harness h(false);
        const auto [status, preview] = h.engine->preview(kAlice, step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-1"));
        QVERIFY(status.ok());
        QVERIFY(!preview.allowed());
        QCOMPARE(preview.refusal(), std::string("break/fix is not connected in this fleetd"));
    }

    void aRebootDrainsStartsOnceAndReportsTheOutcome() {
        Harness h;
        auto request = step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-1");
        request.set_after_repair(v1::TRAY_AFTER_REPAIR_RESUME);
        const auto result = h.engine->execute(kAlice, request);
        QVERIFY2(result.status.ok(), result.status.error_message().c_str());
        QCOMPARE(result.operation.state(), v1::OPERATION_STATE_RUNNING);
        // Drained first, even idle: nothing may be scheduled onto a tray about to reboot.
        QCOMPARE(h.actuator->calls(), std::vector<std::string>{"drain r01-n03 reason=alice: Xid 79 on g2"});
        h.engine->tick();  // the drain has not shown yet: nothing starts
        QCOMPARE(h.backend.startsOn("r01-n03"), std::size_t(0));
        QVERIFY(h.get(result.operation.id()).progress_message().find("before its reboot") != std::string::npos);
        h.drained("r01-n03");
        for (int i = 0; i < 10; ++i) h.engine->tick();
        QCOMPARE(h.backend.startsOn("r01-n03"), std::size_t(1));
        const v1::Operation done = h.get(result.operation.id());
        QCOMPARE(done.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(done.progress_message(), std::string("r01-n03 is back"));
        QCOMPARE(done.repair().backend(), std::string("scripted"));
        QCOMPARE(done.repair().handle(), std::string("h-r01-n03"));
        QVERIFY(done.repair().succeeded());
        QCOMPARE(h.backend.starts.front().after, v1::TRAY_AFTER_REPAIR_RESUME);
        QCOMPARE(h.backend.starts.front().reason, std::string("alice: Xid 79 on g2"));
        QCOMPARE(h.backend.starts.front().operationId, done.id());
        // A retry of the same request is the same operation: nothing runs again.
        QCOMPARE(h.engine->execute(kAlice, request).operation.id(), done.id());
        QCOMPARE(h.backend.startsOn("r01-n03"), std::size_t(1));
    }

    void aFailedStepAndAFailedStartFailTheOperation() {
        Harness h;
        h.backend.succeed = false;
        auto reset = step(v1::ACTION_TYPE_RESET_GPU, "r01-n03", "r-1");
        reset.set_gpu_index(2);
        h.drained("r01-n03");
        const auto first = h.engine->execute(kAlice, reset).operation;
        QVERIFY(h.actuator->calls().empty());  // already drained: no second drain
        for (int i = 0; i < 5; ++i) h.engine->tick();
        const v1::Operation failed = h.get(first.id());
        QCOMPARE(failed.state(), v1::OPERATION_STATE_FAILED);
        QCOMPARE(failed.repair().exit_status(), 255);
        QCOMPARE(failed.error(), std::string("r01-n03 did not come back"));
        QCOMPARE(*h.backend.starts.front().gpu, 2u);

        h.backend.refuseStart = "BMC at 10.0.0.7 answered 401 Unauthorized";
        const auto second = h.engine->execute(kAlice, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n03", "r-2"));
        QVERIFY2(second.status.ok(), second.status.error_message().c_str());
        h.engine->tick();
        QCOMPARE(h.get(second.operation.id()).state(), v1::OPERATION_STATE_FAILED);
        QCOMPARE(h.get(second.operation.id()).error(), h.backend.refuseStart);
    }

    void oneStepPerTrayAtATime() {
        Harness h;
        h.backend.pollsToFinish = 100;
        h.drained("r01-n03");
        const auto reboot = h.engine->execute(kAlice, step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-1"));
        QVERIFY(reboot.status.ok());
        h.engine->tick();
        auto diag = step(v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n03", "r-2");
        diag.set_diagnostic_level(2);
        const auto second = h.engine->execute(kBob, diag);
        QCOMPARE(second.status.error_code(), grpc::StatusCode::ABORTED);
        QVERIFY2(second.status.error_message().find(reboot.operation.id()) != std::string::npos,
                 second.status.error_message().c_str());
        const auto [status, preview] = h.engine->preview(kBob, diag);
        QVERIFY(status.ok());
        QVERIFY(!preview.allowed());
        QCOMPARE(h.backend.starts.size(), std::size_t(1));
        // Another tray is not held up.
        h.drained("r01-n04");
        QVERIFY(h.engine->execute(kBob, step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n04", "r-3")).status.ok());
    }

    void aSecondPowerCycleInARackNeedsASecondPerson() {
        Harness h;
        h.backend.pollsToFinish = 100;
        h.drained("r01-n03");
        h.drained("r01-n05");
        const auto first = h.engine->execute(kAlice, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n03", "p-1"));
        QCOMPARE(first.operation.state(), v1::OPERATION_STATE_RUNNING);
        const auto second = h.engine->execute(kAlice, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n05", "p-2"));
        QVERIFY(second.status.ok());
        QCOMPARE(second.operation.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);
        QVERIFY(second.operation.preview().requires_approval());
        h.engine->tick();
        QCOMPARE(h.backend.startsOn("r01-n05"), std::size_t(0));
        QVERIFY(h.engine->approve(kBob, second.operation.id(), "agreed, BMC only").status.ok());
        h.engine->tick();
        QCOMPARE(h.backend.startsOn("r01-n05"), std::size_t(1));
        // Another rack's tray: no approval.
        h.drained("r02-n01");
        QCOMPARE(h.engine->execute(kAlice, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r02-n01", "p-3")).operation.state(),
                 v1::OPERATION_STATE_RUNNING);
    }

    void aRackPowerCycleIsTypedApprovedAndRunsEveryTray() {
        Harness h;
        v1::ActionRequest request;
        request.set_request_id("rack-1");
        request.set_type(v1::ACTION_TYPE_POWER_CYCLE_RACK);
        request.set_rack_name("r01");
        request.set_reason("whole rack lost NVLink after a switch tray swap");
        request.set_wait_for_drain(true);
        QCOMPARE(h.engine->execute(kAlice, request).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        request.set_confirm_rack_name("r01");
        const auto [status, preview] = h.engine->preview(kAlice, request);
        QVERIFY(status.ok());
        QCOMPARE(preview.trays_size(), 18);
        QVERIFY(preview.requires_approval());
        QCOMPARE(preview.gpus_lost(), 72u);
        const auto op = h.engine->execute(kAlice, request).operation;
        QCOMPARE(op.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);
        QVERIFY(h.actuator->calls().empty());
        QVERIFY(h.engine->approve(kBob, op.id(), "agreed").status.ok());
        QCOMPARE(h.actuator->calls().size(), std::size_t(18));  // every tray drained
        for (int n = 1; n <= 18; ++n) h.drained(QStringLiteral("r01-n%1").arg(n, 2, 10, QChar('0')).toStdString());
        for (int i = 0; i < 5; ++i) h.engine->tick();
        QCOMPARE(h.backend.starts.size(), std::size_t(18));
        QVERIFY(std::all_of(h.backend.starts.begin(), h.backend.starts.end(),
                            [](const RepairStep& s) { return s.type == v1::ACTION_TYPE_POWER_CYCLE_NODE; }));
        const v1::Operation done = h.get(op.id());
        QCOMPARE(done.state(), v1::OPERATION_STATE_SUCCEEDED);
        QVERIFY(done.repair().succeeded());
        QVERIFY(done.repair().output_tail().find("r01-n18: done") != std::string::npos);
    }

    void anIsolatedRackIsRefused() {
        Harness h;
        h.fleet.setIsolated("r01", true);
        const auto [status, preview] = h.engine->preview(kAlice, step(v1::ACTION_TYPE_REBOOT_NODE, "r01-n03", "r-1"));
        QVERIFY(status.ok());
        QVERIFY(!preview.allowed());
        QVERIFY(preview.refusal().find("isolated") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestRepairs)
#include "tst_control_repairs.moc"
