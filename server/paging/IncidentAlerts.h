#pragma once
// An incident as an Alertmanager alert. Labels route and identify it: alertname, fleet, incident
// (its id), severity, cause, scope, and the place it lies in — region, hall, row, rack, node —
// each set only when the whole blast radius lies within one such place (a CDU fault on a row
// has hall and row, no rack), so a silence of that place covers exactly the incidents inside it.
// Annotations describe it: title, summary, root cause, blast radius and goodput cost.

#include "PagedAlert.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace watchfloor::server::paging {

inline constexpr const char* kAlertName = "WatchfloorIncident";

class IncidentAlerts {
public:
    explicit IncidentAlerts(const watchfloor::v1::Topology& topology);

    // Labels and annotations; the caller sets the times.
    PagedAlert alertOf(const watchfloor::v1::Incident& incident) const;
    // The matchers of one silenced place: fleetd's alerts of this fleet within it.
    LabelSet matchersOf(const SilencedPlace& place) const;
    const std::string& fleetName() const { return fleet_; }

private:
    struct RackPlace {
        std::string name, hall, row, region;
    };
    void addPlaceLabels(const watchfloor::v1::BlastRadius& radius, LabelSet& labels) const;

    std::string fleet_;
    std::unordered_map<std::uint32_t, RackPlace> racks_;    // by entity index
    std::unordered_map<std::uint32_t, std::string> nodes_;  // tray names by entity index
};

}  // namespace watchfloor::server::paging
