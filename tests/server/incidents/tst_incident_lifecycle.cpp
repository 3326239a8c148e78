// An incident's life and maintenance windows in the tick, as fleetd runs them (FleetIncidents
// with a MaintenanceCalendar and an IncidentLifecycle, on the default twin's topology): events in
// a window raise nothing and a fault still active when it ends raises its incident then; the
// calendar's bounds and overlaps; acknowledge, mitigate, note and resolve with their refusals,
// the timeline (members, state changes, notes, operator actions in the blast radius) and the
// state listener the pager reads.

#include "FleetIncidents.h"
#include "IncidentLifecycle.h"
#include "IncidentTestFleet.h"
#include "MaintenanceCalendar.h"

#include <QtTest>

#include <map>

using namespace watchfloor::server;
using namespace watchfloor::server::incidents;
using incidents::testing::IncidentTestFleet;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kStart = 1'700'000'000'000;
constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kDay = 24 * 60 * kMinute;

// fleetd's tick around the grouping: a calendar, a lifecycle, and what each tick published.
class Tick {
public:
    explicit Tick(const IncidentTestFleet& fleet)
        : calendar(fleet.topology()), lifecycle(fleet.topology()), incidents_(fleet.topology()) {
        incidents_.setMaintenance(&calendar);
        incidents_.setLifecycle(&lifecycle);
        lifecycle.setStateListener([this](const v1::Incident& incident, v1::IncidentState previous) {
            transitions.emplace_back(incident.id(), previous, incident.state());
        });
    }

    void at(std::int64_t offsetMs, std::vector<v1::Event> events = {}, std::vector<v1::Job> jobs = {}) {
        FleetChanges changes;
        changes.time = fromUnixMs(kStart + offsetMs);
        for (auto& e : events) e.set_time_unix_ms(kStart + offsetMs);
        changes.events = std::move(events);
        changes.jobs = std::move(jobs);
        incidents_.apply(changes);
        for (const auto& incident : changes.incidents) latest[incident.id()] = incident;
        for (const auto& window : changes.maintenance) windows.push_back(window);
    }
    const v1::Incident* byCause(const std::string& name) const {
        for (const auto& [id, incident] : latest)
            if (incident.root_cause().name() == name) return &incident;
        return nullptr;
    }

    MaintenanceCalendar calendar;
    IncidentLifecycle lifecycle;
    std::map<std::uint64_t, v1::Incident> latest;
    std::vector<v1::MaintenanceWindow> windows;  // every change streamed, in order
    std::vector<std::tuple<std::uint64_t, v1::IncidentState, v1::IncidentState>> transitions;

private:
    FleetIncidents incidents_;
};

v1::MaintenanceWindow spec(v1::MaintenanceScope scope, const std::string& name, std::int64_t startMs,
                           std::int64_t endMs) {
    v1::MaintenanceWindow window;
    window.set_scope(scope);
    window.set_scope_name(name);
    window.set_start_unix_ms(startMs);
    window.set_end_unix_ms(endMs);
    return window;
}

v1::Event alarm(IncidentTestFleet& f, const std::string& rack, const std::string& cause, bool raised) {
    return f.event(v1::EVENT_TYPE_CDU_ALARM, raised ? v1::SEVERITY_CRITICAL : v1::SEVERITY_INFO, f(rack + "-loop"),
                   cause, {f(rack)}, rack + ": " + cause + (raised ? "" : " cleared"));
}

using Step = IncidentLifecycle::Step;
using Code = IncidentLifecycle::Code;

}  // namespace

class IncidentLifecycleTest : public QObject {
    Q_OBJECT
private slots:
    void windowHoldsBackIncidentsAndRaisesStillActiveFaultsAtItsEnd();
    void nodeWindowCoversOnlyItsTray();
    void calendarRefusesBadWindows();
    void cancellingAnActiveWindowReleasesItsFaults();
    void lifecycleStepsRefusalsAndTimeline();
    void operatorActionsJoinTheIncidentsTheyHit();
};

