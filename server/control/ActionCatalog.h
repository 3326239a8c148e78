#pragma once
// One row per ActionType: what fleetd knows of an action before it reads the fleet for it — its
// name in audit records and messages, the least role that may run it, the request field that names
// its target, the part of fleetd that carries it out, and whether a note is its content. Checks
// that only looked these up (role, target fields, who executes, note required) read the row; a new
// action type is a new row here plus the preview, execute and reconcile steps it needs.
// tst_control_catalog holds every ActionType of control.proto to a row.

#include "watchfloor/v1/control.pb.h"

#include <span>
#include <string>
#include <string_view>

namespace watchfloor::server::control {

// The request field(s) that name an action's target: exactly that one is set.
enum class ActionTarget {
    Node,                 // node_name
    Job,                  // job_name (+ exclude_node_names)
    Rack,                 // rack_name (+ confirm_rack_name)
    Event,                // event_id
    Incident,             // incident_id
    MaintenanceWindow,    // maintenance (a new window)
    MaintenanceWindowId,  // maintenance_window_id
    HandoffPeriod,        // handoff_period_start_unix_ms and handoff_period_end_unix_ms
    HandoffId,            // handoff_id
    Link,                 // link_name
    Nothing,              // no target field
};

// Which part of fleetd executes it.
enum class ActionHandler {
    Scheduler,     // the Actuator: the twin or the site's Slurm
    EventBook,     // acknowledging an event
    Breaker,       // the automation circuit breaker
    IncidentBook,  // incidents, maintenance windows, shift handoffs (IncidentActions)
    Lifecycle,     // tray lifecycle labels
    Repair,        // break/fix steps on a tray (RepairBackend), followed until the back end says they ended
    LinkLadder,    // the link ladder's steps (LinkLadderActions)
};

struct ActionTraits {
    watchfloor::v1::ActionType type;
    std::string_view name;  // "DRAIN_NODE"
    watchfloor::v1::Role minimumRole;
    ActionTarget target;
    std::string_view targetField;  // as the request's refusals name it
    ActionHandler handler;
    bool noteIsContent;  // the note is what the action records: required on execute
};

// The row of `type`; nullptr for UNSPECIFIED and values this fleetd does not know.
const ActionTraits* actionTraits(watchfloor::v1::ActionType type);
std::span<const ActionTraits> allActionTraits();

// A break/fix step (ActionType 50-59), carried out by the RepairBackend.
bool isRepairAction(watchfloor::v1::ActionType type);

std::string actionName(watchfloor::v1::ActionType type);  // the row's name, else "UNKNOWN" or the proto name
// viewer < operator < admin; false for an unknown action or an unspecified role.
bool roleAllows(watchfloor::v1::Role role, watchfloor::v1::ActionType action);

}  // namespace watchfloor::server::control
