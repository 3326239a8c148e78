#include "LinkLadderActions.h"

#include "ActionCatalog.h"
#include "OperationsEngine.h"
#include "Plural.h"
#include "TextBounds.h"

#include <algorithm>
#include <cstdio>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

grpc::Status invalid(std::string message) { return {grpc::StatusCode::INVALID_ARGUMENT, std::move(message)}; }

void refuse(v1::ActionPreview& preview, std::string why) {
    if (!preview.allowed() && !preview.refusal().empty()) return;
    preview.set_allowed(false);
    preview.set_refusal(std::move(why));
}

// An enum value's proto name without its type's prefix: "ISOLATED", "RESEAT_AND_CLEAN", "SWITCH".
std::string enumWord(const std::string& name, std::string_view prefix) {
    return name.starts_with(prefix) ? name.substr(prefix.size()) : name;
}

std::string stageName(v1::LinkStage stage) { return enumWord(v1::LinkStage_Name(stage), "LINK_STAGE_"); }

// A stored reason is "<principal>: <text>" (control.proto); the text alone.
std::string reasonText(const v1::ActionRequest& request) {
    const std::string& stored = request.reason();
    const auto colon = stored.find(": ");
    return colon == std::string::npos ? stored : stored.substr(colon + 2);
}

std::string isolatedBy(const v1::Operation& operation) {
    return "isolated by " + operation.principal() + ": " + reasonText(operation.request());
}

// Once drained: what draining ahead saved against the link failing under its jobs, as previewed.
std::string isolatedWithSaving(const v1::Operation& operation) {
    const v1::ActionPreview& p = operation.preview();
    const double savedGpuHours = (p.unplanned_cost_gpu_s() - p.expected_goodput_cost_gpu_s()) / 3600;
    std::string text = isolatedBy(operation);
    if (p.jobs_hit_size() == 0 || savedGpuHours < 0.05) return text;
    char saved[32];
    std::snprintf(saved, sizeof saved, "%.1f", savedGpuHours);
    return text +
           (operation.request().at_next_checkpoint() ? "; drained at the jobs' checkpoint: " : "; drained now: ") +
           saved + " GPU-h saved against an unplanned failure";
}

bool isolatedStage(v1::LinkStage stage) {
    return stage == v1::LINK_STAGE_ISOLATING || stage == v1::LINK_STAGE_ISOLATED || stage == v1::LINK_STAGE_TREATED;
}

bool replacement(v1::LinkTreatment treatment) {
    return treatment == v1::LINK_TREATMENT_REPLACE_CABLE || treatment == v1::LINK_TREATMENT_REPLACE_TRANSCEIVER;
}

// Exactly link_name names the target, and each ladder field only with its own type.
grpc::Status checkFields(const v1::ActionRequest& request) {
    const std::string action = actionName(request.type());
    if (request.link_name().empty()) return invalid(action + " needs link_name (a rail link, e.g. r01-n07-ib2)");
    if (!request.node_name().empty() || !request.job_name().empty() || !request.rack_name().empty() ||
        request.event_id() != 0 || request.incident_id() != 0)
        return invalid(action + " takes only link_name; clear the other target fields");
    if (request.at_next_checkpoint() && request.type() != v1::ACTION_TYPE_ISOLATE_LINK)
        return invalid("at_next_checkpoint is for ISOLATE_LINK, not " + action);
    if (!v1::LinkTreatment_IsValid(request.link_treatment()))
        return invalid("link_treatment is unknown (" + std::to_string(request.link_treatment()) + ")");
    if (!v1::LinkEnd_IsValid(request.link_end()))
        return invalid("link_end is unknown (" + std::to_string(request.link_end()) + ")");
    const bool treat = request.type() == v1::ACTION_TYPE_TREAT_LINK;
    if (!treat &&
        (request.link_treatment() != v1::LINK_TREATMENT_UNSPECIFIED || request.link_end() != v1::LINK_END_UNSPECIFIED))
        return invalid("link_treatment and link_end are for TREAT_LINK, not " + action);
    if (treat && request.link_treatment() == v1::LINK_TREATMENT_UNSPECIFIED)
        return invalid(
            "TREAT_LINK needs link_treatment: RESET, RESEAT_AND_CLEAN, REPLACE_TRANSCEIVER, REPLACE_CABLE or OTHER");
    if (treat && request.link_treatment() == v1::LINK_TREATMENT_REPLACE_TRANSCEIVER &&
        request.link_end() == v1::LINK_END_UNSPECIFIED)
        return invalid("REPLACE_TRANSCEIVER needs link_end: HOST, SWITCH or BOTH");
    return grpc::Status::OK;
}

}  // namespace

