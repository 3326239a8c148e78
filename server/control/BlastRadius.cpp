#include "BlastRadius.h"

#include "AccessPolicy.h"
#include "ActionCatalog.h"
#include "Plural.h"
#include "TextBounds.h"
#include "TrayLifecycle.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

bool outOfService(v1::NodeState state) {
    return state == v1::NODE_STATE_DRAINING || state == v1::NODE_STATE_DRAINED || state == v1::NODE_STATE_DOWN;
}

grpc::Status invalid(std::string message) { return {grpc::StatusCode::INVALID_ARGUMENT, std::move(message)}; }
grpc::Status notFound(std::string message) { return {grpc::StatusCode::NOT_FOUND, std::move(message)}; }

void refuse(v1::ActionPreview& preview, std::string why) {
    preview.set_allowed(false);
    preview.set_refusal(std::move(why));
}

// Every job interrupted pays its progress since the last checkpoint plus a restart, on all its GPUs.
void addJobsHit(const FleetView& fleet, const std::set<std::string>& jobs, const BlastRadiusPolicy& policy,
                v1::ActionPreview& preview) {
    double worstAge_s = 0, wasted_gpu_s = 0, restart_gpu_s = 0;
    for (const std::string& name : jobs) {
        preview.add_jobs_hit(name);
        const auto job = fleet.job(name);
        if (!job) {
            preview.add_warnings("no facts for job " + name + "; its cost is not counted");
            continue;
        }
        if (job->checkpointAgeKnown) {
            worstAge_s = std::max(worstAge_s, job->checkpointAgeSeconds);
            wasted_gpu_s += job->checkpointAgeSeconds * job->gpus;
        } else {
            preview.add_warnings("checkpoint age of job " + name +
                                 " is unknown (the scheduler runs it, fleetd has no progress reports): "
                                 "its lost progress is not counted");
        }
        restart_gpu_s += static_cast<double>(policy.restartOverhead.count()) * job->gpus;
    }
    preview.set_checkpoint_age_s(worstAge_s);
    preview.set_expected_wasted_progress_s(wasted_gpu_s);
    preview.set_expected_goodput_cost_gpu_s(wasted_gpu_s + restart_gpu_s);
}

std::size_t traysOutOfService(const FleetView& fleet, const RackFacts& rack) {
    return static_cast<std::size_t>(std::count_if(rack.nodes.begin(), rack.nodes.end(), [&](const std::string& name) {
        const auto node = fleet.node(name);
        return node && outOfService(node->state);
    }));
}

PreviewResult drainOrResume(const FleetView& fleet, const v1::ActionRequest& request, const BlastRadiusPolicy& policy) {
    PreviewResult result;
    auto& preview = result.preview;
    const auto node = fleet.node(request.node_name());
    if (!node) return {notFound("no node named " + quotedForMessage(request.node_name())), {}};
    preview.set_state_version(node->stateVersion);
    const auto rack = fleet.rack(node->rack);
    const bool drain = request.type() == v1::ACTION_TYPE_DRAIN_NODE;
    const bool nodeOut = outOfService(node->state);
    const std::size_t traysOut = rack ? traysOutOfService(fleet, *rack) : 0;

    if (drain) {
        addJobsHit(fleet, {node->jobs.begin(), node->jobs.end()}, policy, preview);
        preview.set_gpus_lost(nodeOut ? 0 : node->gpus);
        preview.set_nvlink_domain_after(nvlinkDomainWithTraysOut(traysOut + (nodeOut ? 0 : 1)));
        if (nodeOut)
            preview.add_warnings(node->name + " is already " + v1::NodeState_Name(node->state) +
                                 "; draining again only replaces the reason");
        return result;
    }
    preview.set_nvlink_domain_after(nvlinkDomainWithTraysOut(nodeOut && traysOut > 0 ? traysOut - 1 : traysOut));
    if (rack && rack->isolated)
        refuse(preview, node->name + " is in isolated rack " + rack->name + "; restore the rack instead");
    else if (rack && rack->leakActive)
        refuse(preview, "resume refused while a leak is active on rack " + rack->name);
    else if (!nodeOut)
        refuse(preview, node->name + " is " + v1::NodeState_Name(node->state) + ", not drained; nothing to resume");
    else if (node->operatorDrain == false)
        // What execute would answer: the backend only lifts operator drains.
        refuse(preview, node->name + " was taken out of service by the health check" +
                            (node->reason.empty() ? std::string() : " (" + node->reason + ")") +
                            " and returns by itself once repaired; there is no drain to resume");
    return result;
}

