// SlurmRepairs against the real thing: two loopback Slurm clusters (scripts/slurm-loopback), one
// whose RebootProgram restarts the tray's slurmd as freshly booted and one whose tray never comes
// back (ResumeTimeout 5 s), and repair jobs running the stand-in dcgmi and nvidia-smi of
// testbeds/break-fix/bin on a drained tray. Skips when this machine cannot run Slurm.
#include "SlurmRepairs.h"
#include "SlurmTestSupport.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <functional>
#include <set>
#include <thread>

using namespace watchfloor::server::repair;
using watchfloor::server::SlurmConfig;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {

const std::string kTray = "r01-n01";
const QString kTrayQ = QString::fromStdString(kTray);

QString stageName(RebootStage stage) {
    switch (stage) {
    case RebootStage::WaitingForJobs: return "waiting-for-jobs";
    case RebootStage::Requested: return "requested";
    case RebootStage::Issued: return "issued";
    case RebootStage::Back: return "back";
    case RebootStage::BackDown: return "back-down";
    case RebootStage::TimedOut: return "timed-out";
    case RebootStage::Down: return "down";
    case RebootStage::Unknown: return "unknown";
    }
    return "?";
}

// Polls as fleetd's tick would, every 200 ms, until `done` or the deadline.
bool pollUntil(const std::function<bool()>& done, std::chrono::milliseconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
        if (done()) return true;
        std::this_thread::sleep_for(200ms);
    }
    return done();
}

}  // namespace

class TestRepairSlurmLoopback : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    slurm_test::LoopbackCluster cluster_;  // reboots come back
    slurm_test::LoopbackCluster silent_;   // the reboot never comes back
    std::optional<SlurmRepairs> repairs_;
    std::optional<SlurmRepairs> silentRepairs_;
    QElapsedTimer silentRebootClock_;
    QElapsedTimer wholeRun_;

    SlurmConfig config(const slurm_test::LoopbackCluster& cluster) const {
        SlurmConfig config;
        config.slurmConf = cluster.slurmConf().toStdString();
        config.commandTimeout = 15s;
        return config;
    }
    SlurmRepairSettings settings(RepairCommands commands = {}) const {
        SlurmRepairSettings settings;
        settings.commands = std::move(commands);
        settings.outputDir = dir_.filePath("jobs").toStdString();
        settings.startTimeout = 30s;
        return settings;
    }
    QString node(const slurm_test::LoopbackCluster& cluster) const {
        return cluster.run("sinfo", {"-N", "-h", "-n", kTrayQ, "-o", "%T|%E"}).trimmed();
    }
    void drain(const QString& reason) {
        cluster_.run("scontrol", {"update", "nodename=" + kTrayQ, "state=drain", "reason=" + reason});
        QTRY_COMPARE_WITH_TIMEOUT(node(cluster_), "drained|" + reason, 10000);
    }
    // Runs a repair job to its end and checks what it leaves: the drain with its reason, no reservation.
    void runToEnd(const SlurmRepairs& repairs, const RepairJobRequest& request, RepairJobProgress& progress) {
        const QString reason = "alice: Xid 48 on GPU 2";
        drain(reason);
        auto started = repairs.startJob(request);
        QVERIFY2(started.job, started.error.c_str());
        QElapsedTimer clock;
        clock.start();
        const bool ended = pollUntil(
            [&] {
                progress = repairs.poll(*started.job);
                return progress.stage == RepairJobStage::Finished;
            },
            40s);
        qInfo("job %s: %s (%lld ms)", started.job->jobId.c_str(), progress.message.c_str(),
              static_cast<long long>(clock.elapsed()));
        QVERIFY2(ended, progress.message.c_str());
        QCOMPARE(node(cluster_), "drained|" + reason);
        QVERIFY2(cluster_.run("scontrol", {"show", "reservation"}).contains("No reservations in the system"),
                 "a reservation is left");
    }

