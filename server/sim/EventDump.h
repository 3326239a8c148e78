#pragma once
// Headless run of a fleet source as fast as possible, writing every event, every change of an
// incident (fleetd's grouping, as served) and periodic goodput as JSON Lines
// (fleetd --sim-duration D --dump-events FILE). Same seed + scenario = same bytes.

#include "FleetSource.h"
#include "IncidentGrouper.h"

#include <chrono>
#include <string>

namespace watchfloor::server::sim {

struct DumpOptions {
    std::chrono::milliseconds duration{};                                // simulated time to run
    std::string path;                                                    // "-" = standard output
    std::chrono::milliseconds goodputPeriod = std::chrono::minutes(10);  // fleet + job goodput lines
    incidents::GrouperOptions incidents;                                 // as fleetd groups when serving
};

// Returns false and fills `error` (naming the file) when the file cannot be written.
[[nodiscard]] bool dumpEvents(FleetSource& source, const DumpOptions& options, std::string* error);

}  // namespace watchfloor::server::sim
