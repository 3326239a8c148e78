// Tray lifecycle and lemon trays in a real fleetd (issue 16, item 6). SET_LIFECYCLE through
// ControlService: previewed (the transition, or "nothing changes"), audited, idempotent on the
// request id and on the state, refused for a viewer and for bad input (unknown tray, no state, an
// unknown state, a second target), shown in the tray's EntityState and restored from the audit log
// after a restart. Lemons: three Xid 79s on one tray within --lemon 3/1d flag it and propose
// TRIAGE; an operator's PRODUCTION vouches for it; with --auto-lifecycle automation sets TRIAGE
// itself as "auto". The counts survive a restart (kill -9; AUDIT_LOG.lemon-failures): two failures
// before and one after make a lemon; a failure that is older than the window by then does not count.
#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

v1::ActionRequest setLifecycle(const std::string& node, v1::TrayLifecycle state, const std::string& requestId,
                               const std::string& reason = "three Xid 79 this week") {
    auto request = action(v1::ACTION_TYPE_SET_LIFECYCLE, requestId, reason);
    request.set_node_name(node);
    request.set_lifecycle(state);
    return request;
}

QString writeScenario(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile scenario(path);
    if (!scenario.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    scenario.write(text);
    return path;
}

QString writeLemonScenario(const QTemporaryDir& dir) {
    // Each fells the tray (health FAILED); it is repaired within 30 minutes, before the next.
    return writeScenario(dir, "lemon.scenario",
                         "at 10m xid 79 gpu=r06-n01-g0\n"
                         "at 45m xid 79 gpu=r06-n01-g1\n"
                         "at 80m xid 79 gpu=r06-n01-g2\n");
}

// The tray's state once `until` holds, from a fresh watch of the running fleetd.
bool trayStateWhen(FleetdProcess& fleetd, const std::string& tray,
                   const std::function<bool(const v1::EntityState&)>& until, v1::EntityState* state,
                   std::chrono::milliseconds timeout = 30'000ms) {
    FleetWatch watch(fleetd.address());
    return watch.ready() && watch.waitForState(*watch.nodeIndex(tray), until, timeout, state);
}

}  // namespace

class FleetdLifecycleTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    FleetdProcess fleetd_;

    // fleetd at 600x with a 3/3h lemon rule on `scenario`, until r06-n01 has failed twice (not yet a lemon).
    void startUntilTwoFailures(const QString& audit, const QString& scenario) {
        QVERIFY2(fleetd_.start({"--seed", "3", "--speed", "600", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--lemon", "3/3h", "--scenario", scenario}),
                 qPrintable(fleetd_.errorString()));
        v1::EntityState state;
        QVERIFY2(trayStateWhen(
                     fleetd_, "r06-n01", [](const v1::EntityState& s) { return s.recent_failures() == 2; }, &state),
                 fleetd_.log().constData());
        QVERIFY(!state.lemon());
    }

private slots:
    void setThroughControlServiceAuditedIdempotentAndRestored() {
        const QString audit = dir_.filePath("audit.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "3", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log", audit}),
                 qPrintable(fleetd_.errorString()));
        ControlConnection console(fleetd_.address());

        // The preview says what will happen, and that it is a label, not a drain.
        const auto triage = setLifecycle("r02-n05", v1::TRAY_LIFECYCLE_TRIAGE, "life-1");
        v1::ActionPreview preview;
        QVERIFY(console.preview(kAlice, triage, &preview).ok());
        QVERIFY(preview.allowed());
        QCOMPARE(preview.target_name(), "r02-n05 lifecycle -> TRIAGE");
        QCOMPARE(preview.gpus_lost(), 0u);
        QCOMPARE(preview.jobs_hit_size(), 0);
        QVERIFY(preview.warnings_size() >= 2);
        QCOMPARE(preview.warnings(0), "r02-n05: PRODUCTION (never set) -> TRIAGE");
        QVERIFY2(preview.warnings(1).find("label") != std::string::npos, preview.warnings(1).c_str());

        v1::Operation op;
        QVERIFY(console.execute(kAlice, triage, &op).ok());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        QCOMPARE(op.progress_message(), "r02-n05: PRODUCTION (never set) -> TRIAGE");
        // Idempotent on the request id: the same operation, not a second one.
        v1::Operation retry;
        QVERIFY(console.execute(kAlice, triage, &retry).ok());
        QCOMPARE(retry.id(), op.id());
        // And on the state: another request for the same state changes nothing.
        const auto again = setLifecycle("r02-n05", v1::TRAY_LIFECYCLE_TRIAGE, "life-2", "double check");
        QVERIFY(console.preview(kBob, again, &preview).ok());
        QCOMPARE(preview.warnings(0), "r02-n05 is already TRIAGE: nothing changes (now set by alice)");
        QVERIFY(console.execute(kBob, again, &retry).ok());
        QCOMPARE(retry.progress_message(), "r02-n05 is already TRIAGE; nothing changed");

        // Refused inputs and roles.
        QCOMPARE(console.execute(kAlice, setLifecycle("r99-n01", v1::TRAY_LIFECYCLE_RMA, "bad-1"), &retry).error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(
            console.preview(kAlice, setLifecycle("r99-n01", v1::TRAY_LIFECYCLE_RMA, "bad-1"), &preview).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(console.execute(kAlice, setLifecycle("r02-n05", v1::TRAY_LIFECYCLE_UNSPECIFIED, "bad-2"), &retry)
                     .error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(console.execute(kAlice, setLifecycle("r02-n05", static_cast<v1::TrayLifecycle>(99), "bad-3"), &retry)
                     .error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        auto twoTargets = setLifecycle("r02-n05", v1::TRAY_LIFECYCLE_RMA, "bad-4");
        twoTargets.set_rack_name("r02");
        QCOMPARE(console.execute(kAlice, twoTargets, &retry).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(
            console.execute(kViewer, setLifecycle("r02-n05", v1::TRAY_LIFECYCLE_RMA, "bad-5"), &retry).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

        // Audited: two accepted, one retry not written twice, every refusal written.
        QCOMPARE(countAudit(audit,
                            [](const QJsonObject& r) {
                                return r.value("action") == "SET_LIFECYCLE" && r.value("decision") == "allow" &&
                                       r.value("target") == "r02-n05 lifecycle -> TRIAGE";
                            }),
                 2);
        QVERIFY(countAudit(audit, auditOf("life-1", "allow")) == 1);
        QVERIFY(countAudit(audit, [](const QJsonObject& r) {
                    return r.value("action") == "SET_LIFECYCLE" && r.value("decision") == "deny";
                }) >= 4);

        // Every console sees it in the tray's state.
        {
            FleetWatch watch(fleetd_.address());
            QVERIFY(watch.ready());
            v1::EntityState state;
            QVERIFY(watch.waitForState(
                *watch.nodeIndex("r02-n05"),
                [](const v1::EntityState& s) { return s.lifecycle() == v1::TRAY_LIFECYCLE_TRIAGE; }, 10'000ms, &state));
            QCOMPARE(state.lifecycle_set_by(), "alice");
            QCOMPARE(state.lifecycle_reason(), "alice: three Xid 79 this week");
            QVERIFY(state.lifecycle_since_unix_ms() > 0);
            QVERIFY(state.node_state() != v1::NODE_STATE_UNSPECIFIED);  // decorated, not replaced
            QVERIFY(state.health() != v1::HEALTH_STATE_UNSPECIFIED);
        }

        // fleetd restarts: the state comes back from the audit log.
        QVERIFY2(fleetd_.restart(), qPrintable(fleetd_.errorString()));
        QVERIFY(fleetd_.log().contains("tray lifecycle: 1 tray(s) set by earlier runs, restored from the audit log"));
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        v1::EntityState restored;
        QVERIFY(watch.waitForState(
            *watch.nodeIndex("r02-n05"),
            [](const v1::EntityState& s) { return s.lifecycle() == v1::TRAY_LIFECYCLE_TRIAGE; }, 10'000ms, &restored));
        QCOMPARE(restored.lifecycle_set_by(), "alice");  // bob's same state again changed nothing
        QCOMPARE(fleetd_.terminate(), 0);
    }

    void lemonIsFlaggedAndTriageProposedThenVouchedFor() {
        const QString audit = dir_.filePath("audit-lemon.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "3", "--speed", "600", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--lemon", "3/1d", "--scenario", writeLemonScenario(dir_)}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY(
            fleetd_.log().contains("lemon trays: 3 failures within 1d, TRIAGE proposed (--auto-lifecycle to set it)"));
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::uint32_t tray = *watch.nodeIndex("r06-n01");
        v1::EntityState state;
        QVERIFY2(watch.waitForState(
                     tray, [](const v1::EntityState& s) { return s.recent_failures() == 2; }, 30'000ms, &state),
                 fleetd_.log().constData());
        QVERIFY(!state.lemon());
        // Not a lemon yet; its Xid 79 opened a repair case, which proposes TRIAGE (no --auto-lifecycle).
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_TRIAGE);
        QVERIFY2(state.proposal_reason().starts_with("repair case 1: Xid 79"), state.proposal_reason().c_str());
        QVERIFY2(watch.waitForState(
                     tray, [](const v1::EntityState& s) { return s.lemon(); }, 30'000ms, &state),
                 fleetd_.log().constData());
        QCOMPARE(state.recent_failures(), 3u);
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_TRIAGE);
        QCOMPARE(state.proposal_reason(), "lemon: 3 failures within 1d (threshold 3)");
        QCOMPARE(state.lifecycle(), v1::TRAY_LIFECYCLE_UNSPECIFIED);  // proposed, not set
        v1::FleetGoodput fleet;
        QVERIFY(watch.waitForFleet([](const v1::FleetGoodput& f) { return f.lemon_trays() >= 1; }, 10'000ms, &fleet));
        QCOMPARE(fleet.lemon_threshold(), 3u);
        QCOMPARE(fleet.lemon_window_s(), qint64(86400));

        // A person who checked the tray puts it back in production: it starts again from 0.
        ControlConnection console(fleetd_.address());
        v1::Operation op;
        QVERIFY(
            console
                .execute(kAlice,
                         setLifecycle("r06-n01", v1::TRAY_LIFECYCLE_PRODUCTION, "vouch-1", "reseated, burn-in passed"),
                         &op)
                .ok());
        QVERIFY(watch.waitForState(
            tray, [](const v1::EntityState& s) { return s.lifecycle() == v1::TRAY_LIFECYCLE_PRODUCTION; }, 10'000ms,
            &state));
        QVERIFY(!state.lemon());
        QCOMPARE(state.recent_failures(), 0u);
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_UNSPECIFIED);
        QCOMPARE(fleetd_.terminate(), 0);
    }

    void automationTriagesAFaultedTrayOnce() {
        const QString audit = dir_.filePath("audit-auto.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "3", "--speed", "600", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--lemon", "3/1d", "--auto-drain", "5/10m", "--auto-lifecycle", "--scenario",
                                writeLemonScenario(dir_)}),
                 qPrintable(fleetd_.errorString()));
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        v1::EntityState state;
        QVERIFY2(
            watch.waitForState(
                *watch.nodeIndex("r06-n01"),
                [](const v1::EntityState& s) { return s.lifecycle() == v1::TRAY_LIFECYCLE_TRIAGE; }, 40'000ms, &state),
            fleetd_.log().constData());
        // The first Xid 79 opened a repair case, which set TRIAGE itself (--auto-lifecycle); the
        // lemon it becomes finds the tray triaged already and sets nothing more.
        QCOMPARE(state.lifecycle_set_by(), "auto");
        QVERIFY2(state.lifecycle_reason().starts_with("auto: repair case 1: Xid 79"), state.lifecycle_reason().c_str());
        QVERIFY2(watch.waitForState(
                     *watch.nodeIndex("r06-n01"), [](const v1::EntityState& s) { return s.lemon(); }, 40'000ms, &state),
                 fleetd_.log().constData());
        QCOMPARE(state.lifecycle(), v1::TRAY_LIFECYCLE_TRIAGE);
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_UNSPECIFIED);  // nothing left to propose
        QCOMPARE(countAudit(audit,
                            [](const QJsonObject& r) {
                                return r.value("action") == "SET_LIFECYCLE" && r.value("principal") == "auto" &&
                                       r.value("target") == "r06-n01 lifecycle -> TRIAGE" &&
                                       r.value("decision") == "allow";
                            }),
                 1);
        QCOMPARE(fleetd_.terminate(), 0);
    }

    // Two failures, kill -9, a third after the restart: a lemon at 3/3h.
    void lemonCountsSurviveARestart() {
        const QString audit = dir_.filePath("audit-restart.jsonl");
        const QString scenario = writeScenario(dir_, "restart.scenario",
                                               "at 10m xid 79 gpu=r06-n01-g0\n"
                                               "at 45m xid 79 gpu=r06-n01-g1\n");
        startUntilTwoFailures(audit, scenario);
        if (QTest::currentTestFailed()) return;
        QVERIFY(!fleetd_.log().contains("lemon failure counts from"));  // a first start: nothing to carry over
        v1::EntityState state;

        // The twin starts its clock again; the scenario of the next run fells the tray once more.
        QVERIFY(!writeScenario(dir_, "restart.scenario", "at 10m xid 79 gpu=r06-n01-g2\n").isEmpty());
        QVERIFY2(fleetd_.restart(), qPrintable(fleetd_.errorString()));
        QVERIFY2(
            fleetd_
                .waitForLog(QRegularExpression("lemon failure counts from .*audit-restart\\.jsonl\\.lemon-failures: "
                                               "2 failure\\(s\\) of 1 tray\\(s\\) carried over, 2 still within 3h, "
                                               "0 lemon\\(s\\)"),
                            10'000)
                .hasMatch(),
            fleetd_.log().constData());
        QVERIFY2(trayStateWhen(
                     fleetd_, "r06-n01", [](const v1::EntityState& s) { return s.lemon(); }, &state),
                 fleetd_.log().constData());
        QCOMPARE(state.recent_failures(), 3u);
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_TRIAGE);
        QCOMPARE(state.proposal_reason(), "lemon: 3 failures within 3h (threshold 3)");
        QCOMPARE(fleetd_.terminate(), 0);
    }

    // Failures at 10 and 100 minutes, restart, one at 95 minutes of the new run: the first is more
    // than 3 h old by then and no longer counts; the second still does.
    void aFailureOlderThanTheWindowDoesNotCountAfterARestart() {
        const QString audit = dir_.filePath("audit-aged.jsonl");
        const QString scenario = writeScenario(dir_, "aged.scenario",
                                               "at 10m xid 79 gpu=r06-n01-g0\n"
                                               "at 100m xid 79 gpu=r06-n01-g1\n");
        startUntilTwoFailures(audit, scenario);
        if (QTest::currentTestFailed()) return;
        v1::EntityState state;

        QVERIFY(!writeScenario(dir_, "aged.scenario", "at 95m xid 79 gpu=r06-n01-g2\n").isEmpty());
        QVERIFY2(fleetd_.restart(), qPrintable(fleetd_.errorString()));
        QVERIFY2(
            fleetd_
                .waitForLog(QRegularExpression("2 failure\\(s\\) of 1 tray\\(s\\) carried over, 2 still within 3h"),
                            10'000)
                .hasMatch(),
            fleetd_.log().constData());
        // The failure at 95 minutes fells the tray: counted with the one at 100 minutes of the last
        // run, not with the one at 10 (185 minutes or more before it).
        QVERIFY2(trayStateWhen(
                     fleetd_, "r06-n01", [](const v1::EntityState& s) { return s.health() == v1::HEALTH_STATE_FAILED; },
                     &state),
                 fleetd_.log().constData());
        QCOMPARE(state.recent_failures(), 2u);
        QVERIFY(!state.lemon());
        QCOMPARE(state.proposed_lifecycle(), v1::TRAY_LIFECYCLE_UNSPECIFIED);
        QCOMPARE(fleetd_.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdLifecycleTest)
#include "tst_fleetd_lifecycle.moc"
