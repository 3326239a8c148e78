// Every hop holds the fleet-wide kinds by the same bound (FleetStateKinds.h): past 500 resolved
// incidents, 25 handoffs and windows that end or are cancelled, fleetd's store (its snapshot and
// ListIncidents), a rewind answer at the same moment, a console that read every delta, a slow
// console that read coalesced deltas and a console that resynced from a fresh snapshot all hold
// exactly the same records; and a coalesced delta carries every change, unbounded.

#include "AsOfAnswer.h"
#include "DeltaCoalescer.h"
#include "EndpointFleet.h"
#include "FleetStateKinds.h"
#include "PastFleet.h"
#include "TinyFleetSource.h"

#include <QtTest>

#include <chrono>
#include <set>

using namespace watchfloor;
using namespace watchfloor::server;
using namespace watchfloor::server::service;
using watchfloor::server::testing::TinyFleetSource;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kResolvedKept = fleetstate::Incidents::kRetiredKept;
constexpr std::size_t kHandoffsKept = fleetstate::ShiftHandoffs::kRetiredKept;

struct Held {
    std::set<std::uint64_t> incidents;
    std::set<std::string> windows;
    std::vector<std::string> handoffs;  // newest first
    bool operator==(const Held&) const = default;
};

Held heldBy(const client::EndpointFleet& fleet) {
    Held held;
    for (const auto& [id, incident] : fleet.incidents()) held.incidents.insert(id);
    for (const auto& [id, window] : fleet.maintenanceWindows()) held.windows.insert(id);
    for (const auto* handoff : fleet.handoffs()) held.handoffs.push_back(handoff->id());
    return held;
}

Held carriedBy(const v1::Snapshot& snapshot) {
    Held held;
    for (const auto& incident : snapshot.incidents()) held.incidents.insert(incident.id());
    for (const auto& window : snapshot.maintenance()) held.windows.insert(window.id());
    for (const auto& handoff : snapshot.handoffs()) held.handoffs.push_back(handoff.id());
    return held;
}

char* describe(const Held& held) {
    QByteArray text = "incidents " + QByteArray::number(qulonglong(held.incidents.size()));
    if (!held.incidents.empty())
        text += " (" + QByteArray::number(qulonglong(*held.incidents.begin())) + ".." +
                QByteArray::number(qulonglong(*held.incidents.rbegin())) + ")";
    text += ", windows";
    for (const auto& id : held.windows) text += " " + QByteArray::fromStdString(id);
    text += ", handoffs";
    for (const auto& id : held.handoffs) text += " " + QByteArray::fromStdString(id);
    return qstrdup(text.constData());
}

v1::Incident incident(std::uint64_t id, v1::IncidentState state, std::int64_t timeMs) {
    v1::Incident i;
    i.set_id(id);
    i.set_state(state);
    i.set_started_unix_ms(timeMs);
    if (state == v1::INCIDENT_STATE_RESOLVED) i.set_resolved_unix_ms(timeMs);
    i.set_title("incident " + std::to_string(id));
    return i;
}

v1::MaintenanceWindow window(const std::string& id, v1::MaintenanceState state) {
    v1::MaintenanceWindow w;
    w.set_id(id);
    w.set_state(state);
    return w;
}

std::string handoffId(int n) { return "ho-" + std::to_string(100 + n); }

