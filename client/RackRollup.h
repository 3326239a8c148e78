#pragma once
// One rack as the Fleet page's map, tooltips and "Needs attention" read it, with the freshness of
// every value decided here, once, by the store's rules (FleetReadings): a rack metric (or its
// cooling loop's) is Fresh, Stale, Blank or Missing as FleetStore::rackReading says; what carries
// no sample time of its own (the rack's state, the job on it, its trays' lifecycles) is Fresh while
// its endpoint is Live and Stale otherwise. A rack whose every tray is silent reads Silent
// throughout: whatever it said last, nobody can tell now. The page reads every rack in one call
// (rackRollups) per refresh and only draws what it gets.

#include "EndpointFleet.h"
#include "EntityId.h"
#include "Freshness.h"

#include <QList>
#include <QStringList>

#include <vector>

namespace watchfloor::client {

class FleetStore;

// Which job runs on each rack (the one holding most of its trays): rebuilt when jobs change, not
// on every refresh.
class RackJobs {
public:
    void rebuild(const FleetStore& store);
    int jobRowOfRack(int rackRow) const {
        return rackRow >= 0 && rackRow < int(m_jobRowByRack.size()) ? m_jobRowByRack[std::size_t(rackRow)] : -1;
    }
    QList<int> jobRowsOnRack(const FleetStore& store, int rackRow) const;
    const QStringList& jobNames() const { return m_jobNames; }  // by job row

private:
    std::vector<int> m_jobRowByRack;
    QStringList m_jobNames;
};

struct RackRollup {
    int row = -1;  // the store's rack row, which is also the rack's index on the Fleet page's map
    EntityId rack;
    EntityStatus status;
    // How far `status`, `jobRow` and the trays' lifecycles can be trusted.
    Freshness stateFreshness = Freshness::Missing;
    Reading gpusDown;
    Reading gpusDegraded;
    Reading gpuTempMax;
    Reading power;
    Reading coolantFlow;
    Reading coolantDeltaT;  // return minus supply: the worse freshness and the older sample of the two
    Reading linkErrors;
    int jobRow = -1;     // RackJobs::jobRowOfRack
    Reading jobGoodput;  // the job's JOB_GOODPUT_RATIO, else the ratio its Job message carries; Missing without a job
    int trays = 0;
    int silentTrays = 0;

    bool everyTraySilent() const { return trays > 0 && silentTrays >= trays; }
};

RackRollup rackRollup(const FleetStore& store, int row, const RackJobs& jobs);
// Every rack, by rack row.
std::vector<RackRollup> rackRollups(const FleetStore& store, const RackJobs& jobs);

}  // namespace watchfloor::client
