#include "ControlTestFleet.h"
#include "DrainOwnership.h"
#include "TrayLifecycle.h"
#include "XidAutoDrain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor::server::control;
using control_test::kAlice;
using control_test::kCarol;
using control_test::RecordingActuator;
using control_test::TestFleet;
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
        autoDrain = std::make_unique<XidAutoDrain>(*engine, fleet);
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

    // A second Xid on a tray that is already drained (by automation before, or by a person) is
    // no new drain and spends no breaker slot; a tray the health check took out is still drained.
    void aDrainedTrayIsNotDrainedAgain() {
        Harness h;
        h.fleet.drainWithReason(tray(1), "auto: Xid 79 on GPU 0 (event 1), fleet policy drains the node");
        h.fleet.drainWithReason(tray(2), "alice: swapping the tray");
        h.fleet.takeOutByHealthCheck(tray(3), "GPU fell off the bus");
        std::uint64_t event = 10;
        QVERIFY(!h.autoDrain->onXid(tray(1), 1, 79, event++));
        QVERIFY(!h.autoDrain->onXid(tray(2), 0, 48, event++));
        const auto held = h.autoDrain->onXid(tray(3), 0, 79, event++);
        QVERIFY(held);
        QVERIFY2(held->status.ok(), held->status.error_message().c_str());
        QCOMPARE(h.actuator.calls().size(), 1u);
        // Only that one drain counted against the 3-in-10-min breaker: trays 4 and 5 pass and
        // tray 6, the fourth drain, is refused (had the skipped two counted, tray 4 would be).
        QVERIFY(h.autoDrain->onXid(tray(4), 0, 79, event++)->status.ok());
        QVERIFY(h.autoDrain->onXid(tray(5), 0, 79, event++)->status.ok());
        QVERIFY(!h.breaker.tripped());
        QCOMPARE(h.autoDrain->onXid(tray(6), 0, 79, event++)->status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
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
        QCOMPARE(h.autoDrain->onXid(tray(5), 0, 79, event++)->status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
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
        QVERIFY(
            text.contains("\"action\":\"RESET_CIRCUIT_BREAKER\",\"target\":\"automation circuit breaker\","
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
        QCOMPARE(h.autoDrain->onXid(tray(6), 0, 79, event++)->status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(h.breaker.tripped());
    }

    void fleetShareLimitBindsWhenLower_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("ratio");
        QTest::addColumn<int>("trays");
        QTest::addColumn<int>("limit");
        QTest::newRow("no share") << 5 << 0.0 << 1000 << 5;
        QTest::newRow("share of 1000 trays = 5: equal") << 5 << 0.005 << 1000 << 5;
        QTest::newRow("share of 400 trays = 2 binds") << 5 << 0.005 << 400 << 2;
        QTest::newRow("share of 126 trays = 0.63: at least 1") << 5 << 0.005 << 126 << 1;
        QTest::newRow("share of 10000 trays = 50: the count binds") << 5 << 0.005 << 10000 << 5;
        QTest::newRow("share without trays is ignored") << 5 << 0.005 << 0 << 5;
    }
    void fleetShareLimitBindsWhenLower() {
        QFETCH(int, count);
        QFETCH(double, ratio);
        QFETCH(int, trays);
        QFETCH(int, limit);
        CircuitBreakerConfig config{std::size_t(count), std::chrono::minutes(10)};
        config.maxFleetRatio = ratio;
        config.fleetTrays = std::size_t(trays);
        QCOMPARE(int(config.effectiveLimit()), limit);
    }

    void shareTripsBeforeTheCountAndSaysSo() {
        // 5/10m,max=0.5% over 400 trays: 2 distinct trays, then the breaker trips on the third.
        std::vector<std::string> alerts;
        CircuitBreakerConfig config{5, std::chrono::minutes(10)};
        config.maxFleetRatio = 0.005;
        config.fleetTrays = 400;
        AutomationCircuitBreaker breaker(config, [&](const std::string& m) { alerts.push_back(m); });
        const auto now = std::chrono::system_clock::time_point{std::chrono::hours(24 * 365 * 56)};
        QVERIFY(breaker.admit(tray(1), now).ok());
        QVERIFY(breaker.admit(tray(2), now).ok());
        v1::AutomationStatus status = breaker.status(now);
        QCOMPARE(status.state(), v1::BREAKER_STATE_CLOSED);
        QCOMPARE(status.effective_limit(), 2u);
        QCOMPARE(status.max_actions_per_window(), 5u);
        QCOMPARE(status.max_fleet_ratio(), 0.005);
        QCOMPARE(status.fleet_trays(), 400u);
        QCOMPARE(status.actions_in_window(), 2u);
        QCOMPARE(status.window_s(), qint64(600));
        QCOMPARE(breaker.admit(tray(3), now + std::chrono::seconds(1)).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QCOMPARE(alerts.size(), 1u);
        QVERIFY2(QString::fromStdString(alerts[0]).contains("limit 2 = 0.5 % of 400 trays, below 5"),
                 alerts[0].c_str());
        status = breaker.status(now + std::chrono::seconds(2));
        QCOMPARE(status.state(), v1::BREAKER_STATE_TRIPPED);
        QCOMPARE(status.tripped_unix_ms(), std::chrono::duration_cast<std::chrono::milliseconds>(
                                               (now + std::chrono::seconds(1)).time_since_epoch())
                                               .count());
        QCOMPARE(QString::fromStdString(status.trip_reason()), QString::fromStdString(alerts[0]));
        QVERIFY(status.last_reset_by().empty());
        // The window ages in the status too; a reset names who did it.
        QCOMPARE(breaker.status(now + std::chrono::minutes(11)).actions_in_window(), 0u);
        QVERIFY(breaker.reset("carol").succeeded);
        status = breaker.status(now + std::chrono::minutes(12));
        QCOMPARE(status.state(), v1::BREAKER_STATE_CLOSED);
        QCOMPARE(status.last_reset_by(), "carol");
        QVERIFY(status.last_reset_unix_ms() > 0);
        QCOMPARE(status.tripped_unix_ms(), qint64(0));
    }

    void drainOwnerFromStoredReason_data() {
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("principal");
        QTest::newRow("operator") << "alice: fan noise" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "alice";
        QTest::newRow("automation") << "auto: Xid 79 on GPU 2" << int(v1::DRAIN_OWNER_KIND_AUTOMATION) << "auto";
        QTest::newRow("colon inside the text") << "bob: see ticket: 12" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "bob";
        // Drains made outside fleetd (scontrol by hand): a person, name unknown.
        QTest::newRow("no prefix") << "firmware update" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "";
        QTest::newRow("blank in the would-be principal")
            << "waiting for vendor: RMA" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "";
        QTest::newRow("empty principal") << ": text" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "";
        QTest::newRow("no blank after the colon") << "auto:x" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "";
        QTest::newRow("empty") << "" << int(v1::DRAIN_OWNER_KIND_OPERATOR) << "";
    }
    void drainOwnerFromStoredReason() {
        QFETCH(QString, reason);
        QFETCH(int, kind);
        QFETCH(QString, principal);
        const v1::DrainOwner owner = watchfloor::server::drainOwnerFromReason(reason.toStdString());
        QCOMPARE(int(owner.kind()), kind);
        QCOMPARE(QString::fromStdString(owner.principal()), principal);
        QCOMPARE(watchfloor::server::ownedByPerson(owner), kind == int(v1::DRAIN_OWNER_KIND_OPERATOR));
        QVERIFY(!watchfloor::server::ownedByPerson(watchfloor::server::healthCheckOwner()));
    }

    void automationNeverResumesAPersonsDrain() {
        Harness h;
        v1::ActionRequest resume;
        resume.set_type(v1::ACTION_TYPE_RESUME_NODE);
        resume.set_reason("burn-in passed");
        // A person's drain: refused for automation, audited, and nothing reaches the backend.
        h.fleet.drainWithReason(tray(2), "alice: fan noise, waiting for the vendor");
        resume.set_request_id("auto-resume-1");
        resume.set_node_name(tray(2));
        const auto refused = h.engine->execute(Caller::automation(), resume);
        QCOMPARE(refused.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(QString::fromStdString(refused.status.error_message())
                     .contains("r01-n02 was drained by alice; automation never resumes a drain a person made"),
                 refused.status.error_message().c_str());
        QCOMPARE(h.actuator.calls().size(), 0u);
        QVERIFY(QString::fromUtf8([&] {
                    QFile audit(h.dir.filePath("audit.jsonl"));
                    audit.open(QIODevice::ReadOnly);
                    return audit.readAll();
                }())
                    .contains("\"decision\":\"deny\""));
        // The person may resume it; so may automation a drain it made itself.
        resume.set_request_id("alice-resume-1");
        QVERIFY(h.engine->execute(kAlice, resume).status.ok());
        h.fleet.drainWithReason(tray(3), "auto: Xid 79 on GPU 0 (event 7), fleet policy drains the node");
        resume.set_request_id("auto-resume-2");
        resume.set_node_name(tray(3));
        const auto own = h.engine->execute(Caller::automation(), resume);
        QVERIFY2(own.status.ok(), own.status.error_message().c_str());
        QCOMPARE(h.actuator.calls().size(), 2u);
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