LinkLadderActions::LinkLadderActions(LinkLadderBook& book, const FleetView& fleet, Actuator& actuator,
                                     BlastRadiusPolicy policy)
    : book_(book), fleet_(fleet), actuator_(actuator), policy_(policy) {}

bool LinkLadderActions::handles(v1::ActionType type) {
    return type == v1::ACTION_TYPE_ISOLATE_LINK || type == v1::ACTION_TYPE_TREAT_LINK ||
           type == v1::ACTION_TYPE_RETURN_LINK;
}

std::string LinkLadderActions::trayOf(const v1::Operation& operation) {
    if (!handles(operation.request().type()) || operation.preview().trays().empty()) return {};
    return operation.preview().trays(0);
}

PreviewResult LinkLadderActions::preview(const v1::ActionRequest& request, const Caller& caller,
                                         std::int64_t nowUnixMs) const {
    if (auto status = checkFields(request); !status.ok()) return {status, {}};
    const auto tray = book_.trayOf(request.link_name());
    if (!tray)
        return {{grpc::StatusCode::NOT_FOUND, "no rail link named " + quotedForMessage(request.link_name())}, {}};
    if (request.type() == v1::ACTION_TYPE_ISOLATE_LINK) return previewIsolate(request, caller, *tray, nowUnixMs);

    const std::optional<LinkLadderEntry> entry = book_.get(request.link_name());
    const v1::LinkStage stage = entry ? entry->stage : v1::LINK_STAGE_UNSPECIFIED;
    PreviewResult result;
    if (request.type() == v1::ACTION_TYPE_RETURN_LINK) {
        // The tray's resume is what returns the link: its refusals are the resume's.
        v1::ActionRequest resume;
        resume.set_type(v1::ACTION_TYPE_RESUME_NODE);
        resume.set_node_name(*tray);
        result = computeBlastRadius(fleet_, resume, policy_);
        if (!result.status.ok()) return result;
        v1::ActionPreview& preview = result.preview;
        if (stage != v1::LINK_STAGE_TREATED)
            refuse(preview, request.link_name() + " is " + (entry ? stageName(stage) : std::string("not isolated")) +
                                "; a link returns once it is treated and its clean window has passed");
        else if (const std::size_t isolations = book_.isolationsWithin30Days(request.link_name(), nowUnixMs);
                 isolations >= LinkLadderBook::kReplaceAfterIsolations && !replacement(entry->treatment))
            refuse(preview, request.link_name() + " has been isolated " + std::to_string(isolations) +
                                " times within 30 days: replace its cable or transceiver (TREAT_LINK) before it "
                                "returns");
        else if (!entry->cleanWindowPassed)
            refuse(preview,
                   request.link_name() + " is waiting for its clean window (" +
                       (entry->cleanWindowText.empty() ? std::string("not judged yet") : entry->cleanWindowText) + ")");
        preview.set_effect("resume " + *tray + ": " + request.link_name() + " TREATED -> RETURNED");
    } else {
        // TREAT_LINK changes fleetd's record (and, in the twin, the cable); nothing is drained.
        v1::ActionPreview& preview = result.preview;
        const auto node = fleet_.node(*tray);
        if (node) preview.set_state_version(node->stateVersion);
        preview.set_allowed(true);
        if (stage != v1::LINK_STAGE_ISOLATED && stage != v1::LINK_STAGE_TREATED)
            refuse(preview, request.link_name() + " is " + (entry ? stageName(stage) : std::string("not isolated")) +
                                "; isolate it (its tray drained) before it is treated");
        std::string effect =
            request.link_name() + ": " + enumWord(v1::LinkTreatment_Name(request.link_treatment()), "LINK_TREATMENT_");
        if (request.link_end() != v1::LINK_END_UNSPECIFIED)
            effect += " (" + enumWord(v1::LinkEnd_Name(request.link_end()), "LINK_END_") + " end)";
        preview.set_effect(effect + " recorded -> TREATED; it returns after a clean window");
    }
    v1::ActionPreview& preview = result.preview;
    preview.set_type(request.type());
    preview.set_target_name("link " + request.link_name());
    preview.clear_trays();
    preview.add_trays(*tray);
    return result;
}

