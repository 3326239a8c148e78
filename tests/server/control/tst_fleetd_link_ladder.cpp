// The link ladder through the real fleetd on the digital twin: the scenario drifts r01-n03-ib1 (a
// rail link of llm-405b-1) toward the Error line; fleetd's link keeper lists it at risk; an
// operator isolates it at the job's next checkpoint (the tray drains once the job saved one, the
// link ISOLATED, its operation named on the record); a reseat is recorded (TREATED: the twin's cable
// is mended, the window starts again); the return is refused until the clean window has passed and
// then resumes the tray (RETURNED). Every step is an audited operation. A restart of fleetd on the
// same audit log keeps the ladder.

#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;
using watchfloor::testing::kSanitizerSlowdown;

namespace {

constexpr const char* kLink = "r01-n03-ib1";

QStringList twinWithDrift(const QTemporaryDir& dir) {
    QFile scenario(dir.filePath("drift.scn"));
    scenario.open(QIODevice::WriteOnly);
    // Over the Error line 2 h in, down 2 h after: the ladder has a simulated hour or more to act.
    scenario.write("at 1m link-drift nic=r01-n03-ib1 hours=2 down_after=2h\n");
    scenario.close();
    return {"--seed",      "11",
            "--speed",     "600",
            "--scenario",  dir.filePath("drift.scn"),
            "--tokens",    writeTokens(dir),
            "--audit-log", dir.filePath("audit.jsonl")};
}

v1::ActionRequest onLink(v1::ActionType type, const std::string& requestId) {
    auto request = action(type, requestId, "r01-n03-ib1 symbol BER drifting toward the Error line");
    request.set_link_name(kLink);
    return request;
}

}  // namespace

class TestFleetdLinkLadder : public QObject {
    Q_OBJECT