v1::ShiftHandoff handoff(int n, const std::string& acknowledgedBy = "") {
    v1::ShiftHandoff h;
    h.set_id(handoffId(n));
    h.set_posted_unix_ms(1'798'000'000'000 + n * 60'000);
    h.set_acknowledged_by(acknowledgedBy);
    return h;
}

// fleetd's store under the tiny fleet, and consoles reading its deltas.
struct Hops {
    TinyFleetSource source;
    FleetStateStore store{source.topology()};
    HistoryStore history{store.index()};
    std::unique_ptr<client::EndpointFleet> everyDelta;
    std::unique_ptr<client::EndpointFleet> slow;  // coalesced deltas
    std::vector<LogEntryPtr> pending;             // what the slow one has not read yet

    Hops() {
        tick({});
        everyDelta = resync();
        slow = resync();
    }

    std::int64_t tick(FleetChanges changes) {
        source.advanceTo(source.now() + std::chrono::seconds(1), changes);
        for (const auto& delta : store.apply(changes, &history)) {
            if (everyDelta) everyDelta->applyDelta(*delta);
            pending.push_back(std::make_shared<LogEntry>(delta));
        }
        return toUnixMs(changes.time);
    }

    v1::Snapshot snapshot() const {
        v1::Snapshot snap = store.snapshot(SubscriptionFilter::everything());
        *snap.mutable_topology() = *store.topologyFor(SubscriptionFilter::everything());
        snap.set_run_id("run-a");
        return snap;
    }

    static std::unique_ptr<client::EndpointFleet> fleetOf(v1::Snapshot snapshot) {
        QString error;
        auto fleet =
            client::EndpointFleet::fromSnapshot(QStringLiteral("fleetd"), 60, 0, std::move(snapshot), {}, &error);
        if (!fleet) qFatal("snapshot unusable: %s", qPrintable(error));
        return fleet;
    }

    std::unique_ptr<client::EndpointFleet> resync() {
        pending.clear();
        return fleetOf(snapshot());
    }

    // The slow console catches up in coalesced deltas of at most `maxSamples`.
    void catchUp(std::size_t maxSamples) {
        while (!pending.empty()) {
            const CoalescedDelta merged =
                coalesce(pending, SubscriptionFilter::everything(), store.index(), maxSamples);
            slow->applyDelta(merged.delta);
            pending.erase(pending.begin(), pending.begin() + std::ptrdiff_t(merged.entriesCovered));
        }
    }

    // The console's past view at `asOf`: a rewind answer made into its snapshot, as PastFleet does.
    std::unique_ptr<client::EndpointFleet> past(std::int64_t asOf, v1::AsOfState* answer) const {
        v1::AsOfRequest request;
        request.set_as_of_unix_ms(asOf);
        const grpc::Status status = answerStateAsOf(request, store, history, "run-a", answer);
        if (!status.ok()) qFatal("GetStateAsOf refused: %s", status.error_message().c_str());
        const auto topology = store.topologyFor(SubscriptionFilter::everything());
        v1::SubscribeResponse message = client::PastFleet::snapshotOf(v1::AsOfState(*answer), *topology);
        return fleetOf(std::move(*message.mutable_snapshot()));
    }
};

}  // namespace

namespace QTest {
template <>
char* toString(const Held& held) {
    return describe(held);
}
}  // namespace QTest

