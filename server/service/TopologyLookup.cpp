#include "TopologyLookup.h"

#include <algorithm>
#include <charconv>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

DetailTier detailTierOf(v1::DetailLevel level) {
    switch (level) {
    case v1::DETAIL_LEVEL_SUMMARY: return DetailTier::Summary;
    case v1::DETAIL_LEVEL_FULL: return DetailTier::Full;
    default: return DetailTier::Standard;
    }
}

DetailTier detailTierOf(v1::EntityKind kind) {
    switch (kind) {
    case v1::ENTITY_KIND_NODE:
    case v1::ENTITY_KIND_GPU:
    case v1::ENTITY_KIND_CPU:
    case v1::ENTITY_KIND_NVSWITCH_TRAY:
    case v1::ENTITY_KIND_POWER_SHELF: return DetailTier::Standard;
    case v1::ENTITY_KIND_NVLINK:
    case v1::ENTITY_KIND_NIC_PORT: return DetailTier::Full;
    default:  // fleet, region, rack, cooling loop, job
        return DetailTier::Summary;
    }
}

TopologyLookup::TopologyLookup(const v1::Topology& topology) : topology_(topology) {
    const auto& t = topology_;
    add(t.fleet_index(), v1::ENTITY_KIND_FLEET, kNone, "fleet", 0);
    for (int i = 0; i < t.regions_size(); ++i) {
        const auto& r = t.regions(i);
        add(r.index(), v1::ENTITY_KIND_REGION, t.fleet_index(), r.name(), i);
        racksOfRegion_[r.index()].assign(r.rack_indexes().begin(), r.rack_indexes().end());
    }
    for (int i = 0; i < t.racks_size(); ++i)
        add(t.racks(i).index(), v1::ENTITY_KIND_RACK, t.racks(i).region_index(), t.racks(i).name(), i);
    for (int i = 0; i < t.cooling_loops_size(); ++i)
        add(t.cooling_loops(i).index(), v1::ENTITY_KIND_COOLING_LOOP, t.cooling_loops(i).rack_index(),
            t.cooling_loops(i).name(), i);
    for (int i = 0; i < t.power_shelves_size(); ++i)
        add(t.power_shelves(i).index(), v1::ENTITY_KIND_POWER_SHELF, t.power_shelves(i).rack_index(),
            t.power_shelves(i).name(), i);
    for (int i = 0; i < t.nvswitch_trays_size(); ++i)
        add(t.nvswitch_trays(i).index(), v1::ENTITY_KIND_NVSWITCH_TRAY, t.nvswitch_trays(i).rack_index(),
            t.nvswitch_trays(i).name(), i);
    for (int i = 0; i < t.nodes_size(); ++i)
        add(t.nodes(i).index(), v1::ENTITY_KIND_NODE, t.nodes(i).rack_index(), t.nodes(i).name(), i);
    for (int i = 0; i < t.gpus_size(); ++i)
        add(t.gpus(i).index(), v1::ENTITY_KIND_GPU, t.gpus(i).node_index(), t.gpus(i).name(), i);
    for (int i = 0; i < t.cpus_size(); ++i)
        add(t.cpus(i).index(), v1::ENTITY_KIND_CPU, t.cpus(i).node_index(), t.cpus(i).name(), i);
    for (int i = 0; i < t.nic_ports_size(); ++i)
        add(t.nic_ports(i).index(), v1::ENTITY_KIND_NIC_PORT, t.nic_ports(i).node_index(), t.nic_ports(i).name(), i);
    static const std::string noName;
    for (int i = 0; i < t.nvlinks_size(); ++i)  // named through their GPU, see findByName
        add(t.nvlinks(i).index(), v1::ENTITY_KIND_NVLINK, t.nvlinks(i).gpu_index(), noName, i);

    // Resolve each entity's rack once, so filters never walk the tree per sample.
    for (std::uint32_t i = 0; i < kind_.size(); ++i) {
        std::uint32_t at = i;
        for (int depth = 0; depth < 6 && at != kNone; ++depth) {
            if (kind(at) == v1::ENTITY_KIND_RACK) {
                rack_[i] = at;
                break;
            }
            if (kind(at) == v1::ENTITY_KIND_REGION || kind(at) == v1::ENTITY_KIND_FLEET) break;
            at = parentOf(at);
        }
    }
}