    static v1::Operation run(ControlConnection& control, const v1::ActionRequest& request, v1::ActionPreview* preview,
                             std::string* why) {
        return control.runToEnd(kAlice, request, preview, why, 60s * kSanitizerSlowdown);
    }

private slots:
    void anOperatorTakesADriftingLinkThroughTheLadder() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(twinWithDrift(dir)), qPrintable(fleetd.errorString()));
        ControlConnection control(fleetd.address());
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());

        // Listed at risk while it drifts, with the job it would hit.
        v1::LinkHealth risky;
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.at_risk(); }, 60s, &risky));
        QCOMPARE(risky.stage(), v1::LINK_STAGE_WATCH);
        QVERIFY(risky.at_stake().gpus() > 0);

        // Isolated at the job's next checkpoint: the tray drains once the save is in.
        auto isolate = onLink(v1::ACTION_TYPE_ISOLATE_LINK, "iso-1");
        isolate.set_at_next_checkpoint(true);
        v1::ActionPreview preview;
        std::string why;
        const v1::Operation isolated = run(control, isolate, &preview, &why);
        QVERIFY2(!isolated.id().empty(), why.c_str());
        QVERIFY2(isolated.state() == v1::OPERATION_STATE_SUCCEEDED, isolated.DebugString().c_str());
        QCOMPARE(preview.trays(0), std::string("r01-n03"));
        QVERIFY(preview.jobs_hit_size() == 1);
        QCOMPARE(preview.expected_wasted_progress_s(), 0.0);
        QVERIFY2(preview.unplanned_cost_gpu_s() > preview.expected_goodput_cost_gpu_s(), preview.DebugString().c_str());
        v1::LinkHealth onRecord;
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.stage() == v1::LINK_STAGE_ISOLATED; }, 20s, &onRecord));
        QCOMPARE(onRecord.operation_id(), isolated.id());
        QVERIFY2(onRecord.stage_reason().find("GPU-h saved against an unplanned failure") != std::string::npos,
                 onRecord.stage_reason().c_str());
        QCOMPARE(onRecord.isolations_30d(), 1u);
        const auto tray = watch.nodeIndex("r01-n03");
        QVERIFY(tray);
        QVERIFY(watch.waitForState(
            *tray, [](const v1::EntityState& s) { return s.node_state() == v1::NODE_STATE_DRAINED; }, 20s));

        // Returning before a treatment is refused, saying why.
        v1::Operation refused;
        QCOMPARE(control.execute(kAlice, onLink(v1::ACTION_TYPE_RETURN_LINK, "ret-0"), &refused).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);

        // A reseat mends the twin's cable; the clean window starts.
        auto reseat = onLink(v1::ACTION_TYPE_TREAT_LINK, "treat-1");
        reseat.set_link_treatment(v1::LINK_TREATMENT_RESEAT_AND_CLEAN);
        reseat.set_note("reseated both ends, cleaned with a one-click cleaner");
        const v1::Operation treated = run(control, reseat, nullptr, &why);
        QVERIFY2(treated.state() == v1::OPERATION_STATE_SUCCEEDED, (why + treated.DebugString()).c_str());
        QVERIFY(watch.waitForLink(
            kLink,
            [](const v1::LinkHealth& l) {
                return l.stage() == v1::LINK_STAGE_TREATED && l.treatment() == v1::LINK_TREATMENT_RESEAT_AND_CLEAN &&
                       l.treated_by() == "alice";
            },
            20s, &onRecord));

        // Back once 3e15 clean bits crossed each end (about 2 h of the twin's time at 400 Gb/s).
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.stage_reason().find("clean window passed") == 0; }, 60s,
            &onRecord));
        const v1::Operation returned = run(control, onLink(v1::ACTION_TYPE_RETURN_LINK, "ret-1"), nullptr, &why);
        QVERIFY2(returned.state() == v1::OPERATION_STATE_SUCCEEDED, (why + returned.DebugString()).c_str());
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.stage() == v1::LINK_STAGE_RETURNED; }, 20s, &onRecord));
        QVERIFY(watch.waitForState(
            *tray, [](const v1::EntityState& s) { return s.node_state() != v1::NODE_STATE_DRAINED; }, 20s));
        // Three operations, each audited before and after.
        for (const char* id : {"iso-1", "treat-1", "ret-1"})
            QCOMPARE(countAudit(dir.filePath("audit.jsonl"), auditOf(id, "allow")), 1);
        QCOMPARE(fleetd.terminate(), 0);

        // The ladder outlives fleetd: the isolation still counts within 30 days after a restart.
        FleetdProcess again;
        QVERIFY2(again.start(twinWithDrift(dir)), qPrintable(again.errorString()));
        QVERIFY(again.log().contains("link ladder: 3 step(s) of earlier runs restored"));
        QCOMPARE(again.terminate(), 0);
    }

    // --auto-isolate-links act: automation isolates the link at risk as 'auto', at the job's
    // checkpoint, and says what that saved; treating it stays a person's step.
    void automationIsolatesALinkAtRiskAtTheCheckpoint() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        // The twin's own faults put other links at risk too: automation isolates them as well, so
        // the breaker allows more than they need, and seed 3 reaches r01-n03-ib1 within the budget.
        QStringList args = twinWithDrift(dir);
        args[args.indexOf("--seed") + 1] = "3";
        QVERIFY2(fleetd.start(args + QStringList{"--auto-drain", "50/1h", "--auto-isolate-links", "act"}),
                 qPrintable(fleetd.errorString()));
        QVERIFY(fleetd.log().contains("links at risk: isolated by automation as 'auto'"));
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        v1::LinkHealth isolated;
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.stage() == v1::LINK_STAGE_ISOLATED; }, 90s, &isolated));
        QVERIFY2(isolated.stage_reason().starts_with("isolated by auto: "), isolated.stage_reason().c_str());
        ControlConnection control(fleetd.address());
        v1::Operation op;
        QVERIFY(control.get(kAlice, isolated.operation_id(), {}, &op).ok());
        // When its job had progress at stake on acceptance, the record says what waiting saved (the
        // other isolations may have interrupted the job first: recovering, it had nothing to lose).
        if (op.preview().unplanned_cost_gpu_s() - op.preview().expected_goodput_cost_gpu_s() > 0.1 * 3600)
            QVERIFY2(isolated.stage_reason().find("drained at the jobs' checkpoint") != std::string::npos,
                     isolated.stage_reason().c_str());
        QVERIFY(op.automated());
        QVERIFY(op.request().at_next_checkpoint());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        // Once: the link on the ladder is not isolated again.
        v1::ListOperationsResponse all;
        QVERIFY(control.list(kAlice, &all).ok());
        int isolations = 0;
        for (const auto& o : all.operations())
            isolations += o.request().type() == v1::ACTION_TYPE_ISOLATE_LINK && o.request().link_name() == kLink;
        QCOMPARE(isolations, 1);
        QCOMPARE(fleetd.terminate(), 0);
    }

    void aDryRunOnlyProposes() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(
            fleetd.start(twinWithDrift(dir) + QStringList{"--auto-drain", "5/1h", "--auto-isolate-links", "dry-run"}),
            qPrintable(fleetd.errorString()));
        FleetWatch watch(fleetd.address());
        QVERIFY(watch.ready());
        v1::LinkHealth proposed;
        QVERIFY(watch.waitForLink(
            kLink, [](const v1::LinkHealth& l) { return l.stage() == v1::LINK_STAGE_PROPOSED; }, 90s, &proposed));
        QVERIFY2(proposed.stage_reason().starts_with("dry run: automation would isolate it"),
                 proposed.stage_reason().c_str());
        ControlConnection control(fleetd.address());
        v1::ListOperationsResponse all;
        QVERIFY(control.list(kAlice, &all).ok());
        QCOMPARE(all.operations_size(), 0);
        QCOMPARE(fleetd.terminate(), 0);
    }

    void theFlagNeedsTheBreaker() {
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY(!fleetd.start(twinWithDrift(dir) + QStringList{"--auto-isolate-links", "act"}));
        QVERIFY2(fleetd.log().contains("--auto-isolate-links"), fleetd.log().constData());
        FleetdProcess bad;
        QVERIFY(!bad.start(twinWithDrift(dir) + QStringList{"--auto-drain", "5/1h", "--auto-isolate-links", "yes"}));
        QVERIFY2(bad.log().contains("act or dry-run"), bad.log().constData());
    }
};

QTEST_GUILESS_MAIN(TestFleetdLinkLadder)
#include "tst_fleetd_link_ladder.moc"
