#pragma once
// The fleet-wide state kinds a Subscribe stream carries as whole messages by id (Snapshot and
// Delta `incidents`, `maintenance`, `handoffs`, `repair_cases`, `link_health`), and the one rule every hop holds them
// by: a record replaces the held one with its id; a live one is always held; a retired one (the kind says which) is
// held only while it is among the newest kRetiredKept retired ones of its kind.
//
// The hops: fleetd's FleetStateStore (what it holds, what a snapshot carries, what ListIncidents
// pages), a rewind answer (AsOfAnswer, RewindLog's base, so PastFleet shows what the live view
// does), fleetd's IncidentLifecycle (a resolved incident a console shows can still take a note) and
// the console's EndpointFleet. One bound per kind, so a console never drops what fleetd still
// serves and fleetd never sends what a console drops. A Delta, a slow subscriber's coalesced one
// too (DeltaCoalescer), carries every change and is never bounded: a retirement left out would
// leave a console holding the record live.
//
// Not kinds here: jobs (entities with an index, held for the run), source statuses (by name, one
// per configured source, never retired) and the single messages a Delta carries whole when they
// change (fleet goodput, automation and its circuit breaker, paging).

#include "watchfloor/v1/fleet.pb.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace watchfloor::fleetstate {

template <class Record>
using Field = google::protobuf::RepeatedPtrField<Record>;

// The order a snapshot lists a kind in (fleet.proto says which).
enum class WireOrder { ByKey, NewestFirst };

struct Incidents {
    using Record = watchfloor::v1::Incident;
    using Key = std::uint64_t;
    static Key key(const Record& r) { return r.id(); }
    static bool retired(const Record& r) { return r.state() == watchfloor::v1::INCIDENT_STATE_RESOLVED; }  // final
    static std::uint64_t age(const Record& r) { return r.id(); }  // ids are given in opening order
    // An incident is ~1 KB on the wire as the twin raises them, 14 KB (30 KB in memory) with every
    // list at its cap (256 indexes of each kind, 256 member ids, 64 timeline entries): 500 is 0.5
    // MB per endpoint in fleetd, in each snapshot and in each console, 15 MB at worst, small next
    // to a 1,800-rack snapshot's samples. The twin at 1,800 racks resolves ~145 incidents an hour
    // (24 h, seed 7), so 500 is its last 3.5 h, several days on a small fleet (the 7-rack demo:
    // 12 in 6 h): the recent past an operator reads an open incident against. Older ones: their
    // events are in the journal (ListEvents).
    static constexpr std::size_t kRetiredKept = 500;
    static constexpr WireOrder kWireOrder = WireOrder::ByKey;  // oldest first, like events
    static const Field<Record>& of(const watchfloor::v1::Snapshot& s) { return s.incidents(); }
    static const Field<Record>& of(const watchfloor::v1::Delta& d) { return d.incidents(); }
    static Field<Record>* mutableOf(watchfloor::v1::Snapshot* s) { return s->mutable_incidents(); }
    static Field<Record>* mutableOf(watchfloor::v1::Delta* d) { return d->mutable_incidents(); }
};

struct MaintenanceWindows {
    using Record = watchfloor::v1::MaintenanceWindow;
    using Key = std::string;
    static const Key& key(const Record& r) { return r.id(); }
    static bool retired(const Record& r) {
        return r.state() == watchfloor::v1::MAINTENANCE_STATE_ENDED ||
               r.state() == watchfloor::v1::MAINTENANCE_STATE_CANCELLED;
    }
    static std::int64_t age(const Record& r) { return r.end_unix_ms(); }
    // None: an ended or cancelled window tints no rack, holds no grouping and silences no alert any
    // more, and the audit log keeps it. Live ones are few (the calendar refuses overlapping scopes).
    static constexpr std::size_t kRetiredKept = 0;
    static constexpr WireOrder kWireOrder = WireOrder::ByKey;
    static const Field<Record>& of(const watchfloor::v1::Snapshot& s) { return s.maintenance(); }
    static const Field<Record>& of(const watchfloor::v1::Delta& d) { return d.maintenance(); }
    static Field<Record>* mutableOf(watchfloor::v1::Snapshot* s) { return s->mutable_maintenance(); }
    static Field<Record>* mutableOf(watchfloor::v1::Delta* d) { return d->mutable_maintenance(); }
};

