#include "FleetIncidents.h"

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

FleetIncidents::FleetIncidents(const v1::Topology& topology, GrouperOptions options)
    : grouper_(topology, options), fleetIndex_(topology.fleet_index()) {}

void FleetIncidents::apply(FleetChanges& changes) {
    const std::int64_t nowMs = toUnixMs(changes.time);
    if (calendar_) calendar_->advanceTo(nowMs, &changes.maintenance);
    grouper_.observe(nowMs, changes.events, changes.jobs, &changes.incidents,
                     calendar_ ? &calendar_->cover() : nullptr);
    if (lifecycle_) {
        for (std::uint64_t id : lifecycle_->takeResolves()) grouper_.resolveNow(id, nowMs, &changes.incidents);
        lifecycle_->publish(nowMs, changes.events, grouper_.released(), changes.jobs, &changes.incidents);
    }
    if (!changes.hasFleet) return;
    const auto open = grouper_.openCount();
    changes.fleet.set_active_incidents(open);
    // A source reports the fleet's own values last (the twin does): look back only through them
    // rather than through a tick's 1.3 M samples.
    for (auto it = changes.samples.rbegin(); it != changes.samples.rend() && it->entityIndex == fleetIndex_; ++it)
        if (it->metric == v1::FLEET_ACTIVE_INCIDENTS) {
            it->value = static_cast<float>(open);
            break;
        }
}

}  // namespace watchfloor::server::incidents
