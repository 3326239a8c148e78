// SlurmRepairs' sequencing against stand-in Slurm programs that record every call: what a refusal
// half-way leaves undone, a job that never starts, a command that hangs, node-name translation.
// The real Slurm answers are in tst_repair_slurm_loopback; these are the paths it cannot force.
#include "SlurmRepairs.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace watchfloor::server::repair;
using watchfloor::server::SlurmConfig;
using watchfloor::server::SlurmNodeNames;
using namespace std::chrono_literals;

namespace {

// Each program logs "<name> <args…>" as one line and answers from files in its folder:
// <name>.out (stdout), <name>.err (stderr), <name>.rc (exit status), <name>.sleep (seconds).
// scontrol answers per subcommand: scontrol-<first argument>.{out,err,rc}.
const QByteArray kProgram = R"SH(#!/bin/sh
dir=$(dirname "$0")
name=$(basename "$0")
echo "$name $*" >> "$dir/calls"
printf '%s' "$SLURM_CONF" > "$dir/slurm_conf"
key=$name
[ "$name" = scontrol ] && key="scontrol-$1"
[ -f "$dir/$key.sleep" ] && sleep "$(cat "$dir/$key.sleep")"
[ -f "$dir/$key.out" ] && cat "$dir/$key.out"
[ -f "$dir/$key.err" ] && cat "$dir/$key.err" >&2
[ -f "$dir/$key.rc" ] && exit "$(cat "$dir/$key.rc")"
exit 0
)SH";

}  // namespace

class TestRepairSlurmRunner : public QObject {
    Q_OBJECT

    QTemporaryDir bin_;
    QTemporaryDir out_;

    void answer(const QString& file, const QByteArray& text) {
        QFile f(bin_.filePath(file));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
    }
    QStringList calls() const {
        QFile f(bin_.filePath("calls"));
        if (!f.open(QIODevice::ReadOnly)) return {};
        return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    }
    SlurmRepairs repairs(std::chrono::milliseconds timeout = 5s, std::chrono::seconds startTimeout = 300s,
                         std::string outputDir = {}) const {
        SlurmConfig slurm;
        slurm.binDir = bin_.path().toStdString();
        slurm.slurmConf = "/etc/site/slurm.conf";
        slurm.commandTimeout = timeout;
        auto names = std::make_shared<SlurmNodeNames>();
        names->add("r01-n01", "gb200-r01-n01");
        slurm.nodeNames = names;
        SlurmRepairSettings settings;
        settings.outputDir = outputDir.empty() ? out_.path().toStdString() : outputDir;
        settings.startTimeout = startTimeout;
        settings.user = "fleetd";
        return SlurmRepairs(slurm, settings);
    }

private slots:
    void init() {
        QVERIFY(bin_.isValid() && out_.isValid());
        for (const QString& entry : QDir(bin_.path()).entryList(QDir::Files)) QFile::remove(bin_.filePath(entry));
        for (const char* name : {"sinfo", "scontrol", "sbatch", "scancel"}) {
            answer(name, kProgram);
            ::chmod(bin_.filePath(name).toLocal8Bit().constData(), 0755);
        }
        answer("sinfo.out", "gb200-r01-n01|drained|alice: Xid 48 on GPU 2\n");
    }

