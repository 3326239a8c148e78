#pragma once
// Maintenance windows (the incidents' calendar, streamed as v1::MaintenanceWindow) as
// Alertmanager silences: a window is silenced once, when fleetd first hears of it (scheduled, or
// restored from the audit log at start), and its silences are deleted when it is cancelled. A
// window that ends needs nothing: its silences end at the same time.
//
// Fleetd's own incidents inside a window are not raised at all (the grouper holds them back); the
// silences are for everything else the site routes through the same Alertmanager by rack, row,
// hall or node (Prometheus rules, say), so one window quiets all of it.

#include "Pager.h"

#include "watchfloor/v1/fleet.pb.h"

#include <mutex>
#include <set>
#include <string>

namespace watchfloor::server::paging {

// The places a window covers, in the pager's terms: its node, rack, hall or row — or, for a hall
// or row named with its region ("<region>/<hall>[/<row>]", where hall names repeat across
// regions and the alerts' labels carry the hall alone), each of its racks. No places for a scope
// the pager cannot express.
SilenceWindow silenceWindowOf(const watchfloor::v1::MaintenanceWindow& window,
                              const watchfloor::v1::Topology& topology);

class MaintenanceSilencer {
public:
    // Keeps references to both (a FleetSource's topology is stable for its life).
    MaintenanceSilencer(Pager& pager, const watchfloor::v1::Topology& topology) : pager_(pager), topology_(topology) {}

    // Any thread (the calendar calls it on the thread that changed the window).
    void onWindow(const watchfloor::v1::MaintenanceWindow& window);

private:
    Pager& pager_;
    const watchfloor::v1::Topology& topology_;
    std::mutex mu_;
    std::set<std::string> silenced_;  // window ids handed to the pager
};

}  // namespace watchfloor::server::paging
