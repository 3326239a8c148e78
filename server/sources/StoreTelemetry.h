#pragma once
// Turns what a Prometheus-compatible store answers, or what fleetd scraped from exporters itself,
// into fleetd's changes: one poll's series (labels + value) mapped onto the inventory, each value
// stamped with its own sample time, DCGM blank sentinels made blank, Xid gauge changes made Xid
// events, IB octet counters made rates, and the rack and fleet aggregates the console's wall views
// read. State that spans polls (the last Xid per GPU, the last octet counters, the hosts already
// reported as unknown, each GPU's latest temperature) lives here. Both real sources map through
// this one class, so a series means the same whichever way it arrived.
//
// Sample times: an instant query answers with its own evaluation time, not the time a value was
// scraped, and returns values up to the store's lookback (5 min) old. So every poll also asks for
// timestamp() of one field per GPU (DCGM_FI_DEV_GPU_TEMP) and per IB port (state_id): every field
// of one GPU, or one port, comes from the same scrape, so that anchor is their sample time. A value
// without an anchor is given the oldest time the store could have answered with (evaluation time
// minus the lookback): shown stale, never live. A scraper knows each page's time itself and sets
// it per entity (setSampleTime), or per series when the page's line carried a timestamp.

#include "ExporterFields.h"
#include "FleetChanges.h"
#include "InventoryIndex.h"
#include "PromClient.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace watchfloor::server::sources {

struct PollQuery {
    enum class Kind {
        DcgmField,        // one of dcgm-exporter's default fields
        GpuAnchor,        // timestamp(DCGM_FI_DEV_GPU_TEMP): per-GPU sample time
        IbFamily,         // a node_exporter infiniband family
        IbAnchor,         // timestamp(node_infiniband_state_id): per-port sample time
        HostTemperature,  // hottest hwmon sensor per host
        HostAnchor,       // its sample time
        TrainingStep,     // progress convention (docs/real-telemetry.md)
        CheckpointStep,
    };
    std::string promql;
    Kind kind;
    const telemetry::ExporterField* dcgm = nullptr;
    const telemetry::NodeFamily* ib = nullptr;
};

// Every query one poll sends, in a fixed order.
std::vector<PollQuery> pollQueries();

// Job progress as a job publishes it (by Slurm job id): the step and the last durable checkpoint.
struct JobProgress {
    double step = -1;  // < 0: not reported
    double checkpointStep = -1;
    std::int64_t sampleTimeMs = 0;
};

struct PollNotes {
    std::uint64_t series = 0;
    std::uint64_t unmapped = 0;                // series naming no inventory entity
    std::uint64_t duplicates = 0;              // a second series for the same entity and metric
    std::uint64_t fromTheFuture = 0;           // sample times ahead of fleetd's clock (skew): clamped
    std::uint64_t notFinite = 0;               // +Inf/-Inf values: not readings, made blank
    std::uint64_t withoutAnchor = 0;           // values whose sample time is unknown: marked old
    std::vector<std::string> newUnknownHosts;  // hosts not in the inventory, first seen this poll
    std::uint32_t gpusHealthy = 0;             // GPUs read this poll with their rows remapping fine
    std::uint32_t gpusDegraded = 0;            // GPUs read this poll whose row remapping failed
};

// A sample-time anchor of this poll that is newer than its entity's anchor of an earlier poll (a
// new scrape reached the store since): how old it was when the poll began, and the answer it came
// from. An anchor that did not move (an exporter that stopped, a value the store only still has
// from its lookback) is not one: it says nothing about how late the store delivers.
struct FreshAnchor {
    std::size_t queryIndex;
    std::int64_t ageMs;  // poll time - sample time, >= 0
};

