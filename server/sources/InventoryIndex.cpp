#include "InventoryIndex.h"

namespace watchfloor::server::sources {

InventoryIndex::InventoryIndex(const watchfloor::v1::Topology& topology) {
    std::unordered_map<std::uint32_t, HostParts*> partsOfNode;
    for (const auto& node : topology.nodes()) {
        auto& parts = nodeByHost_[node.hostname().empty() ? node.name() : node.hostname()];
        parts.node = node.index();
        partsOfNode[node.index()] = &parts;
        rackOfNode_[node.index()] = node.rack_index();
    }
    for (const auto& gpu : topology.gpus()) {
        if (auto it = partsOfNode.find(gpu.node_index()); it != partsOfNode.end())
            it->second->gpus.push_back({gpu.dcgm_gpu_index(), gpu.index()});
        if (!gpu.uuid().empty()) gpuByUuid_[gpu.uuid()] = gpu.index();
    }
    for (auto& [name, parts] : nodeByHost_)
        for (Gpu& gpu : parts.gpus) slotOfGpu_[gpu.entity] = &gpu;
    for (const auto& nic : topology.nic_ports()) {
        if (auto it = partsOfNode.find(nic.node_index()); it != partsOfNode.end()) {
            const std::string device =
                nic.host_device().empty() ? "mlx5_" + std::to_string(nic.port_id()) : nic.host_device();
            it->second->nics.push_back({device, nic.host_port() ? nic.host_port() : 1, nic.index()});
        }
    }
    for (const auto& link : topology.nvlinks()) {
        auto& links = linksOfGpu_[link.gpu_index()];
        if (links.size() <= link.link_id()) links.resize(link.link_id() + 1, 0);
        links[link.link_id()] = link.index();
    }
}

const InventoryIndex::HostParts* InventoryIndex::host(std::string_view name) const {
    // Sites often configure exporters with the short name while the inventory has it too; a
    // fully qualified name in a label is matched by its first component as a fallback.
    auto it = nodeByHost_.find(name);
    if (it == nodeByHost_.end()) {
        const auto dot = name.find('.');
        if (dot == std::string_view::npos) return nullptr;
        it = nodeByHost_.find(name.substr(0, dot));
        if (it == nodeByHost_.end()) return nullptr;
    }
    return &it->second;
}

std::optional<std::uint32_t> InventoryIndex::node(std::string_view name) const {
    const HostParts* parts = host(name);
    if (!parts) return std::nullopt;
    return parts->node;
}

std::optional<std::uint32_t> InventoryIndex::gpu(std::string_view name, std::uint32_t dcgmGpuIndex) const {
    const HostParts* parts = host(name);
    if (!parts) return std::nullopt;
    for (const Gpu& gpu : parts->gpus)
        if (gpu.dcgmIndex == dcgmGpuIndex) return gpu.entity;
    return std::nullopt;
}

std::optional<std::uint32_t> InventoryIndex::gpuReporting(std::string_view name, std::uint32_t dcgmGpuIndex,
                                                          std::string_view uuid) {
    HostParts* parts = lastHost_ && name == lastHostName_ ? lastHost_ : host(name);
    if (!parts) return std::nullopt;
    if (parts != lastHost_) {
        lastHostName_.assign(name);
        lastHost_ = parts;
    }
    for (Gpu& gpu : parts->gpus) {
        if (gpu.dcgmIndex != dcgmGpuIndex) continue;
        if (!uuid.empty() && !gpu.hasLearned(uuid)) learnUuid(uuid, gpu.entity);
        return gpu.entity;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> InventoryIndex::nicPort(std::string_view name, std::string_view device,
                                                     std::uint32_t port) const {
    const HostParts* parts = host(name);
    if (!parts) return std::nullopt;
    for (const auto& nic : parts->nics)
        if (nic.device == device && nic.port == port) return nic.entity;
    return std::nullopt;
}

bool InventoryIndex::hostEntities(std::string_view name, HostEntities& out) const {
    const HostParts* parts = host(name);
    if (!parts) return false;
    out.node = parts->node;
    out.gpus.clear();
    out.nicPorts.clear();
    for (const Gpu& gpu : parts->gpus) out.gpus.push_back(gpu.entity);
    for (const auto& nic : parts->nics) out.nicPorts.push_back(nic.entity);
    return true;
}

std::optional<std::uint32_t> InventoryIndex::nvlink(std::uint32_t gpu, std::uint32_t linkId) const {
    auto it = linksOfGpu_.find(gpu);
    if (it == linksOfGpu_.end() || linkId >= it->second.size()) return std::nullopt;
    return it->second[linkId];
}

std::optional<std::uint32_t> InventoryIndex::rackOfNode(std::uint32_t node) const {
    auto it = rackOfNode_.find(node);
    if (it == rackOfNode_.end()) return std::nullopt;
    return it->second;
}

void InventoryIndex::learnUuid(std::string_view uuid, std::uint32_t gpu) {
    if (uuid.empty()) return;
    auto it = gpuByUuid_.find(uuid);
    if (it == gpuByUuid_.end()) {
        gpuByUuid_.emplace(std::string(uuid), gpu);
    } else if (it->second != gpu) {
        // A GPU swapped into another slot: the newest report wins, and the old slot no longer has it.
        if (auto old = slotOfGpu_.find(it->second); old != slotOfGpu_.end() && old->second->hasLearned(uuid))
            old->second->learnedSize = 0;
        it->second = gpu;
    }
    if (auto slot = slotOfGpu_.find(gpu); slot != slotOfGpu_.end()) slot->second->remember(uuid);
}

std::optional<std::uint32_t> InventoryIndex::gpuByUuid(std::string_view uuid) const {
    auto it = gpuByUuid_.find(uuid);
    if (it == gpuByUuid_.end()) return std::nullopt;
    return it->second;
}

std::string_view InventoryIndex::hostOfInstance(std::string_view instance) {
    if (instance.starts_with('[')) {  // [v6]:port
        const auto close = instance.find(']');
        return close == std::string_view::npos ? instance : instance.substr(1, close - 1);
    }
    const auto colon = instance.rfind(':');
    if (colon == std::string_view::npos || instance.find(':') != colon) return instance;  // bare v6 or no port
    return instance.substr(0, colon);
}

}  // namespace watchfloor::server::sources
