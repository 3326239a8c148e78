#pragma once
// A source of fleet topology, telemetry, states, events and jobs. The digital twin is one; the
// real-site sources (server/sources: a Prometheus-compatible store, direct scraping) are others.
// fleetd's store only sees this.

#include "FleetChanges.h"

namespace watchfloor::server {

class FleetSource {
public:
    virtual ~FleetSource() = default;

    // Complete topology at DETAIL_LEVEL_FULL. Stable for the life of the source.
    virtual const watchfloor::v1::Topology& topology() const = 0;

    // The source's current time (simulated time for the twin).
    virtual UnixTime now() const = 0;

    // Advance the source to `until` (at most one telemetry period ahead of now()) and append
    // everything that changed into `out`. Called from a single thread.
    virtual void advanceTo(UnixTime until, FleetChanges& out) = 0;

    // How often periodic metrics are refreshed, for the console's freshness rule (a value older
    // than 3 periods is stale). Zero: the cadence documented on watchfloor.v1.Metric (the twin).
    virtual std::chrono::milliseconds telemetryPeriod() const { return std::chrono::milliseconds(0); }
    // True when counters and link states are re-read every period (real sources) rather than
    // sent on change (the twin).
    virtual bool countersPeriodic() const { return false; }
};

}  // namespace watchfloor::server
