#include "ActionCatalog.h"

#include "Roles.h"

#include <algorithm>
#include <array>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

using enum ActionTarget;
using enum ActionHandler;
constexpr v1::Role kOperator = v1::ROLE_OPERATOR, kAdmin = v1::ROLE_ADMIN;

// In control.proto's order.
constexpr std::array kActions{
    ActionTraits{v1::ACTION_TYPE_DRAIN_NODE, "DRAIN_NODE", kOperator, Node, "node_name", Scheduler, false},
    ActionTraits{v1::ACTION_TYPE_RESUME_NODE, "RESUME_NODE", kOperator, Node, "node_name", Scheduler, false},
    ActionTraits{v1::ACTION_TYPE_RESTART_JOB, "RESTART_JOB", kOperator, Job, "job_name", Scheduler, false},
    ActionTraits{v1::ACTION_TYPE_ISOLATE_RACK, "ISOLATE_RACK", kOperator, Rack, "rack_name", Scheduler, false},
    ActionTraits{v1::ACTION_TYPE_RESTORE_RACK, "RESTORE_RACK", kOperator, Rack, "rack_name", Scheduler, false},
    ActionTraits{v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, "ACKNOWLEDGE_EVENT", kOperator, Event, "event_id", EventBook,
                 false},
    ActionTraits{v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER, "RESET_CIRCUIT_BREAKER", kAdmin, Nothing, "", Breaker, false},
    ActionTraits{v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, "ACKNOWLEDGE_INCIDENT", kOperator, Incident, "incident_id",
                 IncidentBook, false},
    ActionTraits{v1::ACTION_TYPE_MITIGATE_INCIDENT, "MITIGATE_INCIDENT", kOperator, Incident, "incident_id",
                 IncidentBook, false},
    ActionTraits{v1::ACTION_TYPE_RESOLVE_INCIDENT, "RESOLVE_INCIDENT", kOperator, Incident, "incident_id", IncidentBook,
                 false},
    ActionTraits{v1::ACTION_TYPE_NOTE_INCIDENT, "NOTE_INCIDENT", kOperator, Incident, "incident_id", IncidentBook,
                 true},
    ActionTraits{v1::ACTION_TYPE_SCHEDULE_MAINTENANCE, "SCHEDULE_MAINTENANCE", kOperator, MaintenanceWindow,
                 "maintenance", IncidentBook, false},
    ActionTraits{v1::ACTION_TYPE_CANCEL_MAINTENANCE, "CANCEL_MAINTENANCE", kOperator, MaintenanceWindowId,
                 "maintenance_window_id", IncidentBook, false},
    ActionTraits{v1::ACTION_TYPE_SET_LIFECYCLE, "SET_LIFECYCLE", kOperator, Node, "node_name", Lifecycle, false},
    ActionTraits{v1::ACTION_TYPE_POST_HANDOFF, "POST_HANDOFF", kOperator, HandoffPeriod,
                 "handoff_period_start_unix_ms and handoff_period_end_unix_ms", IncidentBook, true},
    ActionTraits{v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF, "ACKNOWLEDGE_HANDOFF", kOperator, HandoffId, "handoff_id",
                 IncidentBook, false},
    ActionTraits{v1::ACTION_TYPE_RESET_GPU, "RESET_GPU", kOperator, Node, "node_name", Repair, false},
    ActionTraits{v1::ACTION_TYPE_REBOOT_NODE, "REBOOT_NODE", kOperator, Node, "node_name", Repair, false},
    ActionTraits{v1::ACTION_TYPE_POWER_CYCLE_NODE, "POWER_CYCLE_NODE", kOperator, Node, "node_name", Repair, false},
    ActionTraits{v1::ACTION_TYPE_RUN_DIAGNOSTICS, "RUN_DIAGNOSTICS", kOperator, Node, "node_name", Repair, false},
    ActionTraits{v1::ACTION_TYPE_POWER_CYCLE_RACK, "POWER_CYCLE_RACK", kOperator, Rack, "rack_name", Repair, false},
    ActionTraits{v1::ACTION_TYPE_ISOLATE_LINK, "ISOLATE_LINK", kOperator, Link, "link_name", LinkLadder, false},
    ActionTraits{v1::ACTION_TYPE_TREAT_LINK, "TREAT_LINK", kOperator, Link, "link_name", LinkLadder, false},
    ActionTraits{v1::ACTION_TYPE_RETURN_LINK, "RETURN_LINK", kOperator, Link, "link_name", LinkLadder, false},
};

}  // namespace

const ActionTraits* actionTraits(v1::ActionType type) {
    const auto it = std::find_if(kActions.begin(), kActions.end(), [&](const auto& row) { return row.type == type; });
    return it == kActions.end() ? nullptr : &*it;
}

std::span<const ActionTraits> allActionTraits() { return kActions; }

bool isRepairAction(v1::ActionType type) {
    const ActionTraits* row = actionTraits(type);
    return row && row->handler == ActionHandler::Repair;
}

std::string actionName(v1::ActionType type) {
    if (const ActionTraits* row = actionTraits(type)) return std::string(row->name);
    const std::string& full = v1::ActionType_Name(type);
    constexpr std::string_view prefix = "ACTION_TYPE_";
    return full.starts_with(prefix) ? full.substr(prefix.size()) : (full.empty() ? "UNKNOWN" : full);
}

bool roleAllows(v1::Role role, v1::ActionType action) {
    const ActionTraits* row = actionTraits(action);
    return row && proto::roleCovers(role, row->minimumRole);
}

}  // namespace watchfloor::server::control
