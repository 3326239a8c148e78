#pragma once
// The topology as incident grouping walks it: the shared entity index (proto/TopologyEntities:
// kind, GPU, tray, rack, region, name, and a tray's GPUs, a rack's trays and power shelves as the
// topology lists them) and what only grouping asks: a rack's loop and CDU, the leaf switch a NIC
// port ends on, the NVLink switch tray a link ends on. Grouping runs on the tick thread for every
// event, thousands a tick when a row's CDU fails: every answer is O(1).

#include "TopologyEntities.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace watchfloor::server::incidents {

class CauseTopology {
public:
    static constexpr std::uint32_t kNone = proto::TopologyEntities::kNone;

    // Keeps a reference: the topology must outlive this (a FleetSource's is stable for its life).
    explicit CauseTopology(const watchfloor::v1::Topology& topology);

    watchfloor::v1::EntityKind kind(std::uint32_t entity) const { return entities_.kind(entity); }  // jobs: UNSPECIFIED
    bool known(std::uint32_t entity) const { return entities_.known(entity); }
    std::uint32_t gpuOf(std::uint32_t entity) const { return entities_.gpuOf(entity); }
    std::uint32_t trayOf(std::uint32_t entity) const { return entities_.trayOf(entity); }
    std::uint32_t rackOf(std::uint32_t entity) const { return entities_.rackOf(entity); }
    std::uint32_t regionOf(std::uint32_t entity) const { return entities_.regionOf(entity); }
    std::uint32_t loopOfRack(std::uint32_t rack) const;
    std::uint32_t cduOfRack(std::uint32_t rack) const;           // interned CDU id (see cduName); a loop's too
    std::uint32_t leafOfPort(std::uint32_t nicPort) const;       // interned leaf id, kNone if not a port
    std::uint32_t switchTrayOfLink(std::uint32_t nvlink) const;  // NVLink switch tray, kNone if not a link
    std::span<const std::uint32_t> gpusOfTray(std::uint32_t tray) const;
    std::span<const std::uint32_t> traysOfRack(std::uint32_t rack) const;
    std::span<const std::uint32_t> shelvesOfRack(std::uint32_t rack) const;

    const std::string& name(std::uint32_t entity) const;  // "fleet" for the fleet; empty for unknown
    const std::string& cduName(std::uint32_t cdu) const;
    const std::string& leafName(std::uint32_t leaf) const;

private:
    std::uint32_t slotOf(std::uint32_t entity, watchfloor::v1::EntityKind kind) const;

    proto::TopologyEntities entities_;
    // By slot within the kind (entities_' Entry::slot).
    std::vector<std::uint32_t> cduOfRackSlot_;
    std::vector<std::uint32_t> cduOfLoopSlot_;
    std::vector<std::uint32_t> leafOfPortSlot_;
    std::vector<std::string> cduNames_;
    std::vector<std::string> leafNames_;
};

}  // namespace watchfloor::server::incidents
