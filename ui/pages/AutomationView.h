#pragma once
// What the Fleet page says about automation: who holds each tray out of service (a person, the
// health check, automation) and the state of fleetd's automation circuit breaker, merged over
// endpoints. Text only; the page lays it out.

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// "by alice", "by automation", "held by the health check", "by a person outside fleetd"
QString drainOwnerText(const watchfloor::v1::DrainOwner& owner);

struct DrainRow {
    client::EntityId trayId;
    QString tray;  // fleet-unique name (navigation)
    QString text;  // "r01-n03 · drained by alice: fan noise", "r02-n07 · down, held by the health check: Xid 79"
    watchfloor::v1::DrainOwnerKind kind = watchfloor::v1::DRAIN_OWNER_KIND_UNSPECIFIED;
};
// Every tray some endpoint reports out of service with an owner: people's drains first, then
// automation's, then the health check's; by name within each.
std::vector<DrainRow> drainRows(const client::FleetStore& store);

// The breaker card: "off" (no endpoint runs automation), "closed", or "TRIPPED"; the detail says
// the limit that binds, how much of it the window used, and who reset it last.
struct BreakerCard {
    QString value;
    QString detail;
    QString toolTip;
    bool tripped = false;
    bool any = false;  // some endpoint sent an AutomationStatus
};
BreakerCard breakerCard(const client::FleetStore& store);

}  // namespace watchfloor::ui
