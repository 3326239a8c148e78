#pragma once
// The compute trays of one rack (top to bottom): Slurm state, whether its telemetry arrives
// (scraped trays: "live", "silent: <why>", else "—"), GPU temperatures, power and utilisation
// aggregated over the tray's 4 GPUs, the last Xid. A silent tray's cells read Freshness::Silent.

#include "EntityTableModel.h"

namespace watchfloor::client {

class NodeTableModel : public EntityTableModel {
    Q_OBJECT

public:
    enum Column { Name, Slot, State, Telemetry, Lifecycle, GpuTempMax, GpuPowerW, GpuUtilMean, LastXid, ColumnCount };

    explicit NodeTableModel(const FleetStore& store, QObject* parent = nullptr);

    void setRack(EntityId rack);
    EntityId rack() const { return m_rack; }

protected:
    std::vector<EntityId> currentRows() const override;
    void onStoreChanged(const FleetChangeSet& changes) override;

private:
    EntityId m_rack;
    QString m_rackName;  // to find the rack again after a topology change
};

}  // namespace watchfloor::client
