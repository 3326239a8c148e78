#include "ConsoleCommandLine.h"
#include "ConsoleSecurity.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace watchfloor::app;
using Kind = CommandLineOutcome::Kind;

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void badArgumentsAreUsageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
        QTest::newRow("endpoint without port") << QStringList{"--endpoint", "localhost"} << "localhost";
        QTest::newRow("endpoint port zero") << QStringList{"--endpoint", "h:0"} << "h:0";
        QTest::newRow("unknown page") << QStringList{"--page", "kitchen"} << "kitchen";
        QTest::newRow("screenshot not png") << QStringList{"--endpoint", "h:1", "--screenshot", "out.jpg"} << "out.jpg";
        QTest::newRow("screenshot without endpoint") << QStringList{"--screenshot", "a.png"} << "--endpoint";
        QTest::newRow("rotate without war room") << QStringList{"--rotate", "10"} << "--war-room";
        QTest::newRow("rotate zero") << QStringList{"--war-room", "--rotate", "0"} << "--rotate";
        QTest::newRow("pages unknown") << QStringList{"--war-room", "--pages", "fleet,bogus"} << "bogus";
        QTest::newRow("screen negative") << QStringList{"--screen", "-1"} << "--screen";
        QTest::newRow("theme unknown") << QStringList{"--theme", "neon"} << "neon";
        QTest::newRow("positional") << QStringList{"stray"} << "stray";
        QTest::newRow("timeout without screenshot") << QStringList{"--timeout", "5"} << "--timeout";
        QTest::newRow("missing value") << QStringList{"--page"} << "page";
        QTest::newRow("size without screenshot") << QStringList{"--size", "3840x2160"} << "--size";
        QTest::newRow("size malformed") << QStringList{"--endpoint", "h:1", "--screenshot", "a.png", "--size", "4k"}
                                        << "4k";
        QTest::newRow("size too small") << QStringList{"--endpoint", "h:1",    "--screenshot",
                                                       "a.png",      "--size", "320x200"}
                                        << "320x200";
        QTest::newRow("client cert without key")
            << QStringList{"--ca-cert", "ca.crt", "--client-cert", "c.crt"} << "--client-key";
        QTest::newRow("client key without cert")
            << QStringList{"--ca-cert", "ca.crt", "--client-key", "c.key"} << "--client-cert";
        QTest::newRow("client cert without TLS")
            << QStringList{"--client-cert", "c.crt", "--client-key", "c.key"} << "--ca-cert";
        QTest::newRow("empty token file") << QStringList{"--token-file", ""} << "--token-file";
    }
    void badArgumentsAreUsageErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CommandLineOutcome outcome = parseCommandLine(QStringList{"watchfloor"} + args);
        QCOMPARE(outcome.kind, Kind::UsageError);
        QVERIFY2(outcome.message.contains(mentions), qPrintable(outcome.message));
    }

    void screenshotInvocationParses() {
        const CommandLineOutcome outcome = parseCommandLine(
            {"watchfloor", "--endpoint", "127.0.0.1:50551", "--endpoint", "10.0.0.2:7000", "--page", "Rack", "--select",
             "r03", "--screenshot", "/tmp/x.png", "--timeout", "12", "--size", "3840x2160"});
        QCOMPARE(outcome.kind, Kind::Run);
        const LaunchOptions& o = outcome.options;
        QCOMPARE(o.endpoints, (QStringList{"127.0.0.1:50551", "10.0.0.2:7000"}));
        QCOMPARE(o.page, watchfloor::ui::PageId::Rack);
        QCOMPARE(o.selectEntity, QStringLiteral("r03"));
        QCOMPARE(o.screenshotPath, QStringLiteral("/tmp/x.png"));
        QCOMPARE(o.screenshotTimeout, std::chrono::seconds(12));
        QCOMPARE(o.screenshotSize, QSize(3840, 2160));
    }

    void warRoomInvocationParses() {
        const CommandLineOutcome outcome = parseCommandLine(
            {"watchfloor", "--war-room", "--rotate", "20", "--pages", "fleet,goodput,events", "--screen", "1"});
        QCOMPARE(outcome.kind, Kind::Run);
        const LaunchOptions& o = outcome.options;
        QVERIFY(o.warRoom);
        QCOMPARE(o.rotateInterval, std::chrono::seconds(20));
        using watchfloor::ui::PageId;
        QCOMPARE(o.rotatePages, (QVector<PageId>{PageId::Fleet, PageId::Goodput, PageId::Events}));
        QCOMPARE(o.screen, 1);
    }

    void securityFlagsParse() {
        const CommandLineOutcome outcome =
            parseCommandLine({"watchfloor", "--token-file", "/run/t", "--ca-cert", "ca.crt", "--client-cert", "c.crt",
                              "--client-key", "c.key"});
        QCOMPARE(outcome.kind, Kind::Run);
        QCOMPARE(outcome.options.tokenFile, QStringLiteral("/run/t"));
        QCOMPARE(outcome.options.caCertFile, QStringLiteral("ca.crt"));
        QCOMPARE(outcome.options.clientCertFile, QStringLiteral("c.crt"));
        QCOMPARE(outcome.options.clientKeyFile, QStringLiteral("c.key"));
    }

    // The token file is checked the way fleetd checks its --tokens file: private, one token.
    void tokenFileIsReadSafely_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<QString>("token");  // expected token, or "" when refused
        QTest::addColumn<QString>("mentions");
        QTest::newRow("private") << QByteArray("# alice\n  s3cr3t-token  \n") << 0600 << "127.0.0.1:50551"
                                 << "s3cr3t-token"
                                 << "";
        QTest::newRow("world readable") << QByteArray("s3cr3t-token\n") << 0644 << "127.0.0.1:50551"
                                        << ""
                                        << "chmod 600";
        QTest::newRow("group readable") << QByteArray("s3cr3t-token\n") << 0640 << "127.0.0.1:50551"
                                        << ""
                                        << "group or others";
        QTest::newRow("empty") << QByteArray("# nothing\n\n") << 0600 << "127.0.0.1:50551"
                               << ""
                               << "holds no token";
        QTest::newRow("two words") << QByteArray("Bearer s3cr3t\n") << 0600 << "127.0.0.1:50551"
                                   << ""
                                   << "one word";
        QTest::newRow("plaintext to remote") << QByteArray("s3cr3t-token\n") << 0600 << "10.0.0.5:7443"
                                             << ""
                                             << "plaintext to 10.0.0.5:7443";
    }
    void tokenFileIsReadSafely() {
        QFETCH(QByteArray, contents);
        QFETCH(int, mode);
        QFETCH(QString, endpoint);
        QFETCH(QString, token);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        const QString path = dir.filePath("token");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
        file.close();
        QVERIFY(QFile::setPermissions(path, QFileDevice::Permissions()));
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(mode)), 0);
        LaunchOptions options;
        options.tokenFile = path;
        const ChannelSecurityOutcome outcome = loadChannelSecurity(options, {endpoint});
        QCOMPARE(outcome.security.bearerToken, token);
        if (token.isEmpty())
            QVERIFY2(outcome.error.contains(mentions), qPrintable(outcome.error));
        else
            QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
    }

    void tlsFilesMustExist() {
        LaunchOptions options;
        options.caCertFile = QStringLiteral("/nonexistent/ca.crt");
        const ChannelSecurityOutcome outcome = loadChannelSecurity(options, {QStringLiteral("10.0.0.5:7443")});
        QVERIFY2(outcome.error.contains("--ca-cert /nonexistent/ca.crt"), qPrintable(outcome.error));
        options.tokenFile = QStringLiteral("/nonexistent/token");
        QVERIFY(loadChannelSecurity(options, {}).error.contains("--ca-cert"));
    }

    void helpIsNotAnError() {
        const CommandLineOutcome outcome = parseCommandLine({"watchfloor", "--help"});
        QCOMPARE(outcome.kind, Kind::ShowHelp);
        QVERIFY(outcome.message.contains("--war-room"));
        QVERIFY(outcome.message.contains("--token-file"));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
