#include "TopologyEntities.h"

#include <algorithm>

namespace watchfloor::proto {

namespace v1 = watchfloor::v1;

namespace {
// A topology whose indexes are this sparse is a bug of its sender; refusing it bounds our memory.
constexpr std::uint32_t kMaxIndexSpan = 64u * 1024u * 1024u;

const std::string kNoName;
}  // namespace

std::shared_ptr<const v1::Topology> TopologyEntities::borrowed(const v1::Topology& topology) {
    return std::shared_ptr<const v1::Topology>(std::shared_ptr<const v1::Topology>(), &topology);
}

bool TopologyEntities::place(std::uint32_t index, v1::EntityKind kind, std::uint32_t slot, std::string* error) {
    if (index >= kMaxIndexSpan) {
        if (error) *error = "entity index " + std::to_string(index) + " is out of range";
        return false;
    }
    if (index >= m_entries.size()) {
        m_entries.resize(std::size_t(index) + 1);
    }
    Entry& e = m_entries[index];
    if (e.kind != v1::ENTITY_KIND_UNSPECIFIED) {
        if (error) *error = "entity index " + std::to_string(index) + " is used twice";
        return false;
    }
    if (slot > kMaxSlot) {
        if (error) *error = "more than " + std::to_string(kMaxSlot) + " entities of one kind";
        return false;
    }
    e.kind = std::uint32_t(kind);
    e.slot = slot;
    m_counts[kind] = std::max(m_counts[kind], slot + 1);
    return true;
}

void TopologyEntities::unplace(v1::EntityKind kind, std::span<const std::uint32_t> indexes) {
    for (std::uint32_t index : indexes) {
        if (index < m_entries.size() && m_entries[index].kind == std::uint32_t(kind)) {
            m_entries[index] = Entry{};
        }
    }
    m_counts[kind] = 0;
}

bool TopologyEntities::rebuild(std::shared_ptr<const v1::Topology> topology, std::string* error) {
    m_topology = topology ? std::move(topology) : std::make_shared<const v1::Topology>();
    m_entries.clear();
    m_counts.fill(0);
    m_racks.clear();
    const v1::Topology& t = *m_topology;
    std::uint32_t maxIndex = t.fleet_index();
    auto grow = [&maxIndex](const auto& list) {
        for (const auto& item : list) maxIndex = std::max(maxIndex, item.index());
    };
    grow(t.regions());
    grow(t.racks());
    grow(t.nodes());
    grow(t.gpus());
    grow(t.cpus());
    grow(t.nvswitch_trays());
    grow(t.power_shelves());
    grow(t.nvlinks());
    grow(t.nic_ports());
    grow(t.cooling_loops());
    if (maxIndex < kMaxIndexSpan) {
        m_entries.reserve(std::size_t(maxIndex) + 1);
    }

    // Past a fault the rest is still placed, so only the faulty entities go unanswered.
    bool ok = true;
    auto placeOne = [&](std::uint32_t index, v1::EntityKind kind, std::uint32_t slot) {
        ok = place(index, kind, slot, ok ? error : nullptr) && ok;  // the first fault is the one told
    };
    auto placeAll = [&](const auto& list, v1::EntityKind kind) {
        std::uint32_t slot = 0;
        for (const auto& item : list) placeOne(item.index(), kind, slot++);
    };
    placeAll(t.regions(), v1::ENTITY_KIND_REGION);
    placeAll(t.racks(), v1::ENTITY_KIND_RACK);
    placeAll(t.nodes(), v1::ENTITY_KIND_NODE);
    placeAll(t.gpus(), v1::ENTITY_KIND_GPU);
    placeAll(t.cpus(), v1::ENTITY_KIND_CPU);
    placeAll(t.nvswitch_trays(), v1::ENTITY_KIND_NVSWITCH_TRAY);
    placeAll(t.power_shelves(), v1::ENTITY_KIND_POWER_SHELF);
    placeAll(t.nvlinks(), v1::ENTITY_KIND_NVLINK);
    placeAll(t.nic_ports(), v1::ENTITY_KIND_NIC_PORT);
    placeAll(t.cooling_loops(), v1::ENTITY_KIND_COOLING_LOOP);
    // The fleet entity: index 0 may be unset in a minimal topology; never shadow a real entity.
    if (find(t.fleet_index()) == nullptr) {
        placeOne(t.fleet_index(), v1::ENTITY_KIND_FLEET, 0);
    }

    // Rack membership, resolved top-down so each lookup hits an already resolved parent. After a
    // fault, only entities placed from this very list position: a duplicate's first holder keeps
    // its rack.
    auto placedAs = [this, ok](std::uint32_t index, v1::EntityKind kind, std::uint32_t slot) -> Entry* {
        if (ok) return &m_entries[index];
        Entry* e = index < m_entries.size() ? &m_entries[index] : nullptr;
        return e && e->kind == std::uint32_t(kind) && e->slot == slot ? e : nullptr;
    };
    m_racks.reserve(std::size_t(t.racks_size()));
    for (std::uint32_t slot = 0; slot < std::uint32_t(t.racks_size()); ++slot) {
        const v1::Rack& rack = t.racks(int(slot));
        m_racks.push_back({rack.index(), rack.region_index()});
        if (Entry* e = placedAs(rack.index(), v1::ENTITY_KIND_RACK, slot)) e->rackSlot = slot;
    }
    auto inherit = [&](const auto& list, v1::EntityKind kind, auto parentOf) {
        std::uint32_t slot = 0;
        for (const auto& item : list) {
            const std::uint32_t parentIndex = parentOf(item);
            Entry* e = placedAs(item.index(), kind, slot++);
            if (e && parentIndex < m_entries.size()) e->rackSlot = m_entries[parentIndex].rackSlot;
        }
    };
    inherit(t.nodes(), v1::ENTITY_KIND_NODE, [](const v1::Node& n) { return n.rack_index(); });
    inherit(t.nvswitch_trays(), v1::ENTITY_KIND_NVSWITCH_TRAY,
            [](const v1::NvSwitchTray& s) { return s.rack_index(); });
    inherit(t.power_shelves(), v1::ENTITY_KIND_POWER_SHELF, [](const v1::PowerShelf& p) { return p.rack_index(); });
    inherit(t.cooling_loops(), v1::ENTITY_KIND_COOLING_LOOP, [](const v1::CoolingLoop& l) { return l.rack_index(); });
    inherit(t.gpus(), v1::ENTITY_KIND_GPU, [](const v1::Gpu& g) { return g.node_index(); });
    inherit(t.cpus(), v1::ENTITY_KIND_CPU, [](const v1::Cpu& c) { return c.node_index(); });
    inherit(t.nic_ports(), v1::ENTITY_KIND_NIC_PORT, [](const v1::NicPort& p) { return p.node_index(); });
    inherit(t.nvlinks(), v1::ENTITY_KIND_NVLINK, [](const v1::NvLink& l) { return l.gpu_index(); });
    return ok;
}

v1::EntityKind TopologyEntities::kind(std::uint32_t index) const {
    const Entry* e = find(index);
    return e ? v1::EntityKind(e->kind) : v1::ENTITY_KIND_UNSPECIFIED;
}

const TopologyEntities::Entry* TopologyEntities::entryOf(std::uint32_t index, v1::EntityKind kind) const {
    const Entry* e = find(index);
    return e && e->kind == std::uint32_t(kind) ? e : nullptr;
}

std::uint32_t TopologyEntities::indexAt(v1::EntityKind kind, std::uint32_t slot) const {
    const v1::Topology& t = *m_topology;
    const int s = int(slot);
    switch (kind) {
    case v1::ENTITY_KIND_FLEET: return t.fleet_index();
    case v1::ENTITY_KIND_REGION: return s < t.regions_size() ? t.regions(s).index() : kNone;
    case v1::ENTITY_KIND_RACK: return s < t.racks_size() ? t.racks(s).index() : kNone;
    case v1::ENTITY_KIND_NODE: return s < t.nodes_size() ? t.nodes(s).index() : kNone;
    case v1::ENTITY_KIND_GPU: return s < t.gpus_size() ? t.gpus(s).index() : kNone;
    case v1::ENTITY_KIND_CPU: return s < t.cpus_size() ? t.cpus(s).index() : kNone;
    case v1::ENTITY_KIND_NVSWITCH_TRAY: return s < t.nvswitch_trays_size() ? t.nvswitch_trays(s).index() : kNone;
    case v1::ENTITY_KIND_POWER_SHELF: return s < t.power_shelves_size() ? t.power_shelves(s).index() : kNone;
    case v1::ENTITY_KIND_NVLINK: return s < t.nvlinks_size() ? t.nvlinks(s).index() : kNone;
    case v1::ENTITY_KIND_NIC_PORT: return s < t.nic_ports_size() ? t.nic_ports(s).index() : kNone;
    case v1::ENTITY_KIND_COOLING_LOOP: return s < t.cooling_loops_size() ? t.cooling_loops(s).index() : kNone;
    default: return kNone;
    }
}

const std::string& TopologyEntities::name(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return kNoName;
    const v1::Topology& t = *m_topology;
    const int s = int(e->slot);
    switch (v1::EntityKind(e->kind)) {
    case v1::ENTITY_KIND_FLEET: return t.fleet_name();
    case v1::ENTITY_KIND_REGION: return t.regions(s).name();
    case v1::ENTITY_KIND_RACK: return t.racks(s).name();
    case v1::ENTITY_KIND_NODE: return t.nodes(s).name();
    case v1::ENTITY_KIND_GPU: return t.gpus(s).name();
    case v1::ENTITY_KIND_CPU: return t.cpus(s).name();
    case v1::ENTITY_KIND_NVSWITCH_TRAY: return t.nvswitch_trays(s).name();
    case v1::ENTITY_KIND_POWER_SHELF: return t.power_shelves(s).name();
    case v1::ENTITY_KIND_NVLINK: return t.nvlinks(s).name();
    case v1::ENTITY_KIND_NIC_PORT: return t.nic_ports(s).name();
    case v1::ENTITY_KIND_COOLING_LOOP: return t.cooling_loops(s).name();
    default: return kNoName;
    }
}

std::uint32_t TopologyEntities::parent(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return kNone;
    const v1::Topology& t = *m_topology;
    const int s = int(e->slot);
    switch (v1::EntityKind(e->kind)) {
    case v1::ENTITY_KIND_REGION: return t.fleet_index();
    case v1::ENTITY_KIND_RACK: return t.racks(s).region_index();
    case v1::ENTITY_KIND_NODE: return t.nodes(s).rack_index();
    case v1::ENTITY_KIND_GPU: return t.gpus(s).node_index();
    case v1::ENTITY_KIND_CPU: return t.cpus(s).node_index();
    case v1::ENTITY_KIND_NVSWITCH_TRAY: return t.nvswitch_trays(s).rack_index();
    case v1::ENTITY_KIND_POWER_SHELF: return t.power_shelves(s).rack_index();
    case v1::ENTITY_KIND_NVLINK: return t.nvlinks(s).gpu_index();
    case v1::ENTITY_KIND_NIC_PORT: return t.nic_ports(s).node_index();
    case v1::ENTITY_KIND_COOLING_LOOP: return t.cooling_loops(s).rack_index();
    case v1::ENTITY_KIND_JOB: return t.fleet_index();
    default: return kNone;
    }
}

std::uint32_t TopologyEntities::gpuOf(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return kNone;
    switch (v1::EntityKind(e->kind)) {
    case v1::ENTITY_KIND_GPU: return index;
    case v1::ENTITY_KIND_NVLINK: return m_topology->nvlinks(int(e->slot)).gpu_index();
    default: return kNone;
    }
}

std::uint32_t TopologyEntities::trayOf(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return kNone;
    const v1::Topology& t = *m_topology;
    const int s = int(e->slot);
    switch (v1::EntityKind(e->kind)) {
    case v1::ENTITY_KIND_NODE: return index;
    case v1::ENTITY_KIND_GPU: return t.gpus(s).node_index();
    case v1::ENTITY_KIND_CPU: return t.cpus(s).node_index();
    case v1::ENTITY_KIND_NIC_PORT: return t.nic_ports(s).node_index();
    case v1::ENTITY_KIND_NVLINK: {
        const v1::Gpu* g = gpu(t.nvlinks(s).gpu_index());
        return g ? g->node_index() : kNone;
    }
    default: return kNone;
    }
}

std::uint32_t TopologyEntities::rackOf(std::uint32_t index) const {
    const Entry* e = find(index);
    return e && e->rackSlot != kNone ? rackIndexAt(e->rackSlot) : kNone;
}

std::uint32_t TopologyEntities::regionOf(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return kNone;
    if (e->kind == v1::ENTITY_KIND_REGION) return index;
    return e->rackSlot != kNone ? m_racks[e->rackSlot].region : kNone;
}

std::vector<std::uint32_t> TopologyEntities::children(std::uint32_t index) const {
    const Entry* e = find(index);
    if (!e) return {};
    const v1::Topology& t = *m_topology;
    const int s = int(e->slot);
    std::vector<std::uint32_t> out;
    auto append = [&out](const auto& list) { out.insert(out.end(), list.begin(), list.end()); };
    switch (v1::EntityKind(e->kind)) {
    case v1::ENTITY_KIND_FLEET:
        for (const auto& r : t.regions()) out.push_back(r.index());
        break;
    case v1::ENTITY_KIND_REGION: append(t.regions(s).rack_indexes()); break;
    case v1::ENTITY_KIND_RACK: {
        const v1::Rack& rack = t.racks(s);
        append(rack.node_indexes());
        append(rack.nvswitch_tray_indexes());
        append(rack.power_shelf_indexes());
        if (find(rack.cooling_loop_index())) out.push_back(rack.cooling_loop_index());
        break;
    }
    case v1::ENTITY_KIND_NODE:
        append(t.nodes(s).gpu_indexes());
        append(t.nodes(s).cpu_indexes());
        append(t.nodes(s).nic_port_indexes());
        break;
    case v1::ENTITY_KIND_GPU: append(t.gpus(s).nvlink_indexes()); break;
    default: break;
    }
    // Links and ports are listed by their parents even at detail levels that omit them.
    std::erase_if(out, [this](std::uint32_t i) { return find(i) == nullptr; });
    return out;
}

const v1::Rack* TopologyEntities::rack(std::uint32_t index) const {
    const Entry* e = entryOf(index, v1::ENTITY_KIND_RACK);
    return e ? &m_topology->racks(int(e->slot)) : nullptr;
}

const v1::Node* TopologyEntities::node(std::uint32_t index) const {
    const Entry* e = entryOf(index, v1::ENTITY_KIND_NODE);
    return e ? &m_topology->nodes(int(e->slot)) : nullptr;
}

const v1::Gpu* TopologyEntities::gpu(std::uint32_t index) const {
    const Entry* e = entryOf(index, v1::ENTITY_KIND_GPU);
    return e ? &m_topology->gpus(int(e->slot)) : nullptr;
}

const v1::NvLink* TopologyEntities::nvlink(std::uint32_t index) const {
    const Entry* e = entryOf(index, v1::ENTITY_KIND_NVLINK);
    return e ? &m_topology->nvlinks(int(e->slot)) : nullptr;
}

}  // namespace watchfloor::proto
