// Operator actions on the twin (drain, resume, requeue, isolate, restore).

#include "TwinImpl.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

// An operator drain or requeue stops the job through the scheduler (signal, requeue): seconds,
// not a fault that first has to be noticed.
constexpr double kOperatorStopS = 5.0;

TwinActionResult success(std::string message) { return {true, std::move(message)}; }
TwinActionResult failure(std::string message) { return {false, std::move(message)}; }

// "NODE_STATE_DRAINED" -> "drained"
std::string stateWord(NodeState state) {
    std::string word = NodeState_Name(state);
    word.erase(0, std::string("NODE_STATE_").size());
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    return word;
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

std::string withReason(const std::string& text, const std::string& reason) {
    return reason.empty() ? text : text + ": " + reason;
}

}  // namespace

TwinActionResult DigitalTwin::Impl::apply(const TwinAction& action) {
    auto ordinal = [this](const std::string& name, EntityKind kind) -> std::optional<std::uint32_t> {
        const auto ref = model->find(name);
        if (!ref || ref->kind != kind) return std::nullopt;
        return ref->ordinal;
    };
    switch (action.type) {
    case TwinActionType::DrainNode:
    case TwinActionType::ResumeNode: {
        const auto t = ordinal(action.target, ENTITY_KIND_NODE);
        if (!t) return failure("unknown node '" + action.target + "'");
        return action.type == TwinActionType::DrainNode ? drainNode(*t, action.reason) : resumeNode(*t, action.reason);
    }
    case TwinActionType::RequeueJob: {
        const auto job = publisher->findJob(action.target);
        if (!job) return failure("unknown job '" + action.target + "'");
        std::vector<std::uint32_t> exclude;
        std::vector<std::string> unknown;
        for (const auto& name : action.excludeNodes) {
            if (const auto t = ordinal(name, ENTITY_KIND_NODE))
                exclude.push_back(*t);
            else
                unknown.push_back("'" + name + "'");
        }
        if (!unknown.empty())
            return failure("unknown node" + std::string(unknown.size() > 1 ? "s " : " ") + joined(unknown) +
                           " in the exclude list; " + action.target + " was not requeued");
        return requeueJob(*job, exclude, action.reason);
    }
    case TwinActionType::IsolateRack:
    case TwinActionType::RestoreRack: {
        const auto r = ordinal(action.target, ENTITY_KIND_RACK);
        if (!r) return failure("unknown rack '" + action.target + "'");
        return action.type == TwinActionType::IsolateRack ? isolateRackByOperator(*r, action.reason)
                                                          : restoreRackByOperator(*r, action.reason);
    }
    }
    return failure("unknown action");
}

// --- the actions --------------------------------------------------------------------------------

void DigitalTwin::Impl::operatorEvent(Severity severity, std::uint32_t entity, const std::string& message) {
    auto& e = event(severity, EVENT_TYPE_OPERATOR_ACTION, entity, message);
    e.set_cause("operator");
}

TwinActionResult DigitalTwin::Impl::drainNode(std::uint32_t t, const std::string& reason) {
    const std::string& name = model->trayName(t);
    if (trays[t].drainRequested)
        return success(name + " is already " + stateWord(trays[t].node) + " (" + trays[t].drainReason + ")");
    TrayState& tray = trays.edit(t);
    tray.drainRequested = true;
    tray.drainReason = reason;
    operatorEvent(SEVERITY_INFO, model->trayIndex(t), withReason("drain " + name, reason));
    if (tray.faulted || tray.node == NODE_STATE_DOWN) {
        if (out()) emitTrayState(t);  // same state, new owner: the drain's
        return success(name + " is " + stateWord(tray.node) + " (" + tray.reason +
                       "); it stays drained once it is back");
    }
    const std::uint32_t j = tray.job;
    if (j == kNoJob) {
        setTray(t, NODE_STATE_DRAINED, tray.health, reason, true);
        return success(name + " drained (no work on it)");
    }
    setTray(t, NODE_STATE_DRAINING, tray.health, reason, true);
    const TrainingJob& job = jobs()[j];
    if (job.exposed())
        jobRunner->interrupt(j, kOperatorStopS, "operator_drain", model->trayIndex(t));
    else if (job.phase() == JobPhase::Reschedule)
        jobRunner->replace(j);
    // In Detect the pending reschedule lets the tray go.
    return success(name + " draining: " + job.name() + " restarts from its checkpoint of step " +
                   std::to_string(job.lastDurableStep()) + " on other trays");
}

