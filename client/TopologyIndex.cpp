#include "TopologyIndex.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

bool TopologyIndex::rebuild(v1::Topology topology, std::string* error) {
    auto shared = std::make_shared<v1::Topology>();
    shared->Swap(&topology);
    return rebuild(std::shared_ptr<const v1::Topology>(std::move(shared)), error);
}

bool TopologyIndex::rebuild(std::shared_ptr<const v1::Topology> topology, std::string* error) {
    m_jobIndexes.clear();
    return TopologyEntities::rebuild(std::move(topology), error);
}

void TopologyIndex::addJob(std::uint32_t index, std::uint32_t jobSlot) {
    if (find(index) != nullptr) {
        return;
    }
    if (place(index, v1::ENTITY_KIND_JOB, jobSlot, nullptr)) {
        if (m_jobIndexes.size() <= jobSlot) m_jobIndexes.resize(jobSlot + 1, kNone);
        m_jobIndexes[jobSlot] = index;
    }
}

void TopologyIndex::clearJobs() {
    unplace(v1::ENTITY_KIND_JOB, m_jobIndexes);
    m_jobIndexes.clear();
}

std::uint32_t TopologyIndex::indexAt(v1::EntityKind kind, std::uint32_t slot) const {
    if (kind == v1::ENTITY_KIND_JOB) return slot < m_jobIndexes.size() ? m_jobIndexes[slot] : kNone;
    return TopologyEntities::indexAt(kind, slot);
}

}  // namespace watchfloor::client
