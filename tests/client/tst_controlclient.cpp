// ControlClient against fleetd's real ControlServiceImpl in an in-process gRPC server on loopback
// (test fleet + recording actuator): identity, preview, execute, the operator's error texts,
// retries with the same request id after UNAVAILABLE and after a connection cut mid-call (through
// a TCP proxy), operations merged from list + watch, the watch reconnecting, audit pages, and the
// channel's security rules (token only over TLS or to loopback; TLS and mTLS with scripts/dev-ca).
#include "AuditModel.h"
#include "ChannelSecurity.h"
#include "ControlClient.h"
#include "ControlErrorText.h"
#include "OperationsModel.h"

#include "ControlServiceImpl.h"
#include "ControlTestFleet.h"
#include "TcpDropProxy.h"
#include "TransportSecurity.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <grpcpp/grpcpp.h>

#include <optional>

using namespace watchfloor::client;
using namespace watchfloor::server::control;
using control_test::RecordingActuator;
using control_test::TestFleet;
using watchfloor::testing::TcpDropProxy;
namespace v1 = watchfloor::v1;

namespace {

const char* const kTokens = control_test::kTestTokens;
const QString kViewer = QStringLiteral("viewer-token-000000001");
const QString kAlice = QStringLiteral("operator-token-00000002");
const QString kBob = QStringLiteral("operator-token-00000003");

ControlClientOptions fastOptions() {
    ControlClientOptions options;
    options.unaryDeadline = std::chrono::milliseconds(3000);
    options.executeDeadline = std::chrono::milliseconds(3000);
    options.executeRetry = {std::chrono::milliseconds(50), 2.0, 0.2, std::chrono::milliseconds(400)};
    options.watchReconnect = {std::chrono::milliseconds(100), 1.5, 0.2, std::chrono::milliseconds(500)};
    return options;
}

v1::ActionRequest drain(const std::string& node, const std::string& reason = "xid 79 on GPU 2") {
    v1::ActionRequest action;
    action.set_type(v1::ACTION_TYPE_DRAIN_NODE);
    action.set_node_name(node);
    action.set_reason(reason);
    return action;
}

// Runs `start(done)` and spins the event loop until `done` ran.
template <class T, class Start>
ControlResult<T> await(Start start, int timeoutMs = 10000) {
    std::optional<ControlResult<T>> result;
    start([&result](const ControlResult<T>& r) { result = r; });
    QElapsedTimer timer;
    timer.start();
    while (!result && timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    if (!result) {
        ControlResult<T> timedOut;
        timedOut.message = QStringLiteral("test: no answer within %1 ms").arg(timeoutMs);
        return timedOut;
    }
    return *result;
}

}  // namespace

class TestControlClient : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    TestFleet fleet_{2};
    std::unique_ptr<AuditLog> audit_;
    std::unique_ptr<RecordingActuator> actuator_;
    std::unique_ptr<OperationsEngine> engine_;
    std::unique_ptr<AccessPolicy> access_;
    std::unique_ptr<ControlServiceImpl> service_;
    std::unique_ptr<grpc::Server> server_;
    int port_ = 0;

    QString target() const { return QStringLiteral("127.0.0.1:%1").arg(port_); }

    std::unique_ptr<ControlClient> client(const QString& token, const QString& target = {}) {
        ChannelSecurity security;
        security.bearerToken = token;
        return std::make_unique<ControlClient>(target.isEmpty() ? this->target() : target, security, fastOptions());
    }

    QString auditText() const {
        QFile file(dir_.filePath("audit.jsonl"));
        file.open(QIODevice::ReadOnly);
        return QString::fromUtf8(file.readAll());
    }

