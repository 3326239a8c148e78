#include "ActionWords.h"

#include "Roles.h"

#include <algorithm>
#include <array>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

using enum ActionTargetKind;
using enum NoteInput;
constexpr v1::Role kOperator = v1::ROLE_OPERATOR, kAdmin = v1::ROLE_ADMIN;

QString text(const std::string& s) { return QString::fromStdString(s); }
QString none(const v1::ActionRequest&) { return {}; }

// In ActionTargetKind's order.
constexpr std::array kTargets{
    ActionTargetWords{Unknown, "", "the target", false, none, nullptr},
    ActionTargetWords{Node, "node_name", "node", false, [](const v1::ActionRequest& r) { return text(r.node_name()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_node_name(name); }},
    // The GPU's name as the topology spells it (tray name, "-g", tray-local index).
    ActionTargetWords{TrayGpu, "node_name", "GPU", false,
                      [](const v1::ActionRequest& r) {
                          return r.has_gpu_index()
                                     ? QStringLiteral("%1-g%2").arg(text(r.node_name())).arg(r.gpu_index())
                                     : text(r.node_name());
                      },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_node_name(name); }},
    ActionTargetWords{Job, "job_name", "job", false, [](const v1::ActionRequest& r) { return text(r.job_name()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_job_name(name); }},
    ActionTargetWords{Rack, "rack_name", "rack", false, [](const v1::ActionRequest& r) { return text(r.rack_name()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_rack_name(name); }},
    ActionTargetWords{Event, "event_id", "event", true,
                      [](const v1::ActionRequest& r) { return QString::number(r.event_id()); }, nullptr},
    ActionTargetWords{Incident, "incident_id", "incident", true,
                      [](const v1::ActionRequest& r) { return QString::number(r.incident_id()); }, nullptr},
    ActionTargetWords{MaintenanceScope, "maintenance", "maintenance of", false,
                      [](const v1::ActionRequest& r) { return text(r.maintenance().scope_name()); }, nullptr},
    ActionTargetWords{MaintenanceWindow, "maintenance_window_id", "maintenance window", false,
                      [](const v1::ActionRequest& r) { return text(r.maintenance_window_id()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_maintenance_window_id(name); }},
    ActionTargetWords{HandoffPeriod, "handoff_period_start_unix_ms", "the shift handoff", false, none, nullptr},
    ActionTargetWords{Handoff, "handoff_id", "handoff", false,
                      [](const v1::ActionRequest& r) { return text(r.handoff_id()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_handoff_id(name); }},
    ActionTargetWords{Breaker, "", "the automation circuit breaker", false, none, nullptr},
    ActionTargetWords{Link, "link_name", "link", false, [](const v1::ActionRequest& r) { return text(r.link_name()); },
                      [](v1::ActionRequest* r, const std::string& name) { r->set_link_name(name); }},
};

// What every break/fix step asks besides the reason; a GPU reset adds the GPU, diagnostics the
// level, a rack's power cycle the rack's name typed (as isolating it does).
struct BreakFixInputs : ActionInputs {
    constexpr BreakFixInputs() : ActionInputs{.waitForDrain = true, .afterRepair = true} {}
    constexpr ActionInputs withGpu() const {
        ActionInputs inputs = *this;
        inputs.chooseGpu = true;
        return inputs;
    }
    constexpr ActionInputs withLevel() const {
        ActionInputs inputs = *this;
        inputs.diagnosticLevel = true;
        return inputs;
    }
    constexpr ActionInputs typingName(const char* why) const {
        ActionInputs inputs = *this;
        inputs.typeTargetName = true;
        inputs.typeNameWhy = why;
        return inputs;
    }
};
constexpr BreakFixInputs kBreakFix;

constexpr ActionInputs kOwnerAndNote{
    .showOwner = true, .note = Optional, .notePrompt = "What is being done, ticket, hand-over"};

// UNSPECIFIED first (the words for an unknown type), then in control.proto's order. Each row:
// type; title, verb, name, past tense, permission; target, least role, dialog inputs.
// clang-format off
constexpr std::array kActions{
    ActionWords{v1::ACTION_TYPE_UNSPECIFIED,
                "Unknown action", "Execute", "unknown action", "done", "act",
                Unknown, v1::ROLE_UNSPECIFIED, {}},
    ActionWords{v1::ACTION_TYPE_DRAIN_NODE,
                "Drain node", "Drain", "drain node", "drained", "drain nodes",
                Node, kOperator, {}},
    ActionWords{v1::ACTION_TYPE_RESUME_NODE,
                "Resume node", "Resume", "resume node", "resumed", "resume nodes",
                Node, kOperator, {}},
    ActionWords{v1::ACTION_TYPE_RESTART_JOB,
                "Restart job", "Restart", "restart job", "restarted", "restart jobs",
                Job, kOperator, {.excludeNodes = true}},
    ActionWords{v1::ACTION_TYPE_ISOLATE_RACK,
                "Isolate rack", "Isolate", "isolate rack", "isolated", "isolate racks",
                Rack, kOperator,
                {.typeTargetName = true,
                 .typeNameWhy = "Isolating closes the rack's coolant valve and powers its trays down. "
                                "Type the rack's name exactly to confirm."}},
    ActionWords{v1::ACTION_TYPE_RESTORE_RACK,
                "Restore rack", "Restore", "restore rack", "restored", "restore racks",
                Rack, kOperator, {}},
    ActionWords{v1::ACTION_TYPE_ACKNOWLEDGE_EVENT,
                "Acknowledge event", "Acknowledge", "acknowledge event", "acknowledged", "acknowledge events",
                Event, kOperator, kOwnerAndNote},
    ActionWords{v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER,
                "Reset automation breaker", "Reset automation breaker", "reset automation breaker", "reset",
                "reset the automation circuit breaker",
                Breaker, kAdmin, {}},
    ActionWords{v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT,
                "Acknowledge incident", "Acknowledge", "acknowledge incident", "acknowledged",
                "acknowledge incidents",
                Incident, kOperator, kOwnerAndNote},
    ActionWords{v1::ACTION_TYPE_MITIGATE_INCIDENT,
                "Mark incident mitigated", "Mark mitigated", "mark incident mitigated", "marked mitigated",
                "mark incidents mitigated",
                Incident, kOperator,
                {.note = Optional, .notePrompt = "What contains it, e.g. rack isolated, jobs moved"}},
    ActionWords{v1::ACTION_TYPE_RESOLVE_INCIDENT,
                "Resolve incident", "Resolve", "resolve incident", "resolved", "resolve incidents",
                Incident, kOperator, {.note = Optional, .notePrompt = "What fixed it"}},
    ActionWords{v1::ACTION_TYPE_NOTE_INCIDENT,
                "Add note to incident", "Add note to", "add note to incident", "noted", "add notes to incidents",
                Incident, kOperator, {.note = Required, .notePrompt = "The note for the incident's timeline"}},
    ActionWords{v1::ACTION_TYPE_SCHEDULE_MAINTENANCE,
                "Schedule maintenance", "Schedule", "schedule maintenance", "scheduled", "schedule maintenance",
                MaintenanceScope, kOperator, {}},
    ActionWords{v1::ACTION_TYPE_CANCEL_MAINTENANCE,
                "Cancel maintenance", "Cancel window", "cancel maintenance", "cancelled", "cancel maintenance",
                MaintenanceWindow, kOperator, {}},
    // The title comes before the tray's name ("Set lifecycle of r01-n03"); the name stands alone.
    ActionWords{v1::ACTION_TYPE_SET_LIFECYCLE,
                "Set lifecycle of", "Set", "set lifecycle", "set", "set tray lifecycles",
                Node, kOperator, {.chooseLifecycle = true}},
    ActionWords{v1::ACTION_TYPE_POST_HANDOFF,
                "Post shift handoff", "Post to fleetd", "post shift handoff", "posted", "post shift handoffs",
                HandoffPeriod, kOperator, {.note = Shown}},
    ActionWords{v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF,
                "Acknowledge handoff", "Acknowledge", "acknowledge handoff", "acknowledged",
                "acknowledge shift handoffs",
                Handoff, kOperator, {.note = Optional, .notePrompt = "Anything you take over differently"}},
    ActionWords{v1::ACTION_TYPE_RESET_GPU,
                "Reset GPU", "Reset GPU", "reset GPU", "reset", "reset GPUs",
                TrayGpu, kOperator, kBreakFix.withGpu()},
    ActionWords{v1::ACTION_TYPE_REBOOT_NODE,
                "Reboot", "Reboot", "reboot node", "rebooted", "reboot nodes",
                Node, kOperator, kBreakFix},
    ActionWords{v1::ACTION_TYPE_POWER_CYCLE_NODE,
                "Power-cycle", "Power-cycle", "power-cycle node", "power-cycled", "power-cycle nodes",
                Node, kOperator, kBreakFix},
    ActionWords{v1::ACTION_TYPE_RUN_DIAGNOSTICS,
                "Run diagnostics", "Run diagnostics", "run diagnostics", "diagnosed", "run diagnostics",
                Node, kOperator, kBreakFix.withLevel()},
    ActionWords{v1::ACTION_TYPE_POWER_CYCLE_RACK,
                "Power-cycle rack", "Power-cycle", "power-cycle rack", "power-cycled", "power-cycle racks",
                Rack, kOperator,
                kBreakFix.typingName("Power-cycling a rack turns every tray's host power off and on: all its jobs "
                                     "stop. Type the rack's name exactly to confirm.")},
    ActionWords{v1::ACTION_TYPE_ISOLATE_LINK,
                "Isolate link", "Isolate", "isolate link", "isolated", "isolate links",
                Link, kOperator, {.atNextCheckpoint = true}},
    ActionWords{v1::ACTION_TYPE_TREAT_LINK,
                "Record treatment of link", "Record treatment of", "treat link", "treated", "record link treatments",
                Link, kOperator,
                {.note = Optional, .notePrompt = "What was found and done (part numbers, ticket)",
                 .chooseTreatment = true}},
    ActionWords{v1::ACTION_TYPE_RETURN_LINK,
                "Return link", "Return", "return link", "returned", "return links",
                Link, kOperator, {}},
};
// clang-format on

const ActionTargetWords& targetOf(const v1::ActionRequest& request) {
    return targetWords(actionWords(request.type()).target);
}

// "Drain" + "r01-n03"; the words alone when there is no name.
QString joined(const char* words, const QString& name) {
    const QString head = QString::fromUtf8(words);
    return name.isEmpty() ? head : QStringLiteral("%1 %2").arg(head, name);
}

}  // namespace

const ActionWords& actionWords(v1::ActionType type) {
    const auto it = std::find_if(kActions.begin(), kActions.end(), [&](const auto& row) { return row.type == type; });
    return it == kActions.end() ? kActions.front() : *it;
}

std::span<const ActionWords> allActionWords() { return kActions; }

const ActionTargetWords& targetWords(ActionTargetKind kind) {
    const auto it = std::find_if(kTargets.begin(), kTargets.end(), [&](const auto& row) { return row.kind == kind; });
    return it == kTargets.end() ? kTargets.front() : *it;
}

std::span<const ActionTargetWords> allTargetWords() { return kTargets; }

const ActionWords* actionWordsNamed(std::string_view fleetdName) {
    v1::ActionType type = v1::ACTION_TYPE_UNSPECIFIED;
    if (fleetdName.empty() || !v1::ActionType_Parse("ACTION_TYPE_" + std::string(fleetdName), &type) ||
        type == v1::ACTION_TYPE_UNSPECIFIED)
        return nullptr;
    const ActionWords& row = actionWords(type);
    return row.type == type ? &row : nullptr;
}

QString actionTitle(v1::ActionType type) { return QString::fromUtf8(actionWords(type).title); }
QString actionVerb(v1::ActionType type) { return QString::fromUtf8(actionWords(type).verb); }
QString actionName(v1::ActionType type) { return QString::fromUtf8(actionWords(type).name); }
QString actionPastTense(v1::ActionType type) { return QString::fromUtf8(actionWords(type).pastTense); }
QString actionPermission(v1::ActionType type) { return QString::fromUtf8(actionWords(type).permission); }

QString recordedActionName(std::string_view fleetdName) {
    if (const ActionWords* row = actionWordsNamed(fleetdName)) return QString::fromUtf8(row->name);
    return QString::fromUtf8(fleetdName.data(), qsizetype(fleetdName.size()))
        .toLower()
        .replace(QLatin1Char('_'), QLatin1Char(' '));
}

bool roleMayRun(v1::Role role, v1::ActionType type) {
    const v1::Role least = actionWords(type).minimumRole;
    return proto::roleCovers(role, least);
}

QString actionTargetName(const v1::ActionRequest& request) { return targetOf(request).name(request); }

QString actionTargetPhrase(const v1::ActionRequest& request) {
    const ActionTargetWords& target = targetOf(request);
    return joined(target.noun, target.name(request));
}

QString actionTargetShown(const v1::ActionRequest& request) {
    const ActionTargetWords& target = targetOf(request);
    const QString name = target.name(request);
    return target.numbered ? joined(target.noun, name) : name;
}

bool setActionTargetName(v1::ActionRequest* request, const QString& name) {
    const ActionTargetWords& target = targetOf(*request);
    if (!target.setName) return false;
    target.setName(request, name.toStdString());
    return true;
}

QString actionHeading(const v1::ActionRequest& request) {
    return joined(actionWords(request.type()).title, actionTargetName(request));
}

QString actionSentence(const v1::ActionRequest& request) {
    return joined(actionWords(request.type()).name, actionTargetName(request));
}

QString actionConfirmText(const v1::ActionRequest& request) {
    return joined(actionWords(request.type()).verb, actionTargetShown(request));
}

}  // namespace watchfloor::client
