#pragma once
// How often fleetd reports each metric (the contract documented in proto/watchfloor/v1/fleet.proto).
// Freshness must follow the cadence: a per-link throughput refreshed once a minute is not stale
// after 3 s, and a counter that is sent only when it changes is current for as long as the
// stream is live.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>

namespace watchfloor::client {

enum class MetricReporting {
    Periodic,   // sent every period
    OnChange,   // counters and link state: sent when they change; never sent = 0 since the run began
};

struct MetricCadence {
    MetricReporting reporting = MetricReporting::Periodic;
    std::chrono::milliseconds period{1000};  // for Periodic metrics
};

MetricCadence metricCadence(watchfloor::v1::Metric metric);

}  // namespace watchfloor::client
