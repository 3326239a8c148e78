#pragma once
// How the digital twin is configured: from the command line (fleetd --racks/--regions/--seed)
// or from a fleet file, plus an optional scenario file of scripted faults.

#include "FleetChanges.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

struct SimConfig {
    std::uint64_t seed = 1;
    std::uint32_t regions = 2;  // default fleet: the seeds' 2 regions, 7 NVL72 racks
    std::uint32_t racks = 7;
    std::string fleetFile;     // optional; overrides regions/racks when set
    std::string scenarioFile;  // optional scripted faults
    UnixTime start = UnixTime(std::chrono::milliseconds(1'798'761'600'000));  // 2027-01-01T00:00Z
    std::chrono::milliseconds telemetryPeriod{1000};                          // 1 Hz
    double hardwareRateScale = 1.0;  // k_hw: 1.0 = Llama-3-like rates (docs/domain/failure-rates.md)
    // Per-entity samples (per GPU, CPU, port, loop). Off for headless dumps: events, states,
    // jobs and fleet goodput are still produced (see DigitalTwin::setTelemetryEnabled).
    bool telemetry = true;
    // > 0: the jobs have been training for up to this long when the twin starts (fleetd
    // --warm-start): mid-run, with goodput ledgers that have history, instead of all starting
    // from nothing in the first minute. At least an hour; scenario times are unchanged.
    std::chrono::seconds warmStart{0};
};

}  // namespace watchfloor::server::sim
