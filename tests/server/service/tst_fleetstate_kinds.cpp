// FleetStateKinds.h alone: HeldRecords upserts by id, holds live records always and the newest
// kRetiredKept retired ones (retirement order: oldest by the kind's age first, whatever order they
// retired in), and lists them in the kind's wire order; each kind's retirement and age; and the
// list of kinds names every repeated record-with-an-id field of Snapshot and Delta but events.

#include "FleetStateKinds.h"

#include <QtTest>

#include <set>
#include <string>

using namespace watchfloor::fleetstate;
namespace v1 = watchfloor::v1;

namespace {

// The real kinds with a bound small enough to walk past by hand.
struct FewIncidents : Incidents {
    static constexpr std::size_t kRetiredKept = 3;
};
struct FewHandoffs : ShiftHandoffs {
    static constexpr std::size_t kRetiredKept = 3;
};

v1::Incident incident(std::uint64_t id, v1::IncidentState state, const std::string& note = "") {
    v1::Incident i;
    i.set_id(id);
    i.set_state(state);
    i.set_note(note);
    return i;
}

v1::ShiftHandoff handoff(const std::string& id, std::int64_t postedMs, const std::string& acknowledgedBy = "") {
    v1::ShiftHandoff h;
    h.set_id(id);
    h.set_posted_unix_ms(postedMs);
    h.set_acknowledged_by(acknowledgedBy);
    return h;
}

v1::MaintenanceWindow window(const std::string& id, v1::MaintenanceState state) {
    v1::MaintenanceWindow w;
    w.set_id(id);
    w.set_state(state);
    return w;
}

template <class Kind>
std::vector<typename Kind::Key> keys(const HeldRecords<Kind>& held) {
    std::vector<typename Kind::Key> out;
    for (const auto& [key, record] : held.byKey()) out.push_back(key);
    return out;
}

using Ids = std::vector<std::uint64_t>;
using Names = std::vector<std::string>;

// The fields of `Message` set after adding one record of each kind through mutableOf(), checked
// against of().
template <class Message>
std::set<std::string> kindFields() {
    std::set<std::string> names;
    StreamedKinds::forEach([&](auto kind) {
        using Kind = decltype(kind);
        Message message;
        Kind::mutableOf(&message)->Add();
        std::vector<const google::protobuf::FieldDescriptor*> set;
        message.GetReflection()->ListFields(message, &set);
        QCOMPARE(set.size(), std::size_t(1));
        QCOMPARE(Kind::of(message).size(), 1);
        names.insert(set.front()->name());
    });
    return names;
}

// Repeated message fields whose records carry an id: what a hop would hold by id.
std::set<std::string> recordFieldsById(const google::protobuf::Descriptor* message) {
    std::set<std::string> names;
    for (int i = 0; i < message->field_count(); ++i) {
        const auto* field = message->field(i);
        if (field->is_repeated() && field->message_type() && field->message_type()->FindFieldByName("id"))
            names.insert(field->name());
    }
    return names;
}

}  // namespace

class FleetStateKindsTest : public QObject {
    Q_OBJECT

private slots:
    void liveRecordsStayRetiredOnesAreBounded() {
        HeldRecords<FewIncidents> held;
        QVERIFY(held.upsert(incident(1, v1::INCIDENT_STATE_OPEN)));
        QVERIFY(held.upsert(incident(2, v1::INCIDENT_STATE_ACKNOWLEDGED)));
        for (std::uint64_t id = 3; id <= 5; ++id) QVERIFY(held.upsert(incident(id, v1::INCIDENT_STATE_RESOLVED)));
        QCOMPARE(keys(held), (Ids{1, 2, 3, 4, 5}));
        QCOMPARE(held.retired(), std::size_t(3));
        QCOMPARE(held.live(), std::size_t(2));
        // The fourth resolved one: the oldest resolved goes, the older open ones stay.
        QVERIFY(held.upsert(incident(6, v1::INCIDENT_STATE_RESOLVED)));
        QCOMPARE(keys(held), (Ids{1, 2, 4, 5, 6}));
        QCOMPARE(held.retired(), std::size_t(3));
    }

