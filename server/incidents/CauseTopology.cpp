#include "CauseTopology.h"

#include <algorithm>

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {
const std::vector<std::uint32_t> kNoList;
const std::string kNoName;
}  // namespace

CauseTopology::Entry& CauseTopology::slot(std::uint32_t entity) {
    if (entity >= entries_.size()) {
        entries_.resize(std::size_t(entity) + 1);
        names_.resize(std::size_t(entity) + 1);
    }
    return entries_[entity];
}

const CauseTopology::Entry& CauseTopology::at(std::uint32_t entity) const {
    static const Entry none;
    return entity < entries_.size() ? entries_[entity] : none;
}

std::uint32_t CauseTopology::intern(std::vector<std::string>& names, const std::string& name) {
    // Few CDUs and leaves (tens to hundreds): a linear search at start-up is fine.
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<std::uint32_t>(names.size() - 1);
}

const v1::NvLink* CauseTopology::link(std::uint32_t entity) const {
    const auto& links = topology_.nvlinks();
    if (links.empty() || entity < links[0].index()) return nullptr;
    auto indexAt = [&](std::uint32_t position) {
        return links[static_cast<int>(linkOrder_.empty() ? position : linkOrder_[position])].index();
    };
    std::uint32_t low = 0, high = static_cast<std::uint32_t>(links.size());
    while (low < high) {
        const std::uint32_t mid = low + (high - low) / 2;
        if (indexAt(mid) < entity)
            low = mid + 1;
        else
            high = mid;
    }
    if (low == static_cast<std::uint32_t>(links.size()) || indexAt(low) != entity) return nullptr;
    return &links[static_cast<int>(linkOrder_.empty() ? low : linkOrder_[low])];
}

CauseTopology::CauseTopology(const v1::Topology& t) : topology_(t) {
    for (const auto& region : t.regions()) {
        Entry& e = slot(region.index());
        e.kind = v1::ENTITY_KIND_REGION;
        e.region = region.index();
        names_[region.index()] = region.name();
    }
    for (const auto& rack : t.racks()) {
        Entry& e = slot(rack.index());
        e.kind = v1::ENTITY_KIND_RACK;
        e.rack = rack.index();
        e.region = rack.region_index();
        e.extra = rack.cooling_loop_index();
        e.list = static_cast<std::uint32_t>(lists_.size());
        lists_.emplace_back(rack.node_indexes().begin(), rack.node_indexes().end());
        e.list2 = static_cast<std::uint32_t>(lists_.size());
        lists_.emplace_back(rack.power_shelf_indexes().begin(), rack.power_shelf_indexes().end());
        names_[rack.index()] = rack.name();
    }
    for (const auto& loop : t.cooling_loops()) {
        Entry& e = slot(loop.index());
        e.kind = v1::ENTITY_KIND_COOLING_LOOP;
        e.rack = loop.rack_index();
        e.region = at(loop.rack_index()).region;
        names_[loop.index()] = loop.name();
        const std::uint32_t cdu = intern(cduNames_, loop.cdu_name().empty() ? loop.name() : loop.cdu_name());
        slot(loop.rack_index()).cdu = cdu;
        entries_[loop.index()].cdu = cdu;
    }
    for (const auto& shelf : t.power_shelves()) {
        Entry& e = slot(shelf.index());
        e.kind = v1::ENTITY_KIND_POWER_SHELF;
        e.rack = shelf.rack_index();
        e.region = at(shelf.rack_index()).region;
        names_[shelf.index()] = shelf.name();
    }
    for (const auto& sw : t.nvswitch_trays()) {
        Entry& e = slot(sw.index());
        e.kind = v1::ENTITY_KIND_NVSWITCH_TRAY;
        e.rack = sw.rack_index();
        e.region = at(sw.rack_index()).region;
        names_[sw.index()] = sw.name();
    }
    for (const auto& node : t.nodes()) {
        Entry& e = slot(node.index());
        e.kind = v1::ENTITY_KIND_NODE;
        e.tray = node.index();
        e.rack = node.rack_index();
        e.region = at(node.rack_index()).region;
        e.list = static_cast<std::uint32_t>(lists_.size());
        lists_.emplace_back(node.gpu_indexes().begin(), node.gpu_indexes().end());
        names_[node.index()] = node.name();
    }
    auto inTray = [&](std::uint32_t index, v1::EntityKind kind, std::uint32_t tray, const std::string& name) -> Entry& {
        const Entry parent = at(tray);
        Entry& e = slot(index);
        e.kind = kind;
        e.tray = tray;
        e.rack = parent.rack;
        e.region = parent.region;
        names_[index] = name;
        return e;
    };
    for (const auto& gpu : t.gpus())
        inTray(gpu.index(), v1::ENTITY_KIND_GPU, gpu.node_index(), gpu.name()).gpu = gpu.index();
    for (const auto& cpu : t.cpus()) inTray(cpu.index(), v1::ENTITY_KIND_CPU, cpu.node_index(), cpu.name());
    for (const auto& port : t.nic_ports())
        inTray(port.index(), v1::ENTITY_KIND_NIC_PORT, port.node_index(), port.name()).extra =
            intern(leafNames_, port.switch_name().empty() ? port.name() : port.switch_name());
    Entry& fleet = slot(t.fleet_index());
    fleet.kind = v1::ENTITY_KIND_FLEET;
    names_[t.fleet_index()] = "fleet";
    const auto& links = t.nvlinks();
    const bool sorted =
        std::is_sorted(links.begin(), links.end(), [](const auto& a, const auto& b) { return a.index() < b.index(); });
    if (!sorted) {
        linkOrder_.resize(static_cast<std::size_t>(links.size()));
        for (std::uint32_t i = 0; i < linkOrder_.size(); ++i) linkOrder_[i] = i;
        std::sort(linkOrder_.begin(), linkOrder_.end(), [&](std::uint32_t a, std::uint32_t b) {
            return links[static_cast<int>(a)].index() < links[static_cast<int>(b)].index();
        });
    }
}

