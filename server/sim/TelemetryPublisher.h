#pragma once
// What the twin tells the outside: the change set of the current advanceTo() (events and entity
// states, stamped with the twin's clock) and the read view other threads use between ticks
// (nodeView, jobView, rackView). The view is rebuilt from the trays and racks only when their
// ViewedTables record a write, and from the jobs (whose clocks move every step) each time.

#include "FleetChanges.h"
#include "FleetModel.h"
#include "TrainingJob.h"
#include "TwinActions.h"
#include "TwinScheduler.h"
#include "TwinState.h"

#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

class TelemetryPublisher {
public:
    TelemetryPublisher(const FleetModel& model, const TwinScheduler& clock, std::int64_t startUnixMs,
                       const std::vector<TrainingJob>& jobs);

    // --- the change set ----------------------------------------------------------------------
    void begin(FleetChanges& out) { out_ = &out; }
    void end() { out_ = nullptr; }
    FleetChanges* changes() const { return out_; }  // nullptr outside advanceTo()
    std::int64_t unixNowMs() const { return startUnixMs_ + clock_.nowMs(); }
    // The returned reference is valid until the next event is emitted (the vector may grow).
    watchfloor::v1::Event& event(watchfloor::v1::Severity severity, watchfloor::v1::EventType type,
                                 std::uint32_t entity, std::string message);
    // A new EntityState in the current change set, stamped now. Same lifetime rule as event().
    watchfloor::v1::EntityState& state(std::uint32_t entity, watchfloor::v1::HealthState health,
                                       const std::string& reason = {});

    // --- the read view (written by the advanceTo() thread, read by any) -------------------------
    // `jobStartS`: each job's first start (< 0 when warm-started, NaN before).
    void publishView(ViewedTable<TrayState>& trays, ViewedTable<RackStatus>& racks,
                     const std::vector<TrainingJob>& jobs, const std::vector<double>& jobStartS);
    std::optional<TwinNodeView> nodeView(const std::string& name) const;
    std::optional<TwinJobView> jobView(const std::string& name) const;
    std::optional<TwinRackView> rackView(const std::string& name) const;
    // Job ordinal by name (fixed after create()); nullopt for an unknown name.
    std::optional<std::uint32_t> findJob(const std::string& name) const;

private:
    // The ordinal of entity `name` when it is of `kind`.
    std::optional<std::uint32_t> ordinalOf(const std::string& name, watchfloor::v1::EntityKind kind) const;

    struct Tray {
        watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
        std::uint32_t job = kNoJob;
        bool drainRequested = false;
        std::string reason;
        std::string drainReason;
        std::uint64_t version = 0;
    };
    struct Job {
        std::vector<std::uint32_t> trays;  // held now: a job waiting for spares holds fewer
        std::uint32_t gpus = 0;
        double checkpointAgeS = 0;
        double unsavedProgressS = 0;
        bool recovering = false;
        std::uint32_t interruptions = 0;
        std::uint64_t version = 0;
    };
    struct Rack {
        watchfloor::v1::RackState state = watchfloor::v1::RACK_STATE_UNSPECIFIED;
        bool leakActive = false;
        bool isolated = false;
        std::uint64_t version = 0;
    };

    const FleetModel& model_;
    const TwinScheduler& clock_;
    const std::int64_t startUnixMs_;
    FleetChanges* out_ = nullptr;
    const std::vector<std::string> jobNames_;
    const std::map<std::string, std::uint32_t> jobByName_;
    mutable std::shared_mutex mutex_;  // guards the view below
    std::vector<Tray> trays_;
    std::vector<Job> jobs_;
    std::vector<Rack> racks_;
    std::uint64_t lastVersion_ = 0;
};

}  // namespace watchfloor::server::sim
