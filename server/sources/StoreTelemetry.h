#pragma once
// Turns what a Prometheus-compatible store answers into fleetd's changes: one poll's series
// (labels + value) mapped onto the inventory, each value stamped with its own sample time, DCGM
// blank sentinels made blank, Xid gauge changes made Xid events, IB octet counters made rates,
// and the rack and fleet aggregates the console's wall views read. State that spans polls (the
// last Xid per GPU, the last octet counters, the hosts already reported as unknown) lives here.
//
// Sample times: an instant query answers with its own evaluation time, not the time a value was
// scraped, and returns values up to the store's lookback (5 min) old. So every poll also asks for
// timestamp() of one field per GPU (DCGM_FI_DEV_GPU_TEMP) and per IB port (state_id): every field
// of one GPU, or one port, comes from the same scrape, so that anchor is their sample time. A value
// without an anchor is given the oldest time the store could have answered with (evaluation time
// minus the lookback): shown stale, never live.

#include "ExporterFields.h"
#include "FleetChanges.h"
#include "InventoryIndex.h"
#include "PromClient.h"

#include <cstdint>
#include <functional>
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
    double step = -1;            // < 0: not reported
    double checkpointStep = -1;
    std::int64_t sampleTimeMs = 0;
};

struct PollNotes {
    std::uint64_t series = 0;
    std::uint64_t unmapped = 0;          // series naming no inventory entity
    std::uint64_t duplicates = 0;        // a second series for the same entity and metric
    std::uint64_t fromTheFuture = 0;     // sample times ahead of fleetd's clock (skew): clamped
    std::uint64_t notFinite = 0;         // +Inf/-Inf values: not readings, made blank
    std::uint64_t withoutAnchor = 0;     // values whose sample time is unknown: marked old
    std::vector<std::string> newUnknownHosts;  // hosts not in the inventory, first seen this poll
    std::uint32_t gpusHealthy = 0;       // GPUs read this poll with their rows remapping fine
    std::uint32_t gpusDegraded = 0;      // GPUs read this poll whose row remapping failed
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
    PollNotes finish(FleetChanges& out);

    // Progress of the jobs that publish it, from the last poll, by Slurm job id.
    const std::unordered_map<std::string, JobProgress>& jobProgress() const { return progress_; }

private:
    struct Raw {
        std::uint32_t entity;
        watchfloor::v1::Metric metric;
        double value;
        std::uint32_t anchorKey;   // the entity whose anchor time applies (GPU, NIC port, node)
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
                          *uuid = nullptr, *device = nullptr, *port = nullptr, *errCode = nullptr;
    };
    void noteUnknownHost(std::string_view host);
    void addGpuSeries(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void addPortSeries(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void addHostSeries(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void addProgress(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point);
    void setAnchor(std::uint32_t anchorKey, std::int64_t timeMs);
    std::int64_t sampleTimeOf(std::uint32_t anchorKey);
    std::vector<Timed> sortedRaw();
    void emitXid(std::uint32_t gpu, double xid, std::int64_t timeMs, FleetChanges& out);
    void emitAggregates(FleetChanges& out);
    void noteRackHealth(std::uint32_t rack, watchfloor::v1::HealthState health, std::uint32_t reporting,
                        std::uint32_t degraded, std::uint32_t gpus, std::int64_t timeMs, FleetChanges& out);

    const watchfloor::v1::Topology& topology_;
    InventoryIndex inventory_;
    const std::int64_t lookbackMs_;
    Log log_;

    std::int64_t pollTimeMs_ = 0;
    std::vector<Raw> raw_;
    struct Range {
        std::size_t query, begin, end;   // raw_[begin, end) came from answer `query`
    };
    std::vector<Range> ranges_;
    // Anchors by entity (node, GPU, NIC port: all below entitySlots_), valid when stamped with this
    // poll: a poll's 260,000 anchors are looked up millions of times, so no hashing.
    std::size_t entitySlots_ = 0;
    std::uint32_t poll_ = 1;  // anchorPoll_ 0: never set
    std::vector<std::int64_t> anchorMs_;
    std::vector<std::uint32_t> anchorPoll_;
    std::unordered_map<std::uint32_t, std::int64_t> otherAnchorMs_;  // keys past entitySlots_ (none today)
    PollNotes notes_;
    std::unordered_map<std::uint32_t, std::pair<watchfloor::v1::HealthState, std::string>> rackHealth_;
    std::unordered_set<std::string> unknownHosts_;       // reported once each, for good
    std::unordered_map<std::uint32_t, double> lastXid_;  // by GPU
    std::unordered_map<std::uint64_t, Octets> octets_;   // by (port, metric)
    std::unordered_map<std::string, JobProgress> progress_;
    std::unordered_map<std::uint32_t, std::uint32_t> rackOfGpu_;
    std::unordered_map<std::uint32_t, int> gpuPosition_;  // in topology_.gpus()
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> gpusOfRack_;
};

}  // namespace watchfloor::server::sources
