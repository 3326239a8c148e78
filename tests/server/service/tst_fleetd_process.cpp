// The real fleetd binary (FLEETD_BIN): command line, start-up errors, shutdown, restart, health,
// and a stalled subscriber beside a live one.

#include "FleetdProcess.h"
#include "SanitizerBuild.h"
#include "StreamTestSupport.h"

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <thread>

using namespace watchfloor::server::testing;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {
using watchfloor::testing::FleetdProcess;

QString fleetdBin() { return FleetdProcess::binary(); }

double rssMiB(qint64 pid) {
    QFile status(QString("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const auto& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
    return -1;
}

// A started fleetd, or the test fails with fleetd's own output.
#define START_FLEETD(fleetd, ...) QVERIFY2((fleetd).start(__VA_ARGS__), qPrintable((fleetd).errorString()))

}  // namespace

class FleetdProcessTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFile::exists(fleetdBin()), qPrintable("FLEETD_BIN not built: " + fleetdBin())); }

    void badCommandLinesExitTwoWithUsage_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown flag") << QStringList{"--bogus"} << "--bogus";
        QTest::newRow("zero racks") << QStringList{"--racks", "0"} << "--racks";
        QTest::newRow("racks not a number") << QStringList{"--racks", "many"} << "many";
        QTest::newRow("too many racks") << QStringList{"--racks", "20000"} << "--racks";
        QTest::newRow("regions above racks") << QStringList{"--racks", "2", "--regions", "3"} << "--regions";
        QTest::newRow("negative speed") << QStringList{"--speed", "-1"} << "--speed";
        QTest::newRow("speed not a number") << QStringList{"--speed", "fast"} << "--speed";
        QTest::newRow("seed missing value") << QStringList{"--seed"} << "missing value";
        QTest::newRow("listen without port") << QStringList{"--listen", "localhost"} << "--listen";
        QTest::newRow("bad duration") << QStringList{"--sim-duration", "5 parsecs", "--dump-events", "x"}
                                      << "--sim-duration";
        QTest::newRow("duration without dump") << QStringList{"--sim-duration", "1h"} << "--dump-events";
        QTest::newRow("dump without duration") << QStringList{"--dump-events", "out.jsonl"} << "--sim-duration";
        QTest::newRow("replay log of 0 MB") << QStringList{"--replay-log-mb", "0"} << "--replay-log-mb";
        QTest::newRow("metrics address without port")
            << QStringList{"--metrics-listen", "localhost"} << "--metrics-listen";
        QTest::newRow("value on a switch") << QStringList{"--simulate=yes"} << "--simulate";
    }
    void badCommandLinesExitTwoWithUsage() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto e = FleetdProcess::run(args);
        QCOMPARE(e.code, 2);
        QVERIFY2(e.stdErr.contains("usage: fleetd"), qPrintable(e.stdErr));
        QVERIFY2(e.stdErr.contains(mentions), qPrintable(e.stdErr));
    }

    void helpAndVersionExitZero() {
        QProcess p;
        p.start(fleetdBin(), {"--version"});
        QVERIFY(p.waitForFinished(10'000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().startsWith("fleetd "));
        p.start(fleetdBin(), {"--help"});
        QVERIFY(p.waitForFinished(10'000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("--scenario FILE"));
    }

    void malformedScenarioExitsOneNamingFileAndLine() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.scenario");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("# a scripted fault per line\nat 5m xid 79 gpu=r01-n01-g0\nat soon explode everything\n");
        f.close();
        const auto e = FleetdProcess::run({"--scenario", path});
        QCOMPARE(e.code, 1);
        QVERIFY2(e.stdErr.contains(path + ":3:"), qPrintable(e.stdErr));
        QVERIFY2(!e.stdErr.contains("usage:"), qPrintable(e.stdErr));
    }

    void missingFleetFileExitsOneNamingIt() {
        const auto e = FleetdProcess::run({"--fleet", "/nonexistent/fleet.conf"});
        QCOMPARE(e.code, 1);
        QVERIFY2(e.stdErr.contains("/nonexistent/fleet.conf"), qPrintable(e.stdErr));
    }

    void headlessDumpWritesEventsAndExitsZero() {
        QTemporaryDir dir;
        const QString out = dir.filePath("events.jsonl");
        const auto e = FleetdProcess::run({"--sim-duration", "2h", "--dump-events", out, "--seed", "3"});
        QCOMPARE(e.code, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.size() > 0);
    }

    void startsServingAndLogsOneLine() {
        FleetdProcess fleetd;
        START_FLEETD(fleetd, {"--seed", "5", "--racks", "3", "--regions", "1"});
        const QString log = QString::fromUtf8(fleetd.log());
        QVERIFY2(log.contains("3 racks") && log.contains("seed 5"), qPrintable(log));
        QCOMPARE(healthStatus(fleetd.address()), 1);
    }

    void sigtermEndsStreamsUnavailableAndExitsZero() {
        FleetdProcess fleetd;
        START_FLEETD(fleetd, {"--speed", "10"});
        TestStream a(fleetd.address(), v1::SubscribeRequest{});
        TestStream b(fleetd.address(), v1::SubscribeRequest{});
        StreamChecker ca, cb;
        QVERIFY(readDeltas(a, ca, 2));
        QVERIFY(readDeltas(b, cb, 2));
        const int exitCode = fleetd.terminate();  // SIGTERM, then wait for the exit
        for (TestStream* s : {&a, &b}) {
            const auto status = s->finish();
            QCOMPARE(status.error_code(), grpc::StatusCode::UNAVAILABLE);
            QCOMPARE(status.error_message(), std::string("fleetd shutting down"));
        }
        QCOMPARE(exitCode, 0);
    }

    void killedAndRestartedFleetdSendsRestartSnapshot() {
        StreamChecker checker;
        int port = 0;
        {
            FleetdProcess first;
            START_FLEETD(first, {"--speed", "10"});
            port = first.port();
            TestStream stream(first.address(), v1::SubscribeRequest{});
            QVERIFY(readDeltas(stream, checker, 5));
            first.kill();  // SIGKILL: no goodbye
        }
        FleetdProcess second;
        START_FLEETD(second, {"--speed", "10"}, "127.0.0.1:" + QString::number(port));
        v1::SubscribeRequest resume;
        resume.set_resume_after_sequence(checker.sequence);
        resume.set_resume_run_id(checker.runId);
        TestStream stream(second.address(), resume);
        v1::SubscribeResponse r;
        QVERIFY(stream.read(&r));
        QVERIFY(r.has_snapshot());
        QCOMPARE(r.snapshot().reason(), std::string("restart"));
        QVERIFY(r.snapshot().run_id() != checker.runId);
    }

    void resumeAfterDroppedConnectionHasNoGap() {
        FleetdProcess fleetd;
        START_FLEETD(fleetd, {"--speed", "10"});
        StreamChecker checker;
        {
            TestStream stream(fleetd.address(), v1::SubscribeRequest{});
            QVERIFY(readDeltas(stream, checker, 10));
        }
        std::this_thread::sleep_for(500ms);
        v1::SubscribeRequest resume;
        resume.set_resume_after_sequence(checker.sequence);
        resume.set_resume_run_id(checker.runId);
        TestStream stream(fleetd.address(), resume);
        QVERIFY(readDeltas(stream, checker, 20));
        QCOMPARE(checker.snapshots, 1);
        QVERIFY2(checker.problem.empty(), checker.problem.c_str());
    }

    void stalledSubscriberKeepsMemoryBoundedAndRecovers() {
        // A small replay log fills within the warm-up, so growth after it would be a leak.
        FleetdProcess fleetd;
        START_FLEETD(fleetd, {"--racks", "24", "--regions", "2", "--speed", "20", "--replay-log-mb", "16"});
        TestStream stalled(fleetd.address(), v1::SubscribeRequest{});
        TestStream live(fleetd.address(), v1::SubscribeRequest{});
        StreamChecker liveChecker;
        v1::SubscribeResponse r;
        double rssAfterWarmUp = 0, rssPeak = 0;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 12'000) {
            QVERIFY(live.read(&r));
            liveChecker.apply(r);
            if (timer.elapsed() > 3000 && rssAfterWarmUp == 0) rssAfterWarmUp = rssMiB(fleetd.pid());
            rssPeak = std::max(rssPeak, rssMiB(fleetd.pid()));
        }
        QVERIFY2(liveChecker.problem.empty(), liveChecker.problem.c_str());
        QVERIFY2(liveChecker.deltas >= 150, std::to_string(liveChecker.deltas).c_str());  // ~20 ticks/s
        qInfo("fleetd RSS %.0f MiB after warm-up, %.0f MiB peak; live reader got %d deltas", rssAfterWarmUp, rssPeak,
              liveChecker.deltas);
        if (watchfloor::testing::kRssBoundsHold)
            QVERIFY2(rssPeak - rssAfterWarmUp < 96, qPrintable(QString::number(rssPeak - rssAfterWarmUp)));

        StreamChecker stalledChecker;
        for (int i = 0; i < 2000 && stalledChecker.deltas < 30; ++i) {
            QVERIFY(stalled.read(&r));
            stalledChecker.apply(r);
        }
        QVERIFY2(stalledChecker.problem.empty(), stalledChecker.problem.c_str());
        QVERIFY(stalledChecker.deltas >= 30);
    }
};

QTEST_GUILESS_MAIN(FleetdProcessTest)
#include "tst_fleetd_process.moc"