PreviewResult restartJob(const FleetView& fleet, const v1::ActionRequest& request, const BlastRadiusPolicy& policy) {
    PreviewResult result;
    const auto job = fleet.job(request.job_name());
    if (!job) return {notFound("no job named " + quotedForMessage(request.job_name())), {}};
    for (const std::string& excluded : request.exclude_node_names())
        if (!fleet.node(excluded))
            return {notFound("no node named " + quotedForMessage(excluded) + " (in exclude_node_names)"), {}};
    result.preview.set_state_version(job->stateVersion);
    addJobsHit(fleet, {job->name}, policy, result.preview);
    return result;
}

PreviewResult isolateOrRestore(const FleetView& fleet, const v1::ActionRequest& request,
                               const BlastRadiusPolicy& policy) {
    PreviewResult result;
    auto& preview = result.preview;
    const auto rack = fleet.rack(request.rack_name());
    if (!rack) return {notFound("no rack named " + quotedForMessage(request.rack_name())), {}};
    preview.set_state_version(rack->stateVersion);
    if (request.type() == v1::ACTION_TYPE_RESTORE_RACK) {
        // Restoring brings every tray back; trays drained one by one stay drained in the scheduler.
        preview.set_nvlink_domain_after(nvlinkDomainWithTraysOut(0));
        if (rack->leakActive)
            refuse(preview, "restore refused while a leak is active on rack " + rack->name);
        else if (!rack->isolated)
            refuse(preview, "rack " + rack->name + " is not isolated; nothing to restore");
        return result;
    }
    std::set<std::string> jobs;
    std::uint32_t gpus = 0;
    for (const std::string& name : rack->nodes) {
        const auto node = fleet.node(name);
        if (!node) continue;
        jobs.insert(node->jobs.begin(), node->jobs.end());
        if (!outOfService(node->state)) gpus += node->gpus;
    }
    addJobsHit(fleet, jobs, policy, preview);
    preview.set_gpus_lost(gpus);
    preview.set_nvlink_domain_after("unusable");
    preview.set_requires_approval(policy.isolateRackNeedsApproval);
    if (rack->isolated) refuse(preview, "rack " + rack->name + " is already isolated");
    if (rack->leakActive) preview.add_warnings("a leak is active on rack " + rack->name);
    return result;
}

PreviewResult acknowledge(const FleetView& fleet, const v1::ActionRequest& request) {
    PreviewResult result;
    const auto event = fleet.event(request.event_id());
    if (!event) return {notFound("no event with id " + std::to_string(request.event_id())), {}};
    result.preview.set_state_version(event->stateVersion);
    if (event->acknowledged)
        result.preview.add_warnings("event " + std::to_string(event->id) + " is already acknowledged");
    return result;
}

// Exactly one target, the one the action type names: an unset or stray target is never guessed.
// A label on the tray: nothing leaves it, so the preview is its state version and a note saying
// so; the engine adds the transition from its lifecycle record. An unknown tray is a bad argument
// here (not NOT_FOUND): the caller named a tray this fleet does not have.
PreviewResult setLifecycle(const FleetView& fleet, const v1::ActionRequest& request) {
    PreviewResult result;
    const auto node = fleet.node(request.node_name());
    if (!node) return {invalid("no compute tray named " + quotedForMessage(request.node_name())), {}};
    result.preview.set_state_version(node->stateVersion);
    result.preview.add_warnings("a lifecycle state is a label: " + node->name +
                                " keeps its jobs; drain it as well to take it out of service");
    return result;
}

