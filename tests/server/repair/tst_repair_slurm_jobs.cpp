// A repair job's command lines and how its state and output read back, without Slurm: the job
// records are scontrol's one-line layout as Debian 12's Slurm 22.05 prints it, the outputs the
// samples of testbeds/break-fix/.

#include "SlurmRepairJob.h"

#include <QFile>
#include <QtTest>

using namespace watchfloor::server::repair;
namespace v1 = watchfloor::v1;

using Arguments = std::vector<std::string>;

namespace {

std::string sample(const char* name) {
    QFile file(QString::fromUtf8(qgetenv("WATCHFLOOR_SOURCE_DIR")) + "/testbeds/break-fix/" + name);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read testbeds/break-fix/%s", name);
    return file.readAll().toStdString();
}

// A finished job as `scontrol show job -o` printed it on the loopback cluster (trimmed).
std::string jobLine(const std::string& state, const std::string& exitCode, const std::string& reason = "None") {
    return "JobId=7 JobName=watchfloor-diagnostics-r01-n01 UserId=root(0) GroupId=root(0) MCS_label=N/A "
           "Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=" +
           state + " Reason=" + reason +
           " Dependency=(null) Requeue=0 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=" + exitCode +
           " RunTime=00:00:01 TimeLimit=00:10:00 TimeMin=N/A AllocNode:Sid=localhost:4834 ReqNodeList=r01-n01 "
           "NumCPUs=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:* Reservation=watchfloor-diagnostics-r01-n01 "
           "Command=/srv/repair/.watchfloor-repair-AbC123 dcgmi diag -r 1 JobState=FAKE WorkDir=/srv/repair "
           "StdErr=/srv/repair/watchfloor-diagnostics-r01-n01-7.out StdIn=/dev/null "
           "StdOut=/srv/repair/watchfloor-diagnostics-r01-n01-7.out Power= \n";
}

SlurmJobRecord record(const std::string& line) {
    const auto read = readScontrolJob(line);
    if (!read) qFatal("no job record in: %s", line.c_str());
    return *read;
}

}  // namespace

class TestRepairSlurmJobs : public QObject {
    Q_OBJECT

private slots:
    void commands() {
        const RepairCommands defaults;
        std::string error;
        QCOMPARE(repairJobCommand({RepairKind::Diagnostics, "r01-n01", 3, {}}, defaults, error),
                 (Arguments{"dcgmi", "diag", "-r", "3"}));
        QCOMPARE(repairJobCommand({RepairKind::GpuReset, "r01-n01", 1, 2}, defaults, error),
                 (Arguments{"nvidia-smi", "-r", "-i", "2"}));
        QCOMPARE(repairJobCommand({RepairKind::GpuReset, "r01-n01", 1, std::nullopt}, defaults, error),
                 (Arguments{"nvidia-smi", "-r"}));
        QVERIFY(error.empty());

        // A site's burn-in: the level goes inside an argument too, and nothing is split on spaces.
        RepairCommands site;
        site.diagnostics = {"/opt/site/burn-in", "--level={level}", "--note", "a b; c"};
        QCOMPARE(repairJobCommand({RepairKind::Diagnostics, "n", 2, {}}, site, error),
                 (Arguments{"/opt/site/burn-in", "--level=2", "--note", "a b; c"}));

        QVERIFY(repairJobCommand({RepairKind::Diagnostics, "n", 5, {}}, defaults, error).empty());
        QCOMPARE(error, std::string("a diagnostic level is 1 to 4, not 5"));
        error.clear();
        QVERIFY(repairJobCommand({RepairKind::GpuReset, "n", 1, -1}, defaults, error).empty());
        QVERIFY(!error.empty());
        error.clear();
        site.gpuResetAll.clear();
        repairJobCommand({RepairKind::GpuReset, "n", 1, std::nullopt}, site, error);
        QCOMPARE(error, std::string("no command to reset every GPU of a tray is configured"));
    }

    void timeLimits() {
        QCOMPARE(repairTimeLimit({RepairKind::Diagnostics, "n", 1, {}}), std::chrono::minutes(10));
        QCOMPARE(repairTimeLimit({RepairKind::Diagnostics, "n", 3, {}}), std::chrono::minutes(60));
        QCOMPARE(repairTimeLimit({RepairKind::Diagnostics, "n", 4, {}}), std::chrono::minutes(240));
        QCOMPARE(repairTimeLimit({RepairKind::GpuReset, "n", 1, 0}), std::chrono::minutes(10));
    }