    void retirementOrderIsAgeNotArrival() {
        HeldRecords<FewIncidents> held;
        for (std::uint64_t id = 1; id <= 5; ++id) held.upsert(incident(id, v1::INCIDENT_STATE_OPEN));
        // Resolved newest first: 5, 4, 3 fill the bound; 2 and then 1 are older than all three.
        for (std::uint64_t id : {5, 4, 3}) QVERIFY(held.upsert(incident(id, v1::INCIDENT_STATE_RESOLVED)));
        QVERIFY(!held.upsert(incident(2, v1::INCIDENT_STATE_RESOLVED)));
        QVERIFY(!held.upsert(incident(1, v1::INCIDENT_STATE_RESOLVED)));
        QCOMPARE(keys(held), (Ids{3, 4, 5}));
        // A newer one retiring pushes out the oldest held, 3.
        QVERIFY(held.upsert(incident(7, v1::INCIDENT_STATE_RESOLVED)));
        QCOMPARE(keys(held), (Ids{4, 5, 7}));
    }

    void upsertReplacesWithoutCountingTwice() {
        HeldRecords<FewIncidents> held;
        for (std::uint64_t id = 1; id <= 3; ++id) held.upsert(incident(id, v1::INCIDENT_STATE_RESOLVED));
        // A note on a resolved incident: a new version of a held one, nothing pushed out.
        QVERIFY(held.upsert(incident(1, v1::INCIDENT_STATE_RESOLVED, "root cause: valve")));
        QCOMPARE(keys(held), (Ids{1, 2, 3}));
        QCOMPARE(held.find(1)->note(), std::string("root cause: valve"));
        QCOMPARE(held.retired(), std::size_t(3));
        // A retired record live again (no incident does that; the counts must still hold).
        QVERIFY(held.upsert(incident(2, v1::INCIDENT_STATE_OPEN)));
        QCOMPARE(held.retired(), std::size_t(2));
        QCOMPARE(held.live(), std::size_t(1));
        QVERIFY(held.upsert(incident(4, v1::INCIDENT_STATE_RESOLVED)));
        QVERIFY(held.upsert(incident(5, v1::INCIDENT_STATE_RESOLVED)));
        QCOMPARE(keys(held), (Ids{2, 3, 4, 5}));  // 1 went, 2 is live
        held.clear();
        QCOMPARE(held.size(), std::size_t(0));
        QCOMPARE(held.retired(), std::size_t(0));
    }

    void incidentsRetireOnlyWhenResolved() {
        QVERIFY(!Incidents::retired(incident(1, v1::INCIDENT_STATE_OPEN)));
        QVERIFY(!Incidents::retired(incident(1, v1::INCIDENT_STATE_ACKNOWLEDGED)));
        QVERIFY(!Incidents::retired(incident(1, v1::INCIDENT_STATE_MITIGATED)));
        QVERIFY(Incidents::retired(incident(1, v1::INCIDENT_STATE_RESOLVED)));
        // Wire order: by id, oldest first.
        HeldRecords<Incidents> held;
        for (std::uint64_t id : {9, 2, 5}) held.upsert(incident(id, v1::INCIDENT_STATE_OPEN));
        v1::Snapshot snap;
        held.appendTo(Incidents::mutableOf(&snap));
        QCOMPARE(snap.incidents_size(), 3);
        QCOMPARE(snap.incidents(0).id(), 2u);
        QCOMPARE(snap.incidents(2).id(), 9u);
    }

    void windowsEndedOrCancelledAreNotHeld() {
        HeldRecords<MaintenanceWindows> held;
        QVERIFY(held.upsert(window("mw-1", v1::MAINTENANCE_STATE_SCHEDULED)));
        QVERIFY(held.upsert(window("mw-2", v1::MAINTENANCE_STATE_SCHEDULED)));
        QVERIFY(held.upsert(window("mw-1", v1::MAINTENANCE_STATE_ACTIVE)));
        QCOMPARE(held.find("mw-1")->state(), v1::MAINTENANCE_STATE_ACTIVE);
        QVERIFY(!held.upsert(window("mw-1", v1::MAINTENANCE_STATE_ENDED)));
        QVERIFY(!held.upsert(window("mw-2", v1::MAINTENANCE_STATE_CANCELLED)));
        QVERIFY(!held.upsert(window("mw-3", v1::MAINTENANCE_STATE_CANCELLED)));  // never seen scheduled
        QCOMPARE(held.size(), std::size_t(0));
        QCOMPARE(held.retired(), std::size_t(0));
    }