PreviewResult LinkLadderActions::previewIsolate(const v1::ActionRequest& request, const Caller& caller,
                                                const std::string& tray, std::int64_t nowUnixMs) const {
    v1::ActionRequest drain;
    drain.set_type(v1::ACTION_TYPE_DRAIN_NODE);
    drain.set_node_name(tray);
    PreviewResult result = computeBlastRadius(fleet_, drain, policy_);
    if (!result.status.ok()) return result;
    v1::ActionPreview& preview = result.preview;
    preview.set_type(request.type());
    preview.set_target_name("link " + request.link_name());
    preview.add_trays(tray);

    const std::optional<LinkLadderEntry> entry = book_.get(request.link_name());
    if (entry && isolatedStage(entry->stage))
        refuse(preview,
               request.link_name() + " is already " + stageName(entry->stage) + " (" + entry->operationId + ")");

    // What the link failing on its own would cost, against the drain asked for.
    const double drainNowCost = preview.expected_goodput_cost_gpu_s();
    const auto stake = book_.atStake(request.link_name());
    preview.set_unplanned_cost_gpu_s(stake ? stake->unplannedGpuSeconds : drainNowCost);
    const std::string jobs = commaJoined({preview.jobs_hit().begin(), preview.jobs_hit().end()});
    if (request.at_next_checkpoint() && preview.jobs_hit_size() > 0) {
        double restart = 0;
        for (const std::string& name : preview.jobs_hit()) {
            const auto job = fleet_.job(name);
            if (!job) continue;
            if (!job->checkpointAgeKnown)
                refuse(preview, "fleetd does not see job " + name + "'s checkpoints (no step telemetry): isolate " +
                                    request.link_name() + " now instead");
            restart += double(policy_.restartOverhead.count()) * job->gpus;
        }
        // Drained just after a save, the jobs lose their restart and nothing else.
        preview.set_expected_wasted_progress_s(0);
        preview.set_expected_goodput_cost_gpu_s(restart);
        if (stake) preview.set_drain_expected_unix_ms(stake->nextCheckpointUnixMs);
        preview.set_effect("drain " + tray + " (" + request.link_name() + ") once " + jobs +
                           " saved the next checkpoint -> ISOLATING, then ISOLATED");
    } else {
        preview.set_effect("drain " + tray + " (" + request.link_name() + ") now" +
                           (jobs.empty() ? std::string() : ", interrupting " + jobs) + " -> ISOLATED");
    }

    const std::size_t isolated = book_.isolatedNow(), budget = book_.budget();
    preview.set_links_isolated(std::uint32_t(isolated));
    preview.set_isolation_budget(std::uint32_t(budget));
    if (isolated >= budget) {
        const std::string over = std::to_string(isolated) + " links are isolated; the isolation budget is " +
                                 std::to_string(budget) + " (max(10, 0.5 % of " + std::to_string(book_.links()) +
                                 " links))";
        if (caller.automated) {
            refuse(preview, over + ": automation proposes instead");
        } else {
            preview.set_requires_approval(true);
            preview.add_warnings(over + ": a second operator approves");
        }
    }
    if (const std::size_t before = book_.isolationsWithin30Days(request.link_name(), nowUnixMs);
        before + 1 >= LinkLadderBook::kReplaceAfterIsolations)
        preview.add_warnings(request.link_name() + " was isolated " + std::to_string(before) +
                             " times within 30 days: after this isolation it returns only once its cable or "
                             "transceiver is replaced");
    return result;
}

bool LinkLadderActions::waitsForCheckpoint(const v1::Operation& operation) {
    return operation.request().type() == v1::ACTION_TYPE_ISOLATE_LINK && operation.request().at_next_checkpoint() &&
           operation.preview().jobs_hit_size() > 0;
}