// How late a store delivers its newest samples: each poll's median age of its fresh anchors,
// smoothed across polls (a rise is followed slowly, a fall quickly, so one slow poll excuses no old
// value). Never more than `ceiling`, so that a value whose only sample time is the lookback's is
// still older than the console's stale age (3 telemetry periods + this lag). A poll without fresh
// anchors teaches nothing: a store whose exporters all stopped keeps the lag it had, and its values
// age into stale.
class DeliveryLag {
public:
    explicit DeliveryLag(std::chrono::milliseconds ceiling) : ceilingMs_(std::max<std::int64_t>(0, ceiling.count())) {}
    // The ceiling for a store polled every `poll`, scraping every `scrape`, with instant-query
    // lookback `lookback`: lookback - 3 x (poll + scrape) - poll, at least 0.
    static std::chrono::milliseconds ceilingFor(std::chrono::milliseconds poll, std::chrono::milliseconds scrape,
                                                std::chrono::milliseconds lookback);
    // One poll's fresh-anchor ages (reordered).
    void addPoll(std::vector<std::int64_t>& agesMs);
    std::optional<std::chrono::milliseconds> lag() const;  // nullopt until a poll had fresh anchors
    // The last poll's median was above the ceiling: the store delivers later than the lookback lets
    // fleetd tell late from lost.
    bool capped() const { return capped_; }
    std::int64_t lastPollMedianMs() const { return lastMedianMs_; }

private:
    std::int64_t ceilingMs_;
    double smoothedMs_ = -1;  // < 0: nothing learned yet
    std::int64_t lastMedianMs_ = 0;
    bool capped_ = false;
};

class StoreTelemetry {
public:
    using Log = std::function<void(const std::string&)>;

    StoreTelemetry(const watchfloor::v1::Topology& topology, std::chrono::milliseconds lookback, Log log);

