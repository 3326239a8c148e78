#pragma once
// What an operator action does to the twin (drain, resume, requeue, isolate, restore; README.md,
// "Operator actions"), whether it comes from a request (by name) or a scenario verb (by
// ordinal). It reads trays, racks and jobs and changes them through the job runner and
// ActionHost, never through the coordinator itself, so the coordinator can own it without the
// two depending on each other.

#include "FleetModel.h"
#include "JobRunner.h"
#include "TelemetryPublisher.h"
#include "TwinActions.h"
#include "TwinState.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

// The tray and rack changes an action makes, which every part of the twin makes the same way.
class ActionHost {
public:
    virtual ~ActionHost() = default;
    virtual void setTray(std::uint32_t t, watchfloor::v1::NodeState state, watchfloor::v1::HealthState health,
                         const std::string& reason, bool announce) = 0;
    // The tray's EntityState again: same state, a new drain owner.
    virtual void emitTrayState(std::uint32_t t) = 0;
    // The tray no longer belongs to its job (the job's slot on it is then broken, and refilled).
    virtual void releaseTray(std::uint32_t t) = 0;
    // `why` is shown to operators; `cause` is the failure class jobs are interrupted with.
    virtual void isolateRack(std::uint32_t r, const std::string& why, const std::string& cause, bool automatic) = 0;
    virtual void restoreRack(std::uint32_t r, const std::string& why) = 0;
};

class ActionEffects {
public:
    ActionEffects(const FleetModel& model, TelemetryPublisher& publisher, JobRunner& jobRunner,
                  ViewedTable<TrayState>& trays, const ViewedTable<RackStatus>& racks, ActionHost& host);

    // A request: its target by name; refused for an unknown one.
    TwinActionResult apply(const TwinAction& action);

    // Each emits EVENT_TYPE_OPERATOR_ACTION "<verb> <target>: <reason>" when it does anything.
    TwinActionResult drainNode(std::uint32_t t, const std::string& reason);
    TwinActionResult resumeNode(std::uint32_t t, const std::string& reason);
    TwinActionResult requeueJob(std::uint32_t j, const std::vector<std::uint32_t>& exclude, const std::string& reason);
    TwinActionResult isolateRack(std::uint32_t r, const std::string& reason);
    TwinActionResult restoreRack(std::uint32_t r, const std::string& reason);

private:
    void operatorEvent(watchfloor::v1::Severity severity, std::uint32_t entity, const std::string& message);

    const FleetModel& model_;
    TelemetryPublisher& publisher_;
    JobRunner& jobRunner_;
    ViewedTable<TrayState>& trays_;
    const ViewedTable<RackStatus>& racks_;
    ActionHost& host_;
};

}  // namespace watchfloor::server::sim
