#include "IncidentActions.h"

#include "AccessPolicy.h"
#include "OperationsEngine.h"

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

using Lifecycle = incidents::IncidentLifecycle;
using Calendar = incidents::MaintenanceCalendar;

grpc::Status invalid(std::string message) { return {grpc::StatusCode::INVALID_ARGUMENT, std::move(message)}; }

std::optional<Lifecycle::Step> stepOf(v1::ActionType type) {
    switch (type) {
    case v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT: return Lifecycle::Step::Acknowledge;
    case v1::ACTION_TYPE_MITIGATE_INCIDENT: return Lifecycle::Step::Mitigate;
    case v1::ACTION_TYPE_RESOLVE_INCIDENT: return Lifecycle::Step::Resolve;
    case v1::ACTION_TYPE_NOTE_INCIDENT: return Lifecycle::Step::Note;
    default: return std::nullopt;
    }
}

// Exactly the target field the type names, as for the fleet actions (BlastRadius).
grpc::Status checkTarget(const v1::ActionRequest& request) {
    const bool incident = request.incident_id() != 0, window = request.has_maintenance(),
               windowId = !request.maintenance_window_id().empty();
    const bool fleetTarget = !request.node_name().empty() || !request.job_name().empty() ||
                             !request.rack_name().empty() || request.event_id() != 0 ||
                             request.exclude_node_names_size() > 0 || !request.confirm_rack_name().empty();
    const std::string action = actionName(request.type());
    auto exactly = [&](bool wanted, const char* field) -> grpc::Status {
        if (!wanted) return invalid(action + " needs " + field);
        if (fleetTarget || int(incident) + int(window) + int(windowId) != 1)
            return invalid(action + " takes only " + field + "; clear the other target fields");
        return grpc::Status::OK;
    };
    if (stepOf(request.type())) return exactly(incident, "incident_id");
    if (!request.owner().empty() && request.type() == v1::ACTION_TYPE_CANCEL_MAINTENANCE)
        return invalid("CANCEL_MAINTENANCE takes no owner");
    if (request.type() == v1::ACTION_TYPE_SCHEDULE_MAINTENANCE) return exactly(window, "maintenance");
    return exactly(windowId, "maintenance_window_id");
}

}  // namespace

bool IncidentActions::handles(v1::ActionType type) {
    return stepOf(type).has_value() || type == v1::ACTION_TYPE_SCHEDULE_MAINTENANCE ||
           type == v1::ACTION_TYPE_CANCEL_MAINTENANCE;
}

std::string IncidentActions::windowIdFor(const std::string& operationId) {
    const std::string_view prefix = "op-";
    return "mw-" + (operationId.starts_with(prefix) ? operationId.substr(prefix.size()) : operationId);
}

PreviewResult IncidentActions::preview(const v1::ActionRequest& request, const std::string& principal) const {
    if (auto status = checkTarget(request); !status.ok()) return {status, {}};
    PreviewResult result;
    v1::ActionPreview& preview = result.preview;
    preview.set_type(request.type());
    preview.set_target_name(describeTarget(request));
    preview.set_allowed(true);
    auto refuse = [&](std::string why) {
        preview.set_allowed(false);
        preview.set_refusal(std::move(why));
    };
    if (const auto step = stepOf(request.type())) {
        if (!lifecycle_) {
            refuse("incident actions are not connected in this fleetd");
            return result;
        }
        const auto verdict =
            lifecycle_->check(*step, request.incident_id(), request.owner().empty() ? principal : request.owner());
        if (verdict.code == Lifecycle::Code::NotFound) return {{grpc::StatusCode::NOT_FOUND, verdict.message}, {}};
        preview.set_state_version(verdict.stateVersion);
        if (verdict.ok()) preview.set_effect(verdict.message);
        else refuse(verdict.message);
        return result;
    }
    if (!calendar_) {
        refuse("maintenance windows are not connected in this fleetd");
        return result;
    }
    const Calendar::Result checked = request.type() == v1::ACTION_TYPE_SCHEDULE_MAINTENANCE
                                         ? calendar_->check(request.maintenance())
                                         : calendar_->checkCancel(request.maintenance_window_id());
    switch (checked.code) {
    case Calendar::Code::Ok: preview.set_effect(checked.message); break;
    case Calendar::Code::InvalidArgument: return {invalid(checked.message), {}};
    case Calendar::Code::NotFound: return {{grpc::StatusCode::NOT_FOUND, checked.message}, {}};
    case Calendar::Code::Conflict: refuse(checked.message); break;
    }
    return result;
}

ActionOutcome IncidentActions::execute(const v1::Operation& operation) {
    const v1::ActionRequest& request = operation.request();
    const std::string& principal = operation.principal();
    auto outcome = [](bool ok, std::string message) {
        return ok ? ActionOutcome::success(std::move(message)) : ActionOutcome::failure(std::move(message));
    };
    if (const auto step = stepOf(request.type())) {
        if (!lifecycle_) return ActionOutcome::failure("incident actions are not connected in this fleetd");
        const auto verdict =
            lifecycle_->apply(*step, request.incident_id(), principal, request.owner(), request.note(), operation.id());
        return outcome(verdict.ok(), verdict.message);
    }
    if (!calendar_) return ActionOutcome::failure("maintenance windows are not connected in this fleetd");
    if (request.type() == v1::ACTION_TYPE_CANCEL_MAINTENANCE) {
        const auto cancelled = calendar_->cancel(request.maintenance_window_id(), principal);
        return outcome(cancelled.ok(), cancelled.message);
    }
    const auto scheduled = calendar_->schedule(request.maintenance(), windowIdFor(operation.id()), request.reason(),
                                               request.owner().empty() ? principal : request.owner(), principal);
    return outcome(scheduled.ok(), scheduled.message);
}

void IncidentActions::noteOperation(const v1::Operation& operation) {
    if (!lifecycle_) return;
    if (operation.state() != v1::OPERATION_STATE_SUCCEEDED && operation.state() != v1::OPERATION_STATE_FAILED) return;
    const v1::ActionRequest& request = operation.request();
    Lifecycle::OperatorAction action;
    switch (request.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE:
    case v1::ACTION_TYPE_RESUME_NODE:
        action.target = Lifecycle::OperatorAction::Target::Node;
        action.name = request.node_name();
        break;
    case v1::ACTION_TYPE_ISOLATE_RACK:
    case v1::ACTION_TYPE_RESTORE_RACK:
        action.target = Lifecycle::OperatorAction::Target::Rack;
        action.name = request.rack_name();
        break;
    case v1::ACTION_TYPE_RESTART_JOB:
        action.target = Lifecycle::OperatorAction::Target::Job;
        action.name = request.job_name();
        break;
    default: return;  // acknowledgements, the breaker and incident actions touch no fleet target
    }
    action.action = actionName(request.type());
    action.description = describeTarget(request);
    action.principal = operation.principal();
    action.operationId = operation.id();
    action.outcome = stateName(operation.state()) + ": " +
                     (operation.error().empty() ? operation.progress_message() : operation.error());
    lifecycle_->recordAction(action);
}

}  // namespace watchfloor::server::control