struct ShiftHandoffs {
    using Record = watchfloor::v1::ShiftHandoff;
    using Key = std::string;
    static const Key& key(const Record& r) { return r.id(); }
    // A note, not a condition: nothing holds it, an unacknowledged one included; it counts toward
    // the bound from its post.
    static bool retired(const Record&) { return true; }
    static std::pair<std::int64_t, std::string> age(const Record& r) { return {r.posted_unix_ms(), r.id()}; }
    // One a shift: 20 is about a week of three shifts, more than a handoff report looks back on
    // (72 h at most); at most 4 KB each (two notes of 2,048 bytes), 80 KB. Only the stream's
    // bound: HandoffBook keeps more (kHeld) to answer an acknowledgement by id.
    static constexpr std::size_t kRetiredKept = 20;
    static constexpr WireOrder kWireOrder = WireOrder::NewestFirst;
    static const Field<Record>& of(const watchfloor::v1::Snapshot& s) { return s.handoffs(); }
    static const Field<Record>& of(const watchfloor::v1::Delta& d) { return d.handoffs(); }
    static Field<Record>* mutableOf(watchfloor::v1::Snapshot* s) { return s->mutable_handoffs(); }
    static Field<Record>* mutableOf(watchfloor::v1::Delta* d) { return d->mutable_handoffs(); }
};

struct RepairCases {
    using Record = watchfloor::v1::RepairCase;
    using Key = std::uint64_t;
    static Key key(const Record& r) { return r.id(); }
    static bool retired(const Record& r) {
        return r.state() == watchfloor::v1::REPAIR_CASE_STATE_FIXED ||
               r.state() == watchfloor::v1::REPAIR_CASE_STATE_RMA;
    }
    static std::uint64_t age(const Record& r) { return r.id(); }  // ids are given in opening order
    // A case is under 1 KB as the twin's repairs make them (a few steps, a dozen notes), ~12 KB with
    // both lists at their caps: 200 is at most 2.4 MB. The twin at 1,800 racks opens ~100 cases a
    // day (its Xid rate), so 200 is two days there and weeks on a small fleet: enough for a tray's
    // recent repairs (per-tray MTTR, a lemon's history) and a handoff report's 72 h on most fleets.
    static constexpr std::size_t kRetiredKept = 200;
    static constexpr WireOrder kWireOrder = WireOrder::ByKey;
    static const Field<Record>& of(const watchfloor::v1::Snapshot& s) { return s.repair_cases(); }
    static const Field<Record>& of(const watchfloor::v1::Delta& d) { return d.repair_cases(); }
    static Field<Record>* mutableOf(watchfloor::v1::Snapshot* s) { return s->mutable_repair_cases(); }
    static Field<Record>* mutableOf(watchfloor::v1::Delta* d) { return d->mutable_repair_cases(); }
};

struct LinkHealths {
    using Record = watchfloor::v1::LinkHealth;
    using Key = std::uint32_t;
    static Key key(const Record& r) { return r.nic_port_index(); }
    static bool retired(const Record& r) { return r.retired(); }
    static std::int64_t age(const Record& r) { return r.stage_since_unix_ms(); }
    // None: a link back under the lines and off the ladder is plain Normal again, which is what a
    // link not listed means. Live ones are bounded by fleetd's watch (kListedMax in LinkHealthKeeper).
    static constexpr std::size_t kRetiredKept = 0;
    static constexpr WireOrder kWireOrder = WireOrder::ByKey;
    static const Field<Record>& of(const watchfloor::v1::Snapshot& s) { return s.link_health(); }
    static const Field<Record>& of(const watchfloor::v1::Delta& d) { return d.link_health(); }
    static Field<Record>* mutableOf(watchfloor::v1::Snapshot* s) { return s->mutable_link_health(); }
    static Field<Record>* mutableOf(watchfloor::v1::Delta* d) { return d->mutable_link_health(); }
};

