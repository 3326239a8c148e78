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
QString toString(watchfloor::v1::RecoveryStage stage);  // "detect", "reschedule", ...; empty when unspecified
// What a job waits for while it cannot restart (Job.tray_wait): "waiting for trays: 18 needed,
// 2 spares free, for 45 min"; empty when it is not waiting. `serverNowMs`: its endpoint's clock.
QString trayWaitText(const watchfloor::v1::Job& job, std::int64_t serverNowMs);
// The job's state as the console words it: "running", "recovering (reschedule) · waiting for
// trays: …" (the State column, the Jobs page and the Goodput page say the same).
QString jobStateText(const watchfloor::v1::Job& job, std::int64_t serverNowMs);
// What a job that publishes no step progress (Job.no_step_telemetry) shows instead of its goodput,
// ETTR, MFU, step time and checkpoint numbers, which fleetd does not compute for it.
QString noStepTelemetryLabel();
// What a job still starting (client/JobProgress.h jobIsStarting) shows instead of its 0 % goodput,
// ETTR and MFU.
QString startingLabel();

}  // namespace watchfloor::client