    void slurmCommandLines() {
        QCOMPARE(repairJobName(RepairKind::Diagnostics, "gb200-r01-n03"),
                 std::string("watchfloor-diagnostics-gb200-r01-n03"));
        QCOMPARE(repairJobName(RepairKind::GpuReset, "n1"), std::string("watchfloor-gpu-reset-n1"));
        QCOMPARE(
            scontrolReservationArguments("watchfloor-gpu-reset-n1", "n1", "fleetd"),
            (Arguments{"create", "reservation", "reservationname=watchfloor-gpu-reset-n1", "flags=maint,ignore_jobs",
                       "nodes=n1", "users=fleetd", "starttime=now", "duration=UNLIMITED"}));

        RepairSubmission submission;
        submission.name = "watchfloor-diagnostics-n1";
        submission.slurmNode = "n1";
        submission.outputDir = "/srv/repair";
        submission.script = "/srv/repair/.watchfloor-repair-AbC123";
        submission.timeLimit = std::chrono::minutes(30);
        submission.command = {"dcgmi", "diag", "-r", "2"};
        QCOMPARE(
            sbatchRepairArguments(submission),
            (Arguments{"--parsable", "--job-name=watchfloor-diagnostics-n1", "--reservation=watchfloor-diagnostics-n1",
                       "--nodelist=n1", "--nodes=1", "--exclusive", "--no-requeue", "--time=30", "--chdir=/srv/repair",
                       "--output=/srv/repair/watchfloor-diagnostics-n1-%j.out", "/srv/repair/.watchfloor-repair-AbC123",
                       "dcgmi", "diag", "-r", "2"}));
        // The script runs its arguments and is the same for every job: no name in it.
        QCOMPARE(repairJobScript().substr(0, 10), std::string_view("#!/bin/sh\n"));
        QVERIFY(repairJobScript().ends_with("exec \"$@\"\n"));
    }

    void jobRecords() {
        const auto running = record(jobLine("RUNNING", "0:0"));
        QCOMPARE(running.state, std::string("RUNNING"));
        QCOMPARE(running.stdOut, std::string("/srv/repair/watchfloor-diagnostics-r01-n01-7.out"));
        QCOMPARE(running.timeLimit, std::string("00:10:00"));
        QVERIFY(!isFinalJobState(running.state));

        const auto missing = record(jobLine("FAILED", "127:0", "NonZeroExitCode"));
        QCOMPARE(missing.exitStatus, 127);
        QCOMPARE(missing.signal, 0);
        QCOMPARE(missing.reason, std::string("NonZeroExitCode"));
        QVERIFY(isFinalJobState(missing.state));

        const auto killed = record(jobLine("FAILED", "0:9"));
        QCOMPARE(killed.exitStatus, 0);
        QCOMPARE(killed.signal, 9);

        const auto pending = record(jobLine("PENDING", "0:0", "ReqNodeNotAvail,_UnavailableNodes:r01-n01"));
        QCOMPARE(pending.reason, std::string("ReqNodeNotAvail,_UnavailableNodes:r01-n01"));

        // A path with spaces stays whole; a later "JobState=" inside Command= does not win.
        const auto spaced = record("JobId=8 JobState=COMPLETED ExitCode=0:0 StdOut=/srv/my repair/x-8.out Power=\n");
        QCOMPARE(spaced.stdOut, std::string("/srv/my repair/x-8.out"));
        // The line's end is not part of the last value.
        QCOMPARE(record("JobId=9 JobState=FAILED ExitCode=1:0 StdOut=/srv/x-9.out\n").stdOut,
                 std::string("/srv/x-9.out"));

        QVERIFY(!readScontrolJob("slurm_load_jobs error: Invalid job id specified\n"));
        QVERIFY(!readScontrolJob(""));
    }

