// ControlServiceImpl in an in-process gRPC server on loopback: tokens to principals, denials
// audited with nothing executed, idempotent retries (also after the caller gave up mid-call),
// per-call identity, and live operation changes to every watcher.
#include "ControlServiceImpl.h"
#include "ControlTestFleet.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <grpcpp/grpcpp.h>

using namespace watchfloor::server::control;
using control_test::RecordingActuator;
using control_test::TestFleet;
namespace v1 = watchfloor::v1;

namespace {

const char* const kTokens = control_test::kTestTokens;

v1::ExecuteActionRequest drain(const std::string& node, const std::string& requestId) {
    v1::ExecuteActionRequest request;
    auto* action = request.mutable_action();
    action->set_request_id(requestId);
    action->set_type(v1::ACTION_TYPE_DRAIN_NODE);
    action->set_node_name(node);
    action->set_reason("xid 79");
    return request;
}

std::unique_ptr<grpc::ClientContext> withToken(const char* token,
                                               std::chrono::milliseconds deadline = std::chrono::seconds(5)) {
    auto context = std::make_unique<grpc::ClientContext>();
    if (token) context->AddMetadata("authorization", std::string("Bearer ") + token);
    context->set_deadline(std::chrono::system_clock::now() + deadline);
    return context;
}

}  // namespace

