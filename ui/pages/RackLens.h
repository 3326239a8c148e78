#pragma once
// The value every rack shows under a fleet-map lens, computed from the store: health category,
// hottest GPU, power, coolant flow, ΔT, link errors, the job on it, that job's goodput. Readings
// keep their freshness, and every reading of an endpoint that is not Live counts as stale.

#include "ColorScale.h"
#include "EntityId.h"
#include "RackMapWidget.h"

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

// Which job runs on each rack (the one holding most of its trays), rebuilt when jobs change.
class RackJobs {
public:
    void rebuild(const client::FleetStore& store);
    int jobRowOfRack(int rackRow) const { return rackRow < int(m_jobRowByRack.size()) ? m_jobRowByRack[rackRow] : -1; }
    QList<int> jobRowsOnRack(const client::FleetStore& store, int rackRow) const;
    const QStringList& jobNames() const { return m_jobNames; }  // by job row
private:
    std::vector<int> m_jobRowByRack;
    QStringList m_jobNames;
};

// Warning/critical events of the last `window` of server time, counted per rack row.
std::vector<int> recentAlertsPerRack(const client::FleetStore& store, std::chrono::milliseconds window);

std::vector<widgets::RackStatus> rackStatuses(const client::FleetStore& store, widgets::Lens lens, const RackJobs& jobs,
                                              const std::vector<int>& alerts);
widgets::Reading rackLensReading(const client::FleetStore& store, int rackRow, widgets::Lens lens,
                                 const RackJobs& jobs);
QString rackTooltip(const client::FleetStore& store, int rackRow, const RackJobs& jobs);

// The Lifecycle/lemons lens: a tray's category (null: production) and the rack's worst.
widgets::LifecycleCategory trayLifecycleCategory(const client::TrayLifecycleStatus* tray);
widgets::LifecycleCategory rackLifecycle(const client::FleetStore& store, client::EntityId rack);
// "<br><b>Lifecycle</b><br>r01-n03: triage (alice) ..." for the rack's trays not plainly in
// production, bounded; empty when every tray is.
QString trayLifecycleLines(const client::FleetStore& store, client::EntityId rack);

}  // namespace watchfloor::ui