class TestFleetStateHops : public QObject {
    Q_OBJECT
private slots:
    void everyHopHoldsTheSameRecords() {
        Hops hops;
        // Incidents 1 and 2 open early and stay open; then 10 a tick open and resolve a tick
        // later, 40 more than the bound. Handoffs: one posted a tick, 25 in all.
        const std::uint64_t total = 2 + kResolvedKept + 40;
        FleetChanges first;
        first.incidents = {incident(1, v1::INCIDENT_STATE_OPEN, 0), incident(2, v1::INCIDENT_STATE_OPEN, 0)};
        first.maintenance = {window("mw-1", v1::MAINTENANCE_STATE_SCHEDULED),
                             window("mw-2", v1::MAINTENANCE_STATE_SCHEDULED)};
        hops.tick(std::move(first));
        int posted = 0;
        const auto batch = [&](std::uint64_t b, v1::IncidentState state, FleetChanges& changes) {
            for (std::uint64_t id = 3 + 10 * b; id < 3 + 10 * (b + 1) && id <= total; ++id)
                changes.incidents.push_back(incident(id, state, 0));
        };
        const std::uint64_t batches = (total - 2 + 9) / 10;
        for (std::uint64_t b = 0; b <= batches; ++b) {
            FleetChanges changes;
            if (b < batches) batch(b, v1::INCIDENT_STATE_OPEN, changes);
            if (b > 0) batch(b - 1, v1::INCIDENT_STATE_RESOLVED, changes);
            if (posted < 25) changes.handoffs.push_back(handoff(++posted));
            hops.tick(std::move(changes));
        }
        QCOMPARE(posted, 25);
        FleetChanges late;
        late.maintenance = {window("mw-1", v1::MAINTENANCE_STATE_ACTIVE),
                            window("mw-3", v1::MAINTENANCE_STATE_SCHEDULED)};
        late.handoffs = {handoff(3, "bob"), handoff(10, "bob")};         // 3 is no longer held, 10 is
        late.incidents = {incident(3, v1::INCIDENT_STATE_RESOLVED, 1)};  // a note on one no longer held
        hops.tick(std::move(late));
        FleetChanges ends;
        ends.maintenance = {window("mw-1", v1::MAINTENANCE_STATE_ENDED),
                            window("mw-2", v1::MAINTENANCE_STATE_CANCELLED)};
        const std::int64_t now = hops.tick(std::move(ends));

        Held expected;
        expected.incidents = {1, 2};
        for (std::uint64_t id = total - kResolvedKept + 1; id <= total; ++id) expected.incidents.insert(id);
        expected.windows = {"mw-3"};
        for (int n = 25; n > 25 - int(kHandoffsKept); --n) expected.handoffs.push_back(handoffId(n));

        const v1::Snapshot snapshot = hops.snapshot();
        QCOMPARE(carriedBy(snapshot), expected);
        QCOMPARE(heldBy(*hops.everyDelta), expected);
        hops.catchUp(5'000);
        QCOMPARE(heldBy(*hops.slow), expected);
        QCOMPARE(heldBy(*Hops::fleetOf(snapshot)), expected);

        // ListIncidents pages what the snapshot carries.
        bool more = false;
        std::set<std::uint64_t> listed;
        for (const auto& i : hops.store.incidents(
                 0, SIZE_MAX, [](const v1::Incident&) { return true; }, &more))
            listed.insert(i.id());
        QCOMPARE(listed, expected.incidents);
        QCOMPARE(hops.store.openIncidents(), 2u);
        QCOMPARE(hops.everyDelta->openIncidentCount(), 2u);

        // The rewind answer for now: the same incidents, in the past view too.
        v1::AsOfState answer;
        const auto past = hops.past(now, &answer);
        std::set<std::uint64_t> answered;
        for (const auto& i : answer.incidents()) answered.insert(i.id());
        QCOMPARE(answered, expected.incidents);
        QCOMPARE(heldBy(*past).incidents, expected.incidents);
        QCOMPARE(answer.fleet().active_incidents(), 2u);

        // The acknowledgement of a held handoff arrived everywhere.
        for (const auto* fleet : {hops.everyDelta.get(), hops.slow.get()})
            for (const auto* h : fleet->handoffs()) QCOMPARE(h->acknowledged_by().empty(), h->id() != handoffId(10));
    }

    void aCoalescedDeltaIsNeverBounded() {
        Hops hops;
        const std::uint64_t total = kResolvedKept + 20;
        for (std::uint64_t id = 1; id <= total; id += 50) {
            FleetChanges changes;
            for (std::uint64_t k = id; k < id + 50 && k <= total; ++k)
                changes.incidents.push_back(incident(k, v1::INCIDENT_STATE_RESOLVED, 0));
            for (int n = 0; n < 3; ++n) changes.handoffs.push_back(handoff(int(id) + n));
            hops.tick(std::move(changes));
        }
        // One delta for everything: every retirement, or a console would hold a stale version.
        const CoalescedDelta merged =
            coalesce(hops.pending, SubscriptionFilter::everything(), hops.store.index(), 100'000'000);
        QCOMPARE(merged.entriesCovered, hops.pending.size());
        QCOMPARE(std::size_t(merged.delta.incidents_size()), std::size_t(total));
        QVERIFY(std::size_t(merged.delta.handoffs_size()) > kHandoffsKept);
        hops.catchUp(100'000'000);
        QCOMPARE(heldBy(*hops.slow), heldBy(*hops.everyDelta));
        QCOMPARE(hops.slow->incidents().size(), kResolvedKept);
        QCOMPARE(hops.slow->incidents().begin()->first, total - kResolvedKept + 1);
        QCOMPARE(hops.slow->handoffs().size(), kHandoffsKept);
    }
};

QTEST_GUILESS_MAIN(TestFleetStateHops)
#include "tst_fleetstate_hops.moc"
