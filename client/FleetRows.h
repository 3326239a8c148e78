#pragma once
// The merged fleet's global rows: every endpoint's racks, then every endpoint's jobs, in endpoint
// order and then the server's order, so tables and the rack map address "row 12" across fleets.
// Kept in step with the endpoints' fleets after each applied message; says what it had to redo,
// which the store announces (a rebuilt rack list is a topology change to the views).

#include "EndpointFleet.h"
#include "EntityId.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace watchfloor::client {

class FleetRows {
public:
    // What a sync changed.
    struct Sync {
        bool racksRebuilt = false;  // rack rows moved: views must rebuild their row maps
        bool jobsReset = false;     // job rows were rebuilt (an endpoint's jobs were replaced)
        int jobsAppended = 0;       // new job rows of the endpoint at the end
    };

    // A new endpoint at the end of `fleets` (its fleet has no snapshot yet).
    void addEndpoint();
    // After a message was applied to the fleet of `endpoint`: rebuilds the rack rows if its racks
    // changed, appends the rows of new jobs, rebuilds the job rows if jobs went away.
    Sync sync(const EndpointFleets& fleets, int endpoint);
    // Every job row again, in endpoint order.
    void rebuildJobs(const EndpointFleets& fleets);

    int rackCount() const { return int(m_rackRows.size()); }
    EntityId rackAt(int row) const { return m_rackRows[std::size_t(row)]; }
    // The global row of the rack in `slot` of `endpoint`'s racks.
    int rackRow(int endpoint, std::uint32_t slot) const {
        return m_endpoints[std::size_t(endpoint)].rackRowOffset + int(slot);
    }

    int jobCount() const { return int(m_jobRows.size()); }
    EntityId jobAt(int row) const { return m_jobRows[std::size_t(row)]; }
    int jobRow(EntityId job) const;

    std::size_t bytes() const;

private:
    struct Endpoint {
        int rackRowOffset = 0;
        std::uint32_t knownJobs = 0;  // job slots already given a row
    };
    bool rackRowsStale(const EndpointFleet& fleet, int endpoint) const;
    void rebuildRacks(const EndpointFleets& fleets);
    void appendJob(EntityId job);

    std::vector<Endpoint> m_endpoints;
    std::vector<EntityId> m_rackRows;
    std::vector<EntityId> m_jobRows;
    std::unordered_map<std::uint64_t, int> m_jobRowByKey;
};

}  // namespace watchfloor::client
