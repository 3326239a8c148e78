#pragma once
// The fleet a site runs: regions, racks (placement, design power, host names and addresses), the
// host inventory and training jobs, either generated from counts (--regions/--racks) or read from
// a fleet file (format documented in scenarios/README.md). The twin builds it; the real sources
// map a site's telemetry onto it.

#include "ConfigError.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server {

// How a compute tray's host names its parts: the inventory that maps real telemetry onto the
// topology (fleet file `inventory` lines; see scenarios/README.md).
struct HostLayout {
    std::array<std::uint32_t, 4> dcgmGpuIndex{0, 1, 2, 3};  // DCGM's gpu index of slots g0..g3
    struct NicName {
        std::string device;  // e.g. "mlx5_0"
        std::uint32_t port = 1;
    };
    std::array<NicName, 4> nics{{{"mlx5_0", 1}, {"mlx5_1", 1}, {"mlx5_2", 1}, {"mlx5_3", 1}}};  // rails 0..3
};

struct RackSpec {
    std::string name;          // empty: generated ("r01"), padded to the fleet's rack count
    std::uint32_t region = 0;  // index into FleetSpec::regions
    std::string hall = "h1";
    std::uint32_t row = 1;
    std::uint32_t position = 1;
    double designPowerKw = 132.0;    // vendor GB200 reference designs size racks at 130-132 kW
    double supplySetpointC = 25.0;   // secondary loop supply (docs/domain/cooling.md)
    std::vector<std::string> hosts;  // host names of trays n01..n18; empty: the tray names
    std::string hostsPattern;        // hosts= as written ("{rack}" = the rack's name), expanded into `hosts`
    // addresses= of trays n01..n18 (an IPv4 address or a DNS name each, as the site's scrapers
    // reach them); empty: none given. As written in `addressesPattern`, expanded like hosts=.
    std::vector<std::string> addresses;
    std::string addressesPattern;
    // bmcs= of trays n01..n18: where each tray's BMC (its Redfish service) answers, an IPv4
    // address or a DNS name; empty: none given. As written in `bmcsPattern`, expanded like hosts=.
    std::vector<std::string> bmcs;
    std::string bmcsPattern;
    // How the facility's Redfish service (CDUs or the building-management aggregator) names this
    // rack's cooling: the CoolingUnit feeding its loop (cdu=; empty: cdu-<region>-<hall>-rowNN),
    // the CDU's secondary CoolantConnector to the rack (connector=; empty: the rack's name) and
    // the LeakDetectors under that CDU's LeakDetection watching the rack (leak_detectors=HOSTLIST;
    // empty: <rack>-manifold and <rack>-drip). "{rack}" in any of them is the rack's name.
    std::string cdu;
    std::string coolantConnector;
    std::vector<std::string> leakDetectors;
    std::string leakDetectorsPattern;
    int sourceLine = 0;
    HostLayout layout;
};

struct RegionSpec {
    std::string name;
};

struct JobSpec {
    std::string name;
    std::string model;                   // key in TrainingModels ("405b", "70b", "8b")
    std::vector<std::string> rackNames;  // whole racks; expanded from "r01..r04" or "r01,r02"
    std::vector<std::string> trayNames;  // or single trays ("r07-n01..r07-n16")
    std::chrono::milliseconds checkpointInterval{std::chrono::minutes(30)};
    // ckpt_interval=auto: Young/Daly from the job's failure rate (measured once it has been
    // interrupted, the configured rates before), recomputed after every save.
    bool checkpointIntervalAuto = false;
    std::chrono::milliseconds checkpointSave{std::chrono::seconds(30)};
    int sourceLine = 0;  // fleet-file line, for errors about unknown names
};

struct FleetSpec {
    std::string fleetName = "watchfloor-twin";
    std::string sourceFile;  // empty when generated
    std::vector<RegionSpec> regions;
    std::vector<RackSpec> racks;
    std::vector<JobSpec> jobs;  // empty: the twin places a default job mix
    // `inventory domains=`: the DNS domains a telemetry label may qualify a host name with
    // (lower case, no leading dot); empty: none listed.
    std::vector<std::string> hostDomains;
};

// 2 regions / 7 racks by default ("us-east" r01-r04, "us-west" r05-r07); racks are split evenly
// over regions, 10 racks to a row and 20 rows to a hall.
FleetSpec generatedFleetSpec(std::uint32_t regions, std::uint32_t racks);

// Returns nothing and fills `error` (file, line, problem) for a malformed file.
std::optional<FleetSpec> readFleetFile(const std::string& path, ConfigError* error);

// "r01..r04" → every name from r01 to r04 in `ordered`; "a,b" → {a, b}; otherwise {text}.
// Returns nothing (error text in `problem`) when a name is not in `ordered`.
std::optional<std::vector<std::string>> expandNameList(const std::string& text, const std::vector<std::string>& ordered,
                                                       std::string* problem);

}  // namespace watchfloor::server
