#include "InterruptedOperations.h"

#include "AccessPolicy.h"
#include "UtcTime.h"

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

using Verdict = Reconciliation::Verdict;

bool outOfService(v1::NodeState state) {
    return state == v1::NODE_STATE_DRAINED || state == v1::NODE_STATE_DRAINING || state == v1::NODE_STATE_DOWN;
}

// Where the backend tells operator drains from health holds (the twin) that answer decides;
// where it does not (Slurm), a node drained or draining carries a drain.
bool drainInForce(const NodeFacts& node) {
    if (node.operatorDrain) return *node.operatorDrain;
    return node.state == v1::NODE_STATE_DRAINED || node.state == v1::NODE_STATE_DRAINING;
}

Reconciliation judgeDrain(const FleetView& fleet, const std::string& name) {
    const auto node = fleet.node(name);
    if (!node || !drainInForce(*node)) return {Verdict::RunAgain, name + " is not drained"};
    if (node->state == v1::NODE_STATE_DRAINING || !node->jobs.empty())
        return {Verdict::Draining, name + " is draining; waiting for its work to leave"};
    if (node->state == v1::NODE_STATE_DOWN)
        return {Verdict::Confirmed, name + " is down and stays drained once it is back"};
    return {Verdict::Confirmed, name + " is drained"};
}

Reconciliation judgeResume(const FleetView& fleet, const std::string& name) {
    const auto node = fleet.node(name);
    if (!node || drainInForce(*node)) return {Verdict::RunAgain, name + " is still drained"};
    if (outOfService(node->state))
        return {Verdict::Confirmed, "the drain of " + name + " is lifted; it is out of service by itself" +
                                        (node->reason.empty() ? std::string() : " (" + node->reason + ")") +
                                        " and returns once repaired"};
    return {Verdict::Confirmed, name + " is back in service"};
}

Reconciliation judgeRack(const FleetView& fleet, const std::string& name, bool wantIsolated) {
    const auto rack = fleet.rack(name);
    if (!rack || rack->isolated != wantIsolated)
        return {Verdict::RunAgain, name + (wantIsolated ? " is not isolated" : " is still isolated")};
    return {Verdict::Confirmed, name + (wantIsolated ? " is isolated" : " is restored")};
}

}  // namespace

Reconciliation judgeInterrupted(const FleetView& fleet, const v1::Operation& operation,
                                const AutomationCircuitBreaker* breaker) {
    const v1::ActionRequest& request = operation.request();
    switch (request.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE: return judgeDrain(fleet, request.node_name());
    case v1::ACTION_TYPE_RESUME_NODE: return judgeResume(fleet, request.node_name());
    case v1::ACTION_TYPE_ISOLATE_RACK: return judgeRack(fleet, request.rack_name(), true);
    case v1::ACTION_TYPE_RESTORE_RACK: return judgeRack(fleet, request.rack_name(), false);
    case v1::ACTION_TYPE_ACKNOWLEDGE_EVENT: {
        const auto event = fleet.event(request.event_id());
        if (event && event->acknowledged)
            return {Verdict::Confirmed, "event " + std::to_string(request.event_id()) + " is acknowledged"};
        return {Verdict::RunAgain, "event " + std::to_string(request.event_id()) + " is not acknowledged"};
    }
    case v1::ACTION_TYPE_SET_LIFECYCLE:
        // Setting the same state twice changes nothing: finishing it again is always safe.
        return {Verdict::RunAgain, "the lifecycle of " + request.node_name() + " is set again"};
    case v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER:
        if (breaker && !breaker->tripped())
            return {Verdict::Confirmed, "the automation circuit breaker is not tripped"};
        return {Verdict::RunAgain, "the automation circuit breaker is still tripped"};
    case v1::ACTION_TYPE_RESTART_JOB: {
        // A requeue leaves no state that tells "restarted by this request" from "restarted by the
        // scheduler or another operator", and running it again would interrupt the job twice.
        const std::string& job = request.job_name();
        const std::string since = utcTime(operation.created_unix_ms());
        return {Verdict::CheckByHand,
                "interrupted: fleetd stopped after accepting RESTART_JOB of " + job + " at " + since +
                    " and before recording its outcome; a restart is not repeated by itself. Check whether " + job +
                    " was requeued after " + since +
                    " (its restart count and phase on the Jobs page, or "
                    "'sacct -j <jobid> --duplicates' on the cluster); only if it was not, restart it again with a new "
                    "request id"};
    }
    default: break;
    }
    return {Verdict::CheckByHand, "interrupted: fleetd stopped before recording the outcome of " +
                                      actionName(request.type()) + "; check its target"};
}

void StandingActions::note(const v1::Operation& operation, bool effectApplied) {
    const v1::ActionRequest& request = operation.request();
    const bool succeeded = operation.state() == v1::OPERATION_STATE_SUCCEEDED;
    // A drain whose effect was recorded holds even while it waits for DRAINED.
    const bool inForce = succeeded || (operation.state() == v1::OPERATION_STATE_RUNNING && effectApplied);
    if (!inForce) return;
    auto standing = [&](const std::string& target) {
        StandingAction action;
        action.type = request.type();
        action.target = target;
        action.reason = request.reason();
        action.operationId = operation.id();
        action.lifecycle = request.lifecycle();
        action.principal = operation.principal();
        action.timeUnixMs = operation.updated_unix_ms();
        return action;
    };
    switch (request.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE: drains_[request.node_name()] = standing(request.node_name()); break;
    case v1::ACTION_TYPE_RESUME_NODE: drains_.erase(request.node_name()); break;
    case v1::ACTION_TYPE_ISOLATE_RACK: isolations_[request.rack_name()] = standing(request.rack_name()); break;
    case v1::ACTION_TYPE_RESTORE_RACK: isolations_.erase(request.rack_name()); break;
    case v1::ACTION_TYPE_SET_LIFECYCLE: {
        // Setting the state a tray already had changed nothing, not even who set it.
        const auto known = lifecycles_.find(request.node_name());
        if (known == lifecycles_.end() || known->second.lifecycle != request.lifecycle())
            lifecycles_[request.node_name()] = standing(request.node_name());
        break;
    }
    default: break;
    }
}

std::vector<StandingAction> StandingActions::list() const {
    std::vector<StandingAction> all;
    for (const auto& [name, action] : drains_) all.push_back(action);
    for (const auto& [name, action] : isolations_) all.push_back(action);
    return all;
}

std::vector<StandingAction> StandingActions::lifecycles() const {
    std::vector<StandingAction> all;
    for (const auto& [name, action] : lifecycles_) all.push_back(action);
    return all;
}

}  // namespace watchfloor::server::control
