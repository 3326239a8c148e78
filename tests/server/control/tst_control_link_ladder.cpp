// The link ladder's operations (ActionType 60-62) through the operations engine over the in-test
// fleet: isolating a link drains the tray it serves, now or once its jobs saved their next
// checkpoint; a treatment is recorded (and restarts the link's window); a link returns only after
// its clean window, and after a third isolation within 30 days only once its cable or transceiver
// was replaced; the isolation budget; every bad input refused before anything happens; a failed
// isolation leaves the link watched; the book rebuilt from earlier runs' operations.

#include "ControlTestFleet.h"
#include "LinkLadderActions.h"
#include "LinkLadderBook.h"
#include "OperationsEngine.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace watchfloor::server::control;
using control_test::kAlice;
using control_test::kVal;
using control_test::RecordingActuator;
using control_test::TestFleet;
using watchfloor::server::LinkLadderBook;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kLink = "r01-n03-ib1";

// Every tray's four rails, as the topology names its NIC ports.
std::map<std::string, std::string> railLinks(int racks) {
    std::map<std::string, std::string> links;
    char tray[16];
    for (int r = 1; r <= racks; ++r)
        for (int n = 1; n <= 18; ++n) {
            std::snprintf(tray, sizeof tray, "r%02d-n%02d", r, n);
            for (int rail = 0; rail < 4; ++rail) links.emplace(std::string(tray) + "-ib" + std::to_string(rail), tray);
        }
    return links;
}

v1::ActionRequest ladder(v1::ActionType type, const std::string& link, const std::string& requestId) {
    v1::ActionRequest request;
    request.set_request_id(requestId);
    request.set_type(type);
    request.set_link_name(link);
    request.set_reason("symbol BER forecast over the Error line in 3 h");
    return request;
}

v1::ActionRequest treat(const std::string& link, v1::LinkTreatment treatment, const std::string& requestId) {
    auto request = ladder(v1::ACTION_TYPE_TREAT_LINK, link, requestId);
    request.set_link_treatment(treatment);
    if (treatment == v1::LINK_TREATMENT_REPLACE_TRANSCEIVER) request.set_link_end(v1::LINK_END_SWITCH);
    return request;
}

struct Harness {
    QTemporaryDir dir;
    TestFleet fleet{2};
    LinkLadderBook book{railLinks(2).size(), railLinks(2)};
    std::unique_ptr<AuditLog> audit;
    std::unique_ptr<RecordingActuator> actuator;
    std::unique_ptr<OperationsEngine> engine;
    std::unique_ptr<LinkLadderActions> links;

    Harness() {
        const std::string path = dir.filePath("audit.jsonl").toStdString();
        audit = AuditLog::open(path).log;
        actuator = std::make_unique<RecordingActuator>(path);
        engine = std::make_unique<OperationsEngine>(fleet, *actuator, *audit, OperationsConfig{});
        links = std::make_unique<LinkLadderActions>(book, fleet, *actuator, BlastRadiusPolicy{});
        engine->setLinkLadder(links.get());
    }
    v1::Operation get(const std::string& id) const { return engine->get(id, {}).operation; }
    v1::LinkStage stage(const std::string& link = kLink) const {
        const auto entry = book.get(link);
        return entry ? entry->stage : v1::LINK_STAGE_UNSPECIFIED;
    }
    // What the twin or Slurm reports once the engine's drain took effect.
    void drained(const std::string& tray) {
        fleet.clearJobsOn(tray);
        fleet.setNodeState(tray, v1::NODE_STATE_DRAINED);
    }
    // Isolated now, drained: ISOLATED.
    std::string isolate(const std::string& link, const std::string& requestId) {
        const auto result = engine->execute(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, link, requestId));
        if (!result.status.ok()) return {};
        drained(*book.trayOf(link));
        engine->tick();
        return result.operation.id();
    }
};

}  // namespace

