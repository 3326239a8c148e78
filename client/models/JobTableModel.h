#pragma once
// Training jobs of the whole fleet in arrival order: state, size, goodput, ETTR, MFU,
// checkpoint age and interruptions.

#include "EntityTableModel.h"

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::client {

class JobTableModel : public EntityTableModel {
    Q_OBJECT

public:
    enum Column {
        Name,
        State,
        Gpus,
        Goodput,
        Ettr1h,
        Mfu,
        StepTime,
        CheckpointAge,
        Interruptions,
        Straggler,
        ColumnCount
    };

    explicit JobTableModel(const FleetStore& store, QObject* parent = nullptr);

protected:
    std::vector<EntityId> currentRows() const override;
    void onStoreChanged(const FleetChangeSet& changes) override;
};

QString toString(watchfloor::v1::JobState state);
// What a job that publishes no step progress (Job.no_step_telemetry) shows instead of its goodput,
// ETTR, MFU, step time and checkpoint numbers, which fleetd does not compute for it.
QString noStepTelemetryLabel();
// What a job still starting (client/JobProgress.h jobIsStarting) shows instead of its 0 % goodput,
// ETTR and MFU.
QString startingLabel();

}  // namespace watchfloor::client
