#include "FleetRows.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

void FleetRows::addEndpoint() { m_endpoints.push_back(Endpoint{int(m_rackRows.size()), 0}); }

bool FleetRows::rackRowsStale(const EndpointFleet& fleet, int endpoint) const {
    const Endpoint& e = m_endpoints[std::size_t(endpoint)];
    const std::uint32_t rackCount = fleet.topology().count(v1::ENTITY_KIND_RACK);
    const int expectedNext = e.rackRowOffset + int(rackCount);
    const int next = std::size_t(endpoint) + 1 < m_endpoints.size()
                         ? m_endpoints[std::size_t(endpoint) + 1].rackRowOffset
                         : int(m_rackRows.size());
    return next != expectedNext || (rackCount > 0 && m_rackRows[std::size_t(e.rackRowOffset)] !=
                                                         EntityId{quint16(endpoint), fleet.topology().rackIndexAt(0)});
}

FleetRows::Sync FleetRows::sync(const EndpointFleets& fleets, int endpoint) {
    Sync out;
    const EndpointFleet& fleet = *fleets[std::size_t(endpoint)];
    if (rackRowsStale(fleet, endpoint)) {
        rebuildRacks(fleets);
        out.racksRebuilt = true;
    }
    Endpoint& e = m_endpoints[std::size_t(endpoint)];
    if (fleet.jobCount() < e.knownJobs) {
        rebuildJobs(fleets);  // a snapshot replaced the jobs
        out.jobsReset = true;
    } else if (fleet.jobCount() > e.knownJobs) {
        for (std::uint32_t slot = e.knownJobs; slot < fleet.jobCount(); ++slot) {
            appendJob(EntityId{quint16(endpoint), fleet.job(slot).index()});
        }
        out.jobsAppended = int(fleet.jobCount() - e.knownJobs);
        e.knownJobs = fleet.jobCount();
    }
    return out;
}

void FleetRows::rebuildRacks(const EndpointFleets& fleets) {
    m_rackRows.clear();
    for (std::size_t i = 0; i < fleets.size(); ++i) {
        m_endpoints[i].rackRowOffset = int(m_rackRows.size());
        for (const v1::Rack& rack : fleets[i]->topology().topology().racks()) {
            m_rackRows.push_back(EntityId{quint16(i), rack.index()});
        }
    }
}

void FleetRows::rebuildJobs(const EndpointFleets& fleets) {
    m_jobRows.clear();
    m_jobRowByKey.clear();
    for (std::size_t i = 0; i < fleets.size(); ++i) {
        const EndpointFleet& fleet = *fleets[i];
        for (std::uint32_t slot = 0; slot < fleet.jobCount(); ++slot) {
            appendJob(EntityId{quint16(i), fleet.job(slot).index()});
        }
        m_endpoints[i].knownJobs = fleet.jobCount();
    }
}

void FleetRows::appendJob(EntityId job) {
    m_jobRowByKey[job.key()] = int(m_jobRows.size());
    m_jobRows.push_back(job);
}

int FleetRows::jobRow(EntityId job) const {
    const auto it = m_jobRowByKey.find(job.key());
    return it == m_jobRowByKey.end() ? -1 : it->second;
}

std::size_t FleetRows::bytes() const {
    return m_rackRows.capacity() * sizeof(EntityId) + m_jobRows.capacity() * sizeof(EntityId);
}

}  // namespace watchfloor::client
