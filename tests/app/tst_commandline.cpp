#include "CommandLine.h"

#include <QTest>

using namespace watchfloor::app;
using Kind = CommandLineOutcome::Kind;

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void badArgumentsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
        QTest::newRow("endpoint without port") << QStringList{"--endpoint", "localhost"} << "localhost";
        QTest::newRow("endpoint port zero") << QStringList{"--endpoint", "h:0"} << "h:0";
        QTest::newRow("unknown page") << QStringList{"--page", "kitchen"} << "kitchen";
        QTest::newRow("screenshot not png")
            << QStringList{"--endpoint", "h:1", "--screenshot", "out.jpg"} << "out.jpg";
        QTest::newRow("screenshot without endpoint") << QStringList{"--screenshot", "a.png"} << "--endpoint";
        QTest::newRow("rotate without war room") << QStringList{"--rotate", "10"} << "--war-room";
        QTest::newRow("rotate zero") << QStringList{"--war-room", "--rotate", "0"} << "--rotate";
        QTest::newRow("pages unknown") << QStringList{"--war-room", "--pages", "fleet,bogus"} << "bogus";
        QTest::newRow("screen negative") << QStringList{"--screen", "-1"} << "--screen";
        QTest::newRow("theme unknown") << QStringList{"--theme", "neon"} << "neon";
        QTest::newRow("positional") << QStringList{"stray"} << "stray";
        QTest::newRow("timeout without screenshot") << QStringList{"--timeout", "5"} << "--timeout";
        QTest::newRow("missing value") << QStringList{"--page"} << "page";
    }
    void badArgumentsAreUsageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CommandLineOutcome outcome = parseCommandLine(QStringList{"watchfloor"} + args);
        QCOMPARE(outcome.kind, Kind::UsageError);
        QVERIFY2(outcome.message.contains(mentions), qPrintable(outcome.message));
    }

    void screenshotInvocationParses()
    {
        const CommandLineOutcome outcome = parseCommandLine(
            {"watchfloor", "--endpoint", "127.0.0.1:50551", "--endpoint", "10.0.0.2:7000", "--page", "Rack",
             "--select", "r03", "--screenshot", "/tmp/x.png", "--timeout", "12"});
        QCOMPARE(outcome.kind, Kind::Run);
        const LaunchOptions& o = outcome.options;
        QCOMPARE(o.endpoints, (QStringList{"127.0.0.1:50551", "10.0.0.2:7000"}));
        QCOMPARE(o.page, watchfloor::ui::PageId::Rack);
        QCOMPARE(o.selectEntity, QStringLiteral("r03"));
        QCOMPARE(o.screenshotPath, QStringLiteral("/tmp/x.png"));
        QCOMPARE(o.screenshotTimeout, std::chrono::seconds(12));
    }

    void warRoomInvocationParses()
    {
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

    void helpIsNotAnError()
    {
        const CommandLineOutcome outcome = parseCommandLine({"watchfloor", "--help"});
        QCOMPARE(outcome.kind, Kind::ShowHelp);
        QVERIFY(outcome.message.contains("--war-room"));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
