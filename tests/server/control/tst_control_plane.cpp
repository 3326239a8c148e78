// ControlPlane: fleetd's options turned into a working control plane, or a clear error.
#include "ControlPlane.h"
#include "ControlTestFleet.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace watchfloor::server::control;
using control_test::RecordingActuator;
using control_test::TestFleet;

namespace {

QString writeTokens(const QTemporaryDir& dir, mode_t mode) {
    const QString path = dir.filePath("tokens");
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(
        "token operator-token-00000002 principal=alice role=operator\n"
        "token admin-token-00000000004 principal=carol role=admin\n");
    file.close();
    ::chmod(path.toLocal8Bit().constData(), mode);
    return path;
}

QString joinedNotes(const ControlPlane& plane) {
    QStringList notes;
    for (const auto& note : plane.startupNotes()) notes << QString::fromStdString(note);
    return notes.join('\n');
}

}  // namespace

class TestPlane : public QObject {
    Q_OBJECT
private slots:
    void parsesAutoDrain_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("window_s");
        QTest::addColumn<double>("ratio");
        QTest::newRow("5/10m") << "5/10m" << 5 << 600 << 0.0;
        QTest::newRow("1/30s") << "1/30s" << 1 << 30 << 0.0;
        QTest::newRow("12/1h30m") << "12/1h30m" << 12 << 5400 << 0.0;
        QTest::newRow("5/10m,max=0.5%") << "5/10m,max=0.5%" << 5 << 600 << 0.005;
        QTest::newRow("5/10m,max=100%") << "5/10m,max=100%" << 5 << 600 << 1.0;
        for (const char* bad : {"5", "0/10m", "x/10m", "5/", "5/abc", "/10m", "5/500ms", "-1/10m", "5x/10m"})
            QTest::newRow(bad) << bad << 0 << 0 << 0.0;
        // The share: a percentage above 0 and at most 100, spelled max=P%.
        for (const char* bad :
             {"5/10m,max=", "5/10m,max=%", "5/10m,max=0%", "5/10m,max=-1%", "5/10m,max=101%", "5/10m,max=0.5",
              "5/10m,max=abc%", "5/10m,mx=1%", "5/10m,", "5/10m,max=0.5%%", "5/10m,max=1e400%"})
            QTest::newRow(bad) << bad << -1 << 0 << 0.0;
    }
    void parsesAutoDrain() {
        QFETCH(QString, text);
        QFETCH(int, count);
        QFETCH(int, window_s);
        QFETCH(double, ratio);
        std::string problem;
        const auto config = parseAutoDrain(text.toStdString(), &problem);
        QCOMPARE(config.has_value(), count > 0);
        if (config) {
            QCOMPARE(int(config->maxActionsPerWindow), count);
            QCOMPARE(int(config->window.count()), window_s);
            QCOMPARE(config->maxFleetRatio, ratio);
        } else {
            QVERIFY2(QString::fromStdString(problem).contains(count < 0 ? "N/WINDOW,max=P%" : "N/WINDOW"),
                     problem.c_str());
        }
    }

    void parsesApprovalAndScheduler() {
        ControlOptions options;
        std::string problem;
        QVERIFY(parseRequireApproval("isolate-rack", &options, &problem));
        QVERIFY(options.isolateRackNeedsApproval);
        QVERIFY(!parseRequireApproval("drain-node", &options, &problem));
        QVERIFY(QString::fromStdString(problem).contains("only 'isolate-rack'"));
        QVERIFY(parseScheduler("slurm", &options, &problem));
        QCOMPARE(options.scheduler, ControlOptions::Scheduler::Slurm);
        QVERIFY(parseScheduler("sim", &options, &problem));
        QCOMPARE(options.scheduler, ControlOptions::Scheduler::Sim);
        QVERIFY(!parseScheduler("k8s", &options, &problem));
    }

    void refusesToStartWithoutWhatItNeeds_data() {
        QTest::addColumn<QString>("missing");
        QTest::addColumn<QString>("error");
        QTest::newRow("audit log") << "audit"
                                   << "--audit-log FILE is required";
        QTest::newRow("tokens") << "tokens"
                                << "--tokens FILE is required";
        QTest::newRow("readable tokens") << "readable-tokens"
                                         << "chmod 600";
        QTest::newRow("sim actuator") << "actuator"
                                      << "--scheduler sim needs";
        QTest::newRow("tls key") << "tls-key"
                                 << "needs both --tls-cert and --tls-key";
        QTest::newRow("audit folder") << "audit-folder"
                                      << "cannot open audit log";
    }
    void refusesToStartWithoutWhatItNeeds() {
        QFETCH(QString, missing);
        QFETCH(QString, error);
        QTemporaryDir dir;
        TestFleet fleet;
        RecordingActuator actuator(dir.filePath("audit.jsonl").toStdString());
        ControlOptions options;
        options.auditLogFile = missing == "audit" ? "" : dir.filePath("audit.jsonl").toStdString();
        if (missing == "audit-folder") options.auditLogFile = dir.filePath("no/such/audit.jsonl").toStdString();
        options.tokensFile =
            missing == "tokens" ? "" : writeTokens(dir, missing == "readable-tokens" ? 0644 : 0600).toStdString();
        if (missing == "tls-key") options.tls.certPath = dir.filePath("server.crt").toStdString();
        const auto created =
            ControlPlane::create(options, {fleet, missing == "actuator" ? nullptr : &actuator, nullptr, {}});
        QVERIFY(!created.plane);
        QVERIFY2(QString::fromStdString(created.error).contains(error), created.error.c_str());
    }

    void startsAndReportsWhatItFound() {
        QTemporaryDir dir;
        const QString auditPath = dir.filePath("audit.jsonl");
        {
            QFile audit(auditPath);
            audit.open(QIODevice::WriteOnly);
            audit.write("{\"seq\":1,\"decision\":\"deny\"}\n{\"seq\":2,\"deci");  // torn at byte 28
        }
        TestFleet fleet;
        RecordingActuator actuator(auditPath.toStdString());
        ControlOptions options;
        options.auditLogFile = auditPath.toStdString();
        options.tokensFile = writeTokens(dir, 0600).toStdString();
        std::string problem;
        options.autoDrain = parseAutoDrain("2/10m", &problem);
        std::vector<std::string> alerts;
        const auto created = ControlPlane::create(
            options, {fleet, &actuator, nullptr, [&](const std::string& alert) { alerts.push_back(alert); }});
        QVERIFY2(created.plane, created.error.c_str());
        ControlPlane& plane = *created.plane;
        const QString notes = joinedNotes(plane);
        QVERIFY2(notes.contains("torn last record at byte 28"), qPrintable(notes));
        QVERIFY(notes.contains("2 tokens loaded"));
        QVERIFY(notes.contains("control transport: plaintext (bearer tokens accepted from loopback peers only)"));
        QVERIFY(notes.contains("recovered 0 operations"));
        QVERIFY(plane.credentials());
        QVERIFY(plane.autoDrain());

        // Automation goes through the engine and the breaker the plane built.
        QVERIFY(plane.autoDrain()->onXid("r01-n01", 0, 79, 1)->status.ok());
        QVERIFY(plane.autoDrain()->onXid("r01-n02", 0, 79, 2)->status.ok());
        QCOMPARE(plane.autoDrain()->onXid("r01-n04", 0, 79, 3)->status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QCOMPARE(alerts.size(), 1u);
        QCOMPARE(actuator.calls().size(), 2u);
    }

    // A restart must not quietly re-enable automation that tripped; only an admin reset does.
    void trippedBreakerSurvivesARestart() {
        QTemporaryDir dir;
        TestFleet fleet;
        RecordingActuator actuator(dir.filePath("audit.jsonl").toStdString());
        ControlOptions options;
        options.auditLogFile = dir.filePath("audit.jsonl").toStdString();
        options.tokensFile = writeTokens(dir, 0600).toStdString();
        std::string problem;
        options.autoDrain = parseAutoDrain("1/10m", &problem);
        {
            auto first = ControlPlane::create(options, {fleet, &actuator, nullptr, {}});
            QVERIFY(first.plane);
            QVERIFY(first.plane->autoDrain()->onXid("r01-n01", 0, 79, 1)->status.ok());
            QVERIFY(!first.plane->autoDrain()->onXid("r01-n02", 0, 79, 2)->status.ok());
            QVERIFY(first.plane->breaker()->tripped());
        }
        auto second = ControlPlane::create(options, {fleet, &actuator, nullptr, {}});
        QVERIFY2(second.plane, second.error.c_str());
        QVERIFY(second.plane->breaker()->tripped());
        QVERIFY(joinedNotes(*second.plane).contains("still tripped from before the restart"));
        QVERIFY(!second.plane->autoDrain()->onXid("r01-n03", 0, 79, 3)->status.ok());

        watchfloor::v1::ActionRequest reset;
        reset.set_request_id("reset-after-restart");
        reset.set_type(watchfloor::v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER);
        reset.set_reason("root cause fixed");
        QVERIFY(second.plane->engine().execute(control_test::kCarol, reset).status.ok());
        second.plane.reset();
        auto third = ControlPlane::create(options, {fleet, &actuator, nullptr, {}});
        QVERIFY(third.plane);
        QVERIFY(!third.plane->breaker()->tripped());
        QCOMPARE(actuator.calls().size(), 1u);
    }

    void slurmSchedulerNeedsNoSimulator() {
        QTemporaryDir dir;
        TestFleet fleet;
        ControlOptions options;
        options.auditLogFile = dir.filePath("audit.jsonl").toStdString();
        options.tokensFile = writeTokens(dir, 0600).toStdString();
        options.scheduler = ControlOptions::Scheduler::Slurm;
        const auto created = ControlPlane::create(options, {fleet, nullptr, nullptr, {}});
        QVERIFY2(created.plane, created.error.c_str());
        QVERIFY(!created.plane->autoDrain());
    }
};

QTEST_GUILESS_MAIN(TestPlane)
#include "tst_control_plane.moc"
