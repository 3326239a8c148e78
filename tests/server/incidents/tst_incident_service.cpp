// Incidents through fleetd's service layer: event ids before grouping, the store's snapshot
// (its bound is every hop's: tst_client_fleetstate_hops), a slow subscriber's coalesced delta
// keeping each incident's newest version, and ListIncidents (paging, states, small answers, bad
// input).

#include "DeltaCoalescer.h"
#include "FleetIncidents.h"
#include "FleetStateStore.h"
#include "IncidentTestFleet.h"
#include "ReplayLog.h"
#include "RequestHandlers.h"

#include <QtTest>

using namespace watchfloor::server;
using namespace watchfloor::server::service;
using incidents::testing::IncidentTestFleet;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kStart = 1'700'000'000'000;

// One tick as FleetdServer runs it: number events, group, apply.
std::vector<DeltaPtr> tick(FleetStateStore& store, incidents::FleetIncidents& grouping, std::int64_t timeMs,
                           std::vector<v1::Event> events) {
    FleetChanges changes;
    changes.time = fromUnixMs(timeMs);
    for (auto& e : events) {
        e.set_id(0);
        e.set_time_unix_ms(timeMs);
    }
    changes.events = std::move(events);
    changes.hasFleet = true;
    store.numberEvents(changes);
    grouping.apply(changes);
    return store.apply(changes);
}

// N separate incidents: an Xid on N different trays.
std::vector<v1::Event> xidsOnTrays(IncidentTestFleet& f, int n) {
    std::vector<v1::Event> events;
    const auto& nodes = f.topology().nodes();
    for (int i = 0; i < n; ++i)
        events.push_back(f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f.topology().gpus(i * 4).index(),
                                 "gpu_hard_fault", {}, nodes[i].name() + ": Xid 79"));
    return events;
}
}  // namespace

class IncidentServiceTest : public QObject {
    Q_OBJECT
private slots:
    void membersNameTheJournaledEventIds();
    void snapshotCarriesEveryIncidentHeld();
    void coalescedDeltaKeepsNewestVersion();
    void listIncidentsPagesNewestFirst();
    void listIncidentsRefusesBadInput();
};

void IncidentServiceTest::membersNameTheJournaledEventIds() {
    IncidentTestFleet f;
    StoreLimits limits;
    limits.firstEventId = 1000;
    FleetStateStore store(f.topology(), limits);
    incidents::FleetIncidents grouping(f.topology());
    auto deltas = tick(store, grouping, kStart, xidsOnTrays(f, 2));
    const v1::Delta& delta = *deltas.front();
    QCOMPARE(delta.events_size(), 2);
    QCOMPARE(delta.events(0).id(), 1000u);
    QCOMPARE(delta.incidents_size(), 2);
    QCOMPARE(delta.incidents(0).member_event_ids(0), delta.events(0).id());
    QCOMPARE(delta.incidents(1).member_event_ids(0), delta.events(1).id());
    QCOMPARE(delta.fleet().active_incidents(), 2u);
    QCOMPARE(store.openIncidents(), 2u);
    QCOMPARE(store.journal().lastId(), 1001u);
}