    void sbatchRefusedUndoesEverything() {
        answer("sbatch.err",
               "sbatch: error: Batch job submission failed: Requested node configuration is not available\n");
        answer("sbatch.rc", "1");
        const auto started = repairs().startJob({RepairKind::GpuReset, "r01-n01", 1, 2});
        QVERIFY(!started.job);
        QCOMPARE(
            QString::fromStdString(started.error),
            QString("Slurm refused the repair job on r01-n01: sbatch: error: Batch job submission failed: Requested "
                    "node configuration is not available"));
        const QStringList made = calls();
        QCOMPARE(made.size(), 6);
        QCOMPARE(made[0], QString("sinfo -N -h -n gb200-r01-n01 -o %N|%T|%E"));
        QCOMPARE(made[1], QString("scontrol create reservation reservationname=watchfloor-gpu-reset-gb200-r01-n01 "
                                  "flags=maint,ignore_jobs nodes=gb200-r01-n01 users=fleetd starttime=now "
                                  "duration=UNLIMITED"));
        QCOMPARE(made[2], QString("scontrol update nodename=gb200-r01-n01 state=resume"));
        QVERIFY2(made[3].startsWith("sbatch --parsable --job-name=watchfloor-gpu-reset-gb200-r01-n01 ") &&
                     made[3].endsWith(" nvidia-smi -r -i 2"),
                 qPrintable(made[3]));
        // Undone in the order that never opens the tray to other jobs: drain (its reason as it
        // was), then the reservation.
        QCOMPARE(made[4], QString("scontrol update nodename=gb200-r01-n01 state=drain reason=alice: Xid 48 on GPU 2"));
        QCOMPARE(made[5], QString("scontrol delete reservationname=watchfloor-gpu-reset-gb200-r01-n01"));
        QFile conf(bin_.filePath("slurm_conf"));
        QVERIFY(conf.open(QIODevice::ReadOnly));
        QCOMPARE(conf.readAll(), QByteArray("/etc/site/slurm.conf"));
        // The batch script was removed once sbatch had read it.
        QCOMPARE(QDir(out_.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void scriptCannotBeWritten() {
        const auto started =
            repairs(5s, 300s, "/nonexistent-watchfloor-dir").startJob({RepairKind::Diagnostics, "r01-n01", 1, {}});
        QVERIFY(!started.job);
        QCOMPARE(
            QString::fromStdString(started.error),
            QString("cannot write the repair job's script in /nonexistent-watchfloor-dir: No such file or directory"));
        QCOMPARE(calls(), QStringList{"sinfo -N -h -n gb200-r01-n01 -o %N|%T|%E"});  // nothing to undo
    }

    void resumeRefused() {
        answer("scontrol-update.err", "slurm_update error: Invalid node state specified\n");
        answer("scontrol-update.rc", "1");
        const auto started = repairs().startJob({RepairKind::Diagnostics, "r01-n01", 2, {}});
        QVERIFY(!started.job);
        // The drain could not be put back either (every update fails here): the message says
        // what to do by hand.
        QCOMPARE(QString::fromStdString(started.error),
                 QString("Slurm refused to resume r01-n01 in its reservation: slurm_update error: Invalid node state "
                         "specified; drain r01-n01 again by hand: Slurm refused (slurm_update error: Invalid node "
                         "state specified)"));
        QVERIFY(calls().last().startsWith("scontrol delete reservationname=watchfloor-diagnostics-gb200-r01-n01"));
    }

    void neverStarts() {
        answer("sbatch.out", "42\n");
        const SlurmRepairs runner = repairs(5s, 0s);
        auto started = runner.startJob({RepairKind::Diagnostics, "r01-n01", 1, {}});
        QVERIFY2(started.job, started.error.c_str());
        QCOMPARE(started.job->jobId, std::string("42"));
        answer("scontrol-show.out",
               "JobId=42 JobName=watchfloor-diagnostics-gb200-r01-n01 JobState=PENDING Reason=ReqNodeNotAvail,_"
               "UnavailableNodes:gb200-r01-n01 ExitCode=0:0 TimeLimit=00:10:00 StdOut=/x/42.out\n");
        const auto progress = runner.poll(*started.job);
        QCOMPARE(progress.stage, RepairJobStage::Finished);
        QVERIFY(!progress.succeeded);
        QCOMPARE(QString::fromStdString(progress.message),
                 QString("job 42 on r01-n01 could not start within 0 s: Slurm says ReqNodeNotAvail, UnavailableNodes:"
                         "gb200-r01-n01; cancelled"));
        const QStringList made = calls();
        QCOMPARE(made.mid(made.size() - 4),
                 (QStringList{"scontrol show job -o 42", "scancel 42",
                              "scontrol update nodename=gb200-r01-n01 state=drain reason=alice: Xid 48 on GPU 2",
                              "scontrol delete reservationname=watchfloor-diagnostics-gb200-r01-n01"}));
        QVERIFY(started.job->finished);
    }

    void drainBackOnceRunning() {
        answer("sbatch.out", "43;fleet\n");  // --parsable adds ";cluster" on a federation
        const SlurmRepairs runner = repairs();
        auto started = runner.startJob({RepairKind::Diagnostics, "r01-n01", 1, {}});
        QVERIFY2(started.job, started.error.c_str());
        QCOMPARE(started.job->jobId, std::string("43"));
        answer("scontrol-show.out", "JobId=43 JobState=PENDING Reason=None ExitCode=0:0\n");
        QCOMPARE(runner.poll(*started.job).stage, RepairJobStage::Pending);
        QVERIFY(!calls().last().contains("state=drain"));
        answer("scontrol-show.out", "JobId=43 JobState=RUNNING Reason=None ExitCode=0:0\n");
        QCOMPARE(runner.poll(*started.job).stage, RepairJobStage::Running);
        QCOMPARE(calls().last(),
                 QString("scontrol update nodename=gb200-r01-n01 state=drain reason=alice: Xid 48 on GPU 2"));
        const int before = calls().size();
        QCOMPARE(runner.poll(*started.job).stage, RepairJobStage::Running);
        QCOMPARE(calls().size(), before + 1);  // drained once: only the show

        // Ended, the reservation refused to go: the outcome says so, the drain is not repeated.
        QFile output(out_.filePath("43.out"));
        QVERIFY(output.open(QIODevice::WriteOnly));
        output.write("exec: dcgmi: not found\n");
        output.close();
        answer("scontrol-show.out", "JobId=43 JobState=FAILED Reason=NonZeroExitCode ExitCode=127:0 StdOut=" +
                                        out_.filePath("43.out").toUtf8() + "\n");
        answer("scontrol-delete.err", "slurm_delete_reservation error: Reservation is in use\n");
        answer("scontrol-delete.rc", "1");
        const auto progress = runner.poll(*started.job);
        QCOMPARE(progress.stage, RepairJobStage::Finished);
        QCOMPARE(QString::fromStdString(progress.message),
                 QString("diagnostics on r01-n01 (job 43): the command was not found on the tray (exit status 127): "
                         "exec: dcgmi: not found; delete reservation watchfloor-diagnostics-gb200-r01-n01 by hand: "
                         "Slurm refused (slurm_delete_reservation error: Reservation is in use)"));
        QCOMPARE(calls().filter("state=drain").size(), 1);
    }

    void commandThatHangs() {
        answer("sinfo.sleep", "5");
        QElapsedTimer clock;
        clock.start();
        const auto started = repairs(300ms).startJob({RepairKind::Diagnostics, "r01-n01", 1, {}});
        QVERIFY(clock.elapsed() < 3000);
        QVERIFY(!started.job);
        QCOMPARE(QString::fromStdString(started.error),
                 QString("cannot ask Slurm about r01-n01: sinfo did not answer within 0.3 s and was stopped"));
        const auto progress = repairs(300ms).rebootProgress("r01-n01");
        QCOMPARE(progress.stage, RebootStage::Unknown);
    }

    void rebootThroughNames() {
        const auto issued = repairs().reboot({"r01-n01", true, AfterReboot::Down, "bob: reseat"});
        QVERIFY(issued.issued);
        QCOMPARE(calls().last(), QString("scontrol reboot ASAP nextstate=DOWN reason=bob: reseat gb200-r01-n01"));
        answer("sinfo.out", "gb200-r01-n01|reboot^|bob: reseat : reboot issued\n");
        const auto progress = repairs().rebootProgress("r01-n01");
        QCOMPARE(progress.stage, RebootStage::Issued);
        QVERIFY2(progress.message.find("r01-n01") != std::string::npos, progress.message.c_str());

        answer("scontrol-reboot.err", "scontrol: error: stand-in refusal\n");  // any text is quoted
        answer("scontrol-reboot.rc", "1");
        const auto refused = repairs().reboot({"r01-n01", false, AfterReboot::Resume, "bob: again"});
        QVERIFY(!refused.issued);
        QCOMPARE(QString::fromStdString(refused.message),
                 QString("Slurm refused the reboot of r01-n01: scontrol: error: stand-in refusal"));
    }
};

QTEST_GUILESS_MAIN(TestRepairSlurmRunner)
#include "tst_repair_slurm_runner.moc"