// A break/fix step on one tray, or on every tray of a rack: the drain before it when the request
// waits for one (a busy tray is refused otherwise), the GPUs it takes out and where the trays go
// afterwards. The back end's expected time and one step per tray at a time are the engine's.
PreviewResult repairStep(const FleetView& fleet, const v1::ActionRequest& request, const BlastRadiusPolicy& policy) {
    PreviewResult result;
    auto& preview = result.preview;
    std::vector<NodeFacts> trays;
    std::optional<RackFacts> rack;
    if (request.type() == v1::ACTION_TYPE_POWER_CYCLE_RACK) {
        rack = fleet.rack(request.rack_name());
        if (!rack) return {notFound("no rack named " + quotedForMessage(request.rack_name())), {}};
        preview.set_state_version(rack->stateVersion);
        for (const std::string& name : rack->nodes)
            if (auto node = fleet.node(name)) trays.push_back(std::move(*node));
        preview.set_requires_approval(true);  // every tray of a rack at once: two people
    } else {
        auto node = fleet.node(request.node_name());
        if (!node) return {notFound("no node named " + quotedForMessage(request.node_name())), {}};
        preview.set_state_version(node->stateVersion);
        if (request.has_gpu_index() && request.gpu_index() >= node->gpus)
            return {invalid(node->name + " has GPUs 0-" + std::to_string(node->gpus == 0 ? 0 : node->gpus - 1) +
                            "; gpu_index " + std::to_string(request.gpu_index()) + " is not one of them"),
                    {}};
        rack = fleet.rack(node->rack);
        trays.push_back(std::move(*node));
    }
    std::set<std::string> jobs;
    std::vector<std::string> busy;
    std::uint32_t gpus = 0;
    std::size_t newlyOut = 0;
    for (const NodeFacts& tray : trays) {
        preview.add_trays(tray.name);
        // A DOWN tray runs nothing: a job the fault interrupted may still name it while it waits.
        if (tray.state == v1::NODE_STATE_DOWN) continue;
        if (!tray.jobs.empty()) busy.push_back(tray.name);
        jobs.insert(tray.jobs.begin(), tray.jobs.end());
        if (!outOfService(tray.state)) {
            gpus += tray.gpus;
            ++newlyOut;
        }
    }
    preview.set_gpus_lost(gpus);
    if (rack) preview.set_nvlink_domain_after(nvlinkDomainWithTraysOut(traysOutOfService(fleet, *rack) + newlyOut));
    preview.set_tray_after(request.after_repair() == v1::TRAY_AFTER_REPAIR_UNSPECIFIED
                               ? v1::TRAY_AFTER_REPAIR_STAY_DRAINED
                               : request.after_repair());
    if (rack && rack->isolated)
        refuse(preview, "rack " + rack->name + " is isolated: its trays are powered down; restore it first");
    if (!busy.empty()) {
        addJobsHit(fleet, jobs, policy, preview);
        const std::vector<std::string> jobList(jobs.begin(), jobs.end());
        if (!request.wait_for_drain())
            refuse(preview, commaJoined(busy) + (busy.size() == 1 ? " still runs " : " still run ") +
                                commaJoined(jobList) +
                                "; drain first, or let the step wait for the drain (wait_for_drain)");
        else
            preview.add_warnings(commaJoined(busy) + (busy.size() == 1 ? " is" : " are") +
                                 " drained now; the step starts once no job holds " +
                                 (busy.size() == 1 ? "it" : "them"));
    }
    return result;
}

grpc::Status checkTargetFields(const v1::ActionRequest& request) {
    const ActionTraits* row = actionTraits(request.type());
    if (!row) return invalid("unknown action type " + std::to_string(request.type()));
    const bool node = !request.node_name().empty(), job = !request.job_name().empty(),
               rack = !request.rack_name().empty(), event = request.event_id() != 0;
    const std::string action(row->name);
    if (request.type() == v1::ACTION_TYPE_SET_LIFECYCLE && request.lifecycle() == v1::TRAY_LIFECYCLE_UNSPECIFIED)
        return invalid(action + " needs lifecycle: PRODUCTION, TRIAGE, BURN_IN, RMA or MAINTENANCE");
    bool wanted = false;
    switch (row->target) {
    case ActionTarget::Node: wanted = node; break;
    case ActionTarget::Job: wanted = job; break;
    case ActionTarget::Rack: wanted = rack; break;
    case ActionTarget::Event: wanted = event; break;
    case ActionTarget::Nothing:
        if (node || job || rack || event) return invalid(action + " takes no target");
        return grpc::Status::OK;
    default: return invalid(action + " is not a fleet action");  // IncidentActions previews the others
    }
    if (!wanted) return invalid(action + " needs " + std::string(row->targetField));
    if (int(node) + int(job) + int(rack) + int(event) != 1)
        return invalid(action + " takes only " + std::string(row->targetField) + "; clear the other target fields");
    return grpc::Status::OK;
}

}  // namespace

std::string nvlinkDomainWithTraysOut(std::size_t traysOut) {
    if (traysOut == 0) return "NVL72";
    if (traysOut <= 2) return "NVL64+";
    return "unusable";
}

