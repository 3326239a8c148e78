// ControlClient (and the telemetry connection's security) against a real fleetd process on
// loopback: a drain reaches DRAINED; with a TCP proxy cutting every connection at a random moment
// of each call, ControlClient's own retries give exactly one operation (one "allow" audit record)
// per request id over 50 iterations; two consoles (two operators) draining one node → one
// execution, the other refused in words; mTLS with scripts/dev-ca for control and telemetry.
#include "ControlClient.h"
#include "EndpointConnection.h"

#include "FleetdControlFixture.h"
#include "TcpDropProxy.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

#include <optional>
#include <set>

using namespace fleetd_control_test;
using watchfloor::client::ChannelSecurity;
using watchfloor::client::ControlClient;
using watchfloor::client::ControlClientOptions;
using watchfloor::client::ControlResult;
using watchfloor::testing::FleetdProcess;
using watchfloor::testing::TcpDropProxy;

namespace {

ControlClientOptions testOptions() {
    ControlClientOptions options;
    options.unaryDeadline = std::chrono::milliseconds(5000);
    options.executeDeadline = std::chrono::milliseconds(5000);
    options.executeMaxAttempts = 10;
    options.executeRetry = {std::chrono::milliseconds(20), 2.0, 0.2, std::chrono::milliseconds(300)};
    options.watchReconnect = {std::chrono::milliseconds(100), 1.5, 0.2, std::chrono::milliseconds(500)};
    return options;
}

ChannelSecurity withToken(const char* token) {
    ChannelSecurity security;
    security.bearerToken = QString::fromLatin1(token);
    return security;
}

// Spins the event loop until `result` is set or the time is up.
template <class T>
bool waitFor(const std::optional<T>& result, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!result && timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    return result.has_value();
}

std::string trayName(int rack, int tray) {
    return QStringLiteral("r%1-n%2").arg(rack, 2, 10, QChar('0')).arg(tray, 2, 10, QChar('0')).toStdString();
}

}  // namespace

class ControlClientFleetdTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString auditPath_;
    FleetdProcess fleetd_;

    QString target() const { return QString::fromStdString(fleetd_.address()); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auditPath_ = dir_.filePath("audit.jsonl");
        QVERIFY2(
            fleetd_.start({"--seed", "11", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log", auditPath_}),
            qPrintable(fleetd_.errorString()));
    }

    void drainThroughControlClientReachesDrained() {
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::string node = "r04-n07";
        const auto index = watch.nodeIndex(node);
        QVERIFY(index);

        ControlClient alice(target(), withToken(kAlice), testOptions());
        alice.start();
        QTRY_VERIFY_WITH_TIMEOUT(alice.canAct(), 10000);
        QCOMPARE(alice.principal(), QString("alice"));
        QTRY_VERIFY_WITH_TIMEOUT(alice.isWatchLive(), 10000);

        std::optional<ControlResult<v1::ActionPreview>> preview;
        alice.preview(drainNode(node, "", "fan noisy"), [&](const auto& r) { preview = r; });
        QVERIFY(waitFor(preview, 10000));
        QVERIFY2(preview->ok, qPrintable(preview->message));
        QCOMPARE(preview->value.gpus_lost(), 4u);

        v1::ActionRequest request = drainNode(node, "", "fan noisy");
        request.set_expected_state_version(preview->value.state_version());
        std::optional<ControlResult<v1::Operation>> result;
        const QString requestId = alice.execute(request, [&](const auto& r) { result = r; });
        QVERIFY(waitFor(result, 10000));
        QVERIFY2(result->ok, qPrintable(result->message));
        QCOMPARE(QString::fromStdString(result->value.request_id()), requestId);

        v1::EntityState state;
        QVERIFY(watch.waitForState(
            *index, [](const v1::EntityState& s) { return s.node_state() == v1::NODE_STATE_DRAINED; }, 40s, &state));
        QCOMPARE(state.reason(), std::string("alice: fan noisy"));
        // The console learns the outcome from WatchOperations, not by polling.
        const QString id = QString::fromStdString(result->value.id());
        QTRY_VERIFY_WITH_TIMEOUT(alice.operation(id) && alice.operation(id)->state() == v1::OPERATION_STATE_SUCCEEDED,
                                 15000);
        QCOMPARE(countAudit(auditPath_, auditOf(requestId.toStdString(), "allow")), 1);
    }

    void connectionCutMidCallExecutesOncePerRequestId() {
        TcpDropProxy proxy{quint16(fleetd_.port())};
        ControlClient alice(QStringLiteral("127.0.0.1:%1").arg(proxy.port()), withToken(kAlice), testOptions());
        constexpr int kIterations = 50;
        QStringList requestIds;
        int retried = 0;
        int cuts = 0;
        int maxAttempts = 0;
        int acceptedBeforeCut = 0;
        QElapsedTimer elapsed;
        elapsed.start();
        for (int i = 0; i < kIterations; ++i) {
            // 50 distinct trays (r01-n01 .. r03-n14): no two operations share a target.
            const std::string node = trayName(1 + i / 18, 1 + i % 18);
            std::optional<ControlResult<v1::Operation>> result;
            requestIds << alice.execute(drainNode(node, "", "idempotency soak"), [&](const auto& r) { result = r; });
            // Cut at a random moment: before the request left, while fleetd handles it, or after.
            QTest::qWait(int(QRandomGenerator::global()->bounded(12)));
            const qint64 cutAtUnixMs = QDateTime::currentMSecsSinceEpoch();
            cuts += proxy.dropConnections();
            QVERIFY2(waitFor(result, 30000), node.c_str());
            QVERIFY2(result->ok, qPrintable(QString::fromStdString(node) + ": " + result->message));
            QCOMPARE(QString::fromStdString(result->value.request_id()), requestIds.back());
            retried += result->attempts > 1 ? 1 : 0;
            // Retried, yet created before the cut: fleetd had accepted the first attempt, and the
            // retry got that first operation back instead of a second execution.
            acceptedBeforeCut += result->attempts > 1 && result->value.created_unix_ms() <= cutAtUnixMs ? 1 : 0;
            maxAttempts = std::max(maxAttempts, result->attempts);
        }
        qInfo(
            "%d iterations in %lld ms: %d connections cut, %d calls retried (at most %d attempts; %d of them "
            "accepted by fleetd before the cut), %llu attempts total",
            kIterations, elapsed.elapsed(), cuts, retried, maxAttempts, acceptedBeforeCut,
            static_cast<unsigned long long>(alice.stats().executeAttempts));
        QVERIFY2(retried >= 5, "the cuts should have hit calls in flight");
        // Ground truth on fleetd's side: one accepted operation per request id, no more, no fewer.
        for (const QString& requestId : requestIds) {
            QCOMPARE(countAudit(auditPath_, auditOf(requestId.toStdString(), "allow")), 1);
        }
        ControlConnection check(fleetd_.address());
        v1::ListOperationsResponse list;
        QVERIFY(check.list(kViewer, &list).ok());
        std::multiset<std::string> perRequest;
        for (const auto& op : list.operations()) perRequest.insert(op.request_id());
        for (const QString& requestId : requestIds) {
            QCOMPARE(int(perRequest.count(requestId.toStdString())), 1);
        }
    }

    void twoConsolesOnOneNodeExecuteOnce() {
        const std::string node = "r05-n09";
        ControlClient alice(target(), withToken(kAlice), testOptions());
        ControlClient bob(target(), withToken(kBob), testOptions());
        alice.start();
        bob.start();
        QTRY_VERIFY_WITH_TIMEOUT(alice.canAct() && bob.canAct(), 10000);
        // Both look at the same node, then both act on what they saw.
        std::optional<ControlResult<v1::ActionPreview>> alicePreview, bobPreview;
        alice.preview(drainNode(node, "", "a"), [&](const auto& r) { alicePreview = r; });
        bob.preview(drainNode(node, "", "b"), [&](const auto& r) { bobPreview = r; });
        QVERIFY(waitFor(alicePreview, 10000) && waitFor(bobPreview, 10000));
        QVERIFY(alicePreview->ok && bobPreview->ok);
        QCOMPARE(alicePreview->value.state_version(), bobPreview->value.state_version());
        v1::ActionRequest fromAlice = drainNode(node, "", "xid 79 on GPU 1");
        v1::ActionRequest fromBob = drainNode(node, "", "xid 79 seen too");
        fromAlice.set_expected_state_version(alicePreview->value.state_version());
        fromBob.set_expected_state_version(bobPreview->value.state_version());
        std::optional<ControlResult<v1::Operation>> aliceResult, bobResult;
        const QString aliceId = alice.execute(fromAlice, [&](const auto& r) { aliceResult = r; });
        const QString bobId = bob.execute(fromBob, [&](const auto& r) { bobResult = r; });
        QVERIFY(waitFor(aliceResult, 15000) && waitFor(bobResult, 15000));
        QCOMPARE(int(aliceResult->ok) + int(bobResult->ok), 1);
        const auto& refused = aliceResult->ok ? *bobResult : *aliceResult;
        QCOMPARE(refused.code, grpc::StatusCode::ABORTED);
        QVERIFY2(refused.message.startsWith(
                     QStringLiteral("Refused: node %1 changed since the preview").arg(QString::fromStdString(node))),
                 qPrintable(refused.message));
        QCOMPARE(refused.attempts, 1);
        QCOMPARE(countAudit(auditPath_, auditOf(aliceId.toStdString(), "allow")) +
                     countAudit(auditPath_, auditOf(bobId.toStdString(), "allow")),
                 1);
        // The loser's console shows the winner's operation through its own watch.
        const auto& winner = aliceResult->ok ? *aliceResult : *bobResult;
        ControlClient& loser = aliceResult->ok ? bob : alice;
        QTRY_VERIFY2_WITH_TIMEOUT(loser.operation(QString::fromStdString(winner.value.id())).has_value(),
                                  qPrintable(QStringLiteral("%1 (live %2, %3 watches, %4 changes, %5 lists, %6 known)")
                                                 .arg(loser.watchStatusText())
                                                 .arg(loser.isWatchLive())
                                                 .arg(loser.stats().watchesOpened)
                                                 .arg(loser.stats().watchChanges)
                                                 .arg(loser.stats().listsMerged)
                                                 .arg(loser.operations().size())),
                                  10000);
    }

    void mutualTlsForControlAndTelemetry() {
        QTemporaryDir ca;
        QProcess devCa;
        devCa.start(QStringLiteral("%1/scripts/dev-ca").arg(qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR")),
                    {ca.path()});
        QVERIFY(devCa.waitForFinished(30000));
        QVERIFY2(devCa.exitCode() == 0, devCa.readAllStandardError().constData());
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--speed", "30", "--tokens", writeTokens(dir_), "--audit-log",
                               dir_.filePath("tls-audit.jsonl"), "--tls-cert", ca.filePath("server.crt"), "--tls-key",
                               ca.filePath("server.key"), "--tls-client-ca", ca.filePath("ca.crt")}),
                 qPrintable(fleetd.errorString()));
        const QString target = QStringLiteral("localhost:%1").arg(fleetd.port());  // the name in server.crt

        ChannelSecurity security = withToken(kAlice);
        security.caCertFile = ca.filePath("ca.crt");
        security.clientCertFile = ca.filePath("console.crt");
        security.clientKeyFile = ca.filePath("console.key");
        ControlClient alice(target, security, testOptions());
        QVERIFY2(alice.channelError().isEmpty(), qPrintable(alice.channelError()));
        alice.start();
        QTRY_VERIFY_WITH_TIMEOUT(alice.canAct(), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(alice.isWatchLive(), 10000);

        watchfloor::client::EndpointConfig config;
        config.target = target;
        config.security = security;
        watchfloor::client::EndpointConnection telemetry(config);
        telemetry.start();
        QTRY_VERIFY_WITH_TIMEOUT(telemetry.state() == watchfloor::client::ConnectionState::Live, 20000);

        ChannelSecurity noCertificate = security;
        noCertificate.clientCertFile.clear();
        noCertificate.clientKeyFile.clear();
        ControlClient stranger(target, noCertificate, testOptions());
        stranger.start();
        QTRY_VERIFY_WITH_TIMEOUT(!stranger.identityError().isEmpty(), 15000);
        QVERIFY(!stranger.canAct());
        QVERIFY2(stranger.identityError().contains("Cannot reach fleetd"), qPrintable(stranger.identityError()));
        telemetry.stop();
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(ControlClientFleetdTest)
#include "tst_controlclient_fleetd.moc"
