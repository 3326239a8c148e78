// Idempotency when the connection dies mid-call, against a real fleetd: each ExecuteAction goes
// through a loopback TCP proxy that cuts both sockets (RST) at a chosen point of the call — right
// after forwarding the request, at the first byte of the answer, or after part of the answer.
// The client then retries with the same request id over a fresh channel. At the end every
// request id has exactly one operation and exactly one "allow" record in the audit log.
#include "FleetdControlFixture.h"

#include "TcpDropProxy.h"

#include <QTest>

#include <cstdint>
#include <cstdio>
#include <map>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;
using watchfloor::testing::TcpDropProxy;

class FleetdControlRetryTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    FleetdProcess fleetd_;

private slots:
    void initTestCase() {
        // Events to acknowledge: Xid 43 is only logged (fleet policy: ignore), one event each.
        QFile scenario(dir_.filePath("events.scenario"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        for (int i = 0; i < 72; ++i)
            scenario.write(
                QStringLiteral("at 1s xid 43 gpu=r01-n%1-g%2\n").arg(1 + i / 4, 2, 10, QChar('0')).arg(i % 4).toUtf8());
        scenario.close();
        QVERIFY2(fleetd_.start({"--seed", "5", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log",
                                dir_.filePath("audit.jsonl"), "--scenario", scenario.fileName()}),
                 qPrintable(fleetd_.errorString()));
    }

    void retriesAfterAConnectionCutMidCallExecuteOnce() {
        constexpr int kIterations = 60;
        // Enough events journaled to acknowledge (ids are consecutive from 1).
        ControlConnection direct(fleetd_.address());
        auto lastAck = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, "probe", "probe");
        lastAck.set_event_id(kIterations);
        v1::ActionPreview preview;
        QTRY_VERIFY_WITH_TIMEOUT(direct.preview(kAlice, lastAck, &preview).ok(), 10'000);

        TcpDropProxy proxy(static_cast<std::uint16_t>(fleetd_.port()));
        const std::string viaProxy = "127.0.0.1:" + std::to_string(proxy.port());
        std::map<std::string, std::string> operationOf;  // request id -> operation id
        int failedFirstAttempts = 0, executedBeforeTheCut = 0;
        constexpr TcpDropProxy::CutPoint kCutPoints[] = {TcpDropProxy::CutPoint::AfterRequestForwarded,
                                                         TcpDropProxy::CutPoint::AtFirstAnswerByte,
                                                         TcpDropProxy::CutPoint::AfterFirstAnswerChunk};
        for (int i = 1; i <= kIterations; ++i) {
            // Two actions in three are acknowledgements (a second execution would fail loudly:
            // "already acknowledged"), one in three a drain that waits for the twin's tick.
            v1::ActionRequest request;
            const std::string requestId = "retry-" + std::to_string(i);
            if (i % 3 == 0) {
                const int n = i / 3;  // 1..20: r05-n01..r05-n18, r06-n01, r06-n02
                char node[16];
                std::snprintf(node, sizeof node, "r%02d-n%02d", 5 + (n - 1) / 18, 1 + (n - 1) % 18);
                request = drainNode(node, requestId, "retry test");
            } else {
                request = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, requestId, "retry test");
                request.set_event_id(i);
            }
            auto channel = newChannel(viaProxy);
            QVERIFY(channel->WaitForConnected(std::chrono::system_clock::now() + 5s));
            proxy.cutNextCallAt(kCutPoints[i % 3]);
            ControlConnection cut(channel);
            v1::Operation op;
            grpc::Status status = cut.execute(kAlice, request, &op);
            if (!status.ok()) {
                ++failedFirstAttempts;
                v1::Operation already;
                executedBeforeTheCut += direct.get(kAlice, {}, requestId, &already).ok();
                // The console's retry: same request id, a fresh connection.
                for (int attempt = 0; attempt < 5 && !status.ok(); ++attempt) {
                    ControlConnection fresh(fleetd_.address());
                    status = fresh.execute(kAlice, request, &op);
                }
            }
            QVERIFY2(status.ok(), (requestId + ": " + status.error_message()).c_str());
            QCOMPARE(op.request_id(), requestId);
            // And once more, as a console that never saw the answer would.
            v1::Operation again;
            QVERIFY(direct.execute(kAlice, request, &again).ok());
            QCOMPARE(again.id(), op.id());
            operationOf[requestId] = op.id();
        }
        qInfo("%d calls, %d connections cut, %d first attempts failed, %d of those had executed before the cut",
              kIterations, proxy.callsCut(), failedFirstAttempts, executedBeforeTheCut);
        QVERIFY2(failedFirstAttempts >= kIterations / 2, "the proxy should break most first attempts");

        // Exactly one operation and one acceptance per request id; every acknowledgement succeeded once.
        v1::ListOperationsResponse all;
        QVERIFY(direct.list(kAlice, &all).ok());
        std::map<std::string, int> operations;
        for (const auto& op : all.operations()) {
            ++operations[op.request_id()];
            if (op.request_id().starts_with("retry-") && op.request().type() == v1::ACTION_TYPE_ACKNOWLEDGE_EVENT) {
                const auto done = direct.waitFor(kAlice, op.id(), isFinished);
                QVERIFY(done);
                QVERIFY2(done->state() == v1::OPERATION_STATE_SUCCEEDED, done->error().c_str());
            }
        }
        const QString audit = dir_.filePath("audit.jsonl");
        for (const auto& [requestId, operationId] : operationOf) {
            QVERIFY2(operations[requestId] == 1, requestId.c_str());
            QVERIFY2(countAudit(audit, auditOf(requestId, "allow")) == 1, requestId.c_str());
        }
    }

    void cleanupTestCase() { QCOMPARE(fleetd_.terminate(), 0); }
};

QTEST_GUILESS_MAIN(FleetdControlRetryTest)
#include "tst_fleetd_control_retry.moc"
