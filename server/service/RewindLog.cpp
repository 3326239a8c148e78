#include "RewindLog.h"

#include "FleetStateKinds.h"

#include <algorithm>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

bool RewindLog::sameForRewind(const v1::Incident& a, const v1::Incident& b) {
    const auto& ra = a.blast_radius();
    const auto& rb = b.blast_radius();
    return a.state() == b.state() && a.severity() == b.severity() && a.owner() == b.owner() && a.note() == b.note() &&
           a.member_count() == b.member_count() && a.active_members() == b.active_members() && a.title() == b.title() &&
           a.root_cause().summary() == b.root_cause().summary() && ra.racks() == rb.racks() &&
           ra.trays() == rb.trays() && ra.gpus() == rb.gpus() && ra.jobs() == rb.jobs() &&
           a.resolved_unix_ms() == b.resolved_unix_ms();
}

void RewindLog::record(std::int64_t timeMs, const std::vector<v1::EntityState>& states,
                       const std::vector<v1::Incident>& incidents) {
    std::lock_guard lock(mu_);
    if (firstMs_ == 0) firstMs_ = timeMs;
    for (const auto& s : states) states_.add(timeMs, s.entity_index(), s, limits_.stateChanges);
    for (const auto& incident : incidents) {
        const v1::Incident* previous = incidents_.latest(incident.id());
        if (previous && sameForRewind(*previous, incident)) continue;
        // Timelines and member ids are long and only grow: the past view cuts the live ones at T.
        v1::Incident version = incident;
        version.clear_timeline();
        version.clear_member_event_ids();
        incidents_.add(timeMs, incident.id(), version, limits_.incidentVersions);
    }
    dropResolvedFromBase();
}

// Incidents resolved before the window are resolved at every T the log still answers for; past
// the bound the oldest of them go, so the base stays as small as the incidents open back then. An
// answer carries the newest fleetstate::Incidents::kRetiredKept resolved ones, and those are
// either in the window or among the newest that many of the base.
void RewindLog::dropResolvedFromBase() {
    auto& base = incidents_.base();
    std::size_t resolved = 0;
    for (const auto& [id, incident] : base) resolved += fleetstate::Incidents::retired(incident);
    for (auto it = base.begin(); resolved > fleetstate::Incidents::kRetiredKept && it != base.end();) {
        if (!fleetstate::Incidents::retired(it->second) || incidents_.latest(it->first) != &it->second) {
            ++it;
            continue;
        }
        it = base.erase(it);
        --resolved;
    }
}

std::int64_t RewindLog::earliest() const {
    std::lock_guard lock(mu_);
    if (firstMs_ == 0) return 0;
    return std::max({firstMs_, states_.horizon(), incidents_.horizon()});
}

std::vector<v1::EntityState> RewindLog::statesAsOf(std::int64_t timeMs) const {
    std::lock_guard lock(mu_);
    std::vector<v1::EntityState> out;
    for (const auto& [index, state] : states_.asOf(timeMs)) out.push_back(*state);
    return out;
}

std::vector<v1::Incident> RewindLog::incidentsAsOf(std::int64_t timeMs) const {
    std::lock_guard lock(mu_);
    std::vector<v1::Incident> out;
    for (const auto& [id, incident] : incidents_.asOf(timeMs)) out.push_back(*incident);
    return out;
}

}  // namespace watchfloor::server::service
