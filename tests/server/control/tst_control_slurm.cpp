// SlurmScheduler: argv handling, timeouts and parsing against fake Slurm programs, then the real
// thing on a loopback cluster (scripts/slurm-loopback) when the Slurm packages are installed.
#include "ControlTestFleet.h"
#include "OperationsEngine.h"
#include "SlurmScheduler.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

Q_DECLARE_METATYPE(v1::NodeState)

namespace {

// Writes an executable shell script standing in for a Slurm program.
void writeFakeProgram(const QTemporaryDir& dir, const QString& name, const QByteArray& body) {
    QFile file(dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\n" + body);
    file.close();
    ::chmod(dir.filePath(name).toLocal8Bit().constData(), 0755);
}

QStringList recordedArgs(const QTemporaryDir& dir) {
    QFile file(dir.filePath("argv"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    QStringList args;
    for (const QByteArray& arg : file.readAll().split('\0'))
        if (!arg.isEmpty()) args << QString::fromUtf8(arg);
    return args;
}

// Records each argument NUL-terminated, and SLURM_CONF, then behaves like a quiet success.
const QByteArray kRecordArgv = "for a in \"$@\"; do printf '%s\\0' \"$a\" >> \"$(dirname \"$0\")/argv\"; done\n"
                               "printf '%s' \"$SLURM_CONF\" > \"$(dirname \"$0\")/slurm_conf\"\n";

QString runText(const QString& program, const QStringList& args, const QString& slurmConf) {
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("SLURM_CONF", slurmConf);
    process.setProcessEnvironment(env);
    process.start(program, args);
    process.waitForFinished(30000);
    return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
}

}  // namespace

class TestSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir clusterDir_;
    QString slurmConf_;
    QString skipReason_;
    const QString script_ = QStringLiteral(WATCHFLOOR_SCRIPTS_DIR "/slurm-loopback");

    SlurmConfig realConfig() const { return {slurmConf_.toStdString(), "", std::chrono::seconds(15)}; }

    std::optional<SlurmNodeStatus> readNode(const SlurmScheduler& slurm, const std::string& name) {
        const auto states = slurm.readNodeStates({name});
        if (!states.error.empty() || states.nodes.size() != 1) return std::nullopt;
        return states.nodes[0];
    }

private slots:
    void initTestCase() {
        QProcess start;
        start.start(script_, {"start", clusterDir_.path(), "--slurmd", "r01-n03"});
        QVERIFY(start.waitForFinished(40000));
        const QString out = QString::fromUtf8(start.readAllStandardOutput());
        const QString err = QString::fromUtf8(start.readAllStandardError());
        if (start.exitCode() == 3) {
            skipReason_ = "Slurm packages absent (" + err.trimmed() + ")";
            return;
        }
        QVERIFY2(start.exitCode() == 0, qPrintable("slurm-loopback start failed: " + err));
        slurmConf_ = out.trimmed().section('=', 1);
        QVERIFY(QFile::exists(slurmConf_));
    }

    void cleanupTestCase() {
        // Also after a half-started cluster: stop whatever left a pid file.
        if (skipReason_.isEmpty()) QProcess::execute(script_, {"stop", clusterDir_.path()});
    }

    void parsesSinfoStates_data() {
        QTest::addColumn<QString>("sinfo");
        QTest::addColumn<v1::NodeState>("state");
        QTest::newRow("idle") << "idle" << v1::NODE_STATE_IDLE;
        QTest::newRow("idle not responding") << "idle*" << v1::NODE_STATE_IDLE;
        QTest::newRow("allocated") << "allocated" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("mixed planned") << "mixed-" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("completing") << "completing" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("draining") << "draining" << v1::NODE_STATE_DRAINING;
        QTest::newRow("drained") << "drained" << v1::NODE_STATE_DRAINED;
        QTest::newRow("drained not responding") << "drained*" << v1::NODE_STATE_DRAINED;
        QTest::newRow("down") << "down*" << v1::NODE_STATE_DOWN;
        QTest::newRow("fail") << "fail" << v1::NODE_STATE_DOWN;
        QTest::newRow("failing") << "failing" << v1::NODE_STATE_DRAINING;
        QTest::newRow("powered down") << "powered_down~" << v1::NODE_STATE_DOWN;
        QTest::newRow("reboot issued") << "reboot^" << v1::NODE_STATE_DOWN;
        QTest::newRow("unknown") << "unknown" << v1::NODE_STATE_UNSPECIFIED;
        QTest::newRow("empty") << "" << v1::NODE_STATE_UNSPECIFIED;
    }
    void parsesSinfoStates() {
        QFETCH(QString, sinfo);
        QFETCH(v1::NodeState, state);
        QCOMPARE(SlurmScheduler::parseNodeState(sinfo.toStdString()), state);
    }

    void nodeNamesMustBeSingleNodes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("plain");
        QTest::newRow("tray") << "r01-n03" << true;
        QTest::newRow("fqdn") << "node7.dc1_b" << true;
        QTest::newRow("hostlist") << "r01-n[01-18]" << false;
        QTest::newRow("comma list") << "r01-n01,r01-n02" << false;
        QTest::newRow("space") << "r01-n01 state=down" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("ALL") << "ALL" << true;  // a node may be called that; Slurm has no "ALL" keyword here
    }
    void nodeNamesMustBeSingleNodes() {
        QFETCH(QString, name);
        QFETCH(bool, plain);
        QCOMPARE(SlurmScheduler::isPlainNodeName(name.toStdString()), plain);
    }

    void reasonIsOneArgumentNeverAShell() {
        QTemporaryDir bin;
        const QString canary = bin.filePath("canary");
        QFile(canary).open(QIODevice::WriteOnly);
        writeFakeProgram(bin, "scontrol", kRecordArgv);
        SlurmScheduler slurm({"/etc/fleet/slurm.conf", bin.path().toStdString(), std::chrono::seconds(5)});
        const std::string reason = "alice: q \"x\" 'y' $(touch " + canary.toStdString() + "-2); rm -rf " +
                                   canary.toStdString() + " state=down `id`";
        const auto outcome = slurm.drainNode("r01-n03", reason);
        QVERIFY2(outcome.succeeded, outcome.message.c_str());
        QCOMPARE(recordedArgs(bin), (QStringList{"update", "nodename=r01-n03", "state=drain",
                                                 "reason=" + QString::fromStdString(reason)}));
        QVERIFY(QFile::exists(canary));
        QVERIFY(!QFile::exists(canary + "-2"));
        QFile conf(bin.filePath("slurm_conf"));
        QVERIFY(conf.open(QIODevice::ReadOnly));
        QCOMPARE(conf.readAll(), QByteArray("/etc/fleet/slurm.conf"));
    }

    void hostlistTargetsAreRefusedBeforeSlurm() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol", kRecordArgv);
        SlurmScheduler slurm({"", bin.path().toStdString(), std::chrono::seconds(5)});
        QVERIFY(!slurm.drainNode("r01-n[01-18]", "alice: oops").succeeded);
        QVERIFY(!slurm.resumeNode("r01-n01,r01-n02").succeeded);
        QVERIFY(!slurm.drainNode("r01-n01", "").succeeded);
        QVERIFY(recordedArgs(bin).isEmpty());
    }