    // One poll: begin(), then add() for every series of every query's answer (only queries that
    // succeeded), then finish() appends the poll's changes.
    void begin(std::int64_t pollTimeMs);
    // `queryIndex` identifies the answer the series came from, so that discard() can drop the
    // values of an answer that failed part-way (its earlier series were already delivered).
    void add(std::size_t queryIndex, const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void discard(std::size_t queryIndex);
    // Drops only the values of `entities` that answer `queryIndex` delivered (a frozen GPU's).
    void discardEntities(std::size_t queryIndex, std::span<const std::uint32_t> entities);
    PollNotes finish(FleetChanges& out);

    // The scrape path: a series from `host`'s own exporter page, the host being the scrape
    // target's (a label's may name a container). Its sample time is its entity's
    // (setSampleTime) unless its line carried one (timeMs; prom::kNoTimestamp for none).
    void addFromHost(std::size_t queryIndex, const PollQuery& query, std::string_view host,
                     std::span<const prom::Label> labels, double value, std::int64_t timeMs);
    // When every value of a GPU, NIC port or node read this poll was measured.
    void setSampleTime(std::uint32_t entity, std::int64_t timeMs) { setAnchor(entity, timeMs); }
    const InventoryIndex& inventory() const { return inventory_; }
    // Rack and fleet aggregates over each GPU's latest reading up to `window` old, instead of this
    // poll's readings alone: for a source whose polls each read a part of the fleet (a scrape
    // batch). A rack's aggregates are sent when one of its GPUs was read, or its count changed.
    void aggregateOverLatest(std::chrono::milliseconds window) { aggregateWindowMs_ = window.count(); }

    // This poll's fresh anchors (see FreshAnchor), of answers not discarded.
    const std::vector<FreshAnchor>& freshAnchors() const { return freshAnchors_; }

    // Progress of the jobs that publish it, from the last poll, by Slurm job id.
    const std::unordered_map<std::string, JobProgress>& jobProgress() const { return progress_; }

private:
    struct Raw {
        std::uint32_t entity;
        watchfloor::v1::Metric metric;
        double value;
        std::uint32_t anchorKey;  // the entity whose anchor time applies (GPU, NIC port, node)
    };
    struct Timed {
        std::uint32_t entity;
        watchfloor::v1::Metric metric;
        std::int64_t timeMs;
        double value;
    };
    struct Octets {
        double bytes = 0;
        std::int64_t timeMs = 0;
    };
    static std::string_view label(std::span<const prom::Label> labels, std::string_view name);
    // The labels the mapping reads, found in one pass over a series' labels instead of one per name.
    struct Picked {
        explicit Picked(std::span<const prom::Label> labels);
        static std::string_view value(const prom::Label* label) { return label ? label->value : std::string_view(); }
        std::string_view host() const;
        const prom::Label *Hostname = nullptr, *hostname = nullptr, *instance = nullptr, *gpu = nullptr,
                          *uuid = nullptr, *device = nullptr, *port = nullptr, *errCode = nullptr, *gpuUuid = nullptr,
                          *nvlink = nullptr;
    };
    // One series, once its host is known: from a label (store) or the scrape target. `anchorKey`
    // is the key of its explicit sample time, or kNoAnchor to use its entity's.
    struct Series {
        const PollQuery& query;
        const Picked& picked;
        std::string_view host;
        prom::Point point;
        std::uint32_t anchorKey;
    };
    static constexpr std::uint32_t kNoAnchor = UINT32_MAX;
    void addSeries(std::size_t queryIndex, const Series& series, std::span<const prom::Label> labels);
    void noteUnknownHost(std::string_view host);
    void addGpuSeries(const Series& series);
    void addPortSeries(const Series& series);
    void addHostSeries(const Series& series);
    void addProgress(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void setAnchor(std::uint32_t anchorKey, std::int64_t timeMs);
    std::int64_t sampleTimeOf(std::uint32_t anchorKey);
    std::vector<Timed> sortedRaw();
    void emitXid(std::uint32_t gpu, double xid, std::int64_t timeMs, FleetChanges& out);
    void emitAggregates(FleetChanges& out, std::size_t firstSample);
    void noteRackHealth(std::uint32_t rack, watchfloor::v1::HealthState health, std::uint32_t reporting,
                        std::uint32_t degraded, std::uint32_t gpus, std::int64_t timeMs, FleetChanges& out);

    const watchfloor::v1::Topology& topology_;
    InventoryIndex inventory_;
    const std::int64_t lookbackMs_;
    Log log_;

    std::int64_t pollTimeMs_ = 0;
    std::vector<Raw> raw_;
    struct Range {
        std::size_t query, begin, end;  // raw_[begin, end) came from answer `query`
    };
    std::vector<Range> ranges_;
    // Anchors by entity (node, GPU, NIC port: all below entitySlots_), valid when stamped with this
    // poll: a poll's 260,000 anchors are looked up millions of times, so no hashing. Keys from
    // entitySlots_ on are series' own timestamps (explicitMs_[key - entitySlots_]).
    std::size_t entitySlots_ = 0;
    std::uint32_t poll_ = 1;  // anchorPoll_ 0: never set
    std::vector<std::int64_t> anchorMs_;
    std::vector<std::uint32_t> anchorPoll_;
    std::vector<std::int64_t> previousAnchorMs_;  // the entity's anchor before this poll's (0: none)
    std::vector<FreshAnchor> freshAnchors_;
    std::size_t currentQuery_ = 0;  // the answer being added
    std::vector<std::int64_t> explicitMs_;
    PollNotes notes_;
    std::unordered_map<std::uint32_t, std::pair<watchfloor::v1::HealthState, std::string>> rackHealth_;
    std::unordered_set<std::string> unknownHosts_;       // reported once each, for good
    std::unordered_map<std::uint32_t, double> lastXid_;  // by GPU
    std::unordered_map<std::uint64_t, Octets> octets_;   // by (port, metric)
    std::unordered_map<std::string, JobProgress> progress_;
    std::unordered_map<std::uint32_t, int> gpuPosition_;  // in topology_.gpus()

    // What the aggregates read, by GPU position and rack position (dense, kept across polls).
    struct GpuLatest {
        float temp = 0;           // NaN: the newest reading was blank
        std::int64_t tempMs = 0;  // 0: never read
        std::int64_t remapMs = 0;
        std::uint32_t tempPoll = 0, remapPoll = 0;
        bool remapFailed = false;
    };
    struct RackGpus {
        std::uint32_t rack;
        std::vector<std::uint32_t> gpus;  // positions
        std::uint32_t touchedPoll = 0;    // a GPU of it read in this poll
        std::uint32_t lastCount = 0, lastDegraded = 0;
    };
    std::vector<std::uint32_t> gpuSlot_;  // by entity: GPU position + 1, 0 for other entities
    std::vector<GpuLatest> gpuLatest_;
    std::vector<std::uint32_t> rackOfGpuSlot_;  // by GPU position: index into racks_
    std::vector<RackGpus> racks_;
    std::int64_t aggregateWindowMs_ = 0;  // 0: this poll's readings only
};

}  // namespace watchfloor::server::sources
