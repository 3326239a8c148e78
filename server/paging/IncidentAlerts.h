#pragma once
// An incident as an Alertmanager alert. Alertmanager identifies an alert by its label set, so the
// labels are what stays the same while an incident lives: alertname, fleet, incident (its id),
// severity, cause, and where the cause sits — region, hall, row, rack, node — taken from the
// probable cause's place in the topology (a row's CDU: its region, hall and row; a rack's loop:
// its rack; a tray: the tray), never from the blast radius, which grows as members join. What
// grows or gets more precise goes in the annotations: title, summary, root cause, scope, blast
// radius, affected racks, goodput cost. A silence of a place covers the incidents caused inside
// it.

#include "CauseTopology.h"
#include "PagedAlert.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::paging {

inline constexpr const char* kAlertName = "WatchfloorIncident";

class IncidentAlerts {
public:
    // Keeps a reference (NVLinks are looked up in it): the topology must outlive this, as a
    // FleetSource's does.
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
    // The racks the cause sits in (several for a CDU or a leaf switch) and its tray, if it is one.
    void addPlaceLabels(const watchfloor::v1::ProbableCause& cause, LabelSet& labels) const;
    std::vector<std::uint32_t> racksOfCause(const watchfloor::v1::ProbableCause& cause) const;
    std::string rackNames(const watchfloor::v1::BlastRadius& radius) const;

    incidents::CauseTopology topology_;
    std::string fleet_;
    std::unordered_map<std::uint32_t, RackPlace> racks_;                        // by entity index
    std::unordered_map<std::uint32_t, std::string> regions_;                    // region names by entity index
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> cduRacks_;   // CDU name -> racks it feeds
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> leafRacks_;  // leaf switch -> racks of its ports
};

}  // namespace watchfloor::server::paging