std::string describeTarget(const v1::ActionRequest& request) {
    const ActionTraits* row = actionTraits(request.type());
    if (!row) return "";
    switch (row->target) {
    case ActionTarget::Node:
        if (request.type() == v1::ACTION_TYPE_SET_LIFECYCLE)
            return request.node_name() + " lifecycle -> " + lifecycleName(request.lifecycle());
        if (request.type() == v1::ACTION_TYPE_RESET_GPU && request.has_gpu_index())
            return request.node_name() + " GPU " + std::to_string(request.gpu_index());
        return request.node_name();
    case ActionTarget::Job: return "job " + request.job_name();
    case ActionTarget::Rack: return "rack " + request.rack_name();
    case ActionTarget::Event: return "event " + std::to_string(request.event_id());
    case ActionTarget::Incident: return "incident " + std::to_string(request.incident_id());
    case ActionTarget::MaintenanceWindow: {
        std::string scope = v1::MaintenanceScope_Name(request.maintenance().scope());
        constexpr std::string_view prefix = "MAINTENANCE_SCOPE_";
        if (scope.starts_with(prefix)) scope = scope.substr(prefix.size());
        std::transform(scope.begin(), scope.end(), scope.begin(), [](unsigned char c) { return std::tolower(c); });
        return "maintenance of " + scope + " " + request.maintenance().scope_name();
    }
    case ActionTarget::MaintenanceWindowId: return "maintenance window " + request.maintenance_window_id();
    case ActionTarget::HandoffPeriod: return "shift handoff";
    case ActionTarget::HandoffId: return "handoff " + request.handoff_id();
    case ActionTarget::Link: return "link " + request.link_name();
    case ActionTarget::Nothing: return "automation circuit breaker";
    }
    return "";
}

PreviewResult computeBlastRadius(const FleetView& fleet, const v1::ActionRequest& request,
                                 const BlastRadiusPolicy& policy) {
    if (auto status = checkTargetFields(request); !status.ok()) return {status, {}};
    PreviewResult result;
    switch (request.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE:
    case v1::ACTION_TYPE_RESUME_NODE: result = drainOrResume(fleet, request, policy); break;
    case v1::ACTION_TYPE_RESTART_JOB: result = restartJob(fleet, request, policy); break;
    case v1::ACTION_TYPE_ISOLATE_RACK:
    case v1::ACTION_TYPE_RESTORE_RACK: result = isolateOrRestore(fleet, request, policy); break;
    case v1::ACTION_TYPE_ACKNOWLEDGE_EVENT: result = acknowledge(fleet, request); break;
    case v1::ACTION_TYPE_SET_LIFECYCLE: result = setLifecycle(fleet, request); break;
    case v1::ACTION_TYPE_RESET_GPU:
    case v1::ACTION_TYPE_REBOOT_NODE:
    case v1::ACTION_TYPE_POWER_CYCLE_NODE:
    case v1::ACTION_TYPE_RUN_DIAGNOSTICS:
    case v1::ACTION_TYPE_POWER_CYCLE_RACK: result = repairStep(fleet, request, policy); break;
    default: break;  // resetting the breaker touches no fleet state
    }
    if (!result.status.ok()) return result;
    auto& preview = result.preview;
    preview.set_type(request.type());
    preview.set_target_name(describeTarget(request));
    if (preview.refusal().empty()) preview.set_allowed(true);
    return result;
}

std::string summarize(const v1::ActionPreview& preview) {
    std::string jobs;
    for (const auto& job : preview.jobs_hit()) jobs += (jobs.empty() ? "" : ",") + job;
    auto rounded = [](double value) { return std::to_string(std::llround(value)); };
    std::string line = "jobs hit: " + (jobs.empty() ? std::string("none") : jobs) +
                       "; GPUs lost: " + std::to_string(preview.gpus_lost()) +
                       "; checkpoint age: " + rounded(preview.checkpoint_age_s()) + " s" +
                       "; wasted: " + rounded(preview.expected_wasted_progress_s()) + " GPU-s" +
                       "; goodput cost: " + rounded(preview.expected_goodput_cost_gpu_s()) + " GPU-s";
    if (!preview.nvlink_domain_after().empty()) line += "; NVLink domain after: " + preview.nvlink_domain_after();
    if (preview.requires_approval()) line += "; needs approval";
    if (!preview.allowed()) line += "; refused: " + preview.refusal();
    return line;
}

}  // namespace watchfloor::server::control