    void handoffsNewestByPostedTimeThenId() {
        HeldRecords<FewHandoffs> held;
        QVERIFY(held.upsert(handoff("ho-b", 2'000)));
        QVERIFY(held.upsert(handoff("ho-a", 2'000)));  // same time: the higher id is newer
        QVERIFY(held.upsert(handoff("ho-c", 1'000)));
        QVERIFY(!held.upsert(handoff("ho-z", 500)));  // older than the three held
        // An acknowledgement replaces its handoff and keeps its place.
        QVERIFY(held.upsert(handoff("ho-c", 1'000, "bob")));
        QCOMPARE(keys(held), (Names{"ho-a", "ho-b", "ho-c"}));
        QCOMPARE(held.find("ho-c")->acknowledged_by(), std::string("bob"));
        // A fourth post: the oldest posted goes, acknowledged or not.
        QVERIFY(held.upsert(handoff("ho-d", 3'000)));
        QCOMPARE(keys(held), (Names{"ho-a", "ho-b", "ho-d"}));
        // An acknowledgement of one no longer held brings it back only if it is among the newest.
        QVERIFY(!held.upsert(handoff("ho-c", 1'000, "carol")));
        QCOMPARE(held.size(), std::size_t(3));

        Names newest;
        for (const auto* h : held.newestFirst()) newest.push_back(h->id());
        QCOMPARE(newest, (Names{"ho-d", "ho-b", "ho-a"}));
        v1::Delta delta;
        held.appendTo(FewHandoffs::mutableOf(&delta));  // wire order: newest first
        QCOMPARE(delta.handoffs_size(), 3);
        QCOMPARE(delta.handoffs(0).id(), std::string("ho-d"));
        QCOMPARE(delta.handoffs(2).id(), std::string("ho-a"));
    }

    void theListNamesEveryRecordFieldById() {
        // Events carry ids too, but are a journal every subscriber filters, not state a hop holds.
        // Link health is keyed by its NIC port's entity index, not an id: named here.
        std::set<std::string> expected = recordFieldsById(v1::Delta::descriptor());
        QVERIFY(expected.erase("events") == 1);
        QVERIFY(v1::LinkHealth::descriptor()->FindFieldByName("nic_port_index"));
        expected.insert("link_health");
        QCOMPARE(kindFields<v1::Delta>(), expected);
        expected = recordFieldsById(v1::Snapshot::descriptor());
        QVERIFY(expected.erase("recent_events") == 1);
        expected.insert("link_health");
        QCOMPARE(kindFields<v1::Snapshot>(), expected);
        QCOMPARE(expected,
                 (std::set<std::string>{"handoffs", "incidents", "link_health", "maintenance", "repair_cases"}));
    }

    void heldStateHoldsEachKindApart() {
        HeldState held;
        held.of<Incidents>().upsert(incident(1, v1::INCIDENT_STATE_OPEN));
        held.of<MaintenanceWindows>().upsert(window("mw-1", v1::MAINTENANCE_STATE_ACTIVE));
        held.of<ShiftHandoffs>().upsert(handoff("ho-1", 1'000));
        QCOMPARE(held.of<Incidents>().size(), std::size_t(1));
        QCOMPARE(held.of<MaintenanceWindows>().size(), std::size_t(1));
        QCOMPARE(held.of<ShiftHandoffs>().size(), std::size_t(1));
        held.clear();
        QCOMPARE(held.of<Incidents>().size() + held.of<MaintenanceWindows>().size() + held.of<ShiftHandoffs>().size(),
                 std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(FleetStateKindsTest)
#include "tst_fleetstate_kinds.moc"
