#pragma once
// A topology's entities by entity index, for fleetd and the console alike: the kind of an index,
// its position in its kind's list ("slot"), the rack it belongs to, and from those its name,
// parent, GPU, tray, region, children and topology record, each O(1). One table of 8 bytes per
// index (2.7 M at 1,800 racks with every NVLink) and one of the racks beside the topology itself,
// which is shared, not copied: every other answer reads the message.
//
// Entities a topology does not list but that share its index space (the console's jobs, from Job
// messages) are placed by a subclass that learns of them.

#include "watchfloor/v1/fleet.pb.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace watchfloor::proto {

class TopologyEntities {
public:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    static constexpr int kKindCount = watchfloor::v1::EntityKind_ARRAYSIZE;

    static constexpr std::uint32_t kMaxSlot = (1u << 27) - 1;
    // 8 bytes: the console's ingest loop reads one per sample.
    struct Entry {
        std::uint32_t kind : 5 = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
        std::uint32_t slot : 27 = 0;
        std::uint32_t rackSlot = kNone;
    };
    static_assert(sizeof(Entry) == 8);

    // For a topology that outlives the index (a FleetSource's is stable for its life): shared
    // without an owner, so nothing is copied and nothing freed.
    static std::shared_ptr<const watchfloor::v1::Topology> borrowed(const watchfloor::v1::Topology& topology);

    // Replaces everything. False with the first fault on a malformed topology (an index used
    // twice, out of range, too many of one kind); the rest is indexed all the same, the first
    // entity placed at a duplicated index keeping it.
    [[nodiscard]] bool rebuild(std::shared_ptr<const watchfloor::v1::Topology> topology, std::string* error);

    const watchfloor::v1::Topology& topology() const { return *m_topology; }
    const std::shared_ptr<const watchfloor::v1::Topology>& sharedTopology() const { return m_topology; }
    const Entry* find(std::uint32_t index) const {
        return index < m_entries.size() && m_entries[index].kind != 0 ? &m_entries[index] : nullptr;
    }
    const std::vector<Entry>& entries() const { return m_entries; }
    std::uint32_t count(watchfloor::v1::EntityKind kind) const { return m_counts[kind]; }
    // ENTITY_KIND_UNSPECIFIED for an index nobody placed.
    watchfloor::v1::EntityKind kind(std::uint32_t index) const;
    bool known(std::uint32_t index) const { return find(index) != nullptr; }

    // The topology's name; the fleet's is `fleet_name`; empty for what the topology does not list.
    const std::string& name(std::uint32_t index) const;
    std::uint32_t parent(std::uint32_t index) const;  // a job's is the fleet; kNone for the fleet
    std::uint32_t gpuOf(std::uint32_t index) const;   // a GPU itself, an NVLink's GPU; else kNone
    // The compute tray (node) an entity is part of: itself for a node; the node of a GPU, CPU, NIC
    // port or NVLink; kNone for anything else.
    std::uint32_t trayOf(std::uint32_t index) const;
    std::uint32_t rackOf(std::uint32_t index) const;    // a rack itself or its content's; else kNone
    std::uint32_t regionOf(std::uint32_t index) const;  // a region itself or its racks' content's
    std::uint32_t rackIndexAt(std::uint32_t rackSlot) const { return m_racks[rackSlot].index; }
    // The index of the topology's entity of `kind` at `slot`; kNone past the list and for jobs.
    std::uint32_t indexAt(watchfloor::v1::EntityKind kind, std::uint32_t slot) const;
    // What the entity holds, in the topology's order: a fleet's regions, a region's racks, a
    // rack's trays, switch trays, power shelves and loop, a tray's GPUs, CPUs and NIC ports, a
    // GPU's NVLinks; only entities placed here (a STANDARD topology lists links it omits).
    std::vector<std::uint32_t> children(std::uint32_t index) const;

    // The topology's record of the entity when it is of that kind, else nullptr.
    const watchfloor::v1::Rack* rack(std::uint32_t index) const;
    const watchfloor::v1::Node* node(std::uint32_t index) const;
    const watchfloor::v1::Gpu* gpu(std::uint32_t index) const;
    const watchfloor::v1::NvLink* nvlink(std::uint32_t index) const;

protected:
    // Entities that share the topology's index space without being listed in it.
    [[nodiscard]] bool place(std::uint32_t index, watchfloor::v1::EntityKind kind, std::uint32_t slot,
                             std::string* error);
    // Removes those of `indexes` placed as `kind`; no entity of `kind` is left counted.
    void unplace(watchfloor::v1::EntityKind kind, std::span<const std::uint32_t> indexes);

private:
    const Entry* entryOf(std::uint32_t index, watchfloor::v1::EntityKind kind) const;

    std::shared_ptr<const watchfloor::v1::Topology> m_topology = std::make_shared<const watchfloor::v1::Topology>();
    std::vector<Entry> m_entries;
    std::array<std::uint32_t, kKindCount> m_counts{};
    // By rack slot, so an entity's rack and region are read from warm memory, not from the rack's
    // message (14 KB at 1,800 racks).
    struct RackPlace {
        std::uint32_t index = kNone;
        std::uint32_t region = kNone;
    };
    std::vector<RackPlace> m_racks;
};

}  // namespace watchfloor::proto
