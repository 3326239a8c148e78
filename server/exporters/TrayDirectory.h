#pragma once
// The compute trays of a fleet as the hosts a scraper sees: each tray's host name and the GPUs,
// CPUs and NIC ports its exporters report, plus whether the tray has power (an unpowered host's
// exporters do not answer).

#include "FleetStateStore.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::exporters {

struct TrayHost {
    std::string hostname;
    const watchfloor::v1::Node* node = nullptr;
    std::vector<const watchfloor::v1::Gpu*> gpus;          // by local_id
    std::vector<const watchfloor::v1::Cpu*> cpus;          // in topology order
    std::vector<const watchfloor::v1::NicPort*> nicPorts;  // by port_id
};

// The inventory's host name, else the Slurm node name (the fleet file names no hosts).
const std::string& hostnameOf(const watchfloor::v1::Node& node);

class TrayDirectory {
public:
    // Keeps pointers into `topology`, which must outlive the directory (a FleetSource's does).
    explicit TrayDirectory(const watchfloor::v1::Topology& topology);

    const TrayHost* find(std::string_view hostname) const;
    const std::vector<TrayHost>& hosts() const { return hosts_; }

private:
    std::vector<TrayHost> hosts_;  // topology order
    std::unordered_map<std::string_view, std::size_t> byHostname_;
};

// The twin cuts a tray's power when its rack's breaker opens (RACK_ELECTRICAL_ISOLATION_STATUS 1)
// or the tray shuts down over temperature; either way its GPUs stop reporting while the rack's
// own values keep arriving. A tray DOWN for a GPU fault keeps power: its host runs and its
// exporters answer (with blanks for a GPU that fell off the bus). A fleet that has not reported
// yet has no powered trays either.
bool isTrayPowered(const service::FleetStateStore& store, const TrayHost& tray);

}  // namespace watchfloor::server::exporters