// NVLinks are not in entries_: each answer goes through the link's GPU.
v1::EntityKind CauseTopology::kind(std::uint32_t entity) const {
    if (const Entry& e = at(entity); e.kind != v1::ENTITY_KIND_UNSPECIFIED) return e.kind;
    return link(entity) ? v1::ENTITY_KIND_NVLINK : v1::ENTITY_KIND_UNSPECIFIED;
}
std::uint32_t CauseTopology::gpuOf(std::uint32_t entity) const {
    if (const Entry& e = at(entity); e.kind != v1::ENTITY_KIND_UNSPECIFIED) return e.gpu;
    const auto* l = link(entity);
    return l ? l->gpu_index() : kNone;
}
std::uint32_t CauseTopology::trayOf(std::uint32_t entity) const {
    if (const Entry& e = at(entity); e.kind != v1::ENTITY_KIND_UNSPECIFIED) return e.tray;
    const auto* l = link(entity);
    return l ? at(l->gpu_index()).tray : kNone;
}
std::uint32_t CauseTopology::rackOf(std::uint32_t entity) const {
    if (const Entry& e = at(entity); e.kind != v1::ENTITY_KIND_UNSPECIFIED) return e.rack;
    const auto* l = link(entity);
    return l ? at(l->gpu_index()).rack : kNone;
}
std::uint32_t CauseTopology::regionOf(std::uint32_t entity) const {
    if (const Entry& e = at(entity); e.kind != v1::ENTITY_KIND_UNSPECIFIED) return e.region;
    const auto* l = link(entity);
    return l ? at(l->gpu_index()).region : kNone;
}

std::uint32_t CauseTopology::loopOfRack(std::uint32_t rack) const {
    const Entry& e = at(rack);
    return e.kind == v1::ENTITY_KIND_RACK ? e.extra : kNone;
}

std::uint32_t CauseTopology::cduOfRack(std::uint32_t rack) const { return at(rack).cdu; }

std::uint32_t CauseTopology::leafOfPort(std::uint32_t nicPort) const {
    const Entry& e = at(nicPort);
    return e.kind == v1::ENTITY_KIND_NIC_PORT ? e.extra : kNone;
}

std::uint32_t CauseTopology::switchTrayOfLink(std::uint32_t nvlink) const {
    const auto* l = link(nvlink);
    return l ? l->nvswitch_tray_index() : kNone;
}

const std::vector<std::uint32_t>& CauseTopology::gpusOfTray(std::uint32_t tray) const {
    const Entry& e = at(tray);
    return e.kind == v1::ENTITY_KIND_NODE ? lists_[e.list] : kNoList;
}

const std::vector<std::uint32_t>& CauseTopology::traysOfRack(std::uint32_t rack) const {
    const Entry& e = at(rack);
    return e.kind == v1::ENTITY_KIND_RACK ? lists_[e.list] : kNoList;
}

const std::vector<std::uint32_t>& CauseTopology::shelvesOfRack(std::uint32_t rack) const {
    const Entry& e = at(rack);
    return e.kind == v1::ENTITY_KIND_RACK ? lists_[e.list2] : kNoList;
}

const std::string& CauseTopology::name(std::uint32_t entity) const {
    if (entity < names_.size() && !names_[entity].empty()) return names_[entity];
    const auto* l = link(entity);
    return l ? l->name() : kNoName;
}
const std::string& CauseTopology::cduName(std::uint32_t cdu) const {
    return cdu < cduNames_.size() ? cduNames_[cdu] : kNoName;
}
const std::string& CauseTopology::leafName(std::uint32_t leaf) const {
    return leaf < leafNames_.size() ? leafNames_[leaf] : kNoName;
}

}  // namespace watchfloor::server::incidents
