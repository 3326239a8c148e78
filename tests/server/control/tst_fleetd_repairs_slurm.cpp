// Break/fix through fleetd --scheduler slurm, end to end: the real fleetd process, its
// ControlService, and a real slurmctld + slurmd (scripts/slurm-loopback) whose RebootProgram
// restarts the tray's slurmd as freshly booted. A reboot ends with the tray back in service as
// Slurm reports it; diagnostics and a GPU reset run as Slurm jobs on the drained tray using the
// stand-in dcgmi / nvidia-smi of testbeds/break-fix/bin (there is no GPU here), their results in
// the operation; a power cycle, which Slurm cannot do, fails saying so. Skips only when not root
// or the Slurm packages are missing.

#include "FleetdControlFixture.h"
#include "SlurmTestSupport.h"

#include <QProcessEnvironment>
#include <QTest>

using namespace fleetd_control_test;
using slurm_test::LoopbackCluster;
using watchfloor::testing::FleetdProcess;

namespace {

constexpr const char* kTray = "r01-n03";  // the node with the slurmd

}  // namespace

class TestFleetdRepairsSlurm : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    LoopbackCluster cluster_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> control_;
    QString skipReason_;
    int requests_ = 0;

    v1::ActionRequest request(v1::ActionType type) {
        auto step = action(type, "repair-" + std::to_string(++requests_), "Xid 79 on GPU 2");
        step.set_node_name(kTray);
        return step;
    }

    // Preview, then execute with the previewed state version: what a console does.
    grpc::Status act(v1::ActionRequest step, v1::Operation* operation, v1::ActionPreview* previewed) {
        if (auto status = control_->preview(kAlice, step, previewed); !status.ok()) return status;
        if (!previewed->allowed())
            return {grpc::StatusCode::FAILED_PRECONDITION, "preview refused: " + previewed->refusal()};
        step.set_expected_state_version(previewed->state_version());
        return control_->execute(kAlice, step, operation);
    }

    v1::Operation finished(const std::string& id, std::chrono::seconds timeout) {
        return control_->waitFor(kAlice, id, isFinished, timeout).value_or(v1::Operation());
    }

    QString sinfo(const QString& format) { return cluster_.run("sinfo", {"-h", "-n", kTray, "-o", format}).trimmed(); }

    bool drainTray() {
        cluster_.run("scontrol", {"update", QString("nodename=") + kTray, "state=drain", "reason=before repair"});
        for (int i = 0; i < 50; ++i) {
            if (sinfo("%T").startsWith("drained")) return true;
            QTest::qWait(200);
        }
        return false;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (!cluster_.start(dir_.filePath("cluster"), {"--racks", "1", "--slurmd", kTray, "--resume-timeout", "60"})) {
            skipReason_ = cluster_.skipReason();
            QVERIFY2(!skipReason_.isEmpty(), qPrintable(cluster_.error()));
            return;
        }
        const QString tokens = writeTokens(dir_);
        // sbatch hands fleetd's environment to the repair jobs: the stand-ins come first on PATH.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("PATH",
                           QString(WATCHFLOOR_SOURCE_DIR "/testbeds/break-fix/bin:") + environment.value("PATH"));
        fleetd_.setEnvironment(environment);
        QVERIFY2(fleetd_.start({"--racks", "1", "--seed", "7", "--tokens", tokens, "--audit-log",
                                dir_.filePath("audit.jsonl"), "--scheduler", "slurm", "--slurm-conf",
                                cluster_.slurmConf(), "--repair-output-dir", dir_.filePath("jobs")}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY2(QString::fromUtf8(fleetd_.log()).contains("break/fix through Slurm"),
                 qPrintable(QString::fromUtf8(fleetd_.log())));
        control_ = std::make_unique<ControlConnection>(fleetd_.address());
    }

    void cleanupTestCase() {
        if (fleetd_.running()) QCOMPARE(fleetd_.terminate(), 0);
        cluster_.stop();
    }

    void aRebootBringsTheTrayBackInService() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        auto reboot = request(v1::ACTION_TYPE_REBOOT_NODE);
        reboot.set_after_repair(v1::TRAY_AFTER_REPAIR_RESUME);
        v1::Operation op;
        v1::ActionPreview preview;
        const auto status = act(reboot, &op, &preview);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY(preview.expected_out_of_service_s() > 0);
        QCOMPARE(preview.tray_after(), v1::TRAY_AFTER_REPAIR_RESUME);
        const v1::Operation done = finished(op.id(), 90s);
        QVERIFY2(done.state() == v1::OPERATION_STATE_SUCCEEDED, done.DebugString().c_str());
        QCOMPARE(done.repair().backend(), std::string("slurm"));
        QVERIFY(done.repair().succeeded());
        QTRY_COMPARE_WITH_TIMEOUT(sinfo("%T"), QString("idle"), 10000);
    }

    void diagnosticsRunAsAJobOnTheDrainedTray() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(drainTray());
        auto diag = request(v1::ACTION_TYPE_RUN_DIAGNOSTICS);
        diag.set_diagnostic_level(1);
        v1::Operation op;
        v1::ActionPreview preview;
        const auto status = act(diag, &op, &preview);
        QVERIFY2(status.ok(), status.error_message().c_str());
        const v1::Operation done = finished(op.id(), 60s);
        QVERIFY2(done.state() == v1::OPERATION_STATE_SUCCEEDED, done.DebugString().c_str());
        QVERIFY(done.repair().command_ran());
        QCOMPARE(done.repair().exit_status(), 0);
        QVERIFY(done.repair().tests_size() > 0);
        for (const auto& test : done.repair().tests())
            QVERIFY2(test.result() != v1::DIAGNOSTIC_RESULT_FAIL, test.DebugString().c_str());
        QVERIFY(!done.repair().output_tail().empty());
        // STAY_DRAINED (unset): the drain is back once the job ran.
        QTRY_VERIFY_WITH_TIMEOUT(sinfo("%T").startsWith("drained"), 10000);
    }

    void aGpuResetRunsAsAJob() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(drainTray());
        auto reset = request(v1::ACTION_TYPE_RESET_GPU);
        reset.set_gpu_index(2);
        v1::Operation op;
        v1::ActionPreview preview;
        const auto status = act(reset, &op, &preview);
        QVERIFY2(status.ok(), status.error_message().c_str());
        const v1::Operation done = finished(op.id(), 60s);
        QVERIFY2(done.state() == v1::OPERATION_STATE_SUCCEEDED, done.DebugString().c_str());
        QVERIFY2(done.repair().output_tail().find("was successfully reset") != std::string::npos,
                 done.repair().output_tail().c_str());
    }

    void aPowerCycleIsNotSlurmsToDo() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(drainTray());
        v1::Operation op;
        v1::ActionPreview preview;
        const auto status = act(request(v1::ACTION_TYPE_POWER_CYCLE_NODE), &op, &preview);
        QVERIFY2(status.ok(), status.error_message().c_str());
        const v1::Operation done = finished(op.id(), 20s);
        QCOMPARE(done.state(), v1::OPERATION_STATE_FAILED);
        QVERIFY2(done.error().find("needs the tray's BMC") != std::string::npos, done.error().c_str());
    }
};

QTEST_GUILESS_MAIN(TestFleetdRepairsSlurm)
#include "tst_fleetd_repairs_slurm.moc"
