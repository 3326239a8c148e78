#pragma once
// fleetd's incidents as the console lists and names them, shared by the Alerts dock, the
// Incident page and the shift handoff: the dock's order (open first, the worst and newest on
// top; then resolved, the most recently resolved first), the key an Incident page location
// carries ("7", or "<endpoint>/7" when several endpoints are merged), and the words for an
// incident's scope and owner.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

struct IncidentRef {
    int endpoint = -1;
    const watchfloor::v1::Incident* incident = nullptr;  // owned by the store: valid until it changes
};

std::vector<IncidentRef> incidentsInDockOrder(const client::FleetStore& store);
const watchfloor::v1::Incident* findIncident(const client::FleetStore& store, int endpoint, std::uint64_t id);
bool isOpen(const watchfloor::v1::Incident& incident);

QString incidentKey(const client::FleetStore& store, int endpoint, std::uint64_t id);
// The incident a key names; nullopt for an unknown endpoint or a malformed key (the incident
// itself may be gone: findIncident says).
std::optional<std::pair<int, std::uint64_t>> parseIncidentKey(const client::FleetStore& store, const QString& key);

// "1 rack, 18 trays, 72 GPUs, 1 job"
QString incidentScope(const watchfloor::v1::BlastRadius& blast);
// "open", "acknowledged by alice", "mitigated (alice)", "resolved by bob, lasted"
QString lifecycleWords(const watchfloor::v1::Incident& incident);
// "OPEN" -> "open"
QString stateWord(watchfloor::v1::IncidentState state);
// How long it has been open (or lasted, once resolved), by the endpoint's clock.
std::int64_t incidentAgeMs(const client::FleetStore& store, int endpoint, const watchfloor::v1::Incident& incident);

}  // namespace watchfloor::ui