void IncidentLifecycleTest::windowHoldsBackIncidentsAndRaisesStillActiveFaultsAtItsEnd() {
    IncidentTestFleet f;
    Tick tick(f);
    tick.at(0);
    const auto scheduled = tick.calendar.schedule(spec(v1::MAINTENANCE_SCOPE_RACK, "r05", 0, kStart + 10 * kMinute),
                                                  "mw-1", "alice: pump swap", "alice", "alice");
    QVERIFY2(scheduled.ok(), scheduled.message.c_str());
    QCOMPARE(scheduled.window.state(), v1::MAINTENANCE_STATE_ACTIVE);
    const std::uint64_t versionBefore = tick.calendar.version();
    tick.at(kMinute, {alarm(f, "r05", "leak_sensor_fault", true), alarm(f, "r06", "valve_fault", true)});
    const v1::Event valve = alarm(f, "r05", "valve_fault", true);
    tick.at(2 * kMinute, {valve});
    tick.at(3 * kMinute, {alarm(f, "r05", "leak_sensor_fault", false)});
    // Inside the window: r05 raised nothing; r06, outside it, is grouped as always.
    QVERIFY(tick.byCause("r06-loop"));
    QVERIFY(!tick.byCause("r05-loop"));
    QCOMPARE(tick.windows.size(), std::size_t(1));
    QCOMPARE(tick.windows[0].state(), v1::MAINTENANCE_STATE_ACTIVE);
    QCOMPARE(tick.windows[0].rack_indexes(0), f("r05"));
    tick.at(9 * kMinute);
    QVERIFY(!tick.byCause("r05-loop"));
    // The window ends at 10m: the valve fault is still active and raises its incident now; the
    // sensor fault that cleared inside the window never does.
    tick.at(10 * kMinute);
    QCOMPARE(tick.windows.back().state(), v1::MAINTENANCE_STATE_ENDED);
    QVERIFY(tick.calendar.version() > versionBefore);
    QVERIFY(tick.calendar.windows().empty());
    const v1::Incident* raised = tick.byCause("r05-loop");
    QVERIFY(raised);
    QVERIFY(raised->raised_after_maintenance());
    QCOMPARE(raised->root_cause().cause(), std::string("valve_fault"));
    QCOMPARE(raised->member_count(), 1u);
    QCOMPARE(raised->member_event_ids(0), valve.id());
    QCOMPARE(raised->started_unix_ms(), kStart + 10 * kMinute);
    QCOMPARE(raised->active_members(), 1u);
    QVERIFY(!tick.byCause("r06-loop")->raised_after_maintenance());
    for (const auto& [id, incident] : tick.latest) QVERIFY(incident.root_cause().cause() != "leak_sensor_fault");
}

