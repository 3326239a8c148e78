#pragma once
// fleetd reading a real site: a FleetSource over one or more Prometheus-compatible stores
// (Prometheus, VictoriaMetrics, Thanos Querier, Mimir: the same HTTP API), polled on a thread of
// its own every `poll`. Each store is a shard: all are asked the same queries and their answers
// merge. The topology comes from the fleet file (its inventory maps host names, GPU indexes and
// NIC ports to entities). A store that fails keeps the values it gave last; they age in the
// console as stale, and the store's status says why. Nothing is invented for a value not read.

#include "PolledSource.h"
#include "PromClient.h"
#include "RealSourceParts.h"
#include "StoreTelemetry.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace watchfloor::server::sources {

struct PrometheusSourceOptions {
    std::vector<prom::StoreOptions> stores;  // one per shard
    std::chrono::milliseconds poll{15'000};
    // How often the store scrapes the exporters: with `poll`, the telemetry period a console ages
    // values by (stale after 3 periods plus each store's delivery lag, learned from its answers:
    // SourceStatus.delivery_lag_ms).
    std::chrono::milliseconds storeScrapeInterval{15'000};
    // The store's instant-query lookback: the oldest value an instant query can return.
    std::chrono::milliseconds lookback{300'000};
    // How long start() waits for the first poll, so the first snapshot usually has values.
    std::chrono::milliseconds firstPollWait{3'000};
    // Jobs from Slurm's squeue (--jobs slurm), read after each poll; SLURM_CONF when not empty.
    bool slurmJobs = false;
    std::string slurmConf;
};

class PrometheusSource final : public PolledSource {
public:
    using Log = std::function<void(const std::string&)>;

    PrometheusSource(watchfloor::v1::Topology topology, PrometheusSourceOptions options, Log log);
    ~PrometheusSource() override;

    const watchfloor::v1::Topology& topology() const override { return topology_; }
    std::chrono::milliseconds telemetryPeriod() const override { return options_.poll + options_.storeScrapeInterval; }
    bool countersPeriodic() const override { return true; }

    // The stores' statuses (one per shard), as last reported.
    std::vector<watchfloor::v1::SourceStatus> statuses() const;
    // Progress gauges of jobs (by Slurm job id), from the last good poll.
    std::unordered_map<std::string, JobProgress> jobProgress() const;

private:
    Clock::time_point pollStep() override;
    void pollOnce();
    void updateStatus(std::size_t store, const std::vector<prom::QueryResult>& results, const PollNotes& notes,
                      std::int64_t pollTimeMs, double seconds, FleetChanges& out);

    watchfloor::v1::Topology topology_;
    PrometheusSourceOptions options_;
    Log log_;
    std::vector<PollQuery> queries_;
    std::vector<std::unique_ptr<prom::PromClient>> clients_;
    std::unique_ptr<StoreTelemetry> telemetry_;  // poll thread only
    std::vector<DeliveryLag> lags_;              // by store; poll thread only
    std::unique_ptr<JobsFromSlurm> slurm_;       // poll thread only; null without --jobs slurm

    mutable std::mutex mutex_;                            // what other threads read of the poll thread's results
    std::vector<watchfloor::v1::SourceStatus> statuses_;  // by store
    std::unordered_map<std::string, JobProgress> progress_;
};

}  // namespace watchfloor::server::sources