class TestLinkLadder : public QObject {
    Q_OBJECT
private slots:
    void isolatingNowDrainsTheTrayTheLinkServes() {
        Harness h;
        h.fleet.placeJob("llm-405b", {"r01-n03", "r01-n04"}, 600);
        const auto request = ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-1");
        const auto [status, preview] = h.engine->preview(kAlice, request);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QCOMPARE(preview.target_name(), std::string("link r01-n03-ib1"));
        QCOMPARE(preview.trays_size(), 1);
        QCOMPARE(preview.trays(0), std::string("r01-n03"));
        QCOMPARE(preview.jobs_hit_size(), 1);
        QCOMPARE(preview.gpus_lost(), 4u);
        // Drained now: 8 GPUs x (600 s of progress + 300 s restart); failing unplanned, the same.
        QCOMPARE(preview.expected_goodput_cost_gpu_s(), 8.0 * 900);
        QCOMPARE(preview.unplanned_cost_gpu_s(), 8.0 * 900);
        QCOMPARE(preview.isolation_budget(), 10u);  // max(10, 0.5 % of 144 links)
        QCOMPARE(preview.links_isolated(), 0u);
        QVERIFY2(preview.effect().find("drain r01-n03 (r01-n03-ib1) now, interrupting llm-405b") != std::string::npos,
                 preview.effect().c_str());

        const auto op = h.engine->execute(kAlice, request).operation;
        QVERIFY2(h.actuator->calls().size() == 1,
                 h.actuator->calls().empty() ? "none" : h.actuator->calls()[0].c_str());
        QCOMPARE(
            h.actuator->calls(),
            std::vector<std::string>{"drain r01-n03 reason=alice: symbol BER forecast over the Error line in 3 h"});
        QCOMPARE(h.actuator->unauditedCalls(), 0);
        QCOMPARE(h.get(op.id()).state(), v1::OPERATION_STATE_RUNNING);  // the job still leaves
        QCOMPARE(h.stage(), v1::LINK_STAGE_ISOLATING);
        h.drained("r01-n03");
        h.engine->tick();
        QCOMPARE(h.get(op.id()).state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(h.get(op.id()).progress_message(), std::string("r01-n03 is drained"));
        QCOMPARE(h.stage(), v1::LINK_STAGE_ISOLATED);
        QCOMPARE(h.book.get(kLink)->operationId, op.id());
        QCOMPARE(h.book.isolatedNow(), std::size_t(1));
        QCOMPARE(h.book.isolationsWithin30Days(kLink, op.updated_unix_ms()), std::size_t(1));

        // Isolated already: a second isolation is refused, and nothing is drained twice.
        const auto again = h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-2"));
        QCOMPARE(again.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(again.status.error_message().find("already ISOLATED") != std::string::npos,
                 again.status.error_message().c_str());
        QCOMPARE(h.actuator->calls().size(), std::size_t(1));
    }

    void atTheNextCheckpointItWaitsForTheSaveThenDrains() {
        Harness h;
        h.fleet.placeJob("llm-70b", {"r01-n03"}, 1200);
        h.book.setAtStake({{kLink, {4.0 * 1500, 1'798'800'000'000}}});
        auto request = ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-ckpt");
        request.set_at_next_checkpoint(true);
        const auto preview = h.engine->preview(kAlice, request).preview;
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        // Drained just after a save, the job pays its restart only; failing, its progress too.
        QCOMPARE(preview.expected_wasted_progress_s(), 0.0);
        QCOMPARE(preview.expected_goodput_cost_gpu_s(), 4.0 * 300);
        QCOMPARE(preview.unplanned_cost_gpu_s(), 4.0 * 1500);
        QCOMPARE(preview.drain_expected_unix_ms(), std::int64_t(1'798'800'000'000));
        QVERIFY2(preview.effect().find("once llm-70b saved the next checkpoint") != std::string::npos,
                 preview.effect().c_str());

        const auto op = h.engine->execute(kAlice, request).operation;
        QVERIFY(h.actuator->calls().empty());  // nothing drained before the save
        QCOMPARE(op.state(), v1::OPERATION_STATE_RUNNING);
        QVERIFY2(op.progress_message().find("waiting for llm-70b's next checkpoint") != std::string::npos,
                 op.progress_message().c_str());
        QCOMPARE(h.stage(), v1::LINK_STAGE_ISOLATING);
        h.fleet.setCheckpointAge("llm-70b", 1260);  // still computing toward the save
        h.engine->tick();
        QVERIFY(h.actuator->calls().empty());
        h.fleet.setCheckpointAge("llm-70b", 4);  // saved
        h.engine->tick();
        QCOMPARE(h.actuator->calls().size(), std::size_t(1));
        QVERIFY(h.actuator->calls()[0].starts_with("drain r01-n03 "));
        QCOMPARE(h.get(op.id()).state(), v1::OPERATION_STATE_RUNNING);
        h.drained("r01-n03");
        h.engine->tick();
        h.engine->tick();
        QCOMPARE(h.get(op.id()).state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(h.stage(), v1::LINK_STAGE_ISOLATED);
        QCOMPARE(h.actuator->calls().size(), std::size_t(1));  // one drain, however often it ticks
        // What draining ahead saved: (6,000 - 1,200) GPU-s.
        const std::string reason = h.book.get(kLink)->reason;
        QVERIFY2(reason.find("drained at the jobs' checkpoint: 1.3 GPU-h saved against an unplanned failure") !=
                     std::string::npos,
                 reason.c_str());

        // A tray with no job drains at once even when asked to wait.
        auto idle = ladder(v1::ACTION_TYPE_ISOLATE_LINK, "r01-n09-ib0", "iso-idle");
        idle.set_at_next_checkpoint(true);
        QVERIFY(h.engine->execute(kAlice, idle).status.ok());
        QCOMPARE(h.actuator->calls().size(), std::size_t(2));

        // A job with nothing unsaved (recovering from an interruption) loses nothing: no wait.
        h.fleet.placeJob("llm-8b", {"r01-n10"}, 0);
        auto recovering = ladder(v1::ACTION_TYPE_ISOLATE_LINK, "r01-n10-ib2", "iso-rec");
        recovering.set_at_next_checkpoint(true);
        QVERIFY(h.engine->execute(kAlice, recovering).status.ok());
        QCOMPARE(h.actuator->calls().size(), std::size_t(2));
        h.engine->tick();
        QCOMPARE(h.actuator->calls().size(), std::size_t(3));
        QVERIFY(h.actuator->calls().back().starts_with("drain r01-n10 "));
    }

    void aTreatedLinkReturnsOnlyAfterItsCleanWindow() {
        Harness h;
        QVERIFY(!h.isolate(kLink, "iso-1").empty());
        QCOMPARE(h.stage(), v1::LINK_STAGE_ISOLATED);

        // Not treated yet: no return.
        const auto early = h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "ret-0"));
        QCOMPARE(early.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(early.status.error_message().find("is ISOLATED") != std::string::npos,
                 early.status.error_message().c_str());

        const auto treated =
            h.engine->execute(kAlice, treat(kLink, v1::LINK_TREATMENT_RESEAT_AND_CLEAN, "treat-1")).operation;
        QCOMPARE(treated.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(h.actuator->calls().back(),
                 std::string("treat r01-n03-ib1 LINK_TREATMENT_RESEAT_AND_CLEAN LINK_END_UNSPECIFIED"));
        QCOMPARE(h.stage(), v1::LINK_STAGE_TREATED);
        QCOMPARE(h.book.get(kLink)->treatedBy, std::string("alice"));
        QVERIFY(h.book.takeWindowRestart(kLink));  // the keeper starts the link's window again, once
        QVERIFY(!h.book.takeWindowRestart(kLink));

        h.book.setCleanWindow(kLink, false, "clean window, host end: judging, 40 of 125 min");
        const auto waiting = h.engine->preview(kAlice, ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "ret-1")).preview;
        QVERIFY(!waiting.allowed());
        QVERIFY2(waiting.refusal().find("40 of 125 min") != std::string::npos, waiting.refusal().c_str());

        h.book.setCleanWindow(kLink, true, "clean window passed: ready to return");
        const auto back = h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "ret-2"));
        QVERIFY2(back.status.ok(), back.status.error_message().c_str());
        QCOMPARE(back.operation.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(h.actuator->calls().back(), std::string("resume r01-n03"));
        QCOMPARE(h.stage(), v1::LINK_STAGE_RETURNED);
        QCOMPARE(h.book.isolatedNow(), std::size_t(0));
    }

    void theThirdIsolationIn30DaysReturnsOnlyAfterAReplacement() {
        Harness h;
        for (int i = 1; i <= 3; ++i) {
            if (i == 3) {
                const auto third =
                    h.engine->preview(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-3")).preview;
                QVERIFY(!third.warnings().empty());
                QVERIFY2(third.warnings(0).find("was isolated 2 times within 30 days") != std::string::npos,
                         third.warnings(0).c_str());
            }
            QVERIFY(!h.isolate(kLink, "iso-" + std::to_string(i)).empty());
            QVERIFY(
                h.engine->execute(kAlice, treat(kLink, v1::LINK_TREATMENT_RESEAT_AND_CLEAN, "t-" + std::to_string(i)))
                    .status.ok());
            h.book.setCleanWindow(kLink, true, "clean window passed: ready to return");
            const auto back =
                h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "r-" + std::to_string(i)));
            if (i < 3) {
                QVERIFY2(back.status.ok(), back.status.error_message().c_str());
                h.fleet.setNodeState("r01-n03", v1::NODE_STATE_IDLE);
                continue;
            }
            QCOMPARE(back.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
            QVERIFY2(back.status.error_message().find("isolated 3 times within 30 days") != std::string::npos,
                     back.status.error_message().c_str());
        }
        QCOMPARE(h.book.get(kLink)->isolationsUnixMs.size(), std::size_t(3));
        QVERIFY(h.engine->execute(kAlice, treat(kLink, v1::LINK_TREATMENT_REPLACE_TRANSCEIVER, "t-4")).status.ok());
        QCOMPARE(h.book.get(kLink)->treatedEnd, v1::LINK_END_SWITCH);
        h.book.setCleanWindow(kLink, true, "clean window passed: ready to return");
        const auto replaced = h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "r-4"));
        QVERIFY2(replaced.status.ok(), replaced.status.error_message().c_str());
    }

    void pastTheBudgetAPersonNeedsASecondAndAutomationProposes() {
        Harness h;
        for (int n = 1; n <= 10; ++n) {
            char link[24];
            std::snprintf(link, sizeof link, "r02-n%02d-ib0", n);
            h.book.isolated(link, "op-" + std::to_string(n), "test", false, 1'000);
        }
        QCOMPARE(h.book.isolatedNow(), std::size_t(10));
        const auto request = ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-over");
        const auto person = h.engine->preview(kAlice, request).preview;
        QVERIFY(person.allowed());
        QVERIFY(person.requires_approval());
        QCOMPARE(person.links_isolated(), 10u);
        const auto op = h.engine->execute(kAlice, request).operation;
        QCOMPARE(op.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);
        QVERIFY(h.actuator->calls().empty());

        const auto automated = h.engine->preview(Caller::automation(), request).preview;
        QVERIFY(!automated.allowed());
        QVERIFY2(automated.refusal().find("isolation budget is 10") != std::string::npos, automated.refusal().c_str());
    }

    void badInputIsRefusedBeforeAnythingHappens() {
        Harness h;
        auto missing = ladder(v1::ACTION_TYPE_ISOLATE_LINK, "", "b-1");
        QCOMPARE(h.engine->preview(kAlice, missing).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(
            h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, "r09-n01-ib0", "b-2")).status.error_code(),
            grpc::StatusCode::NOT_FOUND);
        QCOMPARE(h.engine->preview(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, "r01-n03", "b-3")).status.error_code(),
                 grpc::StatusCode::NOT_FOUND);  // a tray is no link
        auto extraTarget = ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "b-4");
        extraTarget.set_node_name("r01-n03");
        QCOMPARE(h.engine->execute(kAlice, extraTarget).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        v1::ActionRequest drain;
        drain.set_request_id("b-5");
        drain.set_type(v1::ACTION_TYPE_DRAIN_NODE);
        drain.set_node_name("r01-n03");
        drain.set_reason("x");
        drain.set_link_name(kLink);
        QCOMPARE(h.engine->execute(kAlice, drain).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        drain.clear_link_name();
        drain.set_at_next_checkpoint(true);
        QCOMPARE(h.engine->execute(kAlice, drain).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        auto treatWithCheckpoint = treat(kLink, v1::LINK_TREATMENT_REPLACE_CABLE, "b-6");
        treatWithCheckpoint.set_at_next_checkpoint(true);
        QCOMPARE(h.engine->execute(kAlice, treatWithCheckpoint).status.error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(h.engine->execute(kAlice, treat(kLink, v1::LINK_TREATMENT_UNSPECIFIED, "b-7")).status.error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        auto noEnd = treat(kLink, v1::LINK_TREATMENT_REPLACE_TRANSCEIVER, "b-8");
        noEnd.clear_link_end();
        const auto endStatus = h.engine->execute(kAlice, noEnd).status;
        QCOMPARE(endStatus.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY(endStatus.error_message().find("link_end") != std::string::npos);
        auto unknownTreatment = treat(kLink, v1::LINK_TREATMENT_OTHER, "b-9");
        unknownTreatment.set_link_treatment(v1::LinkTreatment(42));
        QCOMPARE(h.engine->execute(kAlice, unknownTreatment).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        auto endOnIsolate = ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "b-10");
        endOnIsolate.set_link_end(v1::LINK_END_HOST);
        QCOMPARE(h.engine->execute(kAlice, endOnIsolate).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, std::string(300, 'x'), "b-11"))
                     .status.error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(h.engine->execute(kVal, ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "b-12")).status.error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        // Treating a link that was never isolated is refused: the tray still serves.
        QCOMPARE(h.engine->execute(kAlice, treat(kLink, v1::LINK_TREATMENT_REPLACE_CABLE, "b-13")).status.error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(h.actuator->calls().empty());
        QCOMPARE(h.stage(), v1::LINK_STAGE_UNSPECIFIED);
    }

    void aFailedIsolationLeavesTheLinkWatched() {
        Harness h;
        h.actuator->failWith = "slurm_update error: Invalid node name specified";
        const auto op = h.engine->execute(kAlice, ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "iso-f")).operation;
        QCOMPARE(op.state(), v1::OPERATION_STATE_FAILED);
        QCOMPARE(h.stage(), v1::LINK_STAGE_WATCH);
        QCOMPARE(h.book.isolatedNow(), std::size_t(0));
    }

    void theBookIsRebuiltFromEarlierRunsOperations() {
        LinkLadderBook book{railLinks(1).size(), railLinks(1)};
        auto op = [](v1::ActionRequest request, const char* id, std::int64_t at) {
            v1::Operation o;
            o.set_id(id);
            o.set_principal("bob");
            o.set_state(v1::OPERATION_STATE_SUCCEEDED);
            o.set_updated_unix_ms(at);
            *o.mutable_request() = std::move(request);
            return o;
        };
        LinkLadderActions::replay(book, op(ladder(v1::ACTION_TYPE_ISOLATE_LINK, kLink, "a"), "op-1", 1'000));
        LinkLadderActions::replay(book, op(treat(kLink, v1::LINK_TREATMENT_REPLACE_CABLE, "b"), "op-2", 2'000));
        QCOMPARE(book.get(kLink)->stage, v1::LINK_STAGE_TREATED);
        QCOMPARE(book.get(kLink)->treatedBy, std::string("bob"));
        QCOMPARE(book.get(kLink)->sinceUnixMs, std::int64_t(2'000));
        QCOMPARE(book.isolationsWithin30Days(kLink, 3'000), std::size_t(1));
        QCOMPARE(book.isolationsWithin30Days(kLink, 1'000 + LinkLadderBook::kIsolationMemoryMs), std::size_t(0));
        LinkLadderActions::replay(book, op(ladder(v1::ACTION_TYPE_RETURN_LINK, kLink, "c"), "op-3", 3'000));
        QCOMPARE(book.get(kLink)->stage, v1::LINK_STAGE_RETURNED);
        QCOMPARE(book.isolatedNow(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestLinkLadder)
#include "tst_control_link_ladder.moc"
