#pragma once
// One endpoint's topology with O(1) lookups by server entity index: kind, position within its
// kind ("slot", which is also the row in that kind's metric columns), and the rack it belongs to
// (so a sample can mark its rack dirty without walking the tree).
//
// The topology message itself is immutable once indexed and shared (shared_ptr<const>): a
// snapshot prepared on a worker thread compares against it, and a resync of an unchanged fleet
// reuses it, without copying tens of MB or reading anything the GUI thread writes.

#include "watchfloor/v1/fleet.pb.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace watchfloor::client {

class TopologyIndex {
public:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    static constexpr int kKindCount = watchfloor::v1::EntityKind_ARRAYSIZE;

    static constexpr std::uint32_t kMaxSlot = (1u << 27) - 1;
    // 8 bytes: the ingest loop reads one per sample.
    struct Entry {
        std::uint32_t kind : 5 = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
        std::uint32_t slot : 27 = 0;
        std::uint32_t rackSlot = kNone;
    };
    static_assert(sizeof(Entry) == 8);

    // Replaces everything (jobs included). Fails with a message on a malformed topology.
    // Takes the topology by value: callers that own it move it in (it is tens of MB at scale).
    [[nodiscard]] bool rebuild(watchfloor::v1::Topology topology, std::string* error);
    [[nodiscard]] bool rebuild(std::shared_ptr<const watchfloor::v1::Topology> topology, std::string* error);
    // Jobs are entities too but arrive in Job messages, not in the topology.
    void addJob(std::uint32_t index, std::uint32_t jobSlot);
    void clearJobs();

    const watchfloor::v1::Topology& topology() const { return *m_topology; }
    const std::shared_ptr<const watchfloor::v1::Topology>& sharedTopology() const { return m_topology; }
    const Entry* find(std::uint32_t index) const {
        return index < m_entries.size() && m_entries[index].kind != 0 ? &m_entries[index] : nullptr;
    }
    const std::vector<Entry>& entries() const { return m_entries; }
    std::uint32_t count(watchfloor::v1::EntityKind kind) const { return m_counts[kind]; }
    watchfloor::v1::EntityKind kind(std::uint32_t index) const;

    // Name from the topology; empty for jobs (the store keeps job names) and unknown indexes.
    std::string_view name(std::uint32_t index) const;
    std::uint32_t parent(std::uint32_t index) const;
    // The compute tray (node) an entity is part of: itself for a node; the node of a GPU, CPU, NIC
    // port or NVLink; kNone for anything else.
    std::uint32_t trayOf(std::uint32_t index) const;
    std::vector<std::uint32_t> children(std::uint32_t index) const;
    std::uint32_t rackIndexAt(std::uint32_t rackSlot) const { return m_topology->racks(int(rackSlot)).index(); }
    // The server index of the entity of `kind` at `slot`.
    std::uint32_t indexAt(watchfloor::v1::EntityKind kind, std::uint32_t slot) const;

private:
    [[nodiscard]] bool place(std::uint32_t index, watchfloor::v1::EntityKind kind, std::uint32_t slot,
                             std::string* error);
    std::uint32_t rackSlotOf(std::uint32_t index) const;

    std::shared_ptr<const watchfloor::v1::Topology> m_topology = std::make_shared<const watchfloor::v1::Topology>();
    std::vector<Entry> m_entries;
    std::array<std::uint32_t, kKindCount> m_counts{};
    std::vector<std::uint32_t> m_jobIndexes;  // by job slot
};

}  // namespace watchfloor::client
