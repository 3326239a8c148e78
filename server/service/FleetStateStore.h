#pragma once
// fleetd's picture of the fleet: the latest value and sample time of every (entity, metric),
// entity states, jobs and fleet goodput, plus the event journal. It turns each FleetChanges into
// Deltas with consecutive sequence numbers (several per tick when a tick is large, so no Delta
// grows past ~2 MB) and builds filtered Snapshots that are current to one sequence.
//
// Threads: apply() from the tick thread only; everything else from any thread. Readers take a
// shared lock for as long as they copy values; apply() takes the exclusive lock only to update.

#include "EventJournal.h"
#include "FleetChanges.h"
#include "FleetStateKinds.h"
#include "LruCache.h"
#include "RewindLog.h"
#include "SubscriptionFilter.h"
#include "TickOrder.h"
#include "TopologyLookup.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::service {

// Receives every applied sample with the store's dense id of its (entity, metric) series, so the
// history needs no lookup of its own. Called under the store's exclusive lock: keep it cheap.
class SampleSink {
public:
    virtual ~SampleSink() = default;
    // seriesIds[i] is the series of samples[i].
    virtual void onSamples(UnixTime time, std::span<const Sample> samples,
                           std::span<const std::uint32_t> seriesIds) = 0;
};

struct StoreLimits {
    std::size_t maxDeltaBytes = 1'800'000;  // a Delta stays below ~2 MB on the wire
    std::size_t snapshotEvents = 500;       // recent events sent in every snapshot
    std::size_t journalEvents = 200'000;    // events kept for ListEvents
    // The first event id of this run. fleetd starts past ids that outlive a run (acknowledgements
    // in the audit log) so a recovered "event 42 acknowledged" never names a new run's event 42.
    std::uint64_t firstEventId = 1;
    RewindLimits rewind;  // state and incident versions kept for GetStateAsOf
    // Incidents, maintenance windows and handoffs are held as every hop holds them
    // (FleetStateKinds.h): no limit of the store's own.
};

using DeltaPtr = std::shared_ptr<const watchfloor::v1::Delta>;

struct LatestValue {
    float value;                // NaN = blank
    std::int64_t sampleTimeMs;  // when it was measured
};

// One key per SampleBlock: metric values stay below 2^16 and sample times below 2^47 ms.
inline std::uint64_t blockKey(watchfloor::v1::Metric metric, std::int64_t sampleTimeMs) {
    return (std::uint64_t(sampleTimeMs) << 16) ^ std::uint64_t(metric);
}

class FleetStateStore {
public:
    explicit FleetStateStore(const watchfloor::v1::Topology& topology, StoreLimits limits = {});

    const TopologyLookup& index() const { return index_; }
    const EventJournal& journal() const { return journal_; }
    // Every state change and incident version, for GetStateAsOf.
    const RewindLog& rewind() const { return rewind_; }

    // Gives the events of `changes` their ids now, so incident grouping can name them before
    // apply(). Tick thread only.
    void numberEvents(FleetChanges& changes);
    // Applies one instant of changes; assigns event ids (those still 0) and sequences. Tick
    // thread only.
    std::vector<DeltaPtr> apply(FleetChanges& changes, SampleSink* sink = nullptr);

    // Incidents held (open, and the newest fleetstate::Incidents::kRetiredKept resolved) with
    // id < beforeId (0 = no bound) that `wanted` accepts, newest first, at most `limit`; `more`
    // says whether older ones match.
    template <class Wanted>
    std::vector<watchfloor::v1::Incident> incidents(std::uint64_t beforeId, std::size_t limit, Wanted&& wanted,
                                                    bool* more) const {
        std::vector<watchfloor::v1::Incident> out;
        std::shared_lock lock(mu_);
        *more = false;
        const auto& incidents = held_.of<fleetstate::Incidents>().byKey();
        auto it = beforeId == 0 ? incidents.end() : incidents.lower_bound(beforeId);
        while (it != incidents.begin()) {
            --it;
            if (!wanted(it->second)) continue;
            if (out.size() == limit) {
                *more = true;
                break;
            }
            out.push_back(it->second);
        }
        return out;
    }
    std::uint32_t openIncidents() const;
    // The newest fleet goodput's repairs (fleetd's control plane sets them); nullopt before any.
    std::optional<watchfloor::v1::RepairStats> repairs() const;
    // The newest link summary (fleetd's link watch); nullopt before any, or with no rail links.
    std::optional<watchfloor::v1::LinkHealthSummary> linkSummary() const;

