#include "TopologyFleetView.h"

#include "SlurmScheduler.h"

namespace watchfloor::server::control {

TopologyFleetView::TopologyFleetView(const watchfloor::v1::Topology& topology, EventLookup events)
    : events_(std::move(events)) {
    std::unordered_map<std::uint32_t, std::string> rackNames;
    for (const auto& rack : topology.racks()) rackNames[rack.index()] = rack.name();
    for (const auto& node : topology.nodes()) {
        trays_[node.name()] = {rackNames[node.rack_index()], std::uint32_t(node.gpu_indexes_size())};
        traysOfRack_[rackNames[node.rack_index()]].push_back(node.name());
    }
}

std::optional<NodeFacts> TopologyFleetView::node(const std::string& name) const {
    const auto it = trays_.find(name);
    if (it == trays_.end()) return std::nullopt;
    NodeFacts facts;
    facts.name = name;
    facts.rack = it->second.rack;
    facts.gpus = it->second.gpus;
    return facts;
}

std::optional<RackFacts> TopologyFleetView::rack(const std::string& name) const {
    const auto it = traysOfRack_.find(name);
    if (it == traysOfRack_.end()) return std::nullopt;
    RackFacts facts;
    facts.name = name;
    facts.nodes = it->second;
    return facts;
}

std::shared_ptr<const SlurmNodeNames> slurmNodeNamesOf(const watchfloor::v1::Topology& topology) {
    auto names = std::make_shared<SlurmNodeNames>();
    for (const auto& node : topology.nodes())
        if (!node.hostname().empty()) names->add(node.name(), node.hostname());
    return names;
}

}  // namespace watchfloor::server::control