// The records of one kind a hop holds: upserted by key, retired ones bounded, newest kept.
template <class Kind>
class HeldRecords {
public:
    using Record = typename Kind::Record;
    using Key = typename Kind::Key;

    // Holds `record` in place of the held one with its key. False when it is not held after all:
    // retired and older than the newest Kind::kRetiredKept retired ones.
    bool upsert(const Record& record) {
        const Key key = Kind::key(record);
        auto [at, inserted] = byKey_.try_emplace(key, record);
        if (!inserted) {
            if (Kind::retired(at->second)) retiredByAge_.erase({Kind::age(at->second), key});
            at->second = record;
        }
        if (!Kind::retired(record)) return true;
        retiredByAge_.emplace(Kind::age(record), key);
        bool held = true;
        while (retiredByAge_.size() > Kind::kRetiredKept) {
            const auto oldest = retiredByAge_.begin();
            held = held && oldest->second != key;
            byKey_.erase(oldest->second);
            retiredByAge_.erase(oldest);
        }
        return held;
    }
    void clear() {
        byKey_.clear();
        retiredByAge_.clear();
    }

    const std::map<Key, Record>& byKey() const { return byKey_; }
    const Record* find(const Key& key) const {
        const auto at = byKey_.find(key);
        return at == byKey_.end() ? nullptr : &at->second;
    }
    std::size_t size() const { return byKey_.size(); }
    std::size_t retired() const { return retiredByAge_.size(); }
    std::size_t live() const { return byKey_.size() - retiredByAge_.size(); }

    // Every record held, newest first (the kind's age, then key).
    std::vector<const Record*> newestFirst() const {
        std::vector<const Record*> out;
        out.reserve(byKey_.size());
        for (const auto& [key, record] : byKey_) out.push_back(&record);
        std::sort(out.begin(), out.end(), [](const Record* a, const Record* b) {
            return std::forward_as_tuple(Kind::age(*a), Kind::key(*a)) >
                   std::forward_as_tuple(Kind::age(*b), Kind::key(*b));
        });
        return out;
    }
    // Appends every record held to `out` in the kind's wire order.
    void appendTo(Field<Record>* out) const {
        out->Reserve(out->size() + static_cast<int>(byKey_.size()));
        if constexpr (Kind::kWireOrder == WireOrder::NewestFirst) {
            for (const Record* record : newestFirst()) *out->Add() = *record;
        } else {
            for (const auto& [key, record] : byKey_) *out->Add() = record;
        }
    }

private:
    std::map<Key, Record> byKey_;
    std::set<std::pair<decltype(Kind::age(std::declval<const Record&>())), Key>> retiredByAge_;
};

template <class... Kinds>
struct KindList {
    // Calls f(Kind{}) for each kind, in list order.
    template <class F>
    static void forEach(F&& f) {
        (f(Kinds{}), ...);
    }
    // One T<Kind> per kind.
    template <template <class> class T>
    using Each = std::tuple<T<Kinds>...>;

    // What one hop holds of every kind.
    class Held {
    public:
        template <class Kind>
        HeldRecords<Kind>& of() {
            return std::get<HeldRecords<Kind>>(records_);
        }
        template <class Kind>
        const HeldRecords<Kind>& of() const {
            return std::get<HeldRecords<Kind>>(records_);
        }
        void clear() { (of<Kinds>().clear(), ...); }

    private:
        Each<HeldRecords> records_;
    };
};

// The one list: a kind added to the stream is added here, and every hop holds it.
using StreamedKinds = KindList<Incidents, MaintenanceWindows, ShiftHandoffs, RepairCases, LinkHealths>;
using HeldState = StreamedKinds::Held;

}  // namespace watchfloor::fleetstate
