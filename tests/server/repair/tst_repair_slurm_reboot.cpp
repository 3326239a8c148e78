// The Slurm reboot's command line and its stages, from the state words and reasons slurmctld
// prints (the table in docs/domain/break-fix.md, "Slurm: scontrol reboot").

#include "SlurmReboot.h"

#include <QtTest>

using namespace watchfloor::server::repair;

using Arguments = std::vector<std::string>;

class TestRepairSlurmReboot : public QObject {
    Q_OBJECT

private slots:
    void commandLines() {
        QCOMPARE(scontrolRebootArguments({"gb200-r01-n03", false, AfterReboot::Resume, "alice: Xid 95"}),
                 (Arguments{"reboot", "nextstate=RESUME", "reason=alice: Xid 95", "gb200-r01-n03"}));
        QCOMPARE(scontrolRebootArguments({"n1", true, AfterReboot::Down, "bob: reseat"}),
                 (Arguments{"reboot", "ASAP", "nextstate=DOWN", "reason=bob: reseat", "n1"}));
        QCOMPARE(scontrolRebootArguments({"n1", false, AfterReboot::StayDrained, "auto: Xid 79"}),
                 (Arguments{"reboot", "reason=auto: Xid 79", "n1"}));
        // A reason with shell characters stays one argument, as typed.
        const auto args = scontrolRebootArguments({"n1", false, AfterReboot::Resume, "eve: $(rm -rf /); x=\"y\""});
        QCOMPARE(args[2], std::string("reason=eve: $(rm -rf /); x=\"y\""));
        QCOMPARE(args.size(), std::size_t(4));
    }

    void stages_data() {
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("stage");
        QTest::addColumn<bool>("finished");
        QTest::addColumn<bool>("succeeded");
        const auto row = [](const char* name, const char* state, const char* reason, RebootStage stage, bool finished,
                            bool succeeded) {
            QTest::newRow(name) << state << reason << int(stage) << finished << succeeded;
        };
        row("requested idle", "reboot", "alice: Xid 95", RebootStage::Requested, false, false);
        row("requested silent", "reboot*", "alice: Xid 95", RebootStage::Requested, false, false);
        row("requested busy", "mixed@", "alice: Xid 95", RebootStage::WaitingForJobs, false, false);
        row("requested allocated", "allocated@", "", RebootStage::WaitingForJobs, false, false);
        row("asap busy", "draining@", "Reboot ASAP", RebootStage::WaitingForJobs, false, false);
        row("issued", "reboot^", "alice: Xid 95 : reboot issued", RebootStage::Issued, false, false);
        row("issued silent", "reboot^*", "alice: Xid 95 : reboot issued", RebootStage::Issued, false, false);
        row("back", "idle", "", RebootStage::Back, true, true);
        row("back drained", "drained", "alice: hold : reboot complete", RebootStage::Back, true, true);
        row("back down", "down", "alice: Xid 95 : reboot complete", RebootStage::BackDown, true, true);
        row("timed out", "down*", "alice: Xid 95 : reboot issued : reboot timed out", RebootStage::TimedOut, true,
            false);
        row("timed out drained", "drained*", "alice: x : reboot timed out", RebootStage::TimedOut, true, false);
        row("down otherwise", "down", "healthcheck: GPU missing", RebootStage::Down, true, false);
        row("unknown word", "future", "", RebootStage::Unknown, false, false);
        row("no state", "", "", RebootStage::Unknown, false, false);
    }
    void stages() {
        QFETCH(QString, state);
        QFETCH(QString, reason);
        QFETCH(int, stage);
        QFETCH(bool, finished);
        QFETCH(bool, succeeded);
        const auto progress = readRebootProgress("r01-n03", state.toStdString(), reason.toStdString());
        QCOMPARE(int(progress.stage), stage);
        QCOMPARE(progress.finished(), finished);
        QCOMPARE(progress.succeeded(), succeeded);
        QVERIFY2(progress.message.find("r01-n03") != std::string::npos, progress.message.c_str());
    }

    // What the operator reads names the cause, not only the stage.
    void messagesSayWhy() {
        QVERIFY(readRebootProgress("r01-n03", "down*", "a : reboot timed out").message.find("ResumeTimeout") !=
                std::string::npos);
        QVERIFY(readRebootProgress("r01-n03", "mixed@", "").message.find("jobs") != std::string::npos);
        QVERIFY(readRebootProgress("r01-n03", "down", "healthcheck: GPU missing").message.find("GPU missing") !=
                std::string::npos);
        QVERIFY(readRebootProgress("r01-n03", "future", "").message.find("'future'") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestRepairSlurmReboot)
#include "tst_repair_slurm_reboot.moc"
