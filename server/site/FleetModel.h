#pragma once
// The built fleet: the Topology message plus the arithmetic that maps an entity's ordinal within
// its kind (rack 3, GPU 1207, ...) to its entity index and back. Every kind occupies one
// contiguous block of the index space, so per-kind state lives in flat arrays.

#include "FleetSpec.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server {

inline constexpr std::uint32_t kTraysPerRack = 18;
inline constexpr std::uint32_t kGpusPerTray = 4;
inline constexpr std::uint32_t kCpusPerTray = 2;
inline constexpr std::uint32_t kSwitchTraysPerRack = 9;
inline constexpr std::uint32_t kPowerShelvesPerRack = 8;  // 8 shelves x 6 PSU x 5.5 kW (BCM)
inline constexpr double kPowerShelfCapacityKw = 33.0;
inline constexpr std::uint32_t kLinksPerGpu = 18;     // NVLink5
inline constexpr std::uint32_t kNicPortsPerTray = 4;  // one rail-k NIC per GPU
inline constexpr std::uint32_t kGpusPerRack = kTraysPerRack * kGpusPerTray;
inline constexpr std::uint32_t kLeakSensorsPerLoop = kTraysPerRack + 2;  // tray + manifold
inline constexpr double kFlowLpmPerKw = 1.5;                             // OCP guideline (docs/domain/cooling.md)

struct EntityRef {
    watchfloor::v1::EntityKind kind = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
    std::uint32_t ordinal = 0;  // within the kind
};

class FleetModel {
public:
    // Builds the topology for `spec` with room for `jobCount` job entities.
    FleetModel(const FleetSpec& spec, std::uint32_t jobCount);

    const watchfloor::v1::Topology& topology() const { return topology_; }

    std::uint32_t regions() const { return regionCount_; }
    std::uint32_t racks() const { return rackCount_; }
    std::uint32_t trays() const { return rackCount_ * kTraysPerRack; }
    std::uint32_t gpus() const { return trays() * kGpusPerTray; }
    std::uint32_t cpus() const { return trays() * kCpusPerTray; }
    std::uint32_t links() const { return gpus() * kLinksPerGpu; }
    std::uint32_t nics() const { return trays() * kNicPortsPerTray; }
    std::uint32_t cdus() const { return static_cast<std::uint32_t>(cduNames_.size()); }

    std::uint32_t fleetIndex() const { return 0; }
    std::uint32_t regionIndex(std::uint32_t r) const { return regionBase_ + r; }
    std::uint32_t rackIndex(std::uint32_t r) const { return rackBase_ + r; }
    std::uint32_t loopIndex(std::uint32_t r) const { return loopBase_ + r; }
    std::uint32_t trayIndex(std::uint32_t t) const { return trayBase_ + t; }
    std::uint32_t cpuIndex(std::uint32_t c) const { return cpuBase_ + c; }
    std::uint32_t gpuIndex(std::uint32_t g) const { return gpuBase_ + g; }
    std::uint32_t linkIndex(std::uint32_t l) const { return linkBase_ + l; }
    std::uint32_t nicIndex(std::uint32_t n) const { return nicBase_ + n; }
    std::uint32_t jobIndex(std::uint32_t j) const { return jobBase_ + j; }

    std::uint32_t rackOfTray(std::uint32_t t) const { return t / kTraysPerRack; }
    std::uint32_t trayOfGpu(std::uint32_t g) const { return g / kGpusPerTray; }
    std::uint32_t regionOfRack(std::uint32_t r) const { return rackRegion_[r]; }
    std::uint32_t cduOfRack(std::uint32_t r) const { return rackCdu_[r]; }
    const std::string& cduName(std::uint32_t c) const { return cduNames_[c]; }
    double designPowerKw(std::uint32_t r) const { return topology_.racks(static_cast<int>(r)).design_power_kw(); }
    double supplySetpointC(std::uint32_t r) const {
        return topology_.cooling_loops(static_cast<int>(r)).supply_setpoint_c();
    }

    const std::string& rackName(std::uint32_t r) const { return topology_.racks(static_cast<int>(r)).name(); }
    const std::string& trayName(std::uint32_t t) const { return topology_.nodes(static_cast<int>(t)).name(); }
    const std::string& gpuName(std::uint32_t g) const { return topology_.gpus(static_cast<int>(g)).name(); }
    const std::string& linkName(std::uint32_t l) const { return topology_.nvlinks(static_cast<int>(l)).name(); }
    const std::string& nicName(std::uint32_t n) const { return topology_.nic_ports(static_cast<int>(n)).name(); }
    const std::string& regionName(std::uint32_t r) const { return topology_.regions(static_cast<int>(r)).name(); }

    // Entity names as operators type them: "r03", "r03-n04", "r03-n04-g2", "r03-n04-g2-l05",
    // "r03-n04-ib1", "r03-loop", "us-east". Parsed structurally (no 2.7 M-entry name table).
    std::optional<EntityRef> find(const std::string& name) const;

    std::vector<std::string> rackNames() const;
    std::vector<std::string> trayNames() const;

private:
    watchfloor::v1::Topology topology_;
    std::uint32_t regionCount_ = 0;
    std::uint32_t rackCount_ = 0;
    std::uint32_t regionBase_ = 0, rackBase_ = 0, loopBase_ = 0, shelfBase_ = 0, switchBase_ = 0, trayBase_ = 0,
                  cpuBase_ = 0, gpuBase_ = 0, nicBase_ = 0, linkBase_ = 0, jobBase_ = 0;
    std::vector<std::uint32_t> rackRegion_;
    std::vector<std::uint32_t> rackCdu_;
    std::vector<std::string> cduNames_;
    std::map<std::string, std::uint32_t> rackByName_;
    std::map<std::string, std::uint32_t> regionByName_;
};

}  // namespace watchfloor::server
