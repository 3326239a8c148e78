#include "TrayDirectory.h"

#include <algorithm>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

const std::string& hostnameOf(const v1::Node& node) { return node.hostname().empty() ? node.name() : node.hostname(); }

TrayDirectory::TrayDirectory(const v1::Topology& topology) {
    std::unordered_map<std::uint32_t, std::size_t> byNode;
    hosts_.reserve(static_cast<std::size_t>(topology.nodes_size()));
    for (const auto& node : topology.nodes()) {
        byNode.emplace(node.index(), hosts_.size());
        hosts_.push_back(TrayHost{hostnameOf(node), &node, {}, {}, {}});
    }
    auto hostOf = [&](std::uint32_t nodeIndex) -> TrayHost* {
        const auto it = byNode.find(nodeIndex);
        return it == byNode.end() ? nullptr : &hosts_[it->second];
    };
    for (const auto& gpu : topology.gpus())
        if (TrayHost* host = hostOf(gpu.node_index())) host->gpus.push_back(&gpu);
    for (const auto& cpu : topology.cpus())
        if (TrayHost* host = hostOf(cpu.node_index())) host->cpus.push_back(&cpu);
    for (const auto& port : topology.nic_ports())
        if (TrayHost* host = hostOf(port.node_index())) host->nicPorts.push_back(&port);
    for (auto& host : hosts_) {
        std::stable_sort(host.gpus.begin(), host.gpus.end(),
                         [](const v1::Gpu* a, const v1::Gpu* b) { return a->local_id() < b->local_id(); });
        std::stable_sort(host.nicPorts.begin(), host.nicPorts.end(),
                         [](const v1::NicPort* a, const v1::NicPort* b) { return a->port_id() < b->port_id(); });
    }
    // A duplicated host name answers for its first tray; the inventory engineer rejects them.
    for (std::size_t i = 0; i < hosts_.size(); ++i) byHostname_.emplace(hosts_[i].hostname, i);
}

const TrayHost* TrayDirectory::find(std::string_view hostname) const {
    const auto it = byHostname_.find(hostname);
    return it == byHostname_.end() ? nullptr : &hosts_[it->second];
}

bool isTrayPowered(const service::FleetStateStore& store, const TrayHost& tray) {
    const std::uint32_t rack = tray.node->rack_index();
    const auto breaker = store.latest(rack, v1::RACK_ELECTRICAL_ISOLATION_STATUS);
    if (!breaker) return false;
    if (breaker->value >= 0.5f) return false;
    for (const v1::Gpu* gpu : tray.gpus) {
        const auto temp = store.latest(gpu->index(), v1::DCGM_FI_DEV_GPU_TEMP);
        if (temp && temp->sampleTimeMs >= breaker->sampleTimeMs) return true;
    }
    return false;
}

}  // namespace watchfloor::server::exporters
