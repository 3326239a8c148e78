#include "TopologyLookup.h"

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

TopologyLookup::TopologyLookup(const v1::Topology& topology) {
    std::string ignored;  // a malformed topology was reported where it was loaded
    (void)rebuild(borrowed(topology), &ignored);
    const auto& t = topology;
    std::size_t named =
        1 + std::size_t(t.regions_size() + t.racks_size() + t.cooling_loops_size() + t.power_shelves_size() +
                        t.nvswitch_trays_size() + t.nodes_size() + t.gpus_size() + t.cpus_size() + t.nic_ports_size());
    byName_.reserve(named);
    byName_.emplace("fleet", t.fleet_index());
    auto addNames = [this](const auto& list) {
        for (const auto& item : list)
            if (!item.name().empty()) byName_.emplace(item.name(), item.index());
    };
    addNames(t.regions());
    addNames(t.racks());
    addNames(t.cooling_loops());
    addNames(t.power_shelves());
    addNames(t.nvswitch_trays());
    addNames(t.nodes());
    addNames(t.gpus());
    addNames(t.cpus());
    addNames(t.nic_ports());
}

bool TopologyLookup::isInside(std::uint32_t entity, std::uint32_t ancestor) const {
    std::uint32_t at = entity;
    for (int depth = 0; depth < 8 && at != kNone; ++depth) {
        if (at == ancestor) return true;
        at = parent(at);
    }
    return false;
}

std::optional<std::uint32_t> TopologyLookup::findByName(std::string_view name) const {
    if (auto it = byName_.find(name); it != byName_.end()) return it->second;
    if (name == topology().fleet_name() && !name.empty()) return fleetIndex();
    // NVLink names are "<gpu name>-lNN".
    const auto dash = name.rfind("-l");
    if (dash == std::string_view::npos) return std::nullopt;
    const auto found = byName_.find(name.substr(0, dash));
    const v1::Gpu* g = found == byName_.end() ? nullptr : gpu(found->second);
    if (!g) return std::nullopt;
    unsigned linkId = 0;
    const auto digits = name.substr(dash + 2);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), linkId);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    for (std::uint32_t link : g->nvlink_indexes())
        if (const v1::NvLink* l = nvlink(link); l && l->link_id() == linkId) return link;
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

const google::protobuf::RepeatedField<std::uint32_t>& TopologyLookup::racksOfRegion(std::uint32_t regionIndex) const {
    static const google::protobuf::RepeatedField<std::uint32_t> none;
    const Entry* e = find(regionIndex);
    if (!e || e->kind != v1::ENTITY_KIND_REGION) return none;
    return topology().regions(int(e->slot)).rack_indexes();
}

std::string TopologyLookup::nameOf(std::uint32_t index) const {
    switch (kind(index)) {
    case v1::ENTITY_KIND_FLEET: return "fleet";
    case v1::ENTITY_KIND_UNSPECIFIED: return "#" + std::to_string(index);
    default: return name(index);
    }
}

}  // namespace watchfloor::server::service