private slots:
    void initTestCase() {
        wholeRun_.start();
        QVERIFY(dir_.isValid());
        QVERIFY(QDir(dir_.path()).mkpath("jobs"));
        if (!cluster_.start(dir_.filePath("slurm"), {"--trays", "2"})) {
            if (!cluster_.skipReason().isEmpty()) QSKIP(qPrintable(cluster_.skipReason()));
            QFAIL(qPrintable(cluster_.error()));
        }
        QVERIFY2(silent_.start(dir_.filePath("silent"), {"--trays", "2", "--resume-timeout", "5", "--reboot-hangs"}),
                 qPrintable(silent_.error()));
        // The stand-ins go first on PATH; sbatch hands this environment to the job.
        qputenv("PATH", QByteArray(WATCHFLOOR_SOURCE_DIR "/testbeds/break-fix/bin:") + qgetenv("PATH"));
        repairs_.emplace(config(cluster_), settings());
        silentRepairs_.emplace(config(silent_), settings());
    }

    // First, so that its ResumeTimeout runs out while the other tests run; rebootNeverComesBack
    // reads the end.
    void rebootIssuedOnSilentTray() {
        silent_.run("scontrol", {"update", "nodename=" + kTrayQ, "state=drain", "reason=bob: Xid 79"});
        const auto started = silentRepairs_->reboot({kTray, false, AfterReboot::Resume, "bob: Xid 79"});
        QVERIFY2(started.issued, started.message.c_str());
        silentRebootClock_.start();
        RebootProgress progress;
        QVERIFY(pollUntil(
            [&] {
                progress = silentRepairs_->rebootProgress(kTray);
                return progress.stage == RebootStage::Issued;
            },
            10s));
    }

    void rebootComesBack() {
        drain("alice: Xid 95");
        const auto started = repairs_->reboot({kTray, false, AfterReboot::Resume, "alice: Xid 95"});
        QVERIFY2(started.issued, started.message.c_str());
        QElapsedTimer clock;
        clock.start();
        std::vector<RebootStage> stages;
        RebootProgress progress;
        QVERIFY(pollUntil(
            [&] {
                progress = repairs_->rebootProgress(kTray);
                if (stages.empty() || stages.back() != progress.stage) stages.push_back(progress.stage);
                return progress.finished();
            },
            30s));
        QStringList seen;
        for (const auto stage : stages) seen << stageName(stage);
        qInfo("reboot stages: %s; back after %lld ms", qPrintable(seen.join(" → ")),
              static_cast<long long>(clock.elapsed()));
        QCOMPARE(seen, (QStringList{"requested", "issued", "back"}));
        QVERIFY2(progress.succeeded(), progress.message.c_str());
        // nextstate=RESUME: the drain went with the reboot.
        QCOMPARE(node(cluster_), QString("idle|none"));
        // Slurm itself saw a reboot: slurmd registered with a boot time after the request.
        QVERIFY(QFile::exists(dir_.filePath("slurm/log/reboot.log")));
    }

    void refusedReboot() {
        const auto refused = repairs_->reboot({"r09-n09", false, AfterReboot::Resume, "alice: x"});
        QVERIFY(!refused.issued);
        QVERIFY2(refused.message.starts_with("Slurm refused the reboot of r09-n09: "), refused.message.c_str());
        const auto bad = repairs_->reboot({"r01-n[01-02]", false, AfterReboot::Resume, "alice: x"});
        QVERIFY(!bad.issued);
        QCOMPARE(bad.message, std::string("'r01-n[01-02]' is not a single Slurm node name"));
    }

    void diagnosticsPass() {
        qputenv("BREAKFIX_DCGMI", "pass");
        RepairJobProgress progress;
        runToEnd(*repairs_, {RepairKind::Diagnostics, kTray, 1, {}}, progress);
        if (QTest::currentTestFailed()) return;
        QVERIFY2(progress.succeeded, progress.message.c_str());
        QCOMPARE(progress.exitStatus, 0);
        QVERIFY(!progress.tests.empty());
        for (const auto& test : progress.tests) QCOMPARE(test.result(), v1::DIAGNOSTIC_RESULT_PASS);
        QVERIFY(progress.outputTail.find("Successfully ran diagnostic") != std::string::npos);
    }

    void diagnosticsFail() {
        qputenv("BREAKFIX_DCGMI", "fail");
        RepairJobProgress progress;
        runToEnd(*repairs_, {RepairKind::Diagnostics, kTray, 3, {}}, progress);
        qunsetenv("BREAKFIX_DCGMI");
        if (QTest::currentTestFailed()) return;
        QVERIFY(!progress.succeeded);
        QCOMPARE(progress.exitStatus, 205);
        std::set<std::string> failed;
        for (const auto& test : progress.tests)
            if (test.result() == v1::DIAGNOSTIC_RESULT_FAIL) failed.insert(test.name());
        QCOMPARE(failed, (std::set<std::string>{"memory"}));
        QVERIFY2(progress.message.find("memory on GPU 2 failed") != std::string::npos, progress.message.c_str());
    }

    void gpuReset() {
        RepairJobProgress progress;
        runToEnd(*repairs_, {RepairKind::GpuReset, kTray, 1, 3}, progress);
        if (QTest::currentTestFailed()) return;
        QVERIFY2(progress.succeeded, progress.message.c_str());
        QVERIFY2(progress.message.ends_with("done: GPU 00000019:01:00.0 was successfully reset."),
                 progress.message.c_str());

        qputenv("BREAKFIX_NVIDIA_SMI", "busy");
        RepairJobProgress busy;
        runToEnd(*repairs_, {RepairKind::GpuReset, kTray, 1, std::nullopt}, busy);
        qunsetenv("BREAKFIX_NVIDIA_SMI");
        if (QTest::currentTestFailed()) return;
        QVERIFY(!busy.succeeded);
        QCOMPARE(busy.exitStatus, 255);
        QVERIFY(busy.outputTail.find("In use by another client") != std::string::npos);
    }

    void commandMissing() {
        RepairCommands commands;
        commands.diagnostics = {"dcgmi-not-installed", "diag", "-r", "{level}"};
        const SlurmRepairs repairs(config(cluster_), settings(commands));
        RepairJobProgress progress;
        runToEnd(repairs, {RepairKind::Diagnostics, kTray, 1, {}}, progress);
        if (QTest::currentTestFailed()) return;
        QVERIFY(!progress.succeeded);
        QCOMPARE(progress.exitStatus, 127);
        QVERIFY2(progress.message.find("the command was not found on the tray (exit status 127)") != std::string::npos,
                 progress.message.c_str());
        QVERIFY2(progress.message.find("dcgmi-not-installed: not found") != std::string::npos,
                 progress.message.c_str());
    }

    void cancelledMidRun() {
        const QString reason = "alice: burn-in";
        drain(reason);
        qputenv("BREAKFIX_SECONDS", "60");
        auto started = repairs_->startJob({RepairKind::Diagnostics, kTray, 4, {}});
        qunsetenv("BREAKFIX_SECONDS");
        QVERIFY2(started.job, started.error.c_str());
        RepairJobProgress progress;
        QVERIFY(pollUntil(
            [&] {
                progress = repairs_->poll(*started.job);
                return progress.stage != RepairJobStage::Pending;
            },
            20s));
        QCOMPARE(progress.stage, RepairJobStage::Running);
        // The drain is back while the job runs: the tray is draining, not open to other jobs.
        QVERIFY2(node(cluster_).startsWith("draining") && node(cluster_).endsWith("|" + reason),
                 qPrintable(node(cluster_)));
        QCOMPARE(repairs_->cancel(*started.job), std::string());
        QVERIFY(pollUntil(
            [&] {
                progress = repairs_->poll(*started.job);
                return progress.stage == RepairJobStage::Finished;
            },
            20s));
        QVERIFY(!progress.succeeded);
        QVERIFY2(progress.message.find("was cancelled") != std::string::npos, progress.message.c_str());
        QTRY_COMPARE_WITH_TIMEOUT(node(cluster_), "drained|" + reason, 10000);
        QVERIFY(cluster_.run("scontrol", {"show", "reservation"}).contains("No reservations in the system"));
        // A finished job is not asked about again.
        QCOMPARE(repairs_->poll(*started.job).stage, RepairJobStage::Finished);
    }

    void jobsThatCannotStart() {
        // Not drained: refused before Slurm is asked for anything.
        cluster_.run("scontrol", {"update", "nodename=" + kTrayQ, "state=resume"});
        // Right after a cancelled job the node can read "idle*" for a moment (measured).
        QTRY_COMPARE_WITH_TIMEOUT(node(cluster_), QString("idle|none"), 10000);
        auto notDrained = repairs_->startJob({RepairKind::Diagnostics, kTray, 1, {}});
        QVERIFY(!notDrained.job);
        QCOMPARE(QString::fromStdString(notDrained.error),
                 QString("r01-n01 is idle in Slurm, not drained and answering: drain it first"));

        auto unknown = repairs_->startJob({RepairKind::Diagnostics, "r09-n09", 1, {}});
        QVERIFY(!unknown.job);
        QCOMPARE(QString::fromStdString(unknown.error), QString("Slurm does not list r09-n09"));

        // The reservation refused (a person holds one under the same name): nothing changes.
        const QString reason = "alice: Xid 48 on GPU 2";
        drain(reason);
        const QString held = QString::fromStdString(repairJobName(RepairKind::Diagnostics, kTray));
        const QString created =
            cluster_.run("scontrol", {"create", "reservation", "reservationname=" + held, "flags=maint,ignore_jobs",
                                      "nodes=r01-n02", "users=root", "starttime=now", "duration=UNLIMITED"});
        QVERIFY2(created.contains("Reservation created"), qPrintable(created));
        auto refused = repairs_->startJob({RepairKind::Diagnostics, kTray, 1, {}});
        QVERIFY(!refused.job);
        QVERIFY2(refused.error.starts_with("Slurm refused the maintenance reservation for r01-n01: ") &&
                     refused.error.find("Duplicate reservation name") != std::string::npos,
                 refused.error.c_str());
        QCOMPARE(node(cluster_), "drained|" + reason);
        cluster_.run("scontrol", {"delete", "reservationname=" + held});

        // A level out of range never reaches Slurm.
        auto level = repairs_->startJob({RepairKind::Diagnostics, kTray, 7, {}});
        QCOMPARE(QString::fromStdString(level.error), QString("a diagnostic level is 1 to 4, not 7"));
    }

    void slurmctldUnreachable() {
        QVERIFY(cluster_.stopController());
        auto started = repairs_->startJob({RepairKind::Diagnostics, kTray, 1, {}});
        QVERIFY(!started.job);
        QVERIFY2(started.error.starts_with("cannot ask Slurm about r01-n01: ") &&
                     started.error.find("Unable to contact slurm controller") != std::string::npos,
                 started.error.c_str());
        const RebootProgress progress = repairs_->rebootProgress(kTray);
        QCOMPARE(progress.stage, RebootStage::Unknown);
        QVERIFY2(progress.message.find("Unable to contact slurm controller") != std::string::npos,
                 progress.message.c_str());
        RepairJob gone;
        gone.request.node = kTray;
        gone.jobId = std::to_string(1);  // not a literal: GCC 12 -Wrestrict false positive (PR 105651)
        const RepairJobProgress polled = repairs_->poll(gone);
        QCOMPARE(polled.stage, RepairJobStage::Unknown);
        QVERIFY2(polled.message.starts_with("cannot ask Slurm about job 1 on r01-n01: "), polled.message.c_str());
        QVERIFY(!gone.finished);
    }

    void rebootNeverComesBack() {
        RebootProgress progress;
        QVERIFY(pollUntil(
            [&] {
                progress = silentRepairs_->rebootProgress(kTray);
                return progress.finished();
            },
            60s));
        qInfo("silent tray: %s, %lld ms after the reboot request", progress.message.c_str(),
              static_cast<long long>(silentRebootClock_.elapsed()));
        QCOMPARE(stageName(progress.stage), QString("timed-out"));
        QVERIFY(!progress.succeeded());
        QVERIFY2(progress.message.find("bob: Xid 79 : reboot issued : reboot timed out") != std::string::npos,
                 progress.message.c_str());
    }

    void cleanupTestCase() { qInfo("whole run: %lld ms", static_cast<long long>(wholeRun_.elapsed())); }
};

QTEST_GUILESS_MAIN(TestRepairSlurmLoopback)
#include "tst_repair_slurm_loopback.moc"
