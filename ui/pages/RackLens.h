#pragma once
// The value every rack shows under a fleet-map lens: health category, hottest GPU, power, coolant
// flow, ΔT, link errors, the job on it, that job's goodput. Read from client::RackRollup, which
// decides each value's freshness; a lens here only picks a value (or a category) and keeps it.

#include "ColorScale.h"
#include "EntityId.h"
#include "RackMapWidget.h"
#include "RackRollup.h"

#include <QHash>
#include <QStringList>

#include <vector>

namespace watchfloor::client {
class FleetStore;
struct TrayLifecycleStatus;
}  // namespace watchfloor::client

namespace watchfloor::ui {

// The fleet map lenses by the key settings and the lens menu know them by, in menu order
// ("health", "gpu-temp", ...).
QStringList lensKeys();
widgets::Lens lensFromKey(const QString& key);  // "gpu-temp" → GpuTemperature; unknown → Health

// Warning/critical events of the last `window` of server time, counted per rack row.
std::vector<int> recentAlertsPerRack(const client::FleetStore& store, std::chrono::milliseconds window);

// One status per rack, in `racks`' order (the map's): the lens value, alerts, isolation, silent
// trays, maintenance.
std::vector<widgets::RackStatus> rackStatuses(const client::FleetStore& store,
                                              const std::vector<client::RackRollup>& racks, widgets::Lens lens,
                                              const std::vector<int>& alerts);
widgets::Reading rackLensReading(const client::FleetStore& store, const client::RackRollup& rack, widgets::Lens lens);
QString rackTooltip(const client::FleetStore& store, int rackRow, const client::RackJobs& jobs);

// The Lifecycle/lemons lens: a tray's category (null: production) and the rack's worst.
widgets::LifecycleCategory trayLifecycleCategory(const client::TrayLifecycleStatus* tray);
widgets::LifecycleCategory rackLifecycle(const client::FleetStore& store, client::EntityId rack);
// "<br><b>Lifecycle</b><br>r01-n03: triage (alice) ..." for the rack's trays not plainly in
// production, bounded; empty when every tray is.
QString trayLifecycleLines(const client::FleetStore& store, client::EntityId rack);

}  // namespace watchfloor::ui
