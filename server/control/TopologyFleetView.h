#pragma once
// The fleet facts a real site's topology alone can give (trays, their rack and GPUs, a rack's
// trays), for the control plane when fleetd reads a real fleet. Node states and jobs come from
// Slurm (SlurmFleetView wraps this); leaks and isolation are the facility's and unknown here.

#include "FleetView.h"

#include <functional>
#include <memory>
#include <unordered_map>

namespace watchfloor::server {
class SlurmNodeNames;
}

namespace watchfloor::server::control {

using watchfloor::server::SlurmNodeNames;

class TopologyFleetView final : public FleetView {
public:
    using EventLookup = std::function<std::optional<EventFacts>(std::uint64_t)>;
    TopologyFleetView(const watchfloor::v1::Topology& topology, EventLookup events);

    std::optional<NodeFacts> node(const std::string& name) const override;
    std::optional<JobFacts> job(const std::string&) const override { return std::nullopt; }
    std::optional<RackFacts> rack(const std::string& name) const override;
    std::optional<EventFacts> event(std::uint64_t id) const override { return events_ ? events_(id) : std::nullopt; }

private:
    struct Tray {
        std::string rack;
        std::uint32_t gpus = 0;
    };
    std::unordered_map<std::string, Tray> trays_;
    std::unordered_map<std::string, std::vector<std::string>> traysOfRack_;
    EventLookup events_;
};

// Entity name → the host name Slurm knows, for every tray whose host name differs.
std::shared_ptr<const SlurmNodeNames> slurmNodeNamesOf(const watchfloor::v1::Topology& topology);

}  // namespace watchfloor::server::control
