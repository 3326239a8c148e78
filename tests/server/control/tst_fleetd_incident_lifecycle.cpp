// An incident's life and maintenance windows through the real ControlService of a real fleetd
// (digital twin at 30x, a scripted leak-sensor fault on r03, and on r05 a sensor fault that
// clears inside a maintenance window and a stuck valve that outlasts it): a window scheduled,
// streamed and refused when it overlaps, lies in the past or too far ahead or is too long;
// acknowledge (idempotent by request id, viewer refused, second acknowledgement refused),
// notes bounded like every note, a drain linked into the timeline, mitigate, resolve refused
// while a member is active and allowed once clear, acknowledging the resolved incident refused;
// the window's events journaled but raising no incident, and the fault still active at its end
// raising one then.

#include "FleetdControlFixture.h"

#include <QTest>

#include <set>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kDayMs = 24 * 60 * kMinuteMs;

v1::ActionRequest incidentAction(v1::ActionType type, std::uint64_t id, const std::string& requestId,
                                 const std::string& note = {}) {
    auto request = action(type, requestId, "on call");
    request.set_incident_id(id);
    request.set_note(note);
    return request;
}

v1::ActionRequest maintenance(const std::string& requestId, v1::MaintenanceScope scope, const std::string& name,
                              std::int64_t startMs, std::int64_t endMs) {
    auto request = action(v1::ACTION_TYPE_SCHEDULE_MAINTENANCE, requestId, "CDU pump swap");
    request.mutable_maintenance()->set_scope(scope);
    request.mutable_maintenance()->set_scope_name(name);
    request.mutable_maintenance()->set_start_unix_ms(startMs);
    request.mutable_maintenance()->set_end_unix_ms(endMs);
    return request;
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

class FleetdIncidentLifecycleTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString auditPath_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> control_;
    std::unique_ptr<v1::TelemetryService::Stub> telemetry_;
    std::string windowId_;
    std::int64_t windowEndMs_ = 0;

    v1::Snapshot snapshot() {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + 20s);
        auto reader = telemetry_->Subscribe(&context, v1::SubscribeRequest{});
        v1::SubscribeResponse response;
        v1::Snapshot out;
        if (reader->Read(&response) && response.has_snapshot()) out = response.snapshot();
        context.TryCancel();
        while (reader->Read(&response)) {}
        reader->Finish();
        return out;
    }
    // Snapshots until one satisfies `wanted` (a change reaches the stream with the next tick).
    v1::Snapshot waitForSnapshot(const std::function<bool(const v1::Snapshot&)>& wanted,
                                 std::chrono::milliseconds timeout = 10s) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        v1::Snapshot seen = snapshot();
        while (!wanted(seen) && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(50ms);
            seen = snapshot();
        }
        return seen;
    }
    std::vector<v1::Incident> incidents() {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + 10s);
        v1::ListIncidentsRequest request;
        request.set_page_size(500);
        request.set_include_member_ids(true);
        v1::ListIncidentsResponse response;
        if (!telemetry_->ListIncidents(&context, request, &response).ok()) return {};
        return {response.incidents().begin(), response.incidents().end()};
    }
    // A compute tray of `rack` that no job runs on (the rack's last one if every tray is busy).
    std::string idleTrayOf(const std::string& rackName) {
        const v1::Snapshot now = snapshot();
        std::set<std::uint32_t> busy;
        for (const auto& job : now.jobs()) busy.insert(job.node_indexes().begin(), job.node_indexes().end());
        std::uint32_t rackIndex = UINT32_MAX;  // an entity index, not a list position
        for (const auto& rack : now.topology().racks())
            if (rack.name() == rackName) rackIndex = rack.index();
        std::string last;
        for (const auto& node : now.topology().nodes()) {
            if (node.rack_index() != rackIndex) continue;
            if (!busy.count(node.index())) return node.name();
            last = node.name();
        }
        return last;
    }
    // Polls ListIncidents until an incident with that root cause name satisfies `wanted`.
    std::optional<v1::Incident> waitForIncident(const std::string& cause,
                                                const std::function<bool(const v1::Incident&)>& wanted,
                                                std::chrono::milliseconds timeout = 40s) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < until) {
            for (const auto& incident : incidents())
                if (incident.root_cause().name() == cause && wanted(incident)) return incident;
            std::this_thread::sleep_for(100ms);
        }
        return std::nullopt;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auditPath_ = dir_.filePath("audit.jsonl");
        QFile scenario(dir_.filePath("lifecycle.scenario"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        scenario.write(
            "at 1m sensor-fault rack=r03 for=8m\n"
            "at 3m sensor-fault rack=r05 for=2m\n"
            "at 4m valve-close rack=r05 for=2h\n");
        scenario.close();
        QVERIFY2(fleetd_.start({"--seed", "5", "--speed", "30", "--incident-hold", "30m", "--tokens", writeTokens(dir_),
                                "--audit-log", auditPath_, "--scenario", scenario.fileName()}),
                 qPrintable(fleetd_.errorString()));
        control_ = std::make_unique<ControlConnection>(fleetd_.address());
        telemetry_ = v1::TelemetryService::NewStub(newChannel(fleetd_.address()));
    }

    // First, before the r05 faults at 3m and 4m of fleet time (6 and 8 s here).
    void maintenanceWindowIsScheduledStreamedAndBounded() {
        const v1::Snapshot first = snapshot();
        const std::int64_t now = first.server_time_unix_ms();
        QVERIFY(now > 0);
        windowEndMs_ = now + 7 * kMinuteMs;
        const auto window = maintenance("mw-r05", v1::MAINTENANCE_SCOPE_RACK, "r05", 0, windowEndMs_);
        v1::ActionPreview preview;
        QVERIFY(control_->preview(kAlice, window, &preview).ok());
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QVERIFY2(contains(preview.effect(), "maintenance on rack r05 from") &&
                     contains(preview.effect(), "events there raise no incident"),
                 preview.effect().c_str());
        v1::Operation op;
        QCOMPARE(control_->execute(kViewer, window, &op).error_code(), grpc::StatusCode::PERMISSION_DENIED);
        const grpc::Status scheduled = control_->execute(kAlice, window, &op);
        QVERIFY2(scheduled.ok(), scheduled.error_message().c_str());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        windowId_ = "mw-" + op.id().substr(3);
        QVERIFY2(contains(op.progress_message(), windowId_.c_str()), op.progress_message().c_str());

        const v1::Snapshot after = waitForSnapshot([](const v1::Snapshot& s) { return s.maintenance_size() > 0; });
        QCOMPARE(after.maintenance_size(), 1);
        const v1::MaintenanceWindow& held = after.maintenance(0);
        QCOMPARE(held.id(), windowId_);
        QCOMPARE(held.state(), v1::MAINTENANCE_STATE_ACTIVE);
        QCOMPARE(held.owner(), std::string("alice"));
        QCOMPARE(held.reason(), std::string("alice: CDU pump swap"));
        QCOMPARE(held.end_unix_ms(), windowEndMs_);
        QCOMPARE(held.rack_indexes_size(), 1);

        // Bad windows: each refused with a message, nothing scheduled, each refusal audited.
        const v1::Rack* r05 = nullptr;
        for (const auto& rack : after.topology().racks())
            if (rack.name() == "r05") r05 = &rack;
        QVERIFY(r05);
        const std::string row = r05->hall() + "/" + std::to_string(r05->row());
        struct Bad {
            v1::ActionRequest request;
            grpc::StatusCode code;
            const char* says;
        };
        const Bad bad[] = {
            {maintenance("bad-1", v1::MAINTENANCE_SCOPE_RACK, "r05", now + kMinuteMs, now + 60 * kMinuteMs),
             grpc::StatusCode::FAILED_PRECONDITION, "overlaps maintenance window"},
            {maintenance("bad-2", v1::MAINTENANCE_SCOPE_ROW, row, 0, now + 60 * kMinuteMs),
             grpc::StatusCode::FAILED_PRECONDITION, "overlaps maintenance window"},
            {maintenance("bad-3", v1::MAINTENANCE_SCOPE_RACK, "r04", now - kDayMs, now - kDayMs + 60 * kMinuteMs),
             grpc::StatusCode::INVALID_ARGUMENT, "in the past"},
            {maintenance("bad-4", v1::MAINTENANCE_SCOPE_RACK, "r04", now + 3 * 365 * kDayMs,
                         now + 3 * 365 * kDayMs + kDayMs),
             grpc::StatusCode::INVALID_ARGUMENT, "more than 90 days ahead"},
            {maintenance("bad-5", v1::MAINTENANCE_SCOPE_RACK, "r04", now + kDayMs, now + 30 * kDayMs),
             grpc::StatusCode::INVALID_ARGUMENT, "at most 14 days"},
            {maintenance("bad-6", v1::MAINTENANCE_SCOPE_RACK, "r04", now + kDayMs, now + kDayMs),
             grpc::StatusCode::INVALID_ARGUMENT, "must end after it starts"},
            {maintenance("bad-7", v1::MAINTENANCE_SCOPE_RACK, "r99", 0, now + kDayMs), grpc::StatusCode::NOT_FOUND,
             "no rack named 'r99'"},
        };
        for (const Bad& b : bad) {
            const grpc::Status status = control_->execute(kAlice, b.request, &op);
            QVERIFY2(
                status.error_code() == b.code && contains(status.error_message(), b.says),
                (b.request.request_id() + ": " + std::to_string(status.error_code()) + " " + status.error_message())
                    .c_str());
            QCOMPARE(countAudit(auditPath_, auditOf(b.request.request_id(), "deny")), 1);
        }
        const grpc::Status overlap = control_->execute(kAlice, bad[0].request, &op);
        QVERIFY2(contains(overlap.error_message(), windowId_.c_str()), overlap.error_message().c_str());
        auto cancelUnknown = action(v1::ACTION_TYPE_CANCEL_MAINTENANCE, "cancel-1", "not needed");
        cancelUnknown.set_maintenance_window_id("mw-nope");
        QCOMPARE(control_->execute(kAlice, cancelUnknown, &op).error_code(), grpc::StatusCode::NOT_FOUND);
        QCOMPARE(snapshot().maintenance_size(), 1);
    }

    void incidentLifecycleThroughControlService() {
        const auto opened = waitForIncident("r03-loop", [](const v1::Incident&) { return true; });
        QVERIFY(opened);
        const std::uint64_t id = opened->id();
        QCOMPARE(opened->state(), v1::INCIDENT_STATE_OPEN);
        v1::Operation op;
        v1::ActionPreview preview;

        // Unknown ids, viewers, bounded notes.
        const auto unknown = incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id + 1000, "ack-unknown");
        QCOMPARE(control_->preview(kAlice, unknown, &preview).error_code(), grpc::StatusCode::NOT_FOUND);
        const grpc::Status notFound = control_->execute(kAlice, unknown, &op);
        QCOMPARE(notFound.error_code(), grpc::StatusCode::NOT_FOUND);
        QVERIFY2(contains(notFound.error_message(), "no incident"), notFound.error_message().c_str());
        QCOMPARE(control_->execute(kViewer, incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id, "ack-viewer"), &op)
                     .error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        QCOMPARE(
            control_->execute(kAlice, incidentAction(v1::ACTION_TYPE_NOTE_INCIDENT, id, "note-lf", "one\ntwo"), &op)
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(
            control_
                ->execute(kAlice, incidentAction(v1::ACTION_TYPE_NOTE_INCIDENT, id, "note-big", std::string(2049, 'x')),
                          &op)
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
        QCOMPARE(control_->execute(kAlice, incidentAction(v1::ACTION_TYPE_NOTE_INCIDENT, id, "note-empty"), &op)
                     .error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        auto stray = incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id, "ack-stray");
        stray.set_node_name("r03-n01");
        QCOMPARE(control_->execute(kAlice, stray, &op).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

        // Acknowledge: the preview says what execute does; a retry is the same operation.
        const auto ack = incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id, "ack-1", "sensor, not a leak");
        QVERIFY(control_->preview(kAlice, ack, &preview).ok());
        QVERIFY2(preview.allowed() && contains(preview.effect(), "OPEN -> ACKNOWLEDGED, owner alice"),
                 preview.effect().c_str());
        QCOMPARE(preview.target_name(), "incident " + std::to_string(id));
        QVERIFY(control_->execute(kAlice, ack, &op).ok());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        v1::Operation retried;
        QVERIFY(control_->execute(kAlice, ack, &retried).ok());
        QCOMPARE(retried.id(), op.id());
        QCOMPARE(countAudit(auditPath_, auditOf("ack-1", "allow")), 1);
        QCOMPARE(countAudit(auditPath_, auditOf("ack-1", "result")), 1);
        const grpc::Status second =
            control_->execute(kBob, incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id, "ack-2"), &op);
        QCOMPARE(second.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(contains(second.error_message(), "already acknowledged by alice"), second.error_message().c_str());

        // A drain of one of its rack's trays, and the resume, go into its timeline. An idle tray:
        // a job interrupted by the drain would stay an active member until it runs again.
        const std::string tray = idleTrayOf("r03");
        QVERIFY(control_->execute(kBob, drainNode(tray, "drain-1", "checking the manifold"), &op).ok());
        const auto drained = control_->waitFor(kBob, op.id(), isFinished);
        QVERIFY(drained);
        QCOMPARE(drained->state(), v1::OPERATION_STATE_SUCCEEDED);
        const std::string drainId = op.id();
        QVERIFY(control_->execute(kBob, resumeNode(tray, "resume-1"), &op).ok());
        QVERIFY(control_->waitFor(kBob, op.id(), isFinished));
        QVERIFY(
            control_
                ->execute(kAlice, incidentAction(v1::ACTION_TYPE_MITIGATE_INCIDENT, id, "mit-1", "r03-n05 out"), &op)
                .ok());
        const grpc::Status early =
            control_->execute(kAlice, incidentAction(v1::ACTION_TYPE_RESOLVE_INCIDENT, id, "res-1"), &op);
        QCOMPARE(early.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(contains(early.error_message(), "still active"), early.error_message().c_str());

        // The fault clears at 9m (18 s here); the hold time (30m) would keep it open a minute more.
        const auto clear =
            waitForIncident("r03-loop", [&](const v1::Incident& i) { return i.id() == id && i.active_members() == 0; });
        QVERIFY(clear);
        QCOMPARE(clear->state(), v1::INCIDENT_STATE_MITIGATED);
        QCOMPARE(clear->owner(), std::string("alice"));
        QVERIFY(
            control_->execute(kBob, incidentAction(v1::ACTION_TYPE_NOTE_INCIDENT, id, "note-1", "sensor swapped"), &op)
                .ok());
        const auto resolve = incidentAction(v1::ACTION_TYPE_RESOLVE_INCIDENT, id, "res-2", "done");
        QVERIFY(control_->preview(kAlice, resolve, &preview).ok());
        QVERIFY2(contains(preview.effect(), "MITIGATED -> RESOLVED now"), preview.effect().c_str());
        QVERIFY(control_->execute(kAlice, resolve, &op).ok());
        const auto resolved = waitForIncident("r03-loop", [&](const v1::Incident& i) {
            return i.id() == id && i.state() == v1::INCIDENT_STATE_RESOLVED;
        });
        QVERIFY(resolved);
        QCOMPARE(resolved->resolved_by(), std::string("alice"));
        QVERIFY(resolved->resolved_unix_ms() > 0);
        QCOMPARE(resolved->note(), std::string("done"));

        const grpc::Status late =
            control_->execute(kBob, incidentAction(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, id, "ack-3"), &op);
        QCOMPARE(late.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(
            contains(late.error_message(), "is RESOLVED") && contains(late.error_message(), "cannot be acknowledged"),
            late.error_message().c_str());

        bool drainLinked = false, noted = false, acknowledged = false;
        for (const auto& entry : resolved->timeline()) {
            drainLinked |= entry.kind() == v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION && entry.operation_id() == drainId &&
                           entry.action() == "DRAIN_NODE" && entry.principal() == "bob";
            noted |= entry.kind() == v1::TIMELINE_ENTRY_KIND_NOTE && entry.text() == "sensor swapped";
            acknowledged |= entry.kind() == v1::TIMELINE_ENTRY_KIND_STATE_CHANGE &&
                            entry.state() == v1::INCIDENT_STATE_ACKNOWLEDGED && entry.principal() == "alice";
        }
        QVERIFY(drainLinked);
        QVERIFY(noted);
        QVERIFY(acknowledged);
        QCOMPARE(resolved->timeline(0).state(), v1::INCIDENT_STATE_OPEN);
        QCOMPARE(resolved->timeline(1).kind(), v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT);
    }

    void windowHeldItsFaultsBackAndTheOneStillActiveRaisesAtItsEnd() {
        const auto raised = waitForIncident("r05-loop", [](const v1::Incident&) { return true; });
        QVERIFY(raised);
        QVERIFY(raised->raised_after_maintenance());
        QCOMPARE(raised->root_cause().cause(), std::string("valve_fault"));
        QVERIFY2(raised->started_unix_ms() >= windowEndMs_,
                 qPrintable(QString::number(raised->started_unix_ms() - windowEndMs_)));
        QCOMPARE(waitForSnapshot([](const v1::Snapshot& s) { return s.maintenance_size() == 0; }).maintenance_size(),
                 0);
        for (const auto& incident : incidents())
            QVERIFY2(incident.root_cause().cause() != "leak_sensor_fault" || incident.root_cause().name() != "r05-loop",
                     incident.title().c_str());
        // The sensor fault inside the window was journaled as always.
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + 10s);
        v1::ListEventsRequest request;
        request.add_types(v1::EVENT_TYPE_CDU_ALARM);
        request.set_page_size(1000);
        v1::ListEventsResponse events;
        QVERIFY(telemetry_->ListEvents(&context, request, &events).ok());
        bool journaled = false;
        for (const auto& event : events.events())
            journaled |= event.cause() == "leak_sensor_fault" && contains(event.message(), "r05");
        QVERIFY(journaled);
    }

    void cleanupTestCase() { QCOMPARE(fleetd_.terminate(), 0); }
};

QTEST_GUILESS_MAIN(FleetdIncidentLifecycleTest)
#include "tst_fleetd_incident_lifecycle.moc"
