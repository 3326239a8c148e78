// Break/fix through the real fleetd on the digital twin (--scheduler sim): a diagnostic on a busy
// tray waits for its drain and reports the tests dcgmi printed; a busy tray without wait_for_drain
// is refused and a viewer may not ask. A step on a tray whose Xid interrupted a job, and the repair
// case around it, are tst_fleetd_repair_cases. The twin's model is tested on its own in
// tests/server/sim (tst_twin_repairs); this holds fleetd's wiring of it to the engine.

#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

v1::ActionRequest onTray(v1::ActionType type, const std::string& tray, const std::string& requestId) {
    auto request = action(type, requestId, "Xid 79 on GPU 2");
    request.set_node_name(tray);
    return request;
}

}  // namespace

class TestFleetdRepairs : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> control_;

    // Waits (reading the Subscribe stream) until the tray's node state is one of `states`.
    bool trayReaches(const std::string& tray, std::initializer_list<v1::NodeState> states,
                     std::chrono::milliseconds timeout) {
        FleetWatch watch(fleetd_.address());
        if (!watch.ready()) return false;
        const auto index = watch.nodeIndex(tray);
        return index && watch.waitForState(
                            *index,
                            [&](const v1::EntityState& s) {
                                return std::find(states.begin(), states.end(), s.node_state()) != states.end();
                            },
                            timeout);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // 600x: a level-1 diagnostic (10-60 simulated seconds) ends within a tick or two.
        QVERIFY2(fleetd_.start({"--seed", "11", "--speed", "600", "--tokens", writeTokens(dir_), "--audit-log",
                                dir_.filePath("audit.jsonl")}),
                 qPrintable(fleetd_.errorString()));
        control_ = std::make_unique<ControlConnection>(fleetd_.address());
    }

    void aBusyTrayIsRefusedUnlessTheStepWaitsForItsDrain() {
        auto diag = onTray(v1::ACTION_TYPE_RUN_DIAGNOSTICS, "r01-n10", "diag-1");
        diag.set_diagnostic_level(1);
        v1::ActionPreview preview;
        QVERIFY(control_->preview(kAlice, diag, &preview).ok());
        if (preview.jobs_hit_size() > 0) {  // the twin's jobs hold most trays
            QVERIFY(!preview.allowed());
            QVERIFY2(preview.refusal().find("wait_for_drain") != std::string::npos, preview.refusal().c_str());
        }
        v1::Operation refused;
        QCOMPARE(control_->execute(kViewer, diag, &refused).error_code(), grpc::StatusCode::PERMISSION_DENIED);

        diag.set_wait_for_drain(true);
        const v1::Operation op = control_->previewThenExecute(kAlice, diag);
        QVERIFY(!op.id().empty());
        const auto done = control_->waitFor(kAlice, op.id(), isFinished, 30s * watchfloor::testing::kSanitizerSlowdown);
        QVERIFY(done);
        QVERIFY2(done->state() == v1::OPERATION_STATE_SUCCEEDED, done->DebugString().c_str());
        QVERIFY(done->repair().command_ran());
        QCOMPARE(done->repair().exit_status(), 0);
        QVERIFY(done->repair().tests_size() > 0);
        QVERIFY(done->repair().output_tail().find("Diagnostic") != std::string::npos);
        // No after_repair: the tray stays drained for a person to resume.
        QVERIFY(trayReaches("r01-n10", {v1::NODE_STATE_DRAINED}, 5s * watchfloor::testing::kSanitizerSlowdown));
    }

    void cleanupTestCase() {
        if (fleetd_.running()) QCOMPARE(fleetd_.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFleetdRepairs)
#include "tst_fleetd_repairs.moc"
