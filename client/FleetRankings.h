#pragma once
// "Worst" answers for the pages and the war room: the racks most in need of attention, the worst
// link, the biggest job. A score orders them (higher is worse) and `why` says it in words. The
// scoring of one rack is a pure function of what is known about it (RackFacts), so the ordering
// can be checked without a fleet; the rest reads the store's public interface.

#include "EndpointFleet.h"
#include "EntityId.h"

#include <QString>

#include <optional>
#include <vector>

namespace watchfloor::client {

class FleetStore;

// A "worst X" answer: the entity, a sortable badness score (higher is worse) and why, in words.
struct RankedEntity {
    EntityId id;
    double score = 0;
    QString why;
};

// What a rack's rank is made of (absent values count as 0).
struct RackFacts {
    bool isolated = false;
    bool failed = false;
    bool degraded = false;  // the rack's state or its health says degraded
    double leaksWet = 0;
    int silentTrays = 0;
    double gpusDown = 0;
    double gpusDegraded = 0;
    double gpuTempMaxC = 0;
    double linkErrorsPerMin = 0;
};

// Isolated above failed above a wet leak sensor above degraded; then silent trays (they may be
// fine, but nobody can tell), GPUs down and degraded; the hottest GPU breaks ties. "healthy" when
// nothing counts against it.
RankedEntity rankRack(EntityId rack, const RackFacts& facts);
// Warnings and criticals of the last 15 minutes count against their rack and are named in `why`.
void addRecentAlerts(RankedEntity& rack, int critical, int warning);

RackFacts rackFacts(const FleetStore& store, int row);
std::vector<RankedEntity> worstRacks(const FleetStore& store, int n);
// The one rack most in need of attention; none in an empty fleet.
std::optional<RankedEntity> worstRack(const FleetStore& store);
// Links are scored when subscribed (DETAIL_LEVEL_FULL): down, flapping, BER, error counters; else
// GPUs by their summed NVLink counters, which is what STANDARD detail carries.
std::optional<RankedEntity> worstLink(const FleetStore& store);
// The active job on the most GPUs.
std::optional<RankedEntity> biggestJob(const FleetStore& store);

}  // namespace watchfloor::client