ActionOutcome LinkLadderActions::execute(const v1::Operation& operation, const Caller& caller, std::int64_t nowUnixMs) {
    const v1::ActionRequest& request = operation.request();
    const std::string tray = trayOf(operation);
    const std::string& link = request.link_name();
    switch (request.type()) {
    case v1::ACTION_TYPE_ISOLATE_LINK: {
        book_.isolating(link, operation.id(), isolatedBy(operation), caller.automated, nowUnixMs);
        if (waitsForCheckpoint(operation))
            return ActionOutcome::success("isolating " + link + ": " + tray +
                                          " drains once its jobs saved their next checkpoint");
        ActionOutcome drained = drain(operation);
        if (!drained.succeeded) book_.isolationAbandoned(link, operation.id(), drained.message, nowUnixMs);
        return drained;
    }
    case v1::ACTION_TYPE_TREAT_LINK: {
        ActionOutcome outcome = actuator_.linkTreated(link, request.link_treatment(), request.link_end());
        if (outcome.succeeded)
            book_.treated(link, operation.id(), request.link_treatment(), request.link_end(), caller.principal,
                          nowUnixMs);
        return outcome;
    }
    case v1::ACTION_TYPE_RETURN_LINK: {
        ActionOutcome outcome = actuator_.resumeNode(tray);
        if (outcome.succeeded) book_.returned(link, operation.id(), nowUnixMs);
        return outcome;
    }
    default: return ActionOutcome::failure(actionName(request.type()) + " is no link ladder step");
    }
}

LinkLadderActions::CheckpointWait LinkLadderActions::startCheckpointWait(const v1::Operation& operation) const {
    CheckpointWait wait;
    for (const std::string& name : operation.preview().jobs_hit())
        if (const auto job = fleet_.job(name)) wait.ages[name] = job->checkpointAgeSeconds;
    return wait;
}

std::optional<std::string> LinkLadderActions::stillWaiting(CheckpointWait& wait, const v1::Operation& operation) const {
    const std::string tray = trayOf(operation);
    const auto node = fleet_.node(tray);
    std::vector<std::string> waiting;
    for (auto it = wait.ages.begin(); it != wait.ages.end();) {
        const auto job = fleet_.job(it->first);
        const bool onTray =
            job && node && std::find(node->jobs.begin(), node->jobs.end(), it->first) != node->jobs.end();
        // A save shows as the age dropping; a job with nothing unsaved (just saved, or recovering
        // from an interruption) loses nothing to the drain; a job gone from the tray needs none.
        if (!onTray || job->checkpointAgeSeconds <= 0 || job->checkpointAgeSeconds + 1e-6 < it->second) {
            it = wait.ages.erase(it);
            continue;
        }
        it->second = job->checkpointAgeSeconds;
        waiting.push_back(it->first);
        ++it;
    }
    if (waiting.empty()) return std::nullopt;
    return "isolating " + operation.request().link_name() + ": waiting for " + commaJoined(waiting) +
           "'s next checkpoint before draining " + tray;
}

ActionOutcome LinkLadderActions::drain(const v1::Operation& operation) {
    const std::string tray = trayOf(operation);
    // The operation's stored reason, "<principal>: <text>", as any drain's: its owner reads as for
    // any drain, and the audit log holds it before the drain takes effect.
    return actuator_.drainNode(tray, operation.request().reason());
}

void LinkLadderActions::replay(LinkLadderBook& book, const v1::Operation& operation) {
    const v1::ActionRequest& request = operation.request();
    const std::int64_t at = operation.updated_unix_ms();
    switch (request.type()) {
    case v1::ACTION_TYPE_ISOLATE_LINK:
        book.isolated(request.link_name(), operation.id(), isolatedWithSaving(operation), operation.automated(), at);
        break;
    case v1::ACTION_TYPE_TREAT_LINK:
        book.treated(request.link_name(), operation.id(), request.link_treatment(), request.link_end(),
                     operation.principal(), at);
        break;
    case v1::ACTION_TYPE_RETURN_LINK: book.returned(request.link_name(), operation.id(), at); break;
    default: break;
    }
}

void LinkLadderActions::finished(const v1::Operation& operation, std::int64_t nowUnixMs) {
    if (operation.request().type() != v1::ACTION_TYPE_ISOLATE_LINK) return;
    const std::string& link = operation.request().link_name();
    if (operation.state() == v1::OPERATION_STATE_SUCCEEDED)
        book_.isolated(link, operation.id(), isolatedWithSaving(operation), operation.automated(), nowUnixMs);
    else
        book_.isolationAbandoned(
            link, operation.id(),
            "isolation " + operation.id() + " ended " + stateName(operation.state()) + ": " + operation.error(),
            nowUnixMs);
}

}  // namespace watchfloor::server::control
