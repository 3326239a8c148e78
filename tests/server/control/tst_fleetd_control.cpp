// Operator actions against a real fleetd process (digital twin, plaintext loopback): the role x
// action matrix with denials audited and nothing executed, two consoles draining one node at
// once, stale-state refusal, drain DRAINING -> DRAINED in the Subscribe stream with the
// attributed reason, double acknowledgement, two-person isolation (self-approval refused,
// expiry), valve closed (flow -> 0), restore refused during a leak, and the audit trail pages.
#include "FleetdControlFixture.h"

#include <QTest>

#include <atomic>
#include <barrier>
#include <set>
#include <thread>
#include <vector>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

Q_DECLARE_METATYPE(v1::ActionType)
Q_DECLARE_METATYPE(grpc::StatusCode)

class FleetdControlTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString auditPath_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> alice_;  // one console; tokens vary per call
    int sequence_ = 0;

    std::string newRequestId(const char* what) { return std::string(what) + "-" + std::to_string(++sequence_); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auditPath_ = dir_.filePath("audit.jsonl");
        // r07 leaks 5 simulated seconds in: the BMS isolates it and restore stays refused for hours.
        QFile scenario(dir_.filePath("leak.scenario"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        scenario.write("at 5s leak rack=r07\n");
        scenario.close();
        QVERIFY2(fleetd_.start({"--seed", "11", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log",
                                auditPath_, "--require-approval", "isolate-rack", "--approval-ttl", "2s", "--scenario",
                                scenario.fileName()}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY(fleetd_.log().contains("4 tokens loaded"));
        QVERIFY(fleetd_.log().contains("control transport: plaintext"));
        alice_ = std::make_unique<ControlConnection>(fleetd_.address());
    }

    void whoAmINamesEachPrincipal() {
        v1::WhoAmIResponse who;
        QVERIFY(alice_->whoAmI(kAlice, &who).ok());
        QCOMPARE(who.principal(), std::string("alice"));
        QCOMPARE(who.role(), v1::ROLE_OPERATOR);
        QVERIFY(alice_->whoAmI(kCarol, &who).ok());
        QCOMPARE(who.role(), v1::ROLE_ADMIN);
        QCOMPARE(alice_->whoAmI(nullptr, &who).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    }

    void roleActionMatrix_data() {
        QTest::addColumn<QByteArray>("token");
        QTest::addColumn<v1::ActionType>("type");
        QTest::addColumn<grpc::StatusCode>("expected");
        const QByteArray none, viewer(kViewer), alice(kAlice), carol(kCarol);
        QTest::newRow("no token drain") << none << v1::ACTION_TYPE_DRAIN_NODE << grpc::StatusCode::UNAUTHENTICATED;
        QTest::newRow("bad token drain") << QByteArray("not-a-token-0000000000") << v1::ACTION_TYPE_DRAIN_NODE
                                         << grpc::StatusCode::UNAUTHENTICATED;
        for (int t = v1::ACTION_TYPE_DRAIN_NODE; t <= v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER; ++t)
            QTest::addRow("viewer %s", v1::ActionType_Name(v1::ActionType(t)).c_str())
                << viewer << v1::ActionType(t) << grpc::StatusCode::PERMISSION_DENIED;
        QTest::newRow("operator reset breaker")
            << alice << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << grpc::StatusCode::PERMISSION_DENIED;
        QTest::newRow("operator drain") << alice << v1::ACTION_TYPE_DRAIN_NODE << grpc::StatusCode::OK;
        QTest::newRow("admin drain") << carol << v1::ACTION_TYPE_DRAIN_NODE << grpc::StatusCode::OK;
        QTest::newRow("operator acknowledge") << alice << v1::ACTION_TYPE_ACKNOWLEDGE_EVENT << grpc::StatusCode::OK;
        // The admin passes the role check; the breaker itself is off in this fleetd.
        QTest::newRow("admin reset breaker")
            << carol << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << grpc::StatusCode::FAILED_PRECONDITION;
    }
    void roleActionMatrix() {
        QFETCH(QByteArray, token);
        QFETCH(v1::ActionType, type);
        QFETCH(grpc::StatusCode, expected);
        static int node = 0;
        const std::string requestId = newRequestId("matrix");
        v1::ActionRequest request = action(type, requestId, "matrix check");
        switch (type) {
        case v1::ACTION_TYPE_DRAIN_NODE:
        case v1::ACTION_TYPE_RESUME_NODE:
            request.set_node_name("r05-n" + QString::number(++node).rightJustified(2, '0').toStdString());
            break;
        case v1::ACTION_TYPE_RESTART_JOB: request.set_job_name("llm-405b-1"); break;
        case v1::ACTION_TYPE_ISOLATE_RACK:
        case v1::ACTION_TYPE_RESTORE_RACK:
            request.set_rack_name("r06");
            request.set_confirm_rack_name("r06");
            break;
        case v1::ACTION_TYPE_ACKNOWLEDGE_EVENT: request.set_event_id(1); break;
        default: break;
        }
        v1::Operation op;
        const char* bearer = token.isEmpty() ? nullptr : token.constData();
        const grpc::Status status = alice_->execute(bearer, request, &op);
        QVERIFY2(status.error_code() == expected, status.error_message().c_str());
        if (expected == grpc::StatusCode::OK) {
            QVERIFY(!op.id().empty());
            QCOMPARE(countAudit(auditPath_, auditOf(requestId, "allow")), 1);
            return;
        }
        // Refused: audited as such, never accepted, no operation exists for it.
        QCOMPARE(countAudit(auditPath_, auditOf(requestId, "deny")), 1);
        QCOMPARE(countAudit(auditPath_, auditOf(requestId, "allow")), 0);
        QCOMPARE(alice_->get(kAlice, {}, requestId, &op).error_code(), grpc::StatusCode::NOT_FOUND);
        if (expected == grpc::StatusCode::UNAUTHENTICATED || expected == grpc::StatusCode::PERMISSION_DENIED) {
            const QString code =
                expected == grpc::StatusCode::UNAUTHENTICATED ? "UNAUTHENTICATED" : "PERMISSION_DENIED";
            QCOMPARE(countAudit(auditPath_,
                                [&](const QJsonObject& r) {
                                    return auditOf(requestId, "deny")(r) &&
                                           r.value("result").toString().startsWith(code);
                                }),
                     1);
        }
    }

    // First among the drains: a job already waiting for spares keeps a draining tray (twin behaviour).
    void drainIsDrainingThenDrainedWithAttributedReason() {
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::string node = "r03-n05";
        const auto index = watch.nodeIndex(node);
        QVERIFY(index);
        // A job still starting up holds its trays differently; drain one that is training.
        QVERIFY(watch.waitForJob("llm-405b-1", v1::JOB_STATE_RUNNING, 30s));
        v1::ActionPreview preview;
        QVERIFY(alice_->preview(kAlice, drainNode(node, "p"), &preview).ok());
        QVERIFY2(!preview.jobs_hit().empty(), "r03-n05 should run part of a job, so draining takes time");
        v1::Operation op;
        auto request = drainNode(node, newRequestId("drain"), "fan noisy");
        request.set_expected_state_version(preview.state_version());
        QVERIFY(alice_->execute(kAlice, request, &op).ok());
        v1::EntityState state;
        QVERIFY(watch.waitForState(
            *index, [](const v1::EntityState& s) { return s.node_state() == v1::NODE_STATE_DRAINING; }, 20s, &state));
        QCOMPARE(state.reason(), std::string("alice: fan noisy"));
        const bool drained = watch.waitForState(
            *index, [](const v1::EntityState& s) { return s.node_state() == v1::NODE_STATE_DRAINED; }, 20s, &state);
        v1::Operation now;
        alice_->get(kAlice, op.id(), {}, &now);
        QVERIFY2(drained, (v1::OperationState_Name(now.state()) + ": " + now.progress_message() + " / " +
                           v1::NodeState_Name(state.node_state()))
                              .c_str());
        QCOMPARE(state.reason(), std::string("alice: fan noisy"));
        const auto done = alice_->waitFor(kAlice, op.id(), isFinished);
        QVERIFY(done);
        QCOMPARE(done->state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(done->request().reason(), std::string("alice: fan noisy"));
    }

    void twoConsolesDrainingOneNodeExecuteOnce() {
        ControlConnection bob(fleetd_.address());
        for (const std::string node : {"r04-n02", "r04-n05", "r04-n08", "r04-n11", "r04-n14"}) {
            // Both consoles previewed the same state, then both operators press Drain at once.
            v1::ActionPreview seen;
            QVERIFY(alice_->preview(kAlice, drainNode(node, "preview"), &seen).ok());
            std::barrier together(2);
            grpc::Status statuses[2];
            v1::Operation ops[2];
            auto press = [&](int who, ControlConnection* console, const char* token) {
                auto request = drainNode(node, newRequestId(who == 0 ? "alice" : "bob"));
                request.set_expected_state_version(seen.state_version());
                together.arrive_and_wait();
                statuses[who] = console->execute(token, request, &ops[who]);
            };
            std::thread a(press, 0, alice_.get(), kAlice);
            std::thread b(press, 1, &bob, kBob);
            a.join();
            b.join();
            const int accepted = int(statuses[0].ok()) + int(statuses[1].ok());
            QVERIFY2(accepted == 1,
                     (node + ": " + statuses[0].error_message() + " | " + statuses[1].error_message()).c_str());
            const grpc::Status& refused = statuses[0].ok() ? statuses[1] : statuses[0];
            QVERIFY2(refused.error_code() == grpc::StatusCode::ABORTED ||
                         refused.error_code() == grpc::StatusCode::FAILED_PRECONDITION,
                     refused.error_message().c_str());
            QVERIFY2(refused.error_message().find(node) != std::string::npos, refused.error_message().c_str());
            v1::ListOperationsResponse all;
            QVERIFY(alice_->list(kAlice, &all).ok());
            int drains = 0;
            for (const auto& op : all.operations())
                drains += op.request().type() == v1::ACTION_TYPE_DRAIN_NODE && op.request().node_name() == node;
            QCOMPARE(drains, 1);
            QCOMPARE(countAudit(auditPath_,
                                [&](const QJsonObject& r) {
                                    return r.value("decision") == "allow" &&
                                           r.value("target").toString().toStdString() == node;
                                }),
                     1);
        }
    }

    void staleStateIsRefused() {
        const std::string node = "r02-n07";
        v1::ActionPreview alicesView;
        QVERIFY(alice_->preview(kAlice, drainNode(node, "p"), &alicesView).ok());
        // Bob drains it first; Alice acts later on what she saw before.
        v1::Operation bobs;
        QVERIFY(alice_->execute(kBob, drainNode(node, newRequestId("bob")), &bobs).ok());
        QVERIFY(alice_->waitFor(kBob, bobs.id(), isFinished));
        auto request = drainNode(node, newRequestId("alice-stale"));
        request.set_expected_state_version(alicesView.state_version());
        v1::Operation op;
        const auto status = alice_->execute(kAlice, request, &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::ABORTED);
        QVERIFY2(status.error_message().find("changed since") != std::string::npos, status.error_message().c_str());
        QCOMPARE(countAudit(auditPath_, auditOf(request.request_id(), "deny")), 1);
    }

    void secondAcknowledgementFailsNamingTheFirst() {
        auto ack = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, newRequestId("ack"), "looking into it");
        ack.set_event_id(2);
        ack.set_note("owner: alice");
        v1::Operation first, second;
        QVERIFY(alice_->execute(kAlice, ack, &first).ok());
        QCOMPARE(first.state(), v1::OPERATION_STATE_SUCCEEDED);
        ack.set_request_id(newRequestId("ack"));
        QVERIFY(alice_->execute(kBob, ack, &second).ok());
        QCOMPARE(second.state(), v1::OPERATION_STATE_FAILED);
        QVERIFY2(second.error().find("already acknowledged by alice") != std::string::npos, second.error().c_str());
        auto unknown = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, newRequestId("ack"), "x");
        unknown.set_event_id(1'000'000'000);
        QCOMPARE(alice_->execute(kAlice, unknown, &second).error_code(), grpc::StatusCode::NOT_FOUND);
    }

    void everyConsoleWatchesEveryOperationChange() {
        ControlConnection bob(fleetd_.address());
        auto context = ControlConnection::context(kBob, 20s);
        auto watch = bob.stub().WatchOperations(context.get(), v1::WatchOperationsRequest{});
        watch->WaitForInitialMetadata();  // live: every change from here on arrives
        auto ack = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, newRequestId("watched"), "on it");
        ack.set_event_id(4);
        v1::Operation op;
        QVERIFY(alice_->execute(kAlice, ack, &op).ok());
        std::vector<v1::OperationState> seen;
        for (v1::Operation change; seen.empty() || seen.back() != v1::OPERATION_STATE_SUCCEEDED;) {
            QVERIFY(watch->Read(&change));
            if (change.id() == op.id()) seen.push_back(change.state());
        }
        QCOMPARE(seen.front(), v1::OPERATION_STATE_PENDING);
        QVERIFY(std::find(seen.begin(), seen.end(), v1::OPERATION_STATE_RUNNING) != seen.end());
        context->TryCancel();
        v1::Operation rest;
        while (watch->Read(&rest)) {}
        watch->Finish();
    }

    void isolationNeedsASecondOperatorAndClosesTheValve() {
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const auto loop = watch.loopOfRack("r01");
        QVERIFY(loop);
        v1::Operation op;
        QVERIFY(alice_->execute(kAlice, isolateRack("r01", newRequestId("isolate")), &op).ok());
        QCOMPARE(op.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);
        QVERIFY(op.preview().requires_approval());
        v1::Operation approved;
        const auto self = alice_->approve(kAlice, op.id(), "me too", &approved);
        QCOMPARE(self.error_code(), grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY2(self.error_message().find("self-approval") != std::string::npos, self.error_message().c_str());
        QCOMPARE(alice_->approve(kViewer, op.id(), "looks fine", &approved).error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY(alice_->approve(kBob, op.id(), "saw the leak alarm", &approved).ok());
        QCOMPARE(approved.approved_by(), std::string("bob"));
        const auto done = alice_->waitFor(kAlice, op.id(), isFinished);
        QVERIFY(done);
        QCOMPARE(done->state(), v1::OPERATION_STATE_SUCCEEDED);
        float flow = -1;
        QVERIFY(watch.waitForSample(
            *loop, v1::RACK_LIQUID_FLOW_LPM, [](float lpm) { return lpm < 0.5f; }, 20s, &flow));
        QVERIFY(flow >= 0 && flow < 0.5f);
    }

    void approvalExpires() {
        v1::Operation op;
        QVERIFY(alice_->execute(kAlice, isolateRack("r02", newRequestId("isolate")), &op).ok());
        QCOMPARE(op.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);
        const auto expired =
            alice_->waitFor(kAlice, op.id(), isFinished, 10s);  // --approval-ttl 2s, ticked each second
        QVERIFY(expired);
        QCOMPARE(expired->state(), v1::OPERATION_STATE_CANCELLED);
        v1::Operation late;
        QCOMPARE(alice_->approve(kBob, op.id(), "sorry, was at lunch", &late).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
    }

    void restoreIsRefusedWhileALeakIsActive() {
        v1::ActionPreview preview;
        QVERIFY(alice_->preview(kAlice, restoreRack("r07", "p"), &preview).ok());
        QVERIFY(!preview.allowed());
        QVERIFY2(preview.refusal().find("leak") != std::string::npos, preview.refusal().c_str());
        v1::Operation op;
        const auto status = alice_->execute(kAlice, restoreRack("r07", newRequestId("restore")), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(status.error_message().find("leak") != std::string::npos, status.error_message().c_str());
    }

    void auditTrailPagesNewestFirst() {
        v1::ListAuditEntriesResponse page;
        const auto viewer = alice_->audit(kViewer, 0, 10, &page);
        QCOMPARE(viewer.error_code(), grpc::StatusCode::PERMISSION_DENIED);
        QCOMPARE(countAudit(auditPath_,
                            [](const QJsonObject& r) {
                                return r.value("action") == "ListAuditEntries" && r.value("principal") == "val" &&
                                       r.value("decision") == "deny";
                            }),
                 1);
        // Enough refusals that the default page (100) is full. A viewer's: each is audited
        // (unauthenticated ones are rate-limited and counted instead).
        for (int i = 0; i < 110; ++i) {
            v1::Operation op;
            alice_->execute(kViewer, drainNode("r06-n01", "viewer-" + std::to_string(i)), &op);
        }
        QVERIFY(alice_->audit(kAlice, 0, 0, &page).ok());
        QCOMPARE(page.entries_size(), 100);
        const auto records = auditRecords(auditPath_);
        QCOMPARE(page.entries(0).seq(), std::uint64_t(records.last().value("seq").toInteger()));
        QCOMPARE(page.entries(0).request_id(), std::string("viewer-109"));
        QVERIFY(page.entries(0).result().starts_with("PERMISSION_DENIED"));
        // Small pages walk the whole file once, newest to oldest, without gaps.
        std::uint64_t before = 0, previous = UINT64_MAX;
        int total = 0;
        do {
            QVERIFY(alice_->audit(kCarol, before, 7, &page).ok());
            for (const auto& entry : page.entries()) {
                QVERIFY(entry.seq() < previous);
                previous = entry.seq();
                ++total;
            }
            before = page.next_before_seq();
        } while (before != 0);
        QVERIFY(total >= records.size());  // the viewer refusal above came after the snapshot of records
        QCOMPARE(previous, std::uint64_t(1));
        const QJsonObject first = records.first();
        QVERIFY(alice_->audit(kAlice, 2, 5, &page).ok());
        QCOMPARE(page.entries_size(), 1);
        QCOMPARE(page.entries(0).action(), first.value("action").toString().toStdString());
        QCOMPARE(page.next_before_seq(), std::uint64_t(0));
    }

    void cleanupTestCase() { QCOMPARE(fleetd_.terminate(), 0); }
};

QTEST_GUILESS_MAIN(FleetdControlTest)
#include "tst_fleetd_control.moc"