    struct SeriesRef {
        std::uint32_t id;
        std::uint32_t entity;
        watchfloor::v1::Metric metric;
    };
    // The series (entity, metric) `wanted(entity, metric)` accepts, by id.
    template <class Wanted>
    std::vector<SeriesRef> seriesWhere(Wanted&& wanted) const {
        std::vector<SeriesRef> out;
        std::shared_lock lock(mu_);
        for (std::uint32_t id = 0; id < series_.size(); ++id)
            if (wanted(series_[id].entity, series_[id].metric))
                out.push_back({id, series_[id].entity, series_[id].metric});
        return out;
    }

    // Everything `filter` selects, current to the returned snapshot's `sequence`. Topology is
    // left out: see encodedTopology(), which is cached per filter.
    watchfloor::v1::Snapshot snapshot(const SubscriptionFilter& filter) const;
    // The topology a filter sees (FULL adds NVLinks and NIC ports), built once per filter key.
    std::shared_ptr<const watchfloor::v1::Topology> topologyFor(const SubscriptionFilter& filter) const;
    std::size_t cachedTopologies() const;

    std::uint64_t lastSequence() const;
    UnixTime lastSampleTime() const;

    // Topology entities and jobs by name; jobs are entities too but live outside the topology.
    std::optional<std::uint32_t> findEntity(std::string_view name) const;
    std::string entityName(std::uint32_t index) const;
    bool isJob(std::uint32_t index) const;
    std::optional<watchfloor::v1::Job> job(std::uint32_t index) const;  // a copy; nothing when not a job
    std::optional<std::uint32_t> findSeries(std::uint32_t entity, watchfloor::v1::Metric metric) const;
    // The newest value of one series, with its sample time; nothing when never reported.
    std::optional<LatestValue> latest(std::uint32_t entity, watchfloor::v1::Metric metric) const;
    // Samples of the last apply() whose series had to be looked up by key (the rest were found
    // by their place in the previous tick's order): statistics, and the cost tests hold down.
    std::size_t seriesLookedUpLastApply() const;

private:
    static std::uint64_t seriesKey(std::uint32_t entity, watchfloor::v1::Metric metric) {
        return (std::uint64_t(entity) << 32) | std::uint32_t(metric);
    }
    std::vector<std::shared_ptr<watchfloor::v1::Delta>> buildDeltas(const FleetChanges& changes) const;
    std::shared_ptr<watchfloor::v1::Topology> buildTopology(const SubscriptionFilter& filter) const;

    TopologyLookup index_;
    StoreLimits limits_;
    EventJournal journal_;
    RewindLog rewind_;

    mutable std::shared_mutex mu_;
    std::uint64_t sequence_ = 0;
    std::uint64_t lastEventId_ = 0;
    UnixTime lastTime_{};
    std::unordered_map<std::uint64_t, std::uint32_t> seriesOf_;
    TickOrder order_;  // finds most samples' series without hashing 1.3 M keys a tick
    struct Series {
        std::uint32_t entity;
        watchfloor::v1::Metric metric;
    };
    std::vector<Series> series_;
    std::vector<float> value_;
    std::vector<std::int64_t> sampleTimeMs_;
    std::map<std::uint32_t, watchfloor::v1::EntityState> states_;
    std::map<std::uint32_t, watchfloor::v1::Job> jobs_;
    std::unordered_map<std::string, std::uint32_t> jobByName_;
    bool hasFleet_ = false;
    watchfloor::v1::FleetGoodput fleet_;
    bool hasAutomation_ = false;
    watchfloor::v1::AutomationStatus automation_;
    bool hasLinkSummary_ = false;
    watchfloor::v1::LinkHealthSummary linkSummary_;
    bool hasPaging_ = false;
    watchfloor::v1::PagingStatus paging_;
    std::map<std::string, watchfloor::v1::SourceStatus> sources_;
    fleetstate::HeldState held_;  // incidents, maintenance windows, handoffs: what a snapshot carries

    // Keyed by client-chosen filters (rack lists): bounded, or 10,000 distinct filters would keep
    // 10,000 topology copies. A subscriber holds its own shared_ptr, so eviction never pulls one
    // from under a stream.
    static constexpr std::size_t kTopologiesCached = 256;
    mutable std::mutex topologyMu_;
    mutable LruCache<std::shared_ptr<const watchfloor::v1::Topology>> topologyByFilter_{kTopologiesCached};
};

}  // namespace watchfloor::server::service
