#pragma once
// What changed in the FleetStore since the previous notification. Emitted at most ~30 times a
// second, never per sample. Rows refer to FleetStore's global rack and job rows.

#include <QList>
#include <QMetaType>

#include <vector>

namespace watchfloor::client {

struct FleetChangeSet {
    bool topologyChanged = false;    // racks, nodes, names may differ: rebuild row maps / reset models
    bool jobsReset = false;          // job rows replaced (snapshot)
    std::vector<int> dirtyRackRows;  // sorted; values or states of the rack or anything in it changed
    std::vector<int> dirtyJobRows;   // sorted
    int jobsAppended = 0;            // new job rows at the end
    int eventsAdded = 0;             // newest events (EventListModel inserts them at the top)
    int eventsTrimmed = 0;           // oldest events dropped to keep the bound
    bool fleetChanged = false;       // fleet goodput / aggregates
    bool freshnessTick = false;      // server time advanced: ages, and so freshness, changed everywhere
    QList<int> endpointsChanged;     // connection state or identity of these endpoints changed
    bool sourcesChanged = false;     // the status of some endpoint's telemetry sources changed
    bool incidentsChanged = false;   // some endpoint's incidents opened, changed or resolved
    bool repairsChanged = false;     // some endpoint's repair cases opened, took a step or closed
    bool linksChanged = false;       // some endpoint's link health or link summary changed
    bool telemetryChanged = false;   // some scraped tray's telemetry health (silent / live, its targets) changed

    bool isEmpty() const {
        return !topologyChanged && !jobsReset && dirtyRackRows.empty() && dirtyJobRows.empty() && jobsAppended == 0 &&
               eventsAdded == 0 && eventsTrimmed == 0 && !fleetChanged && !freshnessTick &&
               endpointsChanged.isEmpty() && !sourcesChanged && !incidentsChanged && !repairsChanged && !linksChanged &&
               !telemetryChanged;
    }
};

}  // namespace watchfloor::client

Q_DECLARE_METATYPE(watchfloor::client::FleetChangeSet)
