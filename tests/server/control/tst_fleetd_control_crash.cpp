// Audit before effect, across a crash of the real fleetd: kill -9 right after an acknowledged
// ExecuteAction leaves its record in the file; a restarted fleetd on the same --audit-log knows
// the request id and returns the first operation instead of acting again (the twin, which starts
// fresh, gets the drain back from the audit log); a torn last line is
// repaired and reported; a second fleetd on the same audit log refuses to start.
#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

class FleetdControlCrashTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString audit_;
    QStringList args_;

private slots:
    void initTestCase() {
        audit_ = dir_.filePath("audit.jsonl");
        args_ = {"--seed", "3", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log", audit_};
    }

    void acknowledgedActionSurvivesKillNineAndIsNotRepeated() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(args_), qPrintable(fleetd.errorString()));
        const std::string requestId = "crash-drain-1";
        v1::Operation first;
        {
            FleetWatch watch(fleetd.address());
            QVERIFY(watch.ready());
            QVERIFY2(watch.waitForEvent(3, 60s), "fleetd published no event 3 within 60 s");
            ControlConnection console(fleetd.address());
            QVERIFY(console.execute(kAlice, drainNode("r06-n04", requestId, "psu flapping"), &first).ok());
            auto ack = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, "crash-ack-1", "mine");
            ack.set_event_id(3);
            v1::Operation acknowledged;
            const auto acked = console.execute(kAlice, ack, &acknowledged);
            QVERIFY2(acked.ok(), acked.error_message().c_str());
            QCOMPARE(acknowledged.state(), v1::OPERATION_STATE_SUCCEEDED);
        }
        fleetd.kill();  // SIGKILL: no shutdown path runs

        const auto records = auditRecords(audit_);
        QCOMPARE(countAudit(audit_, auditOf(requestId, "allow")), 1);
        const auto accepted = std::find_if(records.begin(), records.end(), auditOf(requestId, "allow"));
        QCOMPARE(accepted->value("operation_id").toString().toStdString(), first.id());
        QCOMPARE(accepted->value("reason").toString(), QStringLiteral("alice: psu flapping"));
        QVERIFY(accepted->value("operation").isObject());

        // A torn line, as a crash in the middle of a write would leave it.
        {
            QFile file(audit_);
            QVERIFY(file.open(QIODevice::Append));
            file.write("{\"seq\":999999,\"time\":\"2026-");
        }
        QVERIFY2(fleetd.restart(), qPrintable(fleetd.errorString()));
        QVERIFY2(fleetd.log().contains("torn last record"), fleetd.log().constData());
        QVERIFY(QFile::exists(audit_ + ".torn"));
        QVERIFY2(fleetd.log().contains("recovered 2 operations"), fleetd.log().constData());
        // Event ids restart past the acknowledged one: the recovered "event 3 acknowledged"
        // cannot be mistaken for this run's event 3, which does not exist.
        QVERIFY2(fleetd.log().contains("event ids start at 4"), fleetd.log().constData());

        ControlConnection console(fleetd.address());
        v1::Operation again;
        QVERIFY(console.execute(kAlice, drainNode("r06-n04", requestId, "psu flapping"), &again).ok());
        QCOMPARE(again.id(), first.id());
        QCOMPARE(countAudit(audit_, auditOf(requestId, "allow")), 1);
        auto ackOld = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, "crash-ack-2", "old id");
        ackOld.set_event_id(3);
        QCOMPARE(console.execute(kAlice, ackOld, &again).error_code(), grpc::StatusCode::NOT_FOUND);
        // The twin starts fresh, so fleetd restored the drain the audit log holds: the map shows
        // r06-n04 drained from the first snapshot, as the operations list says (issue 13 item 10).
        QVERIFY2(fleetd.log().contains("restoring 1 operator drain(s)"), fleetd.log().constData());
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        v1::EntityState state;
        const auto node = watch.nodeIndex("r06-n04");
        QVERIFY(node);
        QVERIFY(watch.waitForState(
            *node,
            [](const v1::EntityState& s) {
                return s.node_state() == v1::NODE_STATE_DRAINING || s.node_state() == v1::NODE_STATE_DRAINED;
            },
            0ms, &state));
        QVERIFY2(
            QString::fromStdString(state.reason())
                .contains("alice: psu flapping [restored from the audit log, " + QString::fromStdString(first.id())),
            state.reason().c_str());

        // The same audit log cannot serve two fleetds.
        const auto second = FleetdProcess::run(QStringList{"--listen", "127.0.0.1:0"} + args_);
        QCOMPARE(second.code, 2);
        QVERIFY2(second.stdErr.contains("in use by another fleetd"), qPrintable(second.stdErr));
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdControlCrashTest)
#include "tst_fleetd_control_crash.moc"
