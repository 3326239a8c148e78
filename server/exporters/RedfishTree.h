#pragma once
// The twin's cooling as a facility Redfish service (DMTF Redfish 2025.4 schemas) would publish
// it: the service root, ThermalEquipment, one CoolingUnit (EquipmentType CDU) per row CDU, its
// secondary CoolantConnectors (one per rack loop it feeds), a primary connector to facility
// water, its pumps, filter and reservoir, LeakDetection with one group per rack, and the CDU's
// chassis holding the leak detectors themselves (/redfish/v1/Chassis/{cdu}/LeakDetectors). Values
// are the fleet store's newest readings of each loop, in the schemas' units; a reading the twin
// has not made yet is null. Reads take the store's shared lock only.

#include "CoolingMap.h"
#include "FleetStateStore.h"

#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::exporters {

struct RedfishAnswer {
    int status = 200;
    std::string body;  // JSON: the resource, or a Redfish error object
};

inline constexpr std::string_view kRedfishRoot = "/redfish/v1";
inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";

class TrayBmcs;

class RedfishTree {
public:
    RedfishTree(const service::FleetStateStore& store, redfish::CoolingMap map);

    // GET of `path` (no query string); 404 with a Redfish error for anything not in the tree.
    // `authorization`: the request's header, for the trays' BMCs (401 when they need one).
    RedfishAnswer get(std::string_view path, std::string_view authorization = {}) const;
    // The trays' BMCs beside the CDUs (Systems, their Chassis, TaskService); null: CDUs only.
    void serveTrayBmcs(TrayBmcs* bmcs) { bmcs_ = bmcs; }
    const redfish::CoolingMap& map() const { return map_; }

private:
    struct Loop;
    Loop loop(const redfish::RackCooling& rack) const;
    std::string serviceRoot() const;
    std::string thermalEquipment() const;
    std::string collection(std::string_view path, std::string_view type, std::string_view name,
                           const std::vector<std::string>& ids) const;
    std::string coolingUnit(const std::string& cdu) const;
    std::string secondaryConnector(const std::string& cdu, const redfish::RackCooling& rack) const;
    std::string primaryConnector(const std::string& cdu) const;
    std::string pump(const std::string& cdu, int pump) const;
    std::string filter(const std::string& cdu) const;
    std::string reservoir(const std::string& cdu) const;
    std::string leakDetection(const std::string& cdu) const;
    RedfishAnswer chassisPart(const std::vector<std::string_view>& segments, std::string_view path) const;
    std::string chassis(const std::string& cdu) const;
    std::string leakDetector(const std::string& cdu, const redfish::RackCooling& rack, std::size_t detector) const;
    std::uint32_t pumpsRunning(const std::string& cdu) const;
    bool filterLoaded(const std::string& cdu) const;

    const service::FleetStateStore& store_;
    redfish::CoolingMap map_;
    TrayBmcs* bmcs_ = nullptr;
};

// A Redfish error body ({"error": {"code", "message", "@Message.ExtendedInfo"}}).
std::string redfishError(std::string_view messageId, std::string_view message);

}  // namespace watchfloor::server::exporters
