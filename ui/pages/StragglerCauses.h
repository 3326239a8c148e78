#pragma once
// Why a slow tray is slow, from what fleetd already knows about it: the event journal (thermal and
// power clocks events, link flaps and downs, BER, Xids, the straggler reports naming it) and its
// live readings (its GPUs' clocks-event reasons, power against the enforced limit, NVLink error
// counters) and its InfiniBand ports' counters, fetched from fleetd for this tray (the console's
// subscription below FULL detail carries no port values). One finding per cause family, in the order an
// operator rules them out; `implicated` marks the ones that point at this tray.

#include "EntityId.h"
#include "NicPortCounters.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <vector>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

struct StragglerCause {
    QString family;   // "Thermal clocks events", "Power cap", "Link flaps", "NVLink counters", "InfiniBand counters"
    QString finding;  // one line: what was seen, with numbers and units
    bool implicated = false;
};

// The event types the cause panel asks fleetd for (ListEvents about the tray).
std::vector<watchfloor::v1::EventType> stragglerCauseEventTypes();

// `events`: the journal's events about the tray (and its GPUs, links and ports), any order;
// `ib`: its ports' counters as fleetd answered for them.
std::vector<StragglerCause> assessStragglerCauses(const client::FleetStore& store, client::EntityId tray,
                                                  const std::vector<watchfloor::v1::Event>& events,
                                                  const client::NicPortCounters& ib);

// One sentence over the findings: the implicated families, or that telemetry shows none.
QString stragglerVerdict(const QString& trayName, const std::vector<StragglerCause>& causes);

}  // namespace watchfloor::ui
