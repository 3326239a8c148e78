#pragma once
// The grouper in fleetd's tick: reads one tick's FleetChanges (events already numbered, the
// jobs' goodput ledgers) and writes back the incidents that changed, plus the fleet's count of
// open incidents (FleetGoodput.active_incidents and its FLEET_ACTIVE_INCIDENTS sample), so the
// Fleet page's KPI and the incident list come from this one place.

#include "FleetChanges.h"
#include "IncidentGrouper.h"

namespace watchfloor::server::incidents {

class FleetIncidents {
public:
    FleetIncidents(const watchfloor::v1::Topology& topology, GrouperOptions options = {});

    void apply(FleetChanges& changes);

    std::uint32_t openCount() const { return grouper_.openCount(); }
    const IncidentGrouper& grouper() const { return grouper_; }

private:
    IncidentGrouper grouper_;
    std::uint32_t fleetIndex_;
};

}  // namespace watchfloor::server::incidents
