#pragma once
// One endpoint's topology with O(1) lookups by server entity index (proto/TopologyEntities: kind,
// position within its kind ("slot", which is also the row in that kind's metric columns), the rack
// it belongs to, so a sample can mark its rack dirty without walking the tree), and its jobs,
// which are entities too but arrive in Job messages, placed in the same table.
//
// The topology message itself is immutable once indexed and shared (shared_ptr<const>): a
// snapshot prepared on a worker thread compares against it, and a resync of an unchanged fleet
// reuses it, without copying tens of MB or reading anything the GUI thread writes.

#include "TopologyEntities.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::client {

class TopologyIndex : public proto::TopologyEntities {
public:
    // Replaces everything (jobs included). Fails with a message on a malformed topology.
    // Takes the topology by value: callers that own it move it in (it is tens of MB at scale).
    [[nodiscard]] bool rebuild(watchfloor::v1::Topology topology, std::string* error);
    [[nodiscard]] bool rebuild(std::shared_ptr<const watchfloor::v1::Topology> topology, std::string* error);
    void addJob(std::uint32_t index, std::uint32_t jobSlot);
    void clearJobs();

    // The server index of the entity of `kind` at `slot`, jobs included.
    std::uint32_t indexAt(watchfloor::v1::EntityKind kind, std::uint32_t slot) const;

private:
    std::vector<std::uint32_t> m_jobIndexes;  // by job slot
};

}  // namespace watchfloor::client