void TopologyLookup::add(std::uint32_t index, v1::EntityKind kind, std::uint32_t parent, const std::string& name,
                         std::uint32_t position) {
    if (index >= kind_.size()) {
        const std::size_t size = std::max<std::size_t>(index + 1, kind_.size() * 3 / 2);
        kind_.resize(size, v1::ENTITY_KIND_UNSPECIFIED);
        parent_.resize(size, kNone);
        rack_.resize(size, kNone);
        position_.resize(size, 0);
    }
    kind_[index] = static_cast<std::uint8_t>(kind);
    parent_[index] = parent;
    position_[index] = position;
    if (!name.empty()) byName_.emplace(name, index);
}

v1::EntityKind TopologyLookup::kind(std::uint32_t index) const {
    return index < kind_.size() ? static_cast<v1::EntityKind>(kind_[index]) : v1::ENTITY_KIND_UNSPECIFIED;
}

std::uint32_t TopologyLookup::rackOf(std::uint32_t index) const { return index < rack_.size() ? rack_[index] : kNone; }

std::uint32_t TopologyLookup::parentOf(std::uint32_t index) const {
    return index < parent_.size() ? parent_[index] : kNone;
}

std::uint32_t TopologyLookup::regionOf(std::uint32_t index) const {
    std::uint32_t at = index;
    for (int depth = 0; depth < 8 && at != kNone; ++depth) {
        if (kind(at) == v1::ENTITY_KIND_REGION) return at;
        at = parentOf(at);
    }
    return kNone;
}

bool TopologyLookup::isInside(std::uint32_t entity, std::uint32_t ancestor) const {
    std::uint32_t at = entity;
    for (int depth = 0; depth < 8 && at != kNone; ++depth) {
        if (at == ancestor) return true;
        at = parentOf(at);
    }
    return false;
}

std::optional<std::uint32_t> TopologyLookup::findByName(std::string_view name) const {
    if (auto it = byName_.find(std::string(name)); it != byName_.end()) return it->second;
    if (name == topology_.fleet_name() && !name.empty()) return fleetIndex();
    // NVLink names are "<gpu name>-lNN".
    const auto dash = name.rfind("-l");
    if (dash == std::string_view::npos) return std::nullopt;
    const auto gpu = byName_.find(std::string(name.substr(0, dash)));
    if (gpu == byName_.end() || kind(gpu->second) != v1::ENTITY_KIND_GPU) return std::nullopt;
    unsigned linkId = 0;
    const auto digits = name.substr(dash + 2);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), linkId);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    const auto& g = topology_.gpus(static_cast<int>(position_[gpu->second]));
    for (std::uint32_t link : g.nvlink_indexes())
        if (kind(link) == v1::ENTITY_KIND_NVLINK &&
            topology_.nvlinks(static_cast<int>(position_[link])).link_id() == linkId)
            return link;
    return std::nullopt;
}

std::optional<std::uint32_t> TopologyLookup::findRack(std::string_view name) const {
    auto found = findByName(name);
    if (found && kind(*found) == v1::ENTITY_KIND_RACK) return found;
    return std::nullopt;
}

std::optional<std::uint32_t> TopologyLookup::findRegion(std::string_view name) const {
    auto found = findByName(name);
    if (found && kind(*found) == v1::ENTITY_KIND_REGION) return found;
    return std::nullopt;
}

const std::vector<std::uint32_t>& TopologyLookup::racksOfRegion(std::uint32_t regionIndex) const {
    static const std::vector<std::uint32_t> none;
    auto it = racksOfRegion_.find(regionIndex);
    return it == racksOfRegion_.end() ? none : it->second;
}

std::string TopologyLookup::nameOf(std::uint32_t index) const {
    const auto& t = topology_;
    const int at = index < position_.size() ? static_cast<int>(position_[index]) : 0;
    switch (kind(index)) {
    case v1::ENTITY_KIND_FLEET: return "fleet";
    case v1::ENTITY_KIND_REGION: return t.regions(at).name();
    case v1::ENTITY_KIND_RACK: return t.racks(at).name();
    case v1::ENTITY_KIND_COOLING_LOOP: return t.cooling_loops(at).name();
    case v1::ENTITY_KIND_POWER_SHELF: return t.power_shelves(at).name();
    case v1::ENTITY_KIND_NVSWITCH_TRAY: return t.nvswitch_trays(at).name();
    case v1::ENTITY_KIND_NODE: return t.nodes(at).name();
    case v1::ENTITY_KIND_GPU: return t.gpus(at).name();
    case v1::ENTITY_KIND_CPU: return t.cpus(at).name();
    case v1::ENTITY_KIND_NIC_PORT: return t.nic_ports(at).name();
    case v1::ENTITY_KIND_NVLINK: return t.nvlinks(at).name();
    default: return "#" + std::to_string(index);
    }
}

}  // namespace watchfloor::server::service
