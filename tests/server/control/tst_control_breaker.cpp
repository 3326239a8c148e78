#include "ControlTestFleet.h"
#include "XidAutoDrain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor::server::control;
using control_test::RecordingActuator;
using control_test::TestFleet;
using control_test::kAlice;
using control_test::kCarol;
namespace v1 = watchfloor::v1;

namespace {

v1::ActionRequest resetBreaker(const std::string& requestId) {
    v1::ActionRequest request;
    request.set_request_id(requestId);
    request.set_type(v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER);
    request.set_reason("bad health-check rollout reverted");
    return request;
}

std::string tray(int n) { return QStringLiteral("r01-n%1").arg(n, 2, 10, QChar('0')).toStdString(); }

struct Harness {
    QTemporaryDir dir;
    TestFleet fleet;
    std::unique_ptr<AuditLog> audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString()).log;
    RecordingActuator actuator{dir.filePath("audit.jsonl").toStdString()};
    std::chrono::system_clock::time_point now{std::chrono::hours(24 * 365 * 56)};
    std::vector<std::string> alerts;
    AutomationCircuitBreaker breaker{{3, std::chrono::minutes(10)},
                                     [this](const std::string& message) { alerts.push_back(message); }};
    std::unique_ptr<OperationsEngine> engine;
    std::unique_ptr<XidAutoDrain> autoDrain;

    Harness() {
        OperationsConfig config;
        config.clock = [this] { return now; };
        engine = std::make_unique<OperationsEngine>(fleet, actuator, *audit, config);
        engine->setCircuitBreaker(&breaker);
        autoDrain = std::make_unique<XidAutoDrain>(*engine);
    }
};

}  // namespace

class TestBreaker : public QObject {
    Q_OBJECT
private slots:
    void xidsThatCallForADrain_data() {
        QTest::addColumn<int>("xid");
        QTest::addColumn<bool>("drain");
        for (int xid : {46, 48, 62, 79, 95, 109, 155, 156, 158}) QTest::addRow("Xid %d", xid) << xid << true;
        for (int xid : {13, 31, 43, 45, 63, 92, 94, 0}) QTest::addRow("Xid %d", xid) << xid << false;
    }
    void xidsThatCallForADrain() {
        QFETCH(int, xid);
        QFETCH(bool, drain);
        QCOMPARE(xidCallsForDrain(static_cast<std::uint32_t>(xid)), drain);
    }

    void autoDrainIsAnAuditedOperationOfAuto() {
        Harness h;
        QVERIFY(!h.autoDrain->onXid(tray(1), 0, 13, 100));  // application fault: no drain
        const auto result = h.autoDrain->onXid(tray(3), 2, 79, 101);
        QVERIFY(result);
        QVERIFY2(result->status.ok(), result->status.error_message().c_str());
        QVERIFY(result->operation.automated());
        QCOMPARE(result->operation.principal(), "auto");
        QCOMPARE(result->operation.request().reason(),
                 "auto: Xid 79 on GPU 2 (event 101), fleet policy drains the node");
        // The same event delivered again is a retry, not a second drain.
        const auto again = h.autoDrain->onXid(tray(3), 2, 79, 101);
        QCOMPARE(again->operation.id(), result->operation.id());
        QCOMPARE(h.actuator.calls().size(), 1u);
    }

    void tripsAndHoldsUntilAnAdminResets() {
        Harness h;
        std::uint64_t event = 1;
        for (int n = 1; n <= 3; ++n) {
            const auto result = h.autoDrain->onXid(tray(n), 0, 48, event++);
            QVERIFY2(result->status.ok(), result->status.error_message().c_str());
        }
        QVERIFY(!h.breaker.tripped());
        QVERIFY(h.alerts.empty());

        // The fourth distinct node within 10 min trips it: refused, alert raised once.
        const auto fourth = h.autoDrain->onXid(tray(4), 0, 79, event++);
        QCOMPARE(fourth->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(QString::fromStdString(fourth->status.error_message()).contains("circuit breaker tripped"));
        QVERIFY(h.breaker.tripped());
        QCOMPARE(h.alerts.size(), 1u);
        QVERIFY(QString::fromStdString(h.alerts[0]).contains("3 automated actions within 600 s"));

        // It holds after the window has passed, and it refuses automation only.
        h.now += std::chrono::hours(2);
        QCOMPARE(h.autoDrain->onXid(tray(5), 0, 79, event++)->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QCOMPARE(h.alerts.size(), 1u);
        QCOMPARE(h.actuator.calls().size(), 3u);
        v1::ActionRequest manual;
        manual.set_request_id("manual-1");
        manual.set_type(v1::ACTION_TYPE_DRAIN_NODE);
        manual.set_node_name(tray(6));
        manual.set_reason("xid 79 confirmed");
        QVERIFY(h.engine->execute(kAlice, manual).status.ok());
        QCOMPARE(h.actuator.calls().size(), 4u);

        // An operator cannot reset it; an admin can, and the reset is an audited operation.
        const auto denied = h.engine->execute(kAlice, resetBreaker("reset-1"));
        QCOMPARE(denied.status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY(h.breaker.tripped());
        const auto reset = h.engine->execute(kCarol, resetBreaker("reset-2"));
        QVERIFY2(reset.status.ok(), reset.status.error_message().c_str());
        QCOMPARE(reset.operation.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(reset.operation.progress_message(), "automation circuit breaker reset by carol");
        QVERIFY(!h.breaker.tripped());
        QFile audit(h.dir.filePath("audit.jsonl"));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(audit.readAll());
        QVERIFY(text.contains("\"action\":\"RESET_CIRCUIT_BREAKER\",\"target\":\"automation circuit breaker\","
                              "\"reason\":\"carol: bad health-check rollout reverted\""));

        // Automation works again.
        QVERIFY(h.autoDrain->onXid(tray(7), 0, 79, event++)->status.ok());
        // A reset of a breaker that is not tripped is refused.
        QCOMPARE(h.engine->execute(kCarol, resetBreaker("reset-3")).status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
    }

    void slidingWindowAndRepeatedTargetsCountOnce() {
        Harness h;
        std::uint64_t event = 1;
        // Many Xids on the same node count once.
        for (int i = 0; i < 5; ++i) QVERIFY(h.autoDrain->onXid(tray(1), 0, 79, event++)->status.ok());
        QVERIFY(h.autoDrain->onXid(tray(2), 0, 79, event++)->status.ok());
        h.now += std::chrono::minutes(6);
        QVERIFY(h.autoDrain->onXid(tray(3), 0, 79, event++)->status.ok());
        // r01-n01 and r01-n02 leave the 10-minute window.
        h.now += std::chrono::minutes(5);
        QVERIFY(h.autoDrain->onXid(tray(4), 0, 79, event++)->status.ok());
        QVERIFY(h.autoDrain->onXid(tray(5), 0, 79, event++)->status.ok());
        QVERIFY(!h.breaker.tripped());
        QCOMPARE(h.autoDrain->onXid(tray(6), 0, 79, event++)->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(h.breaker.tripped());
    }

    void resetWithoutBreakerIsRefused() {
        QTemporaryDir dir;
        TestFleet fleet;
        auto audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString()).log;
        RecordingActuator actuator(dir.filePath("audit.jsonl").toStdString());
        OperationsEngine engine(fleet, actuator, *audit, {});
        const auto result = engine.execute(kCarol, resetBreaker("r"));
        QCOMPARE(result.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(QString::fromStdString(result.status.error_message()).contains("--auto-drain"));
    }
};

QTEST_GUILESS_MAIN(TestBreaker)
#include "tst_control_breaker.moc"