void IncidentLifecycleTest::nodeWindowCoversOnlyItsTray() {
    IncidentTestFleet f;
    Tick tick(f);
    tick.at(0);
    QVERIFY(
        tick.calendar
            .schedule(spec(v1::MAINTENANCE_SCOPE_NODE, "r02-n03", 0, kStart + kDay), "mw-n", "bob: RMA", "bob", "bob")
            .ok());
    tick.at(kMinute, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r02-n03-g1"), "gpu_hard_fault"),
                      f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r02-n04-g1"), "gpu_hard_fault")});
    QVERIFY(!tick.byCause("r02-n03"));
    QVERIFY(tick.byCause("r02-n04"));
}

void IncidentLifecycleTest::calendarRefusesBadWindows() {
    IncidentTestFleet f;
    MaintenanceCalendar calendar(f.topology());
    std::vector<v1::MaintenanceWindow> changed;
    calendar.advanceTo(kStart, &changed);
    auto check = [&](const v1::MaintenanceWindow& window) { return calendar.check(window); };
    using C = MaintenanceCalendar::Code;
    const auto rack = [](std::int64_t start, std::int64_t end) {
        return spec(v1::MAINTENANCE_SCOPE_RACK, "r03", start, end);
    };
    auto past = check(rack(kStart - 2 * kMinute, kStart + kMinute));
    QCOMPARE(past.code, C::InvalidArgument);
    QVERIFY2(past.message.find("in the past") != std::string::npos, past.message.c_str());
    QVERIFY(check(rack(kStart - 30'000, kStart + kMinute)).ok());  // clock skew: a start just gone is now
    auto far = check(rack(kStart + 91 * kDay, kStart + 92 * kDay));
    QCOMPARE(far.code, C::InvalidArgument);
    QVERIFY2(far.message.find("90 days ahead") != std::string::npos, far.message.c_str());
    auto yearsAhead = check(rack(kStart + 3 * 365 * kDay, kStart + 3 * 365 * kDay + kDay));
    QCOMPARE(yearsAhead.code, C::InvalidArgument);
    auto longer = check(rack(kStart + kDay, kStart + 16 * kDay));
    QCOMPARE(longer.code, C::InvalidArgument);
    QVERIFY2(longer.message.find("at most 14 days") != std::string::npos, longer.message.c_str());
    QCOMPARE(check(rack(kStart + kDay, kStart + kDay)).code, C::InvalidArgument);
    QCOMPARE(check(rack(kStart + kDay, 0)).code, C::InvalidArgument);
    QCOMPARE(check(spec(v1::MAINTENANCE_SCOPE_RACK, "r99", 0, kStart + kDay)).code, C::NotFound);
    QCOMPARE(check(spec(v1::MAINTENANCE_SCOPE_ROW, "h1", 0, kStart + kDay)).code, C::NotFound);
    QCOMPARE(check(spec(v1::MAINTENANCE_SCOPE_ROW, "h1/x", 0, kStart + kDay)).code, C::NotFound);
    QCOMPARE(check(spec(v1::MAINTENANCE_SCOPE_UNSPECIFIED, "r03", 0, kStart + kDay)).code, C::InvalidArgument);

    // Overlaps: the same rack, its row and hall, its trays; not another rack or a later time.
    QVERIFY(
        calendar
            .schedule(rack(kStart + kDay, kStart + kDay + 4 * 60 * kMinute), "mw-a", "alice: swap", "alice", "alice")
            .ok());
    const auto& r03 = f.topology().racks(static_cast<int>(f("r03")));
    const std::string row = r03.hall() + "/" + std::to_string(r03.row());
    for (const auto& overlapping :
         {rack(kStart + kDay + 60 * kMinute, kStart + 2 * kDay),
          spec(v1::MAINTENANCE_SCOPE_ROW, row, kStart + kDay, kStart + 2 * kDay),
          spec(v1::MAINTENANCE_SCOPE_HALL, r03.hall(), kStart, kStart + 2 * kDay),
          spec(v1::MAINTENANCE_SCOPE_NODE, "r03-n07", kStart + kDay, kStart + kDay + kMinute)}) {
        const auto refused = check(overlapping);
        QCOMPARE(refused.code, C::Conflict);
        QVERIFY2(refused.message.find("mw-a") != std::string::npos, refused.message.c_str());
        QVERIFY2(refused.message.find("owner alice") != std::string::npos, refused.message.c_str());
    }
    QVERIFY(check(rack(kStart + kDay + 4 * 60 * kMinute, kStart + 2 * kDay)).ok());  // right after it
    QVERIFY(check(spec(v1::MAINTENANCE_SCOPE_RACK, "r04", kStart + kDay, kStart + 2 * kDay)).ok());
    // Two trays of one rack may be serviced at once; the same tray twice may not.
    QVERIFY(
        calendar.schedule(spec(v1::MAINTENANCE_SCOPE_NODE, "r04-n01", 0, kStart + kDay), "mw-b", "r", "o", "o").ok());
    QVERIFY(check(spec(v1::MAINTENANCE_SCOPE_NODE, "r04-n02", 0, kStart + kDay)).ok());
    QCOMPARE(check(spec(v1::MAINTENANCE_SCOPE_NODE, "r04-n01", 0, kStart + kDay)).code, C::Conflict);

    QCOMPARE(calendar.cancel("mw-zz", "alice").code, C::NotFound);
    QCOMPARE(calendar.windows().size(), std::size_t(2));
    const auto cancelled = calendar.cancel("mw-a", "bob");
    QVERIFY(cancelled.ok());
    QCOMPARE(cancelled.window.state(), v1::MAINTENANCE_STATE_CANCELLED);
    QCOMPARE(cancelled.window.cancelled_by(), std::string("bob"));
    QCOMPARE(calendar.checkCancel("mw-a").code, C::NotFound);
    QVERIFY(check(rack(kStart + kDay, kStart + 2 * kDay)).ok());
}

void IncidentLifecycleTest::cancellingAnActiveWindowReleasesItsFaults() {
    IncidentTestFleet f;
    Tick tick(f);
    tick.at(0);
    QVERIFY(
        tick.calendar.schedule(spec(v1::MAINTENANCE_SCOPE_RACK, "r02", 0, kStart + kDay), "mw-c", "r", "o", "o").ok());
    tick.at(kMinute, {alarm(f, "r02", "valve_fault", true)});
    QVERIFY(!tick.byCause("r02-loop"));
    QVERIFY(tick.calendar.cancel("mw-c", "carol").ok());
    tick.at(2 * kMinute);
    QCOMPARE(tick.windows.back().state(), v1::MAINTENANCE_STATE_CANCELLED);
    QVERIFY(tick.byCause("r02-loop"));
}

void IncidentLifecycleTest::lifecycleStepsRefusalsAndTimeline() {
    IncidentTestFleet f;
    Tick tick(f);
    tick.at(0, {alarm(f, "r03", "leak_sensor_fault", true)});
    const v1::Incident* opened = tick.byCause("r03-loop");
    QVERIFY(opened);
    const std::uint64_t id = opened->id();
    auto& lifecycle = tick.lifecycle;

    QCOMPARE(lifecycle.check(Step::Acknowledge, id + 100, "alice").code, Code::NotFound);
    const auto preview = lifecycle.check(Step::Acknowledge, id, "alice");
    QVERIFY(preview.ok());
    QVERIFY2(preview.message.find("OPEN -> ACKNOWLEDGED, owner alice") != std::string::npos, preview.message.c_str());
    QVERIFY(lifecycle.apply(Step::Acknowledge, id, "alice", "", "looking at the sensor", "op-1").ok());
    auto again = lifecycle.apply(Step::Acknowledge, id, "bob", "", "", "op-2");
    QCOMPARE(again.code, Code::FailedPrecondition);
    QVERIFY2(again.message.find("already acknowledged by alice") != std::string::npos, again.message.c_str());
    auto early = lifecycle.check(Step::Resolve, id, "alice");
    QCOMPARE(early.code, Code::FailedPrecondition);
    QVERIFY2(early.message.find("1 of its members is still active") != std::string::npos, early.message.c_str());
    QVERIFY(lifecycle.apply(Step::Mitigate, id, "alice", "", "spare sensor ordered", "op-3").ok());
    QCOMPARE(lifecycle.check(Step::Mitigate, id, "alice").code, Code::FailedPrecondition);
    tick.at(kMinute);  // published with the operators' part
    QCOMPARE(tick.latest[id].state(), v1::INCIDENT_STATE_MITIGATED);
    QCOMPARE(tick.latest[id].owner(), std::string("alice"));
    QCOMPARE(tick.latest[id].note(), std::string("spare sensor ordered"));
    QCOMPARE(tick.latest[id].acknowledged_unix_ms(), kStart);
    QCOMPARE(tick.latest[id].mitigated_unix_ms(), kStart);

    tick.at(2 * kMinute, {alarm(f, "r03", "leak_sensor_fault", false)});
    QCOMPARE(tick.latest[id].active_members(), 0u);
    QCOMPARE(tick.latest[id].state(), v1::INCIDENT_STATE_MITIGATED);  // the hold time has not passed
    QVERIFY(lifecycle.apply(Step::Note, id, "bob", "", "sensor replaced", "op-4").ok());
    QVERIFY(lifecycle.apply(Step::Resolve, id, "bob", "", "", "op-5").ok());
    tick.at(3 * kMinute);
    const v1::Incident& resolved = tick.latest[id];
    QCOMPARE(resolved.state(), v1::INCIDENT_STATE_RESOLVED);
    QCOMPARE(resolved.resolved_by(), std::string("bob"));
    QCOMPARE(resolved.resolved_unix_ms(), kStart + 3 * kMinute);
    QCOMPARE(tick.byCause("r03-loop")->id(), id);

    auto late = lifecycle.check(Step::Acknowledge, id, "carol");
    QCOMPARE(late.code, Code::FailedPrecondition);
    QVERIFY2(late.message.find("is RESOLVED") != std::string::npos &&
                 late.message.find("cannot be acknowledged") != std::string::npos,
             late.message.c_str());
    QCOMPARE(lifecycle.check(Step::Resolve, id, "carol").code, Code::FailedPrecondition);
    QVERIFY(lifecycle.check(Step::Note, id, "carol").ok());  // a post-mortem note still goes in

    // The same fault again opens a new incident: the resolved one is final.
    tick.at(4 * kMinute, {alarm(f, "r03", "leak_sensor_fault", true)});
    QVERIFY(tick.latest.rbegin()->first > id);

    // Timeline: opened, the member, acknowledged + note, mitigated + note, the clear is no member,
    // a note, resolved by bob.
    std::vector<std::pair<v1::TimelineEntryKind, v1::IncidentState>> kinds;
    for (const auto& entry : resolved.timeline()) kinds.emplace_back(entry.kind(), entry.state());
    using K = v1::TimelineEntryKind;
    const std::vector<std::pair<K, v1::IncidentState>> expected = {
        {v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, v1::INCIDENT_STATE_OPEN},
        {v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT, v1::INCIDENT_STATE_UNSPECIFIED},
        {v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, v1::INCIDENT_STATE_ACKNOWLEDGED},
        {v1::TIMELINE_ENTRY_KIND_NOTE, v1::INCIDENT_STATE_UNSPECIFIED},
        {v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, v1::INCIDENT_STATE_MITIGATED},
        {v1::TIMELINE_ENTRY_KIND_NOTE, v1::INCIDENT_STATE_UNSPECIFIED},
        {v1::TIMELINE_ENTRY_KIND_NOTE, v1::INCIDENT_STATE_UNSPECIFIED},
        {v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, v1::INCIDENT_STATE_RESOLVED}};
    QCOMPARE(kinds, expected);
    QCOMPARE(resolved.timeline_count(), 8u);
    QCOMPARE(resolved.timeline(1).event_id(), opened->member_event_ids(0));
    QCOMPARE(resolved.timeline(2).principal(), std::string("alice"));
    QCOMPARE(resolved.timeline(2).operation_id(), std::string("op-1"));
    QCOMPARE(resolved.timeline(6).text(), std::string("sensor replaced"));

    // What the pager reads: every state change once, in order.
    std::vector<std::tuple<std::uint64_t, v1::IncidentState, v1::IncidentState>> mine;
    for (const auto& t : tick.transitions)
        if (std::get<0>(t) == id) mine.push_back(t);
    const decltype(mine) expectedTransitions = {
        {id, v1::INCIDENT_STATE_UNSPECIFIED, v1::INCIDENT_STATE_OPEN},
        {id, v1::INCIDENT_STATE_OPEN, v1::INCIDENT_STATE_MITIGATED},  // acknowledged and mitigated within one tick
        {id, v1::INCIDENT_STATE_MITIGATED, v1::INCIDENT_STATE_RESOLVED}};
    QCOMPARE(mine, expectedTransitions);
}

void IncidentLifecycleTest::operatorActionsJoinTheIncidentsTheyHit() {
    IncidentTestFleet f;
    Tick tick(f);
    tick.at(0,
            {alarm(f, "r03", "valve_fault", true),
             f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r06-n02-g1"), "gpu_hard_fault")},
            {f.job(IncidentTestFleet::kJob, {"r06-n02", "r06-n03"})});
    const std::uint64_t loop = tick.byCause("r03-loop")->id(), tray = tick.byCause("r06-n02")->id();
    using A = IncidentLifecycle::OperatorAction;
    auto action = [](A::Target target, std::string name, std::string what, std::string op) {
        return A{target, std::move(name), what, what + " target", "alice", std::move(op), "SUCCEEDED: done"};
    };
    tick.lifecycle.recordAction(action(A::Target::Node, "r03-n11", "DRAIN_NODE", "op-a"));   // in r03: the loop's
    tick.lifecycle.recordAction(action(A::Target::Node, "r06-n05", "DRAIN_NODE", "op-b"));   // same rack, other tray
    tick.lifecycle.recordAction(action(A::Target::Job, "llm-test", "RESTART_JOB", "op-c"));  // the tray's job
    tick.lifecycle.recordAction(action(A::Target::Rack, "r03", "ISOLATE_RACK", "op-d"));
    tick.lifecycle.recordAction(action(A::Target::Rack, "r03", "ISOLATE_RACK", "op-d"));  // once per operation
    tick.at(kMinute);
    auto operations = [&](std::uint64_t id) {
        std::vector<std::string> ids;
        for (const auto& entry : tick.latest[id].timeline())
            if (entry.kind() == v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION) ids.push_back(entry.operation_id());
        return ids;
    };
    QCOMPARE(operations(loop), (std::vector<std::string>{"op-a", "op-d"}));
    QCOMPARE(operations(tray), (std::vector<std::string>{"op-c"}));
    for (const auto& entry : tick.latest[loop].timeline())
        if (entry.operation_id() == "op-d") {
            QCOMPARE(entry.action(), std::string("ISOLATE_RACK"));
            QCOMPARE(entry.principal(), std::string("alice"));
        }
}

QTEST_GUILESS_MAIN(IncidentLifecycleTest)
#include "tst_incident_lifecycle.moc"
