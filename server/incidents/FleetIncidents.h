#pragma once
// The grouper in fleetd's tick: reads one tick's FleetChanges (events already numbered, the
// jobs' goodput ledgers) and writes back the incidents that changed, plus the fleet's count of
// open incidents (FleetGoodput.active_incidents and its FLEET_ACTIVE_INCIDENTS sample), so the
// Fleet page's KPI and the incident list come from this one place. With a maintenance calendar
// it starts and ends windows (FleetChanges.maintenance) and holds back the events they cover;
// with a lifecycle it applies operators' resolves and lays owner, notes and timeline over every
// incident it publishes.

#include "FleetChanges.h"
#include "IncidentGrouper.h"
#include "IncidentLifecycle.h"
#include "MaintenanceCalendar.h"

namespace watchfloor::server::incidents {

class FleetIncidents {
public:
    FleetIncidents(const watchfloor::v1::Topology& topology, GrouperOptions options = {});

    // Optional; set before the first apply. Both must outlive this.
    void setMaintenance(MaintenanceCalendar* calendar) { calendar_ = calendar; }
    void setLifecycle(IncidentLifecycle* lifecycle) { lifecycle_ = lifecycle; }

    void apply(FleetChanges& changes);

    std::uint32_t openCount() const { return grouper_.openCount(); }
    const IncidentGrouper& grouper() const { return grouper_; }

private:
    IncidentGrouper grouper_;
    std::uint32_t fleetIndex_;
    MaintenanceCalendar* calendar_ = nullptr;
    IncidentLifecycle* lifecycle_ = nullptr;
};

}  // namespace watchfloor::server::incidents