TwinActionResult DigitalTwin::Impl::resumeNode(std::uint32_t t, const std::string& reason) {
    const std::string& name = model->trayName(t);
    if (!trays[t].drainRequested) {
        const TrayState& tray = trays[t];
        if (tray.faulted)
            return failure(name + " was taken out of service by the health check (" + tray.reason +
                           ") and returns by itself once repaired; there is no drain to resume");
        return failure(name + " is " + stateWord(tray.node) +
                       ", not drained or draining; only a drained node can be resumed");
    }
    TrayState& tray = trays.edit(t);
    tray.drainRequested = false;
    tray.drainReason.clear();
    operatorEvent(SEVERITY_INFO, model->trayIndex(t), withReason("resume " + name, reason));
    if (tray.faulted || tray.node == NODE_STATE_DOWN) {
        if (out()) emitTrayState(t);  // the health check holds it again
        const bool isolated = racks[model->rackOfTray(t)].electricalIsolated;
        return success(name + " is " + stateWord(tray.node) + " (" + tray.reason + "); it returns to service when " +
                       (isolated ? "its rack is restored" : "it is repaired"));
    }
    setTray(t, tray.job != kNoJob ? NODE_STATE_ALLOCATED : NODE_STATE_IDLE, HEALTH_STATE_HEALTHY, "", true);
    jobRunner->offerTrays();
    return success(name + " is back in service");
}

TwinActionResult DigitalTwin::Impl::requeueJob(std::uint32_t j, const std::vector<std::uint32_t>& exclude,
                                               const std::string& reason) {
    const TrainingJob& job = jobs()[j];
    std::vector<std::string> names;
    for (const std::uint32_t t : exclude) {
        jobRunner->exclude(j, t);
        names.push_back(model->trayName(t));
    }
    const std::string avoiding = names.empty() ? "" : " avoiding " + joined(names);
    operatorEvent(SEVERITY_INFO, model->jobIndex(j), withReason("requeue " + job.name() + avoiding, reason));
    const std::string from = " from its checkpoint of step " + std::to_string(job.lastDurableStep());
    if (job.exposed()) {
        jobRunner->interrupt(j, kOperatorStopS, "operator_requeue", model->jobIndex(j));
        return success(job.name() + " requeued: restarts" + from + avoiding);
    }
    if (job.phase() == JobPhase::Reschedule) jobRunner->replace(j);
    return success(job.name() + " was already recovering; it restarts" + from + avoiding);
}

TwinActionResult DigitalTwin::Impl::isolateRackByOperator(std::uint32_t r, const std::string& reason) {
    const RackStatus& rack = racks[r];
    const std::string& name = model->rackName(r);
    if (rack.electricalIsolated && rack.liquidIsolated) return success(name + " is already isolated");
    std::vector<std::string> jobNames;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t j = trays[r * kTraysPerRack + k].job;
        if (j != kNoJob && std::find(jobNames.begin(), jobNames.end(), jobs()[j].name()) == jobNames.end())
            jobNames.push_back(jobs()[j].name());
    }
    operatorEvent(SEVERITY_WARNING, model->rackIndex(r), withReason("isolate " + name, reason));
    isolateRack(r, reason.empty() ? "operator isolation" : reason, "operator_isolation", false);
    return success(name + " isolated: valve closed, trays powered down" +
                   (jobNames.empty() ? std::string(", no jobs on it") : ", moving " + joined(jobNames)));
}

TwinActionResult DigitalTwin::Impl::restoreRackByOperator(std::uint32_t r, const std::string& reason) {
    const RackStatus& rack = racks[r];
    const std::string& name = model->rackName(r);
    if (rack.leakWet > 0)
        return failure(name + " has an active coolant leak (" + std::to_string(rack.leakWet) +
                       " sensors wet); it is restored once the leak is repaired");
    if (!rack.electricalIsolated && !rack.liquidIsolated) return failure(name + " is not isolated; nothing to restore");
    operatorEvent(SEVERITY_INFO, model->rackIndex(r), withReason("restore " + name, reason));
    restoreRack(r, reason.empty() ? "operator restore" : reason);
    return success(name + " restored: valve open, trays back in service");
}

}  // namespace watchfloor::server::sim
