#include "ActionEffects.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

// An operator drain or requeue stops the job through the scheduler (signal, requeue): seconds,
// not a fault that first has to be noticed.
constexpr double kOperatorStopS = 5.0;

TwinActionResult success(std::string message) { return {true, std::move(message), {}}; }
TwinActionResult failure(std::string message) { return {false, std::move(message), {}}; }

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

ActionEffects::ActionEffects(const FleetModel& model, TelemetryPublisher& publisher, JobRunner& jobRunner,
                             ViewedTable<TrayState>& trays, const ViewedTable<RackStatus>& racks, ActionHost& host)
    : model_(model), publisher_(publisher), jobRunner_(jobRunner), trays_(trays), racks_(racks), host_(host) {}

TwinActionResult ActionEffects::apply(const TwinAction& action) {
    auto ordinal = [this](const std::string& name, EntityKind kind) -> std::optional<std::uint32_t> {
        const auto ref = model_.find(name);
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
        const auto job = publisher_.findJob(action.target);
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
        return action.type == TwinActionType::IsolateRack ? isolateRack(*r, action.reason)
                                                          : restoreRack(*r, action.reason);
    }
    case TwinActionType::Repair:           // TwinRepairs', where the coordinator sends it
    case TwinActionType::MendLink: break;  // the rail links', likewise
    }
    return failure("unknown action");
}

// --- the actions --------------------------------------------------------------------------------

void ActionEffects::operatorEvent(Severity severity, std::uint32_t entity, const std::string& message) {
    auto& e = publisher_.event(severity, EVENT_TYPE_OPERATOR_ACTION, entity, message);
    e.set_cause("operator");
}

TwinActionResult ActionEffects::drainNode(std::uint32_t t, const std::string& reason) {
    const std::string& name = model_.trayName(t);
    if (trays_[t].drainRequested)
        return success(name + " is already " + stateWord(trays_[t].node) + " (" + trays_[t].drainReason + ")");
    TrayState& tray = trays_.edit(t);
    tray.drainRequested = true;
    tray.drainReason = reason;
    operatorEvent(SEVERITY_INFO, model_.trayIndex(t), withReason("drain " + name, reason));
    if (tray.faulted || tray.node == NODE_STATE_DOWN) {
        // The job this tray failed under no longer runs on it; drained, it must not come back to
        // it once repaired either (Slurm's drain keeps a job off a node). Let it go, so the tray
        // holds no job while it waits for a repair step.
        if (tray.job != kNoJob) host_.releaseTray(t);
        if (publisher_.changes()) host_.emitTrayState(t);  // same state, new owner: the drain's
        return success(name + " is " + stateWord(tray.node) + " (" + tray.reason +
                       "); it stays drained once it is back");
    }
    const std::uint32_t j = tray.job;
    if (j == kNoJob) {
        host_.setTray(t, NODE_STATE_DRAINED, tray.health, reason, true);
        return success(name + " drained (no work on it)");
    }
    host_.setTray(t, NODE_STATE_DRAINING, tray.health, reason, true);
    const TrainingJob& job = jobRunner_.jobs()[j];
    if (job.exposed())
        jobRunner_.interrupt(j, kOperatorStopS, "operator_drain", model_.trayIndex(t));
    else if (job.phase() == JobPhase::Reschedule)
        jobRunner_.replace(j);
    // In Detect the pending reschedule lets the tray go.
    return success(name + " draining: " + job.name() + " restarts from its checkpoint of step " +
                   std::to_string(job.lastDurableStep()) + " on other trays");
}

