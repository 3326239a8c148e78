// The twin behind fleetd's operations engine (TwinControlAdapter): previews read the twin's view,
// actions reach the twin through its request queue while another thread ticks it, a drain
// completes once the node is DRAINED, stale state versions and a leak are refused.

#include "TickingTwin.h"

#include <QtTest>

#include <thread>

using namespace twintest;
using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {

const Caller kAlice{"alice", v1::ROLE_OPERATOR, false, "127.0.0.1"};

v1::ActionRequest request(v1::ActionType type, const std::string& target, const std::string& id) {
    v1::ActionRequest r;
    r.set_request_id(id);
    r.set_type(type);
    if (type == v1::ACTION_TYPE_DRAIN_NODE || type == v1::ACTION_TYPE_RESUME_NODE)
        r.set_node_name(target);
    else if (type == v1::ACTION_TYPE_RESTART_JOB)
        r.set_job_name(target);
    else
        r.set_rack_name(target), r.set_confirm_rack_name(target);
    r.set_reason("checking the twin");
    return r;
}

// fleetd in miniature, warmed up for 5 simulated minutes before the engine attaches.
struct Harness : TickingTwin {
    explicit Harness(const std::string& scenario = {}) : TickingTwin(SimConfig{}, scenario, 5 * 60) {}
    void startTicking() { TickingTwin::startTicking({}, std::chrono::milliseconds(1)); }
    v1::OperationState waitFor(const std::string& opId, v1::OperationState wanted) {
        for (int i = 0; i < 2000; ++i) {
            const auto op = engine->get(opId, "");
            if (op.status.ok() && op.operation.state() == wanted) return wanted;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return engine->get(opId, "").operation.state();
    }
};

}  // namespace

class TwinControlTest : public QObject {
    Q_OBJECT

private slots:
    void drainPreviewedExecutedAndCompleted();
    void isolateAndRestoreThroughEngine();
    void staleVersionIsAborted();
    void restoreRefusedDuringLeak();
};

void TwinControlTest::drainPreviewedExecutedAndCompleted() {
    Harness h;
    const auto [status, preview] = h.engine->preview(kAlice, request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "d1"));
    QVERIFY2(status.ok(), status.error_message().c_str());
    QVERIFY2(preview.allowed(), preview.refusal().c_str());
    QCOMPARE(preview.jobs_hit_size(), 1);
    QCOMPARE(preview.jobs_hit(0), "llm-405b-1");
    QCOMPARE(preview.gpus_lost(), 4u);
    QVERIFY(preview.checkpoint_age_s() > 0);
    QCOMPARE(preview.state_version(), h.twin->nodeView("r01-n03")->stateVersion);

    h.startTicking();
    auto drain = request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "d1");
    drain.set_expected_state_version(preview.state_version());
    const auto result = h.engine->execute(kAlice, drain);
    QVERIFY2(result.status.ok(), result.status.error_message().c_str());
    QCOMPARE(h.waitFor(result.operation.id(), v1::OPERATION_STATE_SUCCEEDED), v1::OPERATION_STATE_SUCCEEDED);
    const auto node = h.twin->nodeView("r01-n03");
    QCOMPARE(node->state, v1::NODE_STATE_DRAINED);
    QCOMPARE(node->reason, std::string("alice: checking the twin"));  // as the engine stores it
    QVERIFY(node->jobs.empty());

    const auto resume = h.engine->execute(kAlice, request(v1::ACTION_TYPE_RESUME_NODE, "r01-n03", "r1"));
    QVERIFY2(resume.status.ok(), resume.status.error_message().c_str());
    QCOMPARE(h.waitFor(resume.operation.id(), v1::OPERATION_STATE_SUCCEEDED), v1::OPERATION_STATE_SUCCEEDED);
    QCOMPARE(h.twin->nodeView("r01-n03")->state, v1::NODE_STATE_IDLE);
}

void TwinControlTest::isolateAndRestoreThroughEngine() {
    Harness h;
    h.startTicking();
    const auto isolate = h.engine->execute(kAlice, request(v1::ACTION_TYPE_ISOLATE_RACK, "r06", "i1"));
    QVERIFY2(isolate.status.ok(), isolate.status.error_message().c_str());
    QCOMPARE(h.waitFor(isolate.operation.id(), v1::OPERATION_STATE_SUCCEEDED), v1::OPERATION_STATE_SUCCEEDED);
    const auto rack = h.adapter->rack("r06");
    QVERIFY(rack->isolated);
    QCOMPARE(rack->nodes.size(), std::size_t(18));
    QCOMPARE(h.adapter->node("r06-n01")->state, v1::NODE_STATE_DOWN);
    const auto restore = h.engine->execute(kAlice, request(v1::ACTION_TYPE_RESTORE_RACK, "r06", "x1"));
    QVERIFY2(restore.status.ok(), restore.status.error_message().c_str());
    QCOMPARE(h.waitFor(restore.operation.id(), v1::OPERATION_STATE_SUCCEEDED), v1::OPERATION_STATE_SUCCEEDED);
    QVERIFY(!h.adapter->rack("r06")->isolated);
}

void TwinControlTest::staleVersionIsAborted() {
    Harness h;
    const auto [status, preview] = h.engine->preview(kAlice, request(v1::ACTION_TYPE_DRAIN_NODE, "r07-n17", "s1"));
    QVERIFY(status.ok());
    h.startTicking();
    TwinActuator direct(*h.twin);
    QVERIFY(direct.drainNode("r07-n17", "bob: first").succeeded);  // someone else got there first
    auto drain = request(v1::ACTION_TYPE_DRAIN_NODE, "r07-n17", "s1");
    drain.set_expected_state_version(preview.state_version());
    const auto result = h.engine->execute(kAlice, drain);
    QCOMPARE(result.status.error_code(), grpc::StatusCode::ABORTED);
}

void TwinControlTest::restoreRefusedDuringLeak() {
    Harness h("at 2m leak rack=r03\n");
    const auto [status, preview] = h.engine->preview(kAlice, request(v1::ACTION_TYPE_RESTORE_RACK, "r03", "l1"));
    QVERIFY(status.ok());
    QVERIFY(!preview.allowed());
    QVERIFY2(preview.refusal().find("leak") != std::string::npos, preview.refusal().c_str());
    // The twin refuses it as well, whoever asks.
    h.startTicking();
    const auto outcome = h.adapter->restoreRack("r03", {});
    QVERIFY(!outcome.succeeded);
    QVERIFY2(outcome.message.find("active coolant leak") != std::string::npos, outcome.message.c_str());
}

QTEST_GUILESS_MAIN(TwinControlTest)
#include "tst_twin_control.moc"