    int actuatorCallsFor(const std::string& node) const {
        int n = 0;
        for (const std::string& call : actuator_->calls()) {
            n += call.starts_with("drain " + node + " ") ? 1 : 0;
        }
        return n;
    }

private slots:
    void initTestCase() {
        audit_ = AuditLog::open(dir_.filePath("audit.jsonl").toStdString()).log;
        QVERIFY(audit_);
        actuator_ = std::make_unique<RecordingActuator>(dir_.filePath("audit.jsonl").toStdString());
        engine_ = std::make_unique<OperationsEngine>(fleet_, *actuator_, *audit_, OperationsConfig{});
        auto tokens = TokenTable::parse(kTokens, "tokens");
        QVERIFY(tokens.table);
        access_ = std::make_unique<AccessPolicy>(std::move(*tokens.table), *audit_);
        service_ = std::make_unique<ControlServiceImpl>(*engine_, *access_, ControlServiceImpl::Limits{},
                                                        dir_.filePath("audit.jsonl").toStdString());
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
        builder.RegisterService(service_.get());
        server_ = builder.BuildAndStart();
        QVERIFY(server_ && port_ > 0);
    }

    void cleanupTestCase() {
        service_->stopStreams();
        server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }

    void loopbackTargets_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("ipv4") << "127.0.0.1:50551" << true;
        QTest::newRow("ipv4 other loopback") << "127.8.9.10:1" << true;
        QTest::newRow("ipv6") << "[::1]:50551" << true;
        QTest::newRow("ipv6 bare") << "::1" << true;
        QTest::newRow("localhost") << "LocalHost:50551" << true;
        QTest::newRow("scheme ipv4") << "ipv4:127.0.0.1:50551" << true;
        QTest::newRow("scheme ipv6") << "ipv6:[::1]:50551" << true;
        QTest::newRow("dns localhost") << "dns:///localhost:50551" << true;
        QTest::newRow("unix") << "unix:/run/fleetd.sock" << true;
        QTest::newRow("v4-mapped") << "[::ffff:127.0.0.1]:1" << true;
        QTest::newRow("lan") << "10.0.0.5:7443" << false;
        QTest::newRow("not quite") << "128.0.0.1:1" << false;
        QTest::newRow("hostname") << "fleetd.dc1.example:7443" << false;
        QTest::newRow("localhost suffix") << "localhost.evil.example:1" << false;
        QTest::newRow("ipv6 lan") << "[fd00::5]:7443" << false;
        QTest::newRow("list with remote") << "ipv4:127.0.0.1:1,10.0.0.5:1" << false;
        QTest::newRow("dns remote") << "dns:///fleetd:7443" << false;
    }
    void loopbackTargets() {
        QFETCH(QString, target);
        QFETCH(bool, loopback);
        QCOMPARE(isLoopbackTarget(target), loopback);
    }

    void securityRulesAreCheckedBeforeDialling() {
        ChannelSecurity token;
        token.bearerToken = kAlice;
        QVERIFY(securityProblem("127.0.0.1:1", token).isEmpty());
        const QString refused = securityProblem("10.0.0.5:7443", token);
        QVERIFY2(refused.contains("Refusing to send the bearer token in plaintext to 10.0.0.5:7443"),
                 qPrintable(refused));
        const auto made = makeChannel("10.0.0.5:7443", token, {});
        QVERIFY(!made.channel);
        QCOMPARE(made.error, refused);

        ControlClient remote("10.0.0.5:7443", token, fastOptions());
        QCOMPARE(remote.channelError(), refused);
        const auto result = await<v1::Operation>([&](auto done) { remote.execute(drain("r01-n01"), done); });
        QVERIFY(!result.ok);
        QVERIFY2(result.message.contains("Refusing to send the bearer token"), qPrintable(result.message));

        ChannelSecurity halfMtls;
        halfMtls.caCertFile = dir_.filePath("ca.crt");
        halfMtls.clientCertFile = dir_.filePath("console.crt");
        QVERIFY(securityProblem("10.0.0.5:7443", halfMtls).contains("--client-key"));
        ChannelSecurity certWithoutTls;
        certWithoutTls.clientCertFile = "a.crt";
        certWithoutTls.clientKeyFile = "a.key";
        QVERIFY(securityProblem("127.0.0.1:1", certWithoutTls).contains("--ca-cert"));
        ChannelSecurity missingCa;
        missingCa.caCertFile = dir_.filePath("no-such-ca.crt");
        missingCa.bearerToken = kAlice;
        const auto noCa = makeChannel("10.0.0.5:7443", missingCa, {});  // TLS: a token may go anywhere
        QVERIFY(!noCa.channel);
        QVERIFY2(noCa.error.contains("no-such-ca.crt"), qPrintable(noCa.error));
    }

    void errorTexts_data() {
        QTest::addColumn<int>("code");
        QTest::addColumn<int>("role");
        QTest::addColumn<QString>("rpc");
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("expected");
        QTest::newRow("viewer drains") << int(grpc::StatusCode::PERMISSION_DENIED) << int(v1::ROLE_VIEWER)
                                       << "ExecuteAction"
                                       << "val has role viewer, which may not DRAIN_NODE"
                                       << "Your role (viewer) cannot drain nodes.";
        QTest::newRow("stale preview")
            << int(grpc::StatusCode::ABORTED) << int(v1::ROLE_OPERATOR) << "ExecuteAction"
            << "r01-n03 changed since it was previewed (state version 4, now 5); review the preview again"
            << "Refused: node r01-n03 changed since the preview (r01-n03 changed since it was "
               "previewed (state version 4, now 5); review the preview again). Preview again.";
        QTest::newRow("no token") << int(grpc::StatusCode::UNAUTHENTICATED) << int(v1::ROLE_UNSPECIFIED) << "WhoAmI"
                                  << "unknown bearer token"
                                  << "fleetd at h:1 did not accept your credentials (unknown bearer token). Start the "
                                     "console with --token-file holding a token listed in fleetd's --tokens file.";
        QTest::newRow("precondition") << int(grpc::StatusCode::FAILED_PRECONDITION) << int(v1::ROLE_OPERATOR)
                                      << "ExecuteAction"
                                      << "restore refused while a leak is active"
                                      << "Refused: restore refused while a leak is active.";
        QTest::newRow("viewer audit") << int(grpc::StatusCode::PERMISSION_DENIED) << int(v1::ROLE_VIEWER)
                                      << "ListAuditEntries"
                                      << "x"
                                      << "Your role (viewer) cannot read the audit trail.";
    }
    void errorTexts() {
        QFETCH(int, code);
        QFETCH(int, role);
        QFETCH(QString, rpc);
        QFETCH(QString, server);
        QFETCH(QString, expected);
        const v1::ActionRequest action = drain("r01-n03");
        const QByteArray rpcName = rpc.toLatin1();
        ControlFailure failure;
        failure.target = "h:1";
        failure.rpcName = rpcName.constData();
        failure.code = grpc::StatusCode(code);
        failure.serverMessage = server;
        failure.callerRole = v1::Role(role);
        failure.action = rpc == "ExecuteAction" ? &action : nullptr;
        QCOMPARE(describeControlFailure(failure), expected);
    }

    void identityComesFromTheToken() {
        auto alice = client(kAlice);
        QSignalSpy identity(alice.get(), &ControlClient::identityChanged);
        QVERIFY(!alice->canAct());
        alice->start();
        QTRY_VERIFY_WITH_TIMEOUT(alice->role() == v1::ROLE_OPERATOR, 5000);
        QCOMPARE(alice->principal(), "alice");
        QVERIFY(alice->canAct());
        QVERIFY(identity.count() >= 1);

        auto viewer = client(kViewer);
        viewer->start();
        QTRY_COMPARE_WITH_TIMEOUT(viewer->principal(), QString("val"), 5000);
        QVERIFY(!viewer->canAct());

        auto stranger = client("not-a-token-0000000000");
        stranger->start();
        QTRY_VERIFY_WITH_TIMEOUT(!stranger->identityError().isEmpty(), 5000);
        QVERIFY(!stranger->canAct());
        QVERIFY2(stranger->identityError().contains("did not accept your credentials"),
                 qPrintable(stranger->identityError()));
    }

    void previewThenExecute() {
        auto alice = client(kAlice);
        alice->start();
        QTRY_VERIFY_WITH_TIMEOUT(alice->canAct(), 5000);
        const auto preview = await<v1::ActionPreview>([&](auto done) { alice->preview(drain("r01-n04"), done); });
        QVERIFY2(preview.ok, qPrintable(preview.message));
        QCOMPARE(preview.value.gpus_lost(), 4u);
        QVERIFY(preview.value.allowed());

        QSignalSpy changed(alice.get(), &ControlClient::operationChanged);
        v1::ActionRequest action = drain("r01-n04");
        action.set_expected_state_version(preview.value.state_version());
        QString requestId;
        const auto result = await<v1::Operation>([&](auto done) { requestId = alice->execute(action, done); });
        QVERIFY2(result.ok, qPrintable(result.message));
        QVERIFY(!QUuid::fromString(requestId).isNull());
        QCOMPARE(QString::fromStdString(result.value.request_id()), requestId);
        QCOMPARE(result.value.request().reason(), "alice: xid 79 on GPU 2");
        QCOMPARE(result.attempts, 1);
        QVERIFY(changed.count() >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(
            alice->operation(QString::fromStdString(result.value.id())).has_value() &&
                alice->operation(QString::fromStdString(result.value.id()))->state() == v1::OPERATION_STATE_SUCCEEDED,
            5000);
        QCOMPARE(actuatorCallsFor("r01-n04"), 1);

        // A given request id is kept, and executing it again acts once.
        const auto again = await<v1::Operation>([&](auto done) {
            v1::ActionRequest same = action;
            same.set_request_id(requestId.toStdString());
            QCOMPARE(alice->execute(same, done), requestId);
        });
        QVERIFY2(again.ok, qPrintable(again.message));
        QCOMPARE(again.value.id(), result.value.id());
        QCOMPARE(actuatorCallsFor("r01-n04"), 1);
    }

    void refusalsInTheOperatorsWords() {
        auto viewer = client(kViewer);
        viewer->start();
        QTRY_COMPARE_WITH_TIMEOUT(viewer->role(), v1::ROLE_VIEWER, 5000);
        const auto denied = await<v1::Operation>([&](auto done) { viewer->execute(drain("r01-n05"), done); });
        QCOMPARE(denied.code, grpc::StatusCode::PERMISSION_DENIED);
        QCOMPARE(denied.message, QString("Your role (viewer) cannot drain nodes."));
        QCOMPARE(denied.attempts, 1);  // a refusal is an answer, not a reason to retry

        auto alice = client(kAlice);
        alice->start();
        QTRY_VERIFY_WITH_TIMEOUT(alice->canAct(), 5000);
        const auto preview = await<v1::ActionPreview>([&](auto done) { alice->preview(drain("r01-n06"), done); });
        QVERIFY(preview.ok);
        fleet_.setNodeState("r01-n06", v1::NODE_STATE_ALLOCATED);  // the node changes after the preview
        v1::ActionRequest stale = drain("r01-n06");
        stale.set_expected_state_version(preview.value.state_version());
        const auto aborted = await<v1::Operation>([&](auto done) { alice->execute(stale, done); });
        QCOMPARE(aborted.code, grpc::StatusCode::ABORTED);
        QVERIFY2(aborted.message.startsWith("Refused: node r01-n06 changed since the preview"),
                 qPrintable(aborted.message));
        QVERIFY2(aborted.message.endsWith("Preview again."), qPrintable(aborted.message));
        fleet_.setNodeState("r01-n06", v1::NODE_STATE_IDLE);

        fleet_.setLeak("r02", true);
        v1::ActionRequest restore;
        restore.set_type(v1::ACTION_TYPE_RESTORE_RACK);
        restore.set_rack_name("r02");
        restore.set_reason("valve replaced");
        const auto leak = await<v1::Operation>([&](auto done) { alice->execute(restore, done); });
        fleet_.setLeak("r02", false);
        QCOMPARE(leak.code, grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(leak.message.startsWith("Refused: ") && leak.message.size() > 12, qPrintable(leak.message));

        v1::ActionRequest noReason = drain("r01-n06", "");
        const auto invalid = await<v1::Operation>([&](auto done) { alice->execute(noReason, done); });
        QCOMPARE(invalid.code, grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY2(invalid.message.contains("reason is required"), qPrintable(invalid.message));

        auto stranger = client("not-a-token-0000000000");
        const auto unauthenticated =
            await<v1::Operation>([&](auto done) { stranger->execute(drain("r01-n06"), done); });
        QCOMPARE(unauthenticated.code, grpc::StatusCode::UNAUTHENTICATED);
        QVERIFY2(unauthenticated.message.contains("--token-file"), qPrintable(unauthenticated.message));
        QCOMPARE(actuatorCallsFor("r01-n05") + actuatorCallsFor("r01-n06"), 0);
    }

    void retriesWithTheSameIdWhileFleetdIsUnreachable() {
        TcpDropProxy proxy{quint16(port_)};
        proxy.setRefusing(true);
        auto alice = client(kAlice, QStringLiteral("127.0.0.1:%1").arg(proxy.port()));
        std::optional<ControlResult<v1::Operation>> result;
        const QString requestId = alice->execute(drain("r01-n07"), [&](const auto& r) { result = r; });
        QTRY_VERIFY_WITH_TIMEOUT(proxy.connectionsRefused() >= 2, 5000);
        QVERIFY(!result);
        proxy.setRefusing(false);
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        QVERIFY2(result->ok, qPrintable(result->message));
        QVERIFY(result->attempts >= 2);
        QVERIFY(alice->stats().executeRetries >= 1);
        QCOMPARE(QString::fromStdString(result->value.request_id()), requestId);
        QCOMPARE(actuatorCallsFor("r01-n07"), 1);
        QCOMPARE(auditText().count(QStringLiteral("\"request_id\":\"%1\"").arg(requestId)) >= 1, true);
    }

    void retryAfterTheConnectionDiedMidCallActsOnce() {
        TcpDropProxy proxy{quint16(port_)};
        auto alice = client(kAlice, QStringLiteral("127.0.0.1:%1").arg(proxy.port()));
        actuator_->delay = std::chrono::milliseconds(400);  // keeps the call open after fleetd accepted it
        std::optional<ControlResult<v1::Operation>> result;
        const QString requestId = alice->execute(drain("r01-n08"), [&](const auto& r) { result = r; });
        // The accepted operation is audited (fsync) before the actuator starts: now it is mid-call.
        QTRY_VERIFY_WITH_TIMEOUT(auditText().contains(requestId), 5000);
        QVERIFY(!result);
        QVERIFY(proxy.dropConnections() >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        actuator_->delay = std::chrono::milliseconds(0);
        QVERIFY2(result->ok, qPrintable(result->message));
        QVERIFY(result->attempts >= 2);
        QCOMPARE(QString::fromStdString(result->value.request_id()), requestId);
        QTRY_COMPARE_WITH_TIMEOUT(actuatorCallsFor("r01-n08"), 1, 5000);
        QTest::qWait(500);  // nothing else may arrive late
        QCOMPARE(actuatorCallsFor("r01-n08"), 1);
    }

    void gaveUpAfterBoundedAttemptsSaysWhatToCheck() {
        TcpDropProxy proxy{quint16(port_)};
        proxy.setRefusing(true);
        ChannelSecurity security;
        security.bearerToken = kAlice;
        ControlClientOptions options = fastOptions();
        options.executeMaxAttempts = 3;
        ControlClient alice(QStringLiteral("127.0.0.1:%1").arg(proxy.port()), security, options);
        const auto result = await<v1::Operation>([&](auto done) { alice.execute(drain("r01-n09"), done); });
        QVERIFY(!result.ok);
        QCOMPARE(result.attempts, 3);
        QCOMPARE(result.code, grpc::StatusCode::UNAVAILABLE);
        QVERIFY2(result.message.contains("after 3 attempts") && result.message.contains("Operations dock"),
                 qPrintable(result.message));
        QCOMPARE(actuatorCallsFor("r01-n09"), 0);
    }

    void operationsMergeListAndWatch() {
        // Done before the client starts: it can only learn of it through ListOperations.
        auto bob = client(kBob);
        const auto before = await<v1::Operation>([&](auto done) { bob->execute(drain("r01-n10"), done); });
        QVERIFY2(before.ok, qPrintable(before.message));

        auto viewer = client(kViewer);
        OperationsModel model(viewer.get());
        QSignalSpy live(viewer.get(), &ControlClient::watchStateChanged);
        viewer->start();
        QTRY_VERIFY_WITH_TIMEOUT(viewer->isWatchLive(), 5000);
        const QString beforeId = QString::fromStdString(before.value.id());
        QTRY_VERIFY_WITH_TIMEOUT(viewer->operation(beforeId).has_value(), 5000);
        QVERIFY(model.rowOf(viewer.get(), beforeId) >= 0);

        // Done after: it arrives through WatchOperations, down to its final state.
        const auto after = await<v1::Operation>([&](auto done) { bob->execute(drain("r01-n11"), done); });
        QVERIFY2(after.ok, qPrintable(after.message));
        const QString afterId = QString::fromStdString(after.value.id());
        QTRY_VERIFY_WITH_TIMEOUT(viewer->operation(afterId).has_value() &&
                                     viewer->operation(afterId)->state() == v1::OPERATION_STATE_SUCCEEDED,
                                 5000);
        const auto operations = viewer->operations();
        QCOMPARE(QString::fromStdString(operations.front().id()), afterId);  // newest first
        for (int i = 1; i < operations.size(); ++i) {
            QVERIFY(operations[i - 1].created_unix_ms() >= operations[i].created_unix_ms());
        }
        QCOMPARE(model.rowCount(), operations.size());
        const int row = model.rowOf(viewer.get(), afterId);
        QCOMPARE(row, 0);
        QCOMPARE(model.data(model.index(row, OperationsModel::State), Qt::DisplayRole).toString(),
                 QString("succeeded"));
        QCOMPARE(model.data(model.index(row, OperationsModel::Target), Qt::DisplayRole).toString(),
                 QString("node r01-n11"));
        QCOMPARE(model.data(model.index(row, OperationsModel::Principal), Qt::DisplayRole).toString(), QString("bob"));
        QVERIFY(viewer->stats().watchChanges >= 1);
    }

    void operationsModelMergesEndpointsAndForgetsAGoneOne() {
        auto east = client(kViewer);
        auto west = std::make_unique<ControlClient>(
            target(),
            [] {
                ChannelSecurity s;
                s.bearerToken = kViewer;
                return s;
            }(),
            fastOptions());
        OperationsModel model;
        model.addClient(east.get(), "east");
        model.addClient(west.get(), "west");
        east->start();
        west->start();
        QTRY_VERIFY_WITH_TIMEOUT(east->isWatchLive() && west->isWatchLive(), 5000);
        // A live watch asks ListOperations only then: wait for both lists, or 0 == 0 + 0 passes early.
        QTRY_VERIFY_WITH_TIMEOUT(!east->operations().isEmpty() && !west->operations().isEmpty(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), east->operations().size() + west->operations().size(), 5000);
        QVERIFY(model.rowCount() >= 2);
        QSet<QString> labels;
        for (int row = 0; row < model.rowCount(); ++row) {
            labels << model.data(model.index(row, OperationsModel::Endpoint), Qt::DisplayRole).toString();
            if (row > 0) {
                QVERIFY(model.operationAt(row - 1).created_unix_ms() >= model.operationAt(row).created_unix_ms());
            }
        }
        QCOMPARE(labels, (QSet<QString>{"east", "west"}));
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        west.reset();
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), east->operations().size());
        for (int row = 0; row < model.rowCount(); ++row) {
            QCOMPARE(model.clientAt(row), east.get());
        }
    }

    void watchReconnectsAfterTheConnectionDies() {
        TcpDropProxy proxy{quint16(port_)};
        auto viewer = client(kViewer, QStringLiteral("127.0.0.1:%1").arg(proxy.port()));
        QSignalSpy live(viewer.get(), &ControlClient::watchStateChanged);
        viewer->start();
        QTRY_VERIFY_WITH_TIMEOUT(viewer->isWatchLive(), 5000);
        proxy.dropConnections();
        QTRY_VERIFY_WITH_TIMEOUT(!viewer->isWatchLive(), 5000);
        QVERIFY2(viewer->watchStatusText().contains("Retrying in"), qPrintable(viewer->watchStatusText()));
        QTRY_VERIFY_WITH_TIMEOUT(viewer->isWatchLive(), 5000);
        QVERIFY(viewer->stats().watchesOpened >= 2);
        // Changes made while it was away are caught up by the list on reconnect.
        proxy.setRefusing(true);
        proxy.dropConnections();
        QTRY_VERIFY_WITH_TIMEOUT(!viewer->isWatchLive(), 5000);
        auto bob = client(kBob);
        const auto meanwhile = await<v1::Operation>([&](auto done) { bob->execute(drain("r01-n12"), done); });
        QVERIFY(meanwhile.ok);
        proxy.setRefusing(false);
        QTRY_VERIFY_WITH_TIMEOUT(viewer->operation(QString::fromStdString(meanwhile.value.id())).has_value(), 8000);
    }

    void acknowledgementsAreSeenByEveryConsole() {
        struct Acknowledger : EventAcknowledger {
            ActionOutcome acknowledge(std::uint64_t, const std::string&, const std::string&) override {
                return ActionOutcome::success("acknowledged");
            }
        } acknowledger;
        engine_->setEventAcknowledger(&acknowledger);
        fleet_.addEvent(4242);
        auto viewer = client(kViewer);
        viewer->start();
        QTRY_VERIFY_WITH_TIMEOUT(viewer->isWatchLive(), 5000);
        QVERIFY(!viewer->isAcknowledged(4242));
        auto alice = client(kAlice);
        v1::ActionRequest ack;
        ack.set_type(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
        ack.set_event_id(4242);
        ack.set_reason("looking into it");
        ack.set_note("alice owns this");
        const auto result = await<v1::Operation>([&](auto done) { alice->execute(ack, done); });
        QVERIFY2(result.ok, qPrintable(result.message));
        QTRY_VERIFY_WITH_TIMEOUT(viewer->isAcknowledged(4242), 5000);
        QVERIFY(!viewer->isAcknowledged(4243));
        engine_->setEventAcknowledger(nullptr);
    }

    void auditPagesNewestFirst() {
        auto alice = client(kAlice);
        alice->start();
        QTRY_VERIFY_WITH_TIMEOUT(alice->canAct(), 5000);
        const quint64 newest = audit_->lastSeq();
        QVERIFY(newest >= 10);

        AuditModel model(alice.get(), 4);
        QVERIFY(model.canFetchMore({}));
        model.fetchMore({});
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 5000);
        QCOMPARE(model.entryAt(0).seq(), newest);
        int pages = 1;
        while (model.canFetchMore({}) || model.isLoading()) {
            if (!model.isLoading()) {
                model.fetchMore({});
                ++pages;
            }
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        }
        QVERIFY(model.reachedOldest());
        QCOMPARE(quint64(model.rowCount()), newest);
        QVERIFY(pages >= 3);
        for (int row = 1; row < model.rowCount(); ++row) {
            QCOMPARE(model.entryAt(row).seq() + 1, model.entryAt(row - 1).seq());  // no gap, no duplicate
        }
        // refresh() adds only what is new, at the top.
        auto bob = client(kBob);
        QVERIFY(await<v1::Operation>([&](auto done) { bob->execute(drain("r01-n13"), done); }).ok);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(model.entryAt(0).seq() == audit_->lastSeq(), 5000);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(quint64(model.rowCount()), audit_->lastSeq());

        auto viewer = client(kViewer);
        viewer->start();
        QTRY_COMPARE_WITH_TIMEOUT(viewer->role(), v1::ROLE_VIEWER, 5000);
        AuditModel refused(viewer.get(), 4);
        refused.fetchMore({});
        QTRY_VERIFY_WITH_TIMEOUT(!refused.lastError().isEmpty(), 5000);
        QCOMPARE(refused.lastError(), QString("Your role (viewer) cannot read the audit trail."));
        QVERIFY(!refused.canFetchMore({}));
    }

    void destroyedWithCallsInFlight() {
        actuator_->delay = std::chrono::milliseconds(300);
        // Outlives the client: a callback that ran after the client was destroyed would set it
        // (and touch a dead client); it must not run at all.
        auto called = std::make_shared<std::atomic<bool>>(false);
        {
            auto alice = client(kAlice);
            alice->start();
            alice->execute(drain("r01-n14"), [called](const auto&) { *called = true; });
            // In flight: accepted and audited, the actuator still busy with it for 300 ms.
            QTRY_VERIFY_WITH_TIMEOUT(auditText().contains("r01-n14"), 5000);
            QCOMPARE(actuatorCallsFor("r01-n14"), 0);
            // Leaves scope: cancels and waits for gRPC's last reaction.
        }
        // Long past the actuator's delay, with the event loop running: the answer arrived at a
        // destroyed client and no callback ran.
        QTest::qWait(600);
        QCOMPARE(actuatorCallsFor("r01-n14"), 1);  // the server did answer
        QVERIFY(!*called);
        actuator_->delay = std::chrono::milliseconds(0);
    }

    void tlsAndMutualTlsWithTheDevelopmentCa() {
        QTemporaryDir ca;
        QProcess process;
        process.start(QStringLiteral(WATCHFLOOR_SCRIPTS_DIR "/dev-ca"), {ca.path()});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        for (const bool mutual : {false, true}) {
            const auto made =
                makeServerCredentials({ca.filePath("server.crt").toStdString(), ca.filePath("server.key").toStdString(),
                                       mutual ? ca.filePath("ca.crt").toStdString() : std::string()});
            QVERIFY2(made.credentials, made.error.c_str());
            int port = 0;
            grpc::ServerBuilder builder;
            builder.AddListeningPort("127.0.0.1:0", made.credentials, &port);
            ControlServiceImpl service(*engine_, *access_);  // a service serves one server
            builder.RegisterService(&service);
            auto server = builder.BuildAndStart();
            QVERIFY(server && port > 0);
            const QString target = QStringLiteral("localhost:%1").arg(port);

            ChannelSecurity security;
            security.caCertFile = ca.filePath("ca.crt");
            security.bearerToken = kAlice;
            if (mutual) {
                ControlClient withoutCert(target, security, fastOptions());
                withoutCert.start();
                QTRY_VERIFY_WITH_TIMEOUT(!withoutCert.identityError().isEmpty(), 8000);
                QVERIFY(!withoutCert.canAct());
                security.clientCertFile = ca.filePath("console.crt");
                security.clientKeyFile = ca.filePath("console.key");
            }
            ControlClient alice(target, security, fastOptions());
            QVERIFY2(alice.channelError().isEmpty(), qPrintable(alice.channelError()));
            alice.start();
            QTRY_VERIFY_WITH_TIMEOUT(alice.canAct(), 8000);
            QCOMPARE(alice.principal(), QString("alice"));
            const auto preview = await<v1::ActionPreview>([&](auto done) { alice.preview(drain("r02-n01"), done); });
            QVERIFY2(preview.ok, qPrintable(preview.message));

            ChannelSecurity plaintext;
            plaintext.bearerToken = kAlice;
            ControlClient noTls(target, plaintext, fastOptions());
            noTls.start();
            QTRY_VERIFY_WITH_TIMEOUT(!noTls.identityError().isEmpty(), 8000);
            QVERIFY(!noTls.canAct());
            service.stopStreams();
            server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
        }
    }
};

QTEST_GUILESS_MAIN(TestControlClient)
#include "tst_controlclient.moc"