TwinActionResult ActionEffects::resumeNode(std::uint32_t t, const std::string& reason) {
    const std::string& name = model_.trayName(t);
    if (trays_[t].repairing)
        return failure(name + " has a break/fix step running (" + trays_[t].reason +
                       "); where it goes when the step ends is the step's to say");
    if (!trays_[t].drainRequested) {
        const TrayState& tray = trays_[t];
        if (tray.faulted)
            return failure(name + " was taken out of service by the health check (" + tray.reason +
                           ") and returns by itself once repaired; there is no drain to resume");
        return failure(name + " is " + stateWord(tray.node) +
                       ", not drained or draining; only a drained node can be resumed");
    }
    TrayState& tray = trays_.edit(t);
    tray.drainRequested = false;
    tray.drainReason.clear();
    // DOWN after a break/fix step is the operator's hold, which a resume ends when the tray has power.
    const bool heldDown = std::exchange(tray.heldDown, false);
    const bool powered = !racks_[model_.rackOfTray(t)].electricalIsolated && !tray.thermalShutdown;
    operatorEvent(SEVERITY_INFO, model_.trayIndex(t), withReason("resume " + name, reason));
    if (tray.faulted || (tray.node == NODE_STATE_DOWN && !(heldDown && powered))) {
        if (publisher_.changes()) host_.emitTrayState(t);  // the health check holds it again
        const bool isolated = racks_[model_.rackOfTray(t)].electricalIsolated;
        return success(name + " is " + stateWord(tray.node) + " (" + tray.reason + "); it returns to service when " +
                       (isolated ? "its rack is restored" : "it is repaired"));
    }
    host_.setTray(t, tray.job != kNoJob ? NODE_STATE_ALLOCATED : NODE_STATE_IDLE, HEALTH_STATE_HEALTHY, "", true);
    jobRunner_.offerTrays();
    return success(name + " is back in service");
}

TwinActionResult ActionEffects::requeueJob(std::uint32_t j, const std::vector<std::uint32_t>& exclude,
                                           const std::string& reason) {
    const TrainingJob& job = jobRunner_.jobs()[j];
    std::vector<std::string> names;
    for (const std::uint32_t t : exclude) {
        jobRunner_.exclude(j, t);
        names.push_back(model_.trayName(t));
    }
    const std::string avoiding = names.empty() ? "" : " avoiding " + joined(names);
    operatorEvent(SEVERITY_INFO, model_.jobIndex(j), withReason("requeue " + job.name() + avoiding, reason));
    const std::string from = " from its checkpoint of step " + std::to_string(job.lastDurableStep());
    if (job.exposed()) {
        jobRunner_.interrupt(j, kOperatorStopS, "operator_requeue", model_.jobIndex(j));
        return success(job.name() + " requeued: restarts" + from + avoiding);
    }
    if (job.phase() == JobPhase::Reschedule) jobRunner_.replace(j);
    return success(job.name() + " was already recovering; it restarts" + from + avoiding);
}

TwinActionResult ActionEffects::isolateRack(std::uint32_t r, const std::string& reason) {
    const RackStatus& rack = racks_[r];
    const std::string& name = model_.rackName(r);
    if (rack.electricalIsolated && rack.liquidIsolated) return success(name + " is already isolated");
    std::vector<std::string> jobNames;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t j = trays_[r * kTraysPerRack + k].job;
        if (j != kNoJob && std::find(jobNames.begin(), jobNames.end(), jobRunner_.jobs()[j].name()) == jobNames.end())
            jobNames.push_back(jobRunner_.jobs()[j].name());
    }
    operatorEvent(SEVERITY_WARNING, model_.rackIndex(r), withReason("isolate " + name, reason));
    host_.isolateRack(r, reason.empty() ? "operator isolation" : reason, "operator_isolation", false);
    return success(name + " isolated: valve closed, trays powered down" +
                   (jobNames.empty() ? std::string(", no jobs on it") : ", moving " + joined(jobNames)));
}

TwinActionResult ActionEffects::restoreRack(std::uint32_t r, const std::string& reason) {
    const RackStatus& rack = racks_[r];
    const std::string& name = model_.rackName(r);
    if (rack.leakWet > 0)
        return failure(name + " has an active coolant leak (" + std::to_string(rack.leakWet) +
                       " sensors wet); it is restored once the leak is repaired");
    if (!rack.electricalIsolated && !rack.liquidIsolated) return failure(name + " is not isolated; nothing to restore");
    operatorEvent(SEVERITY_INFO, model_.rackIndex(r), withReason("restore " + name, reason));
    host_.restoreRack(r, reason.empty() ? "operator restore" : reason);
    return success(name + " restored: valve open, trays back in service");
}

}  // namespace watchfloor::server::sim
