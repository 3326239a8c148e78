#pragma once
// Every rack of the fleet, one row each, in FleetStore's rack-row order: state, GPU health counts,
// temperatures, power and cooling. Row n is FleetStore::rackAt(n).

#include "EntityTableModel.h"

namespace watchfloor::client {

class RackTableModel : public EntityTableModel {
    Q_OBJECT

public:
    enum Column {
        Name,
        Region,
        State,
        GpusHealthy,
        GpusDegraded,
        GpusDown,
        GpuTempMax,
        PowerKw,
        SupplyTemp,
        ReturnTemp,
        FlowLpm,
        LeaksWet,
        LinkErrorsPerMin,
        ColumnCount
    };

    explicit RackTableModel(const FleetStore& store, QObject* parent = nullptr);

protected:
    std::vector<EntityId> currentRows() const override;
    void onStoreChanged(const FleetChangeSet& changes) override;
};

// Display text of an entity's state ("in service", "isolated: leak", "drained: ops: rma").
QString describeStatus(const FleetStore& store, EntityId id);

}  // namespace watchfloor::client
