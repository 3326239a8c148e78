// fleetd's operator-action flags as a process: bad values and lone flags exit 2 naming the flag,
// unusable tokens files exit 2, --help lists every flag, a fleetd without --tokens refuses
// control calls naming the flag while telemetry works, and the default audit log location.
#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

class FleetdControlCliTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tokens_;

private slots:
    void initTestCase() { tokens_ = writeTokens(dir_); }

    void badControlFlagsExitTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QString t = writeTokens(dir_);
        QTest::newRow("ttl zero") << QStringList{"--tokens", t, "--approval-ttl", "0s"} << "--approval-ttl";
        QTest::newRow("ttl two days") << QStringList{"--tokens", t, "--approval-ttl", "2d"} << "--approval-ttl";
        QTest::newRow("ttl words") << QStringList{"--tokens", t, "--approval-ttl", "soon"} << "--approval-ttl";
        QTest::newRow("auto-drain zero") << QStringList{"--tokens", t, "--auto-drain", "0/10m"} << "--auto-drain";
        QTest::newRow("auto-drain no window") << QStringList{"--tokens", t, "--auto-drain", "5"} << "--auto-drain";
        QTest::newRow("auto-drain bad window") << QStringList{"--tokens", t, "--auto-drain", "5/x"} << "--auto-drain";
        QTest::newRow("approval for drains")
            << QStringList{"--tokens", t, "--require-approval", "drain-node"} << "--require-approval";
        QTest::newRow("scheduler pbs") << QStringList{"--tokens", t, "--scheduler", "pbs"} << "--scheduler";
        QTest::newRow("empty tokens") << QStringList{"--tokens", ""} << "--tokens";
        QTest::newRow("cert without key") << QStringList{"--tls-cert", "server.crt"} << "--tls-key";
        QTest::newRow("client ca alone") << QStringList{"--tls-client-ca", "ca.crt"} << "--tls-client-ca";
        QTest::newRow("slurm conf with sim")
            << QStringList{"--tokens", t, "--slurm-conf", "slurm.conf"} << "--scheduler slurm";
        QTest::newRow("auto-drain without tokens") << QStringList{"--auto-drain", "5/10m"} << "needs --tokens";
        QTest::newRow("audit log without tokens") << QStringList{"--audit-log", "a.jsonl"} << "needs --tokens";
        // Issue 16, items 4 and 6: the ladder's and the lemon detector's flags.
        QTest::newRow("evict-slow without breaker")
            << QStringList{"--tokens", t, "--auto-evict-slow"} << "needs --auto-drain";
        QTest::newRow("lifecycle without breaker")
            << QStringList{"--tokens", t, "--auto-lifecycle"} << "needs --auto-drain";
        QTest::newRow("evict-slow without tokens")
            << QStringList{"--auto-drain", "5/10m", "--auto-evict-slow"} << "--auto-drain needs --tokens";
        QTest::newRow("evict-slow with a value")
            << QStringList{"--tokens", t, "--auto-evict-slow=yes"} << "takes no value";
        QTest::newRow("lemon zero") << QStringList{"--tokens", t, "--lemon", "0/7d"} << "--lemon: expected K/WINDOW";
        QTest::newRow("lemon no window") << QStringList{"--tokens", t, "--lemon", "3"} << "--lemon: expected K/WINDOW";
        QTest::newRow("fail-slow window 1s")
            << QStringList{"--tokens", t, "--fail-slow-window", "1s"} << "--fail-slow-window";
        QTest::newRow("fail-slow confirm 0")
            << QStringList{"--tokens", t, "--fail-slow-confirm", "0"} << "--fail-slow-confirm";
        QTest::newRow("lemon without tokens") << QStringList{"--lemon", "3/7d"} << "needs --tokens";
    }
    void badControlFlagsExitTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto exit = FleetdProcess::run(args);
        QCOMPARE(exit.code, 2);
        QVERIFY2(exit.stdErr.contains("usage: fleetd"), qPrintable(exit.stdErr));
        QVERIFY2(exit.stdErr.contains(mentions), qPrintable(exit.stdErr));
    }

    void unusableTokensFileExitsTwo_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<bool>("groupReadable");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("readable by others")
            << QByteArray("token operator-token-00000002 principal=a role=operator\n") << true << "chmod 600";
        QTest::newRow("unknown role") << QByteArray("token operator-token-00000002 principal=a role=root\n") << false
                                      << "unknown role 'root'";
        QTest::newRow("short secret") << QByteArray("token abc principal=a role=operator\n") << false << "shorter than";
    }
    void unusableTokensFileExitsTwo() {
        QFETCH(QByteArray, contents);
        QFETCH(bool, groupReadable);
        QFETCH(QString, mentions);
        const QString path = dir_.filePath(QStringLiteral("tokens-%1").arg(QTest::currentDataTag()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
        file.close();
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                            (groupReadable ? QFileDevice::ReadGroup : QFileDevice::Permissions()));
        const auto exit = FleetdProcess::run(
            {"--listen", "127.0.0.1:0", "--tokens", path, "--audit-log", dir_.filePath("audit-bad-tokens.jsonl")});
        QCOMPARE(exit.code, 2);
        QVERIFY2(exit.stdErr.contains(mentions), qPrintable(exit.stdErr));
    }

    void helpListsEveryControlFlag() {
        const auto exit = FleetdProcess::run({"--help"});
        QCOMPARE(exit.code, 0);
        for (const char* flag :
             {"--tokens FILE", "--audit-log FILE", "--tls-cert FILE", "--tls-key FILE", "--tls-client-ca FILE",
              "--require-approval isolate-rack", "--approval-ttl D", "--scheduler sim|slurm", "--slurm-conf FILE",
              "--auto-drain N/WINDOW", "--fail-slow-window D", "--fail-slow-confirm N", "--auto-evict-slow",
              "--lemon K/WINDOW", "--auto-lifecycle"})
            QVERIFY2(exit.stdOut.contains(flag), flag);
    }

    void withoutTokensControlIsRefusedAndTelemetryServed() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--speed", "30"}), qPrintable(fleetd.errorString()));
        QVERIFY(fleetd.log().contains("operator actions off"));
        ControlConnection console(fleetd.address());
        v1::WhoAmIResponse who;
        const auto status = console.whoAmI(kAlice, &who);
        QCOMPARE(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
        QVERIFY2(status.error_message().find("--tokens") != std::string::npos, status.error_message().c_str());
        v1::Operation op;
        QCOMPARE(console.execute(kAlice, drainNode("r01-n01", "x"), &op).error_code(), grpc::StatusCode::UNIMPLEMENTED);
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        QCOMPARE(fleetd.terminate(), 0);
    }

    void defaultAuditLogLocation_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("expected");
        QTest::newRow("home") << QString() << "home/.local/state/watchfloor/fleetd-audit.jsonl";
        QTest::newRow("xdg") << "XDG_STATE_HOME"
                             << "xdg/watchfloor/fleetd-audit.jsonl";
        QTest::newRow("systemd") << "STATE_DIRECTORY"
                                 << "systemd/audit.jsonl";
    }
    void defaultAuditLogLocation() {
        QFETCH(QString, variable);
        QFETCH(QString, expected);
        QTemporaryDir root;
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.remove("XDG_STATE_HOME");
        environment.remove("STATE_DIRECTORY");
        environment.insert("HOME", root.filePath("home"));
        if (!variable.isEmpty()) {
            QDir(root.path()).mkpath(QTest::currentDataTag());
            environment.insert(variable, root.filePath(QTest::currentDataTag()));
        }
        FleetdProcess fleetd;
        fleetd.setEnvironment(environment);
        QVERIFY2(fleetd.start({"--speed", "30", "--tokens", tokens_}), qPrintable(fleetd.errorString()));
        const QString path = root.filePath(expected);
        QVERIFY2(fleetd.log().contains(("audit log: " + path + " (default").toUtf8()), fleetd.log().constData());
        ControlConnection console(fleetd.address());
        v1::Operation op;
        QVERIFY(console.execute(kAlice, drainNode("r02-n02", "default-audit"), &op).ok());
        QCOMPARE(countAudit(path, auditOf("default-audit", "allow")), 1);
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdControlCliTest)
#include "tst_fleetd_control_cli.moc"
