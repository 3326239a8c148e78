#pragma once
// How often fleetd reports each metric (the contract documented in proto/watchfloor/v1/fleet.proto).
// Freshness must follow the cadence: a per-link throughput refreshed once a minute is not stale
// after 3 s, and a counter that is sent only when it changes is current for as long as the
// stream is live.
//
// That contract is the digital twin's. A real site (fleetd reading a Prometheus-compatible store)
// refreshes everything once per poll, counters and link states included, and says so in its
// Snapshot: each endpoint keeps its own SourceCadence, since one console may merge a twin and a
// real site.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <vector>

namespace watchfloor::client {

enum class MetricReporting {
    Periodic,  // sent every period
    OnChange,  // counters and link state: sent when they change; never sent = 0 since the run began
};

struct MetricCadence {
    MetricReporting reporting = MetricReporting::Periodic;
    std::chrono::milliseconds period{1000};  // for Periodic metrics
    // How old the source's newest values already are when they arrive (a store's delivery lag):
    // a Periodic value turns stale this much later than 3 periods.
    std::chrono::milliseconds deliveryLag{0};
};

// What an endpoint's Snapshot says about its source's refresh (Snapshot.telemetry_period_ms and
// counters_periodic). The default is the twin: the per-metric contract.
struct SourceCadence {
    std::chrono::milliseconds period{0};  // 0 = the per-metric contract
    bool countersPeriodic = false;        // counters and link states re-read every period
    // The largest SourceStatus.delivery_lag_ms of the endpoint's sources (0: none learned).
    std::chrono::milliseconds deliveryLag{0};

    static SourceCadence of(const watchfloor::v1::Snapshot& snapshot);
    // deliveryLag from the endpoint's sources as they stand now.
    void learnDeliveryLag(const std::vector<watchfloor::v1::SourceStatus>& sources);
    bool operator==(const SourceCadence&) const = default;
};

// The per-metric contract (the twin).
MetricCadence metricCadence(watchfloor::v1::Metric metric);
// The cadence of `metric` on an endpoint whose source refreshes as `source` says.
MetricCadence metricCadence(watchfloor::v1::Metric metric, const SourceCadence& source);

}  // namespace watchfloor::client
