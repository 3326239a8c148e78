#pragma once
// Which rack each piece of a facility's Redfish cooling tree belongs to, from the fleet file:
// the CDU (CoolingUnit Id) feeding a rack's loop, the CDU's secondary CoolantConnector to that
// rack, and the CDU's LeakDetectors that watch it. The twin names its tree by this map and the
// Redfish source reads a real tree through it, so both sides agree by construction.

#include "FleetSpec.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace watchfloor::server::redfish {

struct RackCooling {
    std::uint32_t rackIndex = 0;
    std::uint32_t loopIndex = 0;
    std::string rackName;
    std::string cdu;                         // CoolingUnit Id
    std::string connector;                   // SecondaryCoolantConnectors member Id
    std::vector<std::string> leakDetectors;  // LeakDetection/LeakDetectors member Ids
};

class CoolingMap {
public:
    CoolingMap() = default;
    // Every rack of `topology`; what `spec` (when given) says about a rack of that name, else the
    // defaults: the loop's cdu_name, the rack's name, "<rack>-manifold" and "<rack>-drip".
    CoolingMap(const watchfloor::v1::Topology& topology, const server::FleetSpec* spec);

    const std::vector<RackCooling>& racks() const { return racks_; }
    std::vector<std::string> cdus() const;  // sorted
    std::vector<const RackCooling*> racksOf(const std::string& cdu) const;
    const RackCooling* byConnector(const std::string& cdu, const std::string& connector) const;
    const RackCooling* byDetector(const std::string& cdu, const std::string& detector) const;

private:
    std::vector<RackCooling> racks_;
    std::map<std::pair<std::string, std::string>, std::size_t> byConnector_, byDetector_;
};

}  // namespace watchfloor::server::redfish