    void diagnosticsPassed() {
        const auto progress = finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7",
                                                  record(jobLine("COMPLETED", "0:0")), sample("dcgmi-diag-r1.txt"));
        QCOMPARE(progress.stage, RepairJobStage::Finished);
        QVERIFY2(progress.succeeded, progress.message.c_str());
        QCOMPARE(progress.exitStatus, 0);
        QVERIFY(!progress.tests.empty());
        for (const auto& test : progress.tests) QCOMPARE(test.result(), v1::DIAGNOSTIC_RESULT_PASS);
        QVERIFY2(progress.message.starts_with("diagnostics on r01-n01 (job 7) passed: "), progress.message.c_str());
    }

    void diagnosticsFailed() {
        const auto progress = finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7",
                                                  record(jobLine("FAILED", "205:0", "NonZeroExitCode")),
                                                  sample("dcgmi-diag-r3-fail.txt"));
        QVERIFY(!progress.succeeded);
        QCOMPARE(progress.exitStatus, 205);
        QVERIFY2(progress.message.find("failed (exit status 205): memory on GPU 2 failed") != std::string::npos,
                 progress.message.c_str());
        bool memoryFailed = false;
        for (const auto& test : progress.tests)
            if (test.name() == "memory") memoryFailed = test.result() == v1::DIAGNOSTIC_RESULT_FAIL;
        QVERIFY(memoryFailed);

        // The JSON layout reads the same.
        const auto json = finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7",
                                              record(jobLine("FAILED", "205:0")), sample("dcgmi-diag-r2-fail.json"));
        QVERIFY(!json.succeeded);
        QVERIFY(!json.tests.empty());
    }

    void diagnosticsThatSayNothing() {
        // Exit 0 and text that is no report is not a clean run.
        const auto progress = finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7",
                                                  record(jobLine("COMPLETED", "0:0")), "all good, trust me\n");
        QVERIFY(!progress.succeeded);
        QVERIFY2(progress.message.find("exited 0, but its output is no diagnostic report") != std::string::npos,
                 progress.message.c_str());
        QVERIFY(progress.tests.empty());
    }

    void commandMissing() {
        const auto progress = finishedJobProgress(
            RepairKind::Diagnostics, "r01-n01", "7", record(jobLine("FAILED", "127:0", "NonZeroExitCode")),
            "/var/spool/slurmd/job00007/slurm_script: 3: exec: dcgmi: not found\n");
        QVERIFY(!progress.succeeded);
        QCOMPARE(progress.message, std::string("diagnostics on r01-n01 (job 7): the command was not found on the tray "
                                               "(exit status 127): /var/spool/slurmd/job00007/slurm_script: 3: exec: "
                                               "dcgmi: not found"));
    }

    void gpuResets() {
        const auto done = finishedJobProgress(RepairKind::GpuReset, "r01-n01", "9", record(jobLine("COMPLETED", "0:0")),
                                              sample("nvidia-smi-reset-ok.txt"));
        QVERIFY(done.succeeded);
        QCOMPARE(done.message,
                 std::string("GPU reset on r01-n01 (job 9) done: GPU 00000018:01:00.0 was successfully reset."));

        const auto busy = finishedJobProgress(RepairKind::GpuReset, "r01-n01", "9", record(jobLine("FAILED", "255:0")),
                                              sample("nvidia-smi-reset-busy.txt"));
        QVERIFY(!busy.succeeded);
        QCOMPARE(busy.message, std::string("GPU reset on r01-n01 (job 9) failed (exit status 255): GPU "
                                           "00000018:01:00.0: In use by another client"));
        QVERIFY(busy.outputTail.find("Please first kill all processes") != std::string::npos);
        const auto legacy =
            finishedJobProgress(RepairKind::GpuReset, "r01-n01", "9", record(jobLine("FAILED", "255:0")),
                                sample("nvidia-smi-reset-busy-legacy.txt"));
        QCOMPARE(legacy.message, std::string("GPU reset on r01-n01 (job 9) failed (exit status 255): GPU "
                                             "00000018:01:00.0 is currently in use by another process."));

        const auto offBus =
            finishedJobProgress(RepairKind::GpuReset, "r01-n01", "9", record(jobLine("FAILED", "15:0")), "");
        QVERIFY2(offBus.message.find("fallen off the bus") != std::string::npos, offBus.message.c_str());
    }

    void slurmEndedIt() {
        const auto cancelled =
            finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7", record(jobLine("CANCELLED", "0:15")), "");
        QVERIFY(!cancelled.succeeded);
        QCOMPARE(cancelled.message, std::string("diagnostics on r01-n01 (job 7) was cancelled"));

        const auto timeout = finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7",
                                                 record(jobLine("TIMEOUT", "0:15", "TimeLimit")), "");
        QCOMPARE(
            timeout.message,
            std::string("diagnostics on r01-n01 (job 7) reached its time limit of 00:10:00 and was ended by Slurm"));

        const auto nodeFail =
            finishedJobProgress(RepairKind::GpuReset, "r01-n01", "7", record(jobLine("NODE_FAIL", "0:0")), "");
        QVERIFY(nodeFail.message.find("NODE_FAIL") != std::string::npos);

        const auto killed =
            finishedJobProgress(RepairKind::GpuReset, "r01-n01", "7", record(jobLine("FAILED", "0:9")), "");
        QCOMPARE(killed.message, std::string("GPU reset on r01-n01 (job 7) was killed by signal 9 (no output)"));

        const auto oom =
            finishedJobProgress(RepairKind::Diagnostics, "r01-n01", "7", record(jobLine("OUT_OF_MEMORY", "0:125")), "");
        QCOMPARE(oom.message, std::string("diagnostics on r01-n01 (job 7): Slurm ended it as OUT_OF_MEMORY"));
    }

    void tails() {
        QCOMPARE(outputTail("a\nb\nc\n", 4096, 2), std::string("b\nc"));
        QCOMPARE(outputTail("a\nb\nc", 4096, 5), std::string("a\nb\nc"));
        QCOMPARE(outputTail("", 4096, 5), std::string());
        // Cut by bytes at a line start.
        QCOMPARE(outputTail("0123456789\nabc\ndef\n", 9, 40), std::string("abc\ndef"));
        // One long line is kept, cut.
        QCOMPARE(outputTail(std::string(10000, 'x'), 4096, 40), std::string(4096, 'x'));
        std::string many;
        for (int i = 0; i < 100; ++i) many += "line " + std::to_string(i) + "\n";
        const std::string tail = outputTail(many);
        QVERIFY(tail.starts_with("line 60\n"));
        QVERIFY(tail.ends_with("line 99"));
    }
};

QTEST_GUILESS_MAIN(TestRepairSlurmJobs)
#include "tst_repair_slurm_jobs.moc"
