#include "InventoryIndex.h"

#include <algorithm>
#include <map>

namespace watchfloor::server::sources {

namespace {

constexpr std::size_t kMaxName = 253;  // a DNS name's longest text form

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

std::string lowerCase(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = lower(c);
    return out;
}

// `name` without ".domain" when it ends so; empty otherwise.
std::string_view withoutDomain(std::string_view name, std::string_view domain) {
    if (name.size() <= domain.size() + 1 || !name.ends_with(domain) || name[name.size() - domain.size() - 1] != '.')
        return {};
    return name.substr(0, name.size() - domain.size() - 1);
}

// A name as a PromQL string holds a regular expression of it: '.' and the other RE2
// metacharacters escaped, each backslash doubled for the string literal.
std::string regexQuoted(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos) out += "\\\\";
        out += c;
    }
    return out;
}

}  // namespace

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

    // The other names of every tray (see the header): the address, name.domain, short names.
    std::map<std::pair<const void*, std::string>, std::vector<std::string>> claims;  // (table, key) → hosts
    auto alias = [&](ByName<HostParts*>& table, const std::string& key, HostParts& parts, const std::string& host) {
        auto& hosts = claims[{&table, key}];
        if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
        auto [it, added] = table.emplace(key, &parts);
        if (!added && it->second != &parts) it->second = nullptr;  // two trays: neither
    };
    for (const auto& domain : topology.host_domains()) domains_.push_back(lowerCase(domain));
    for (const auto& node : topology.nodes()) {
        const std::string& host = node.hostname().empty() ? node.name() : node.hostname();
        HostParts& parts = nodeByHost_.at(host);
        if (parts.node != node.index()) continue;  // a duplicated host name: the first tray keeps it
        std::vector<std::string> own{lowerCase(host)};
        if (!node.address().empty()) own.push_back(lowerCase(node.address()));
        for (const auto& name : own) {
            alias(aliases_, name, parts, host);
            if (isAddress(name)) continue;
            const auto dot = name.find('.');
            if (dot == std::string::npos) {
                if (name == own.front() && domains_.empty()) parts.anyDomain = true;
                for (const auto& domain : domains_) alias(aliases_, name + "." + domain, parts, host);
            } else if (domains_.empty()) {
                alias(shortNames_, name.substr(0, dot), parts, host);
            } else {
                for (const auto& domain : domains_)
                    if (const auto shortName = withoutDomain(name, domain); !shortName.empty())
                        alias(shortNames_, std::string(shortName), parts, host);
            }
        }
    }
    for (const auto* table : {&aliases_, &shortNames_})
        for (const auto& [key, parts] : *table) {
            if (parts) {
                parts->names.push_back(key);
                continue;
            }
            std::string trays;
            for (const auto& host : claims[{table, key}]) trays += (trays.empty() ? "" : ", ") + host;
            ambiguities_.push_back(key + ": " + trays);
            traysOfAmbiguous_.emplace(key, std::move(trays));
        }
    for (auto& [name, parts] : nodeByHost_) std::sort(parts.names.begin(), parts.names.end());
    std::sort(ambiguities_.begin(), ambiguities_.end());
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

bool InventoryIndex::isAddress(std::string_view name) {
    if (name.find(':') != std::string_view::npos) return true;
    int dots = 0;
    for (const char c : name) {
        if (c == '.')
            ++dots;
        else if (c < '0' || c > '9')
            return false;
    }
    return dots == 3;
}

const InventoryIndex::HostParts* InventoryIndex::host(std::string_view name) const {
    // The inventory's own spelling first: what nearly every series of a consistent site has.
    if (auto it = nodeByHost_.find(name); it != nodeByHost_.end()) return &it->second;
    if (name.empty() || name.size() > kMaxName) return nullptr;
    char buffer[kMaxName];
    for (std::size_t i = 0; i < name.size(); ++i) buffer[i] = lower(name[i]);
    const std::string_view key(buffer, name.size());
    if (auto it = aliases_.find(key); it != aliases_.end()) return it->second;
    if (isAddress(key)) return nullptr;
    const auto dot = key.find('.');
    if (dot == std::string_view::npos) {
        auto it = shortNames_.find(key);
        return it == shortNames_.end() ? nullptr : it->second;
    }
    // A qualified name: its short name, when the domain is listed (any domain without a list).
    std::string_view shortName;
    if (domains_.empty()) {
        shortName = key.substr(0, dot);
    } else {
        for (const auto& domain : domains_)
            if (shortName = withoutDomain(key, domain); !shortName.empty()) break;
        if (shortName.empty()) return nullptr;
    }
    if (auto it = aliases_.find(shortName); it != aliases_.end()) return it->second;
    if (domains_.empty()) return nullptr;  // "a.x" is not "a.y" unless both domains are listed
    auto it = shortNames_.find(shortName);
    return it == shortNames_.end() ? nullptr : it->second;
}

std::string InventoryIndex::hostRegex(std::string_view name) const {
    const auto it = nodeByHost_.find(name);
    if (it == nodeByHost_.end()) return {};
    std::string regex = "(?i:";
    for (std::size_t i = 0; i < it->second.names.size(); ++i) {
        if (i) regex += '|';
        regex += regexQuoted(it->second.names[i]);
        if (it->second.anyDomain && it->second.names[i] == lowerCase(name)) regex += "(\\\\.[-a-z0-9_.]+)?";
    }
    return regex + ")";
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

std::optional<std::string> InventoryIndex::ambiguity(std::string_view host) const {
    const auto it = traysOfAmbiguous_.find(lowerCase(host));
    if (it == traysOfAmbiguous_.end()) return std::nullopt;
    return it->second;
}

}  // namespace watchfloor::server::sources
