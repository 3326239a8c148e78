#include "IncidentActions.h"

#include "AccessPolicy.h"
#include "ActionCatalog.h"
#include "OperationsEngine.h"

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

using Lifecycle = incidents::IncidentLifecycle;
using Calendar = incidents::MaintenanceCalendar;
using Handoffs = incidents::HandoffBook;

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

bool isHandoff(v1::ActionType type) {
    return type == v1::ACTION_TYPE_POST_HANDOFF || type == v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF;
}

// Exactly the target field the type names, as for the fleet actions (BlastRadius).
grpc::Status checkTarget(const v1::ActionRequest& request) {
    const bool incident = request.incident_id() != 0, window = request.has_maintenance(),
               windowId = !request.maintenance_window_id().empty();
    const bool period = request.handoff_period_start_unix_ms() != 0 || request.handoff_period_end_unix_ms() != 0,
               handoffId = !request.handoff_id().empty();
    const bool fleetTarget = !request.node_name().empty() || !request.job_name().empty() ||
                             !request.rack_name().empty() || request.event_id() != 0 ||
                             request.exclude_node_names_size() > 0 || !request.confirm_rack_name().empty();
    const std::string action = actionName(request.type());
    auto exactly = [&](bool wanted, const char* field) -> grpc::Status {
        if (!wanted) return invalid(action + " needs " + field);
        if (fleetTarget || int(incident) + int(window) + int(windowId) + int(period) + int(handoffId) != 1)
            return invalid(action + " takes only " + field + "; clear the other target fields");
        return grpc::Status::OK;
    };
    if (stepOf(request.type())) return exactly(incident, "incident_id");
    if (!request.owner().empty() && (request.type() == v1::ACTION_TYPE_CANCEL_MAINTENANCE || isHandoff(request.type())))
        return invalid(action + " takes no owner (the author or acknowledger is the caller)");
    if (request.type() == v1::ACTION_TYPE_POST_HANDOFF)
        return exactly(period, "handoff_period_start_unix_ms and handoff_period_end_unix_ms");
    if (request.type() == v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF) return exactly(handoffId, "handoff_id");
    if (request.type() == v1::ACTION_TYPE_SCHEDULE_MAINTENANCE) return exactly(window, "maintenance");
    return exactly(windowId, "maintenance_window_id");
}

}  // namespace

bool IncidentActions::handles(v1::ActionType type) {
    const ActionTraits* row = actionTraits(type);
    return row && row->handler == ActionHandler::IncidentBook;
}

namespace {
std::string recordIdFor(const char* prefix, const std::string& operationId) {
    const std::string_view op = "op-";
    return prefix + (operationId.starts_with(op) ? operationId.substr(op.size()) : operationId);
}

// The book's verdict as a preview: NOT_FOUND and INVALID_ARGUMENT are errors, a refusal is not.
PreviewResult handoffPreview(const Handoffs::Result& verdict, PreviewResult result) {
    if (verdict.code == Handoffs::Code::NotFound) return {{grpc::StatusCode::NOT_FOUND, verdict.message}, {}};
    if (verdict.code == Handoffs::Code::InvalidArgument) return {invalid(verdict.message), {}};
    result.preview.set_state_version(verdict.stateVersion);
    if (verdict.ok())
        result.preview.set_effect(verdict.message);
    else {
        result.preview.set_allowed(false);
        result.preview.set_refusal(verdict.message);
    }
    return result;
}
}  // namespace

std::string IncidentActions::windowIdFor(const std::string& operationId) { return recordIdFor("mw-", operationId); }

std::string IncidentActions::handoffIdFor(const std::string& operationId) { return recordIdFor("ho-", operationId); }

ActionOutcome IncidentActions::applyHandoff(Handoffs& book, const v1::Operation& operation) {
    const v1::ActionRequest& request = operation.request();
    Handoffs::Result done;
    if (request.type() == v1::ACTION_TYPE_POST_HANDOFF) {
        v1::ShiftHandoff handoff;
        handoff.set_id(handoffIdFor(operation.id()));
        handoff.set_author(operation.principal());
        handoff.set_note(request.note());
        handoff.set_period_start_unix_ms(request.handoff_period_start_unix_ms());
        handoff.set_period_end_unix_ms(request.handoff_period_end_unix_ms());
        handoff.set_posted_unix_ms(operation.created_unix_ms());
        handoff.set_operation_id(operation.id());
        done = book.post(handoff);
    } else {
        done =
            book.acknowledge(request.handoff_id(), operation.principal(), request.note(), operation.created_unix_ms());
    }
    return done.ok() ? ActionOutcome::success(done.message) : ActionOutcome::failure(done.message);
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
    if (isHandoff(request.type())) {
        if (!handoffs_) {
            refuse("shift handoffs are not connected in this fleetd");
            return result;
        }
        return handoffPreview(
            request.type() == v1::ACTION_TYPE_POST_HANDOFF
                ? handoffs_->checkPost(request.handoff_period_start_unix_ms(), request.handoff_period_end_unix_ms())
                : handoffs_->checkAcknowledge(request.handoff_id(), principal),
            std::move(result));
    }
    if (const auto step = stepOf(request.type())) {
        if (!lifecycle_) {
            refuse("incident actions are not connected in this fleetd");
            return result;
        }
        const auto verdict =
            lifecycle_->check(*step, request.incident_id(), request.owner().empty() ? principal : request.owner());
        if (verdict.code == Lifecycle::Code::NotFound) return {{grpc::StatusCode::NOT_FOUND, verdict.message}, {}};
        preview.set_state_version(verdict.stateVersion);
        if (verdict.ok())
            preview.set_effect(verdict.message);
        else
            refuse(verdict.message);
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
    if (isHandoff(request.type())) {
        if (!handoffs_) return ActionOutcome::failure("shift handoffs are not connected in this fleetd");
        return applyHandoff(*handoffs_, operation);
    }
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
    default: return;  // acknowledgements, the breaker, incident and handoff actions touch no fleet target
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
