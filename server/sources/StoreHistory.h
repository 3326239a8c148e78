#pragma once
// GetHistory from the site's metrics store (query_range), so a real fleet's charts reach back
// beyond fleetd's start: per-GPU DCGM fields, per-host hwmon temperature and the per-rack GPU
// temperature aggregates. Anything else (jobs, fleet goodput, NIC ports) is fleetd's own.
//
// Each bucket of a per-device series is exact over its window (avg/min/max/last/count_over_time
// with the window = the step). A rack aggregate is the store's value of max()/avg() across the
// rack's GPUs at each step (count 1): the aggregate of instants, not of every scrape in the window.

#include "ExporterFields.h"
#include "HistoryStore.h"
#include "InventoryIndex.h"
#include "PromClient.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sources {

class StoreHistory final : public service::ExternalHistory {
public:
    // `minStep`: the store's scrape interval: a finer bucket would be empty or repeat itself.
    StoreHistory(const watchfloor::v1::Topology& topology, std::vector<prom::StoreOptions> stores,
                 std::chrono::milliseconds minStep);
    ~StoreHistory() override;

    Answer query(std::uint32_t entity, watchfloor::v1::Metric metric, std::int64_t startMs, std::int64_t endMs,
                 std::int64_t stepMs) const override;

    // The series expression for (entity, metric) in proto units, or nothing when the store does
    // not keep it; `hostLabel` is "Hostname" or "hostname" (exporter 4.8 renamed it). A host is
    // selected by every name the inventory knows it by (InventoryIndex::hostRegex): short, qualified
    // by a listed domain, its address.
    std::optional<std::string> deviceSelector(std::uint32_t entity, watchfloor::v1::Metric metric,
                                              const std::string& hostLabel) const;
    std::optional<std::string> rackExpression(std::uint32_t entity, watchfloor::v1::Metric metric,
                                              const std::string& hostLabel) const;

private:
    struct Gpu {
        std::string host;
        std::uint32_t dcgmIndex;
    };
    Answer overWindows(const std::string& selector, double scale, std::int64_t startMs, std::int64_t endMs,
                       std::int64_t stepMs) const;
    Answer atInstants(const std::string& expression, std::int64_t startMs, std::int64_t endMs,
                      std::int64_t stepMs) const;

    InventoryIndex names_;  // every name a tray's series may carry (hostRegex)
    std::unordered_map<std::uint32_t, Gpu> gpus_;
    std::unordered_map<std::uint32_t, std::string> hostOfNode_;
    std::unordered_map<std::uint32_t, std::vector<std::string>> hostsOfRack_;
    std::int64_t minStepMs_;
    mutable std::mutex mutex_;  // one query at a time per client
    std::vector<std::unique_ptr<prom::PromClient>> clients_;
};

}  // namespace watchfloor::server::sources
