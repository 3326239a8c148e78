#pragma once
// What fleetd needs to answer "how was the fleet at T?" (GetStateAsOf) beyond its history store
// and event journal: every entity state change and every incident version, in bounded memory.
//
// Each log keeps a base (the newest dropped version of every key) and the recent versions in time
// order. Dropping the oldest version folds it into the base, so the state at any T at or after
// the newest dropped version's time is still exact; earliest() says where that window begins.
//
// Threads: record*() from the tick thread (FleetStateStore::apply); readers from any thread.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

namespace watchfloor::server::service {

struct RewindLimits {
    std::size_t stateChanges = 200'000;     // entity state versions kept after the base
    std::size_t incidentVersions = 50'000;  // incident versions kept after the base
};

// Versions of values by key; the value as of T is the newest version with time <= T.
template <class Value>
class VersionLog {
public:
    // Records a version; past `capacity` versions the oldest folds into the base.
    void add(std::int64_t timeMs, std::uint64_t key, const Value& value, std::size_t capacity) {
        recent_.push_back({timeMs, key, value});
        latest_[key] = &recent_.back().value;
        while (recent_.size() > capacity) {
            Version& oldest = recent_.front();
            horizonMs_ = oldest.timeMs;
            auto at = latest_.find(oldest.key);
            if (at != latest_.end() && at->second == &oldest.value) latest_.erase(at);
            base_[oldest.key] = std::move(oldest.value);
            recent_.pop_front();
        }
    }
    // The newest version of `key` recorded so far (to skip recording an unchanged one).
    const Value* latest(std::uint64_t key) const {
        auto it = latest_.find(key);
        if (it != latest_.end()) return it->second;
        auto b = base_.find(key);
        return b == base_.end() ? nullptr : &b->second;
    }
    // key -> the version as of T. Exact for T >= horizon().
    std::map<std::uint64_t, const Value*> asOf(std::int64_t timeMs) const {
        std::map<std::uint64_t, const Value*> out;
        for (const auto& [key, value] : base_) out[key] = &value;
        for (const auto& v : recent_) {
            if (v.timeMs > timeMs) break;
            out[v.key] = &v.value;
        }
        return out;
    }
    // The time of the newest dropped version: answers are exact for T at or after it.
    std::int64_t horizon() const { return horizonMs_; }
    std::map<std::uint64_t, Value>& base() { return base_; }
    std::size_t size() const { return recent_.size(); }

private:
    struct Version {
        std::int64_t timeMs;
        std::uint64_t key;
        Value value;
    };
    std::map<std::uint64_t, Value> base_;
    std::deque<Version> recent_;                    // deque: push_back and pop_front keep other elements' addresses
    std::map<std::uint64_t, const Value*> latest_;  // key -> its newest version in recent_
    std::int64_t horizonMs_ = INT64_MIN;
};

class RewindLog {
public:
    explicit RewindLog(RewindLimits limits = {}) : limits_(limits) {}

    // One tick's changes at fleet time `timeMs` (increasing from call to call).
    void record(std::int64_t timeMs, const std::vector<watchfloor::v1::EntityState>& states,
                const std::vector<watchfloor::v1::Incident>& incidents);

    // The earliest moment answered exactly: the first tick, raised by dropped versions. 0 = no tick yet.
    std::int64_t earliest() const;
    // Entity states at T, by entity index.
    std::vector<watchfloor::v1::EntityState> statesAsOf(std::int64_t timeMs) const;
    // Incident versions at T (without timeline and member ids), by id: every incident started by T.
    std::vector<watchfloor::v1::Incident> incidentsAsOf(std::int64_t timeMs) const;

    // The fields of an incident a past view shows; the rest (goodput cost, last change) is carried
    // along but does not make a new version by itself, so an open incident costs one version per
    // real change, not one per tick.
    static bool sameForRewind(const watchfloor::v1::Incident& a, const watchfloor::v1::Incident& b);

private:
    void dropResolvedFromBase();

    RewindLimits limits_;
    mutable std::mutex mu_;
    std::int64_t firstMs_ = 0;
    VersionLog<watchfloor::v1::EntityState> states_;
    VersionLog<watchfloor::v1::Incident> incidents_;
};

}  // namespace watchfloor::server::service
