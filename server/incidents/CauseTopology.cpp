#include "CauseTopology.h"

#include <unordered_map>

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {
const std::string kNoName;
const std::string kFleetName = "fleet";

// Ids in order of first appearance, so incidents keyed by them sort as the topology lists them.
class Interner {
public:
    explicit Interner(std::vector<std::string>& names) : names_(names) {}
    std::uint32_t operator()(const std::string& name) {
        const auto [it, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
        if (added) names_.push_back(name);
        return it->second;
    }

private:
    std::vector<std::string>& names_;
    std::unordered_map<std::string, std::uint32_t> ids_;
};

std::span<const std::uint32_t> listed(const google::protobuf::RepeatedField<std::uint32_t>& list) {
    return {list.data(), static_cast<std::size_t>(list.size())};
}
}  // namespace

CauseTopology::CauseTopology(const v1::Topology& t) {
    // fleetd's topologies come from FleetModel, whose indexes are unique by construction; were one
    // not, its first entity would keep the index and grouping would go on with the rest.
    static_cast<void>(entities_.rebuild(proto::TopologyEntities::borrowed(t), nullptr));

    cduOfRackSlot_.assign(static_cast<std::size_t>(t.racks_size()), kNone);
    cduOfLoopSlot_.assign(static_cast<std::size_t>(t.cooling_loops_size()), kNone);
    Interner cdu(cduNames_);
    for (int i = 0; i < t.cooling_loops_size(); ++i) {
        const v1::CoolingLoop& loop = t.cooling_loops(i);
        const std::uint32_t id = cdu(loop.cdu_name().empty() ? loop.name() : loop.cdu_name());
        cduOfLoopSlot_[static_cast<std::size_t>(i)] = id;
        if (const std::uint32_t rack = slotOf(loop.rack_index(), v1::ENTITY_KIND_RACK); rack != kNone)
            cduOfRackSlot_[rack] = id;
    }
    leafOfPortSlot_.reserve(static_cast<std::size_t>(t.nic_ports_size()));
    Interner leaf(leafNames_);
    for (const auto& port : t.nic_ports())
        leafOfPortSlot_.push_back(leaf(port.switch_name().empty() ? port.name() : port.switch_name()));
}

std::uint32_t CauseTopology::slotOf(std::uint32_t entity, v1::EntityKind kind) const {
    const auto* e = entities_.find(entity);
    return e && e->kind == static_cast<std::uint32_t>(kind) ? e->slot : kNone;
}

std::uint32_t CauseTopology::loopOfRack(std::uint32_t rack) const {
    const v1::Rack* r = entities_.rack(rack);
    return r ? r->cooling_loop_index() : kNone;
}

std::uint32_t CauseTopology::cduOfRack(std::uint32_t rack) const {
    if (const std::uint32_t slot = slotOf(rack, v1::ENTITY_KIND_RACK); slot != kNone) return cduOfRackSlot_[slot];
    if (const std::uint32_t slot = slotOf(rack, v1::ENTITY_KIND_COOLING_LOOP); slot != kNone)
        return cduOfLoopSlot_[slot];
    return kNone;
}

std::uint32_t CauseTopology::leafOfPort(std::uint32_t nicPort) const {
    const std::uint32_t slot = slotOf(nicPort, v1::ENTITY_KIND_NIC_PORT);
    return slot != kNone ? leafOfPortSlot_[slot] : kNone;
}

std::uint32_t CauseTopology::switchTrayOfLink(std::uint32_t nvlink) const {
    const v1::NvLink* l = entities_.nvlink(nvlink);
    return l ? l->nvswitch_tray_index() : kNone;
}

std::span<const std::uint32_t> CauseTopology::gpusOfTray(std::uint32_t tray) const {
    const v1::Node* n = entities_.node(tray);
    return n ? listed(n->gpu_indexes()) : std::span<const std::uint32_t>();
}

std::span<const std::uint32_t> CauseTopology::traysOfRack(std::uint32_t rack) const {
    const v1::Rack* r = entities_.rack(rack);
    return r ? listed(r->node_indexes()) : std::span<const std::uint32_t>();
}

std::span<const std::uint32_t> CauseTopology::shelvesOfRack(std::uint32_t rack) const {
    const v1::Rack* r = entities_.rack(rack);
    return r ? listed(r->power_shelf_indexes()) : std::span<const std::uint32_t>();
}

const std::string& CauseTopology::name(std::uint32_t entity) const {
    return entities_.kind(entity) == v1::ENTITY_KIND_FLEET ? kFleetName : entities_.name(entity);
}
const std::string& CauseTopology::cduName(std::uint32_t cdu) const {
    return cdu < cduNames_.size() ? cduNames_[cdu] : kNoName;
}
const std::string& CauseTopology::leafName(std::uint32_t leaf) const {
    return leaf < leafNames_.size() ? leafNames_[leaf] : kNoName;
}

}  // namespace watchfloor::server::incidents