class TestService : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    TestFleet fleet_;
    std::unique_ptr<AuditLog> audit_;
    std::unique_ptr<RecordingActuator> actuator_;
    std::unique_ptr<OperationsEngine> engine_;
    std::unique_ptr<AccessPolicy> access_;
    std::unique_ptr<ControlServiceImpl> service_;
    std::unique_ptr<grpc::Server> server_;
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::ControlService::Stub> stub_;

    QString auditText() const {
        QFile file(dir_.filePath("audit.jsonl"));
        file.open(QIODevice::ReadOnly);
        return QString::fromUtf8(file.readAll());
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
        service_ = std::make_unique<ControlServiceImpl>(*engine_, *access_);
        int port = 0;
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
        builder.RegisterService(service_.get());
        server_ = builder.BuildAndStart();
        QVERIFY(server_ && port > 0);
        channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
        stub_ = v1::ControlService::NewStub(channel_);
    }

    void cleanupTestCase() {
        service_->stopStreams();
        server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }

    void noTokenIsUnauthenticatedAndAudited() {
        const auto before = audit_->lastSeq();
        v1::Operation op;
        const auto status = stub_->ExecuteAction(withToken(nullptr).get(), drain("r01-n01", "anon-1"), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(audit_->lastSeq(), before + 1);
        QVERIFY(auditText().contains("\"request_id\":\"anon-1\""));
        v1::ListOperationsResponse list;
        QCOMPARE(stub_->ListOperations(withToken("wrong-token-0000000000").get(), {}, &list).error_code(),
                 grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(actuator_->calls().size(), 0u);
    }

    void viewerMayLookButNotAct() {
        v1::Operation op;
        const auto status =
            stub_->ExecuteAction(withToken("viewer-token-000000001").get(), drain("r01-n01", "view-1"), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY(auditText().contains("\"principal\":\"val\""));
        v1::PreviewActionRequest preview;
        *preview.mutable_action() = drain("r01-n01", "view-2").action();
        v1::ActionPreview answer;
        QVERIFY(stub_->PreviewAction(withToken("viewer-token-000000001").get(), preview, &answer).ok());
        QVERIFY(!answer.allowed());
        QCOMPARE(answer.gpus_lost(), 4u);
        QCOMPARE(actuator_->calls().size(), 0u);
    }

    void identityIsPerCallOnOneConnection() {
        v1::WhoAmIResponse first, second;
        QVERIFY(stub_->WhoAmI(withToken("operator-token-00000002").get(), {}, &first).ok());
        QVERIFY(stub_->WhoAmI(withToken("admin-token-00000000004").get(), {}, &second).ok());
        QCOMPARE(first.principal(), "alice");
        QCOMPARE(first.role(), v1::ROLE_OPERATOR);
        QCOMPARE(second.principal(), "carol");
        QCOMPARE(second.role(), v1::ROLE_ADMIN);
    }

    void executeIsIdempotentAndWatched() {
        grpc::ClientContext watchContext;
        watchContext.AddMetadata("authorization", "Bearer viewer-token-000000001");
        watchContext.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        auto reader = stub_->WatchOperations(&watchContext, {});
        reader->WaitForInitialMetadata();  // sent once the server has registered the watcher

        v1::Operation op;
        const auto status =
            stub_->ExecuteAction(withToken("operator-token-00000002").get(), drain("r01-n02", "exec-1"), &op);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(op.request().reason(), "alice: xid 79");
        v1::Operation retry;
        QVERIFY(
            stub_->ExecuteAction(withToken("operator-token-00000002").get(), drain("r01-n02", "exec-1"), &retry).ok());
        QCOMPARE(retry.id(), op.id());

        std::vector<v1::OperationState> states;
        v1::Operation change;
        while (states.size() < 3 && reader->Read(&change))
            if (change.id() == op.id()) states.push_back(change.state());
        QCOMPARE(states, (std::vector<v1::OperationState>{v1::OPERATION_STATE_PENDING, v1::OPERATION_STATE_RUNNING,
                                                          v1::OPERATION_STATE_SUCCEEDED}));
        watchContext.TryCancel();
        reader->Finish();

        // A request id is its principal's own; the operation id is everyone's to read.
        v1::GetOperationRequest get;
        get.set_request_id("exec-1");
        v1::Operation fetched;
        QVERIFY(stub_->GetOperation(withToken("operator-token-00000002").get(), get, &fetched).ok());
        QCOMPARE(fetched.id(), op.id());
        QCOMPARE(stub_->GetOperation(withToken("viewer-token-000000001").get(), get, &fetched).error_code(),
                 grpc::StatusCode::NOT_FOUND);
        get.Clear();
        get.set_operation_id(op.id());
        QVERIFY(stub_->GetOperation(withToken("viewer-token-000000001").get(), get, &fetched).ok());
        QCOMPARE(fetched.id(), op.id());
    }

    void retryAfterTheCallerGaveUpExecutesOnce() {
        const auto callsBefore = actuator_->calls().size();
        actuator_->delay = std::chrono::milliseconds(600);
        v1::Operation op;
        const auto cut = stub_->ExecuteAction(
            withToken("operator-token-00000003", std::chrono::milliseconds(150)).get(), drain("r01-n09", "cut-1"), &op);
        QCOMPARE(cut.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
        v1::Operation retried;
        const auto retry =
            stub_->ExecuteAction(withToken("operator-token-00000003").get(), drain("r01-n09", "cut-1"), &retried);
        QVERIFY2(retry.ok(), retry.error_message().c_str());
        QVERIFY(retried.state() == v1::OPERATION_STATE_RUNNING || retried.state() == v1::OPERATION_STATE_SUCCEEDED);
        v1::GetOperationRequest get;
        get.set_operation_id(retried.id());
        auto stateNow = [&] {
            v1::Operation now;
            stub_->GetOperation(withToken("operator-token-00000003").get(), get, &now);
            return now.state();
        };
        QTRY_COMPARE_WITH_TIMEOUT(stateNow(), v1::OPERATION_STATE_SUCCEEDED, 10000);
        actuator_->delay = std::chrono::milliseconds(0);
        QCOMPARE(actuator_->calls().size(), callsBefore + 1);
    }

    void approvalGoesThroughTheService() {
        v1::ApproveOperationRequest approve;
        approve.set_operation_id("op-does-not-exist");
        approve.set_reason("ok");
        v1::Operation op;
        QCOMPARE(stub_->ApproveOperation(withToken("operator-token-00000003").get(), approve, &op).error_code(),
                 grpc::StatusCode::NOT_FOUND);
        QCOMPARE(stub_->ApproveOperation(withToken(nullptr).get(), approve, &op).error_code(),
                 grpc::StatusCode::UNAUTHENTICATED);
    }
};

QTEST_GUILESS_MAIN(TestService)
#include "tst_control_service.moc"