    void slurmErrorsAreReportedVerbatim() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol",
                         "echo 'slurm_update error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n");
        SlurmScheduler slurm({"", bin.path().toStdString(), std::chrono::seconds(5)});
        const auto outcome = slurm.drainNode("r01-n03", "alice: test");
        QVERIFY(!outcome.succeeded);
        QCOMPARE(outcome.message, "slurm_update error: Unable to contact slurm controller (connect failure)");
    }

    void hungSlurmTimesOut() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol", "exec sleep 30\n");
        SlurmScheduler slurm({"", bin.path().toStdString(), std::chrono::milliseconds(300)});
        QElapsedTimer timer;
        timer.start();
        const auto outcome = slurm.resumeNode("r01-n03");
        QVERIFY(timer.elapsed() < 3000);
        QVERIFY(!outcome.succeeded);
        QCOMPARE(outcome.message, "scontrol did not answer within 0.3 s and was stopped");
    }

    void missingProgramIsAClearError() {
        SlurmScheduler slurm({"", "/nonexistent/bin", std::chrono::seconds(1)});
        const auto states = slurm.readNodeStates();
        QVERIFY(states.nodes.empty());
        QVERIFY2(QString::fromStdString(states.error).contains("cannot run /nonexistent/bin/sinfo"), states.error.c_str());
    }

    void parsesSinfoOutput() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "sinfo",
                         "printf 'r01-n01|idle|none\\nr01-n02|drained*|alice: a|b reason\\n"
                         "r01-n01|idle|none\\nr01-n03|draining|auto: Xid 79\\ngarbage\\n'\n");
        SlurmScheduler slurm({"", bin.path().toStdString(), std::chrono::seconds(5)});
        const auto states = slurm.readNodeStates();
        QVERIFY(states.error.empty());
        QCOMPARE(states.nodes.size(), 3u);
        QCOMPARE(states.nodes[0].name, "r01-n01");
        QCOMPARE(states.nodes[0].reason, "");
        QCOMPARE(states.nodes[1].state, v1::NODE_STATE_DRAINED);
        QVERIFY(!states.nodes[1].responding);
        QCOMPARE(states.nodes[1].reason, "alice: a|b reason");
        QCOMPARE(states.nodes[2].state, v1::NODE_STATE_DRAINING);
    }

    // ---- real Slurm on loopback ----

    void drainAndResumeThroughSlurm() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        SlurmScheduler slurm(realConfig());
        const std::string reason = "alice: xid 79 \"fell off\" bus; rm -rf /tmp/not-this";
        const auto drained = slurm.drainNode("r01-n03", reason);
        QVERIFY2(drained.succeeded, drained.message.c_str());
        const QString sinfoR = runText("sinfo", {"-R", "-h", "-o", "%E|%N"}, slurmConf_);
        QVERIFY2(sinfoR.contains(QString::fromStdString(reason) + "|r01-n03"), qPrintable(sinfoR));
        const auto node = readNode(slurm, "r01-n03");
        QVERIFY(node);
        QCOMPARE(node->state, v1::NODE_STATE_DRAINED);
        QCOMPARE(node->reason, reason);

        const auto resumed = slurm.resumeNode("r01-n03");
        QVERIFY2(resumed.succeeded, resumed.message.c_str());
        const auto back = readNode(slurm, "r01-n03");
        QVERIFY(back);
        QCOMPARE(back->state, v1::NODE_STATE_IDLE);
        QVERIFY(back->reason.empty());
        // Slurm refuses to resume a node that is not drained, and says why.
        const auto again = slurm.resumeNode("r01-n03");
        QVERIFY(!again.succeeded);
        QVERIFY2(QString::fromStdString(again.message).contains("Invalid node state"), again.message.c_str());
    }

    void drainMadeWithScontrolShowsInTheReader() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        runText("scontrol", {"update", "nodename=r01-n05", "state=drain", "reason=by hand from a shell"}, slurmConf_);
        SlurmScheduler slurm(realConfig());
        const auto states = slurm.readNodeStates();
        QVERIFY2(states.error.empty(), states.error.c_str());
        QCOMPARE(states.nodes.size(), 18u);
        const auto it = std::find_if(states.nodes.begin(), states.nodes.end(),
                                     [](const SlurmNodeStatus& n) { return n.name == "r01-n05"; });
        QVERIFY(it != states.nodes.end());
        QCOMPARE(it->state, v1::NODE_STATE_DRAINED);
        QCOMPARE(it->reason, "by hand from a shell");
    }

    void requeueMovesAJobOffExcludedNodes() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        runText("sbatch", {"-w", "r01-n03", "-J", "llm-70b", "--requeue", "-o", "/dev/null", "--wrap", "sleep 300"},
                slurmConf_);
        QTRY_COMPARE_WITH_TIMEOUT(runText("squeue", {"-h", "-n", "llm-70b", "-o", "%T"}, slurmConf_).trimmed(),
                                  QString("RUNNING"), 15000);
        SlurmScheduler slurm(realConfig());
        QCOMPARE(readNode(slurm, "r01-n03")->state, v1::NODE_STATE_ALLOCATED);
        const auto requeued = slurm.requeueJob("llm-70b", {"r01-n03"});
        QVERIFY2(requeued.succeeded, requeued.message.c_str());
        // The job completes on r01-n03 (killed), then waits in the queue again.
        QString job;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (job = runText("squeue", {"-h", "-n", "llm-70b", "-o", "%T|%i"}, slurmConf_).trimmed()).startsWith("PENDING|"),
            qPrintable(job), 15000);
        const QString details = runText("scontrol", {"show", "job", job.section('|', 1), "-o"}, slurmConf_);
        QVERIFY2(details.contains("ExcNodeList=r01-n03"), qPrintable(details));
        QVERIFY(!slurm.requeueJob("no-such-job", {}).succeeded);
        runText("scancel", {"-n", "llm-70b"}, slurmConf_);
    }

    void unreachableSlurmFailsTheOperation() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QCOMPARE(QProcess::execute(script_, {"stop-ctld", clusterDir_.path()}), 0);

        QTemporaryDir dir;
        control_test::TestFleet fleet(1);
        auto audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString()).log;
        SlurmScheduler slurm(realConfig());
        OperationsEngine engine(fleet, slurm, *audit, {});
        v1::ActionRequest drain;
        drain.set_request_id("drain-while-down");
        drain.set_type(v1::ACTION_TYPE_DRAIN_NODE);
        drain.set_node_name("r01-n07");
        drain.set_reason("xid 48");
        const auto result = engine.execute({"alice", v1::ROLE_OPERATOR, false, "test"}, drain);
        QVERIFY(result.status.ok());
        QCOMPARE(result.operation.state(), v1::OPERATION_STATE_FAILED);
        QVERIFY2(QString::fromStdString(result.operation.error()).contains("Unable to contact slurm controller"),
                 result.operation.error().c_str());
        const auto unreadable = slurm.readNodeStates({"r01-n07"});
        QVERIFY(unreadable.nodes.empty());
        QVERIFY2(QString::fromStdString(unreadable.error).contains("Unable to contact slurm controller"),
                 unreadable.error.c_str());

        QCOMPARE(QProcess::execute(script_, {"start-ctld", clusterDir_.path()}), 0);
        const auto node = readNode(slurm, "r01-n07");
        QVERIFY(node);
        QVERIFY(node->state != v1::NODE_STATE_DRAINED && node->state != v1::NODE_STATE_DRAINING);
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_control_slurm.moc"