void IncidentServiceTest::snapshotCarriesEveryIncidentHeld() {
    IncidentTestFleet f;
    FleetStateStore store(f.topology());
    incidents::GrouperOptions options;
    options.hold = std::chrono::minutes(1);
    incidents::FleetIncidents grouping(f.topology(), options);
    tick(store, grouping, kStart, xidsOnTrays(f, 5));  // incidents 1..5
    tick(store, grouping, kStart + 120'000, {});       // all resolve
    auto open = xidsOnTrays(f, 6);
    tick(store, grouping, kStart + 130'000, {open.back()});  // incident 6 open
    QCOMPARE(store.openIncidents(), 1u);
    bool more = false;
    auto held = store.incidents(
        0, 100, [](const v1::Incident&) { return true; }, &more);
    QCOMPARE(held.size(), std::size_t(6));  // the 5 resolved + the open one, newest first
    QCOMPARE(held.front().id(), 6u);
    QCOMPARE(held.back().id(), 1u);
    const v1::Snapshot snap = store.snapshot(SubscriptionFilter::everything());
    QCOMPARE(snap.incidents_size(), 6);
    QCOMPARE(snap.incidents(0).id(), 1u);  // oldest first, like events
    QCOMPARE(snap.incidents(0).state(), v1::INCIDENT_STATE_RESOLVED);
    QCOMPARE(snap.incidents(5).id(), 6u);
    QCOMPARE(snap.incidents(5).state(), v1::INCIDENT_STATE_OPEN);
    QCOMPARE(snap.fleet().active_incidents(), 1u);
}

void IncidentServiceTest::coalescedDeltaKeepsNewestVersion() {
    IncidentTestFleet f;
    FleetStateStore store(f.topology());
    incidents::FleetIncidents grouping(f.topology());
    auto first = xidsOnTrays(f, 1);
    std::vector<LogEntryPtr> pending;
    for (auto& d : tick(store, grouping, kStart, first)) pending.push_back(std::make_shared<LogEntry>(d));
    first[0].set_severity(v1::SEVERITY_WARNING);  // the same tray again: incident 1 changes
    for (auto& d : tick(store, grouping, kStart + 1'000, first)) pending.push_back(std::make_shared<LogEntry>(d));
    const auto merged = coalesce(pending, SubscriptionFilter::everything(), store.index(), 1'000'000);
    QCOMPARE(merged.entriesCovered, pending.size());
    QCOMPARE(merged.delta.incidents_size(), 1);
    QCOMPARE(merged.delta.incidents(0).member_count(), 2u);
    QCOMPARE(merged.delta.events_size(), 2);
}

void IncidentServiceTest::listIncidentsPagesNewestFirst() {
    IncidentTestFleet f;
    FleetStateStore store(f.topology());
    incidents::GrouperOptions options;
    options.hold = std::chrono::minutes(1);
    incidents::FleetIncidents grouping(f.topology(), options);
    tick(store, grouping, kStart, xidsOnTrays(f, 3));  // 1..3
    tick(store, grouping, kStart + 120'000, {});       // resolved
    auto more = xidsOnTrays(f, 5);
    tick(store, grouping, kStart + 130'000, {more[3], more[4]});  // 4, 5 open

    v1::ListIncidentsRequest request;
    request.set_page_size(2);
    v1::ListIncidentsResponse page;
    QVERIFY(answerListIncidents(request, store, &page).ok());
    QCOMPARE(page.incidents_size(), 2);
    QCOMPARE(page.incidents(0).id(), 5u);
    QCOMPARE(page.incidents(1).id(), 4u);
    QCOMPARE(page.open_count(), 2u);
    QCOMPARE(page.incidents(0).member_event_ids_size(), 0);  // small by default
    QVERIFY(!page.next_page_token().empty());
    request.set_page_token(page.next_page_token());
    request.set_include_member_ids(true);
    v1::ListIncidentsResponse second;
    QVERIFY(answerListIncidents(request, store, &second).ok());
    QCOMPARE(second.incidents_size(), 2);
    QCOMPARE(second.incidents(0).id(), 3u);
    QCOMPARE(second.incidents(0).member_event_ids_size(), 1);
    request.set_page_token(second.next_page_token());
    v1::ListIncidentsResponse last;
    QVERIFY(answerListIncidents(request, store, &last).ok());
    QCOMPARE(last.incidents_size(), 1);
    QVERIFY(last.next_page_token().empty());

    v1::ListIncidentsRequest resolved;
    resolved.add_states(v1::INCIDENT_STATE_RESOLVED);
    v1::ListIncidentsResponse onlyResolved;
    QVERIFY(answerListIncidents(resolved, store, &onlyResolved).ok());
    QCOMPARE(onlyResolved.incidents_size(), 3);
    for (const auto& incident : onlyResolved.incidents()) QCOMPARE(incident.state(), v1::INCIDENT_STATE_RESOLVED);
}

void IncidentServiceTest::listIncidentsRefusesBadInput() {
    IncidentTestFleet f;
    FleetStateStore store(f.topology());
    auto refused = [&](const v1::ListIncidentsRequest& request, const char* says) {
        v1::ListIncidentsResponse response;
        const grpc::Status status = answerListIncidents(request, store, &response);
        QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY2(status.error_message().find(says) != std::string::npos, status.error_message().c_str());
        QCOMPARE(response.incidents_size(), 0);
    };
    v1::ListIncidentsRequest big;
    big.set_page_size(kMaxIncidentPageSize + 1);
    refused(big, "exceeds the maximum");
    v1::ListIncidentsRequest state;
    state.add_states(static_cast<v1::IncidentState>(77));
    refused(state, "is not a watchfloor.v1.IncidentState");
    v1::ListIncidentsRequest unspecified;
    unspecified.add_states(v1::INCIDENT_STATE_UNSPECIFIED);
    refused(unspecified, "is not a watchfloor.v1.IncidentState");
    for (const char* token : {"before-incident-", "before-incident-0", "before-incident-12x", "before-event-5", "zz"}) {
        v1::ListIncidentsRequest bad;
        bad.set_page_token(token);
        refused(bad, "was not issued by this server");
    }
    v1::ListIncidentsRequest many;
    for (int i = 0; i < 9; ++i) many.add_states(v1::INCIDENT_STATE_OPEN);
    refused(many, "too many states");
}

QTEST_GUILESS_MAIN(IncidentServiceTest)
#include "tst_incident_service.moc"
