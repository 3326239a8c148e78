#include "OperationsEngine.h"

#include "ActionCatalog.h"
#include "DrainOwnership.h"
#include "Plural.h"
#include "RepairRun.h"

#include "TextBounds.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMaxRequestIdLength = 128;
constexpr std::size_t kMaxReasonLength = 512;
constexpr std::size_t kMaxNoteLength = 2048;
constexpr std::size_t kMaxNameLength = 256;
constexpr int kMaxExcludedNodes = 256;
constexpr const char* kNotInMemory =
    " in memory (fleetd keeps every active operation and the newest finished ones; older ones are only in the audit "
    "log: ListAuditEntries)";
constexpr std::uint32_t kDefaultPageSize = 100;
constexpr std::uint32_t kMaxPageSize = 1000;
// The audit decision written before an interrupted operation is run again.
constexpr const char* kResumeDecision = "resume";
// A break/fix step began on its back end; the record carries each tray's handle.
constexpr const char* kRepairStartedDecision = "started";

std::string trimmed(const std::string& text) {
    const auto first = std::find_if_not(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); });
    const auto last =
        std::find_if_not(text.rbegin(), text.rend(), [](unsigned char c) { return std::isspace(c); }).base();
    return first < last ? std::string(first, last) : std::string();
}

// Reasons and notes are shown to operators and stored as one audit line: one line of plain text.
grpc::Status checkText(const std::string& text, const char* what, std::size_t maxLength) {
    if (text.size() > maxLength)
        return {grpc::StatusCode::INVALID_ARGUMENT, std::string("the ") + what + " is " + std::to_string(text.size()) +
                                                        " bytes; at most " + std::to_string(maxLength)};
    if (const auto hostile = firstHostileCharacter(text))
        return {grpc::StatusCode::INVALID_ARGUMENT,
                std::string("the ") + what + " must be a single line of plain text; it contains " + *hostile +
                    " (control characters, line separators and bidirectional controls are refused)"};
    return grpc::Status::OK;
}

// Types whose note is their content, checked on execute only: a console previews before it is typed.
bool noteRequired(v1::ActionType type) {
    const ActionTraits* row = actionTraits(type);
    return row && row->noteIsContent;
}

grpc::Status checkReason(const std::string& reason) {
    if (trimmed(reason).empty())
        return {grpc::StatusCode::INVALID_ARGUMENT, "a reason is required; it is stored as '<principal>: <reason>'"};
    return checkText(reason, "reason", kMaxReasonLength);
}

// The break/fix fields (ActionRequest 50-53) belong to the break/fix types; elsewhere they would
// be ignored, and an ignored field is a surprise for the one who set it.
grpc::Status checkRepairFields(const v1::ActionRequest& request) {
    const bool repair = isRepairAction(request.type());
    const std::string action = actionName(request.type());
    auto invalid = [](std::string message) { return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message); };
    if (request.has_gpu_index() && request.type() != v1::ACTION_TYPE_RESET_GPU)
        return invalid("gpu_index is for RESET_GPU, not " + action);
    if (request.diagnostic_level() != 0 && request.type() != v1::ACTION_TYPE_RUN_DIAGNOSTICS)
        return invalid("diagnostic_level is for RUN_DIAGNOSTICS, not " + action);
    if (!repair && (request.wait_for_drain() || request.after_repair() != v1::TRAY_AFTER_REPAIR_UNSPECIFIED))
        return invalid("wait_for_drain and after_repair are for the break/fix actions, not " + action);
    if (!v1::TrayAfterRepair_IsValid(request.after_repair()))
        return invalid("after_repair is unknown (" + std::to_string(request.after_repair()) + ")");
    if (request.type() == v1::ACTION_TYPE_RUN_DIAGNOSTICS &&
        (request.diagnostic_level() < 1 || request.diagnostic_level() > 4))
        return invalid("RUN_DIAGNOSTICS needs diagnostic_level 1-4 (DCGM's levels), not " +
                       std::to_string(request.diagnostic_level()));
    return grpc::Status::OK;
}

// What every request must look like before anything reads the fleet for it: a known type and
// bounded fields, so no name can blow up an error message, an audit line or a snapshot.
grpc::Status checkShape(const v1::ActionRequest& request) {
    if (request.type() == v1::ACTION_TYPE_UNSPECIFIED || !v1::ActionType_IsValid(request.type()))
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "the action type is missing or unknown (" + std::to_string(request.type()) + ")"};
    if (request.request_id().size() > kMaxRequestIdLength)
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "request_id is longer than " + std::to_string(kMaxRequestIdLength) + " characters"};
    const std::pair<const char*, const std::string*> names[] = {
        {"node_name", &request.node_name()},
        {"job_name", &request.job_name()},
        {"rack_name", &request.rack_name()},
        {"confirm_rack_name", &request.confirm_rack_name()},
        {"maintenance.scope_name", &request.maintenance().scope_name()},
        {"maintenance_window_id", &request.maintenance_window_id()},
        {"handoff_id", &request.handoff_id()}};
    for (const auto& [field, value] : names)
        if (value->size() > kMaxNameLength)
            return {grpc::StatusCode::INVALID_ARGUMENT, std::string(field) + " is " + std::to_string(value->size()) +
                                                            " bytes; names are at most " +
                                                            std::to_string(kMaxNameLength)};
    if (!v1::TrayLifecycle_IsValid(request.lifecycle()))
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "the lifecycle is unknown (" + std::to_string(request.lifecycle()) + ")"};
    if (request.exclude_node_names_size() > kMaxExcludedNodes)
        return {grpc::StatusCode::INVALID_ARGUMENT, "exclude_node_names lists " +
                                                        std::to_string(request.exclude_node_names_size()) +
                                                        " nodes; at most " + std::to_string(kMaxExcludedNodes)};
    for (const std::string& name : request.exclude_node_names())
        if (name.size() > kMaxNameLength)
            return {grpc::StatusCode::INVALID_ARGUMENT, "a name in exclude_node_names is " +
                                                            std::to_string(name.size()) + " bytes; names are at most " +
                                                            std::to_string(kMaxNameLength)};
    if (auto status = checkRepairFields(request); !status.ok()) return status;
    if (request.link_name().size() > kMaxNameLength)
        return {grpc::StatusCode::INVALID_ARGUMENT, "link_name is " + std::to_string(request.link_name().size()) +
                                                        " bytes; names are at most " + std::to_string(kMaxNameLength)};
    if (!LinkLadderActions::handles(request.type()) &&
        (!request.link_name().empty() || request.at_next_checkpoint() ||
         request.link_treatment() != v1::LINK_TREATMENT_UNSPECIFIED || request.link_end() != v1::LINK_END_UNSPECIFIED))
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "link_name, at_next_checkpoint, link_treatment and link_end are for the link ladder, not " +
                    actionName(request.type())};
    // An owner is shown wherever the incident or window is: a name, one line of plain text.
    if (auto status = checkText(request.owner(), "owner", kMaxNameLength); !status.ok()) return status;
    return checkText(request.note(), "note", kMaxNoteLength);
}

// Idempotency keys are per principal: another principal's request id is never a retry of theirs.
std::string requestKey(const std::string& principal, const std::string& requestId) {
    return principal + '\0' + requestId;
}

bool isActive(v1::OperationState state) {
    return state == v1::OPERATION_STATE_AWAITING_APPROVAL || state == v1::OPERATION_STATE_PENDING ||
           state == v1::OPERATION_STATE_RUNNING;
}

std::string statusText(const grpc::Status& status) {
    static const char* const kNames[] = {
        "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
        "DATA_LOSS", "UNAUTHENTICATED"};
    const auto code = static_cast<std::size_t>(status.error_code());
    return std::string(code < std::size(kNames) ? kNames[code] : "UNKNOWN") + ": " + status.error_message();
}

}  // namespace

std::string stateName(v1::OperationState state) {
    const std::string& full = v1::OperationState_Name(state);
    constexpr std::string_view prefix = "OPERATION_STATE_";
    return full.starts_with(prefix) ? full.substr(prefix.size()) : full;
}

struct OperationsEngine::Entry {
    v1::Operation op;
    std::string key;          // requestKey(principal, request id)
    bool settled = true;      // false while its acceptance is being written to the audit log
    bool approving = false;   // an approval is being written to the audit log
    std::string fingerprint;  // the request as first sent, to tell a retry from a reused request id
    std::uint64_t seq = 0;    // creation order; the list page token
    Caller requester;
    bool effectApplied = false;         // the actuator reported success; a drain may still be DRAINING
    bool interrupted = false;           // accepted by an earlier run without a recorded outcome: to reconcile
    std::shared_ptr<RepairRun> repair;  // a break/fix operation this run started; advanced by tick()
    std::map<std::string, std::string> repairHandles;  // tray -> its back end's handle, as audited
    // ISOLATE_LINK at the next checkpoint: the jobs it still waits for; the drain follows.
    std::optional<LinkLadderActions::CheckpointWait> checkpointWait;
};

OperationsEngine::OperationsEngine(const FleetView& fleet, Actuator& actuator, AuditLog& audit, OperationsConfig config)
    : fleet_(fleet),
      actuator_(actuator),
      audit_(audit),
      config_(std::move(config)),
      idGenerator_(std::random_device{}()) {}

OperationsEngine::~OperationsEngine() = default;

std::int64_t OperationsEngine::nowUnixMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(config_.clock().time_since_epoch()).count();
}

std::string OperationsEngine::newOperationId() {
    char id[24];
    std::snprintf(id, sizeof id, "op-%016llx", static_cast<unsigned long long>(idGenerator_()));
    return id;
}

grpc::Status OperationsEngine::validateRequest(const v1::ActionRequest& request) const {
    if (request.request_id().empty())
        return {grpc::StatusCode::INVALID_ARGUMENT, "request_id is required: a UUID the console generates per action"};
    if (auto status = checkShape(request); !status.ok()) return status;
    if (noteRequired(request.type()) && trimmed(request.note()).empty())
        return {grpc::StatusCode::INVALID_ARGUMENT, actionName(request.type()) + " needs a note"};
    return checkReason(request.reason());
}

AuditRecord OperationsEngine::auditRecord(const std::string& principal, v1::Role role, const std::string& peer,
                                          const v1::ActionRequest& request, const char* decision) const {
    AuditRecord record;
    record.time = config_.clock();
    record.principal = principal;
    record.role = roleName(role);
    record.peer = peer;
    record.action = actionName(request.type());
    record.target = describeTarget(request);
    record.reason = request.reason();
    record.requestId = request.request_id();
    record.decision = decision;
    return record;
}

grpc::Status OperationsEngine::auditRefusal(AuditRecord record, Status status) const {
    record.decision = "deny";
    record.result = statusText(status);
    if (auto error = audit_.append(record); !error.empty())
        status =
            Status(status.error_code(), status.error_message() + " (the refusal could not be audited: " + error + ")");
    return status;
}

OperationResult OperationsEngine::refuse(const Caller& caller, const v1::ActionRequest& request, Status status,
                                         const v1::ActionPreview* preview) const {
    AuditRecord record = auditRecord(caller.principal, caller.role, caller.peer, request, "deny");
    if (preview) record.previewSummary = summarize(*preview);
    return {auditRefusal(std::move(record), std::move(status)), {}};
}

PreviewOutcome OperationsEngine::preview(const Caller& caller, const v1::ActionRequest& request) const {
    std::lock_guard lock(mutex_);
    return previewLocked(caller, request, {});
}

PreviewOutcome OperationsEngine::previewLocked(const Caller& caller, const v1::ActionRequest& request,
                                               const std::string& operationId) const {
    PreviewOutcome outcome = previewWithoutOperations(caller, request);
    // A conflict is execute's refusal; the preview shows it as one.
    if (!outcome.status.ok()) return outcome;
    if (auto others = previewAgainstOperationsLocked(request, outcome.preview, operationId);
        !others.ok() && outcome.preview.allowed()) {
        outcome.preview.set_allowed(false);
        outcome.preview.set_refusal(others.error_message());
    }
    return outcome;
}

PreviewOutcome OperationsEngine::previewWithoutOperations(const Caller& caller,
                                                          const v1::ActionRequest& request) const {
    if (auto shape = checkShape(request); !shape.ok()) return {shape, {}};
    // Not a structured binding: clang before 16 cannot capture one in the lambda below (tests/fuzz).
    PreviewResult blast;
    if (LinkLadderActions::handles(request.type())) {
        if (!links_)
            return {{grpc::StatusCode::FAILED_PRECONDITION, "the link ladder is not connected in this fleetd"}, {}};
        blast = links_->preview(request, caller, nowUnixMs());
    } else if (IncidentActions::handles(request.type())) {
        blast = incidents_ ? incidents_->preview(request, caller.principal)
                           : IncidentActions(nullptr, nullptr).preview(request, caller.principal);
    } else {
        blast = computeBlastRadius(fleet_, request, config_.blastRadius);
    }
    if (!blast.status.ok()) return {blast.status, {}};
    v1::ActionPreview& preview = blast.preview;
    auto refuseIfAllowed = [&](std::string why) {
        if (!preview.allowed()) return;
        preview.set_allowed(false);
        preview.set_refusal(std::move(why));
    };
    if (request.type() == v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER) {
        if (!breaker_)
            refuseIfAllowed("automatic draining is not enabled in this fleetd (--auto-drain)");
        else if (!breaker_->tripped())
            refuseIfAllowed("the automation circuit breaker is not tripped");
    }
    if (request.type() == v1::ACTION_TYPE_RESUME_NODE && caller.automated) {
        // Automation never undoes a person's drain: they drained it for a reason it cannot see.
        const std::optional<NodeFacts> node = fleet_.node(request.node_name());
        if (node && ownedByPerson(node->drainOwner))
            refuseIfAllowed(request.node_name() + " was drained by " +
                            (node->drainOwner.principal().empty() ? std::string("a person outside fleetd")
                                                                  : node->drainOwner.principal()) +
                            "; automation never resumes a drain a person made");
    }
    if (request.type() == v1::ACTION_TYPE_SET_LIFECYCLE) previewLifecycle(caller, request, preview);
    if (isRepairAction(request.type())) previewRepair(request, preview);
    if (request.type() == v1::ACTION_TYPE_ACKNOWLEDGE_EVENT && !acknowledger_)
        refuseIfAllowed("acknowledging events is not connected in this fleetd");
    if (!roleAllows(caller.role, request.type()))
        refuseIfAllowed(caller.principal + " has role " + roleName(caller.role) + ", which may not " +
                        actionName(request.type()));
    return {Status::OK, std::move(preview)};
}

void OperationsEngine::previewLifecycle(const Caller& caller, const v1::ActionRequest& request,
                                        v1::ActionPreview& preview) const {
    if (!lifecycle_) {
        preview.set_allowed(false);
        preview.set_refusal("tray lifecycle is not connected in this fleetd");
        return;
    }
    const LifecycleEntry now = lifecycle_->get(request.node_name());
    const std::string from = lifecycleTransitionFrom(now.state), to = lifecycleName(request.lifecycle());
    std::string what = now.state == request.lifecycle()
                           ? request.node_name() + " is already " + to + ": nothing changes"
                           : request.node_name() + ": " + from + " -> " + to;
    if (!now.setBy.empty()) what += " (now set by " + now.setBy + ")";
    auto* warnings = preview.mutable_warnings();
    warnings->Add(std::move(what));
    for (int i = warnings->size() - 1; i > 0; --i) warnings->SwapElements(i, i - 1);  // the transition first
    // Automation triages; it never overrules a person's state otherwise (fleet.proto TrayLifecycle).
    const bool toTriage = request.lifecycle() == v1::TRAY_LIFECYCLE_TRIAGE &&
                          (now.state == v1::TRAY_LIFECYCLE_UNSPECIFIED || now.state == v1::TRAY_LIFECYCLE_PRODUCTION ||
                           now.state == v1::TRAY_LIFECYCLE_BURN_IN);
    if (caller.automated && setByPerson(now) && !toTriage && preview.allowed()) {
        preview.set_allowed(false);
        preview.set_refusal(request.node_name() + " was set to " + lifecycleName(now.state) + " by " + now.setBy +
                            "; automation does not overrule a person's lifecycle state");
    }
}

void OperationsEngine::previewRepair(const v1::ActionRequest& request, v1::ActionPreview& preview) const {
    if (!repair_) {
        if (preview.allowed()) {
            preview.set_allowed(false);
            preview.set_refusal("break/fix is not connected in this fleetd");
        }
        return;
    }
    RepairStep step;
    step.type = request.type() == v1::ACTION_TYPE_POWER_CYCLE_RACK ? v1::ACTION_TYPE_POWER_CYCLE_NODE : request.type();
    if (request.has_gpu_index()) step.gpu = request.gpu_index();
    step.diagnosticLevel = request.diagnostic_level();
    step.after = preview.tray_after();
    step.node = preview.trays().empty() ? request.node_name() : preview.trays(0);
    preview.set_expected_out_of_service_s(repair_->expectedOutOfServiceSeconds(step));
}

grpc::Status OperationsEngine::previewAgainstOperationsLocked(const v1::ActionRequest& request,
                                                              v1::ActionPreview& preview,
                                                              const std::string& operationId) const {
    if (auto conflict = repairConflictLocked(preview, operationId); !conflict.ok()) return conflict;
    if (request.type() != v1::ACTION_TYPE_POWER_CYCLE_NODE || preview.requires_approval()) return Status::OK;
    // Two trays of one rack power-cycled at once is a rack-level event: a second person agrees.
    const auto node = fleet_.node(request.node_name());
    if (!node) return Status::OK;
    for (const auto& owned : entries_) {
        const v1::Operation& other = owned->op;
        if (!isActive(other.state()) || other.request().type() != v1::ACTION_TYPE_POWER_CYCLE_NODE ||
            other.id() == operationId || other.request().node_name() == request.node_name())
            continue;
        const auto otherNode = fleet_.node(other.request().node_name());
        if (otherNode && otherNode->rack == node->rack) {
            preview.set_requires_approval(true);
            preview.add_warnings(other.request().node_name() + " in the same rack is in a power cycle (" + other.id() +
                                 "); a second power cycle there needs a second operator's approval");
            break;
        }
    }
    return Status::OK;
}

grpc::Status OperationsEngine::checkAgainstPreview(const Caller& caller, const v1::ActionRequest& request,
                                                   const v1::ActionPreview& preview) {
    if (request.expected_state_version() != 0 && request.expected_state_version() != preview.state_version())
        return {grpc::StatusCode::ABORTED, preview.target_name() + " changed since it was previewed (state version " +
                                               std::to_string(request.expected_state_version()) + ", now " +
                                               std::to_string(preview.state_version()) + "); review the preview again"};
    if (request.type() == v1::ACTION_TYPE_ISOLATE_RACK && request.confirm_rack_name() != request.rack_name())
        return {grpc::StatusCode::INVALID_ARGUMENT, "to isolate rack " + request.rack_name() + ", type its name '" +
                                                        request.rack_name() + "' as confirm_rack_name"};
    if (request.type() == v1::ACTION_TYPE_POWER_CYCLE_RACK && request.confirm_rack_name() != request.rack_name())
        return {grpc::StatusCode::INVALID_ARGUMENT, "to power-cycle rack " + request.rack_name() + ", type its name '" +
                                                        request.rack_name() + "' as confirm_rack_name"};
    if (!preview.allowed()) return {grpc::StatusCode::FAILED_PRECONDITION, preview.refusal()};
    // A repair case's lifecycle bookkeeping follows steps already admitted (or a fault): it acts on
    // nothing, so a storm of faults cannot trip the breaker through labels alone.
    const bool bookkeeping = caller.repairCaseBookkeeping && request.type() == v1::ACTION_TYPE_SET_LIFECYCLE;
    if (caller.automated && breaker_ && !bookkeeping) return breaker_->admit(preview.target_name(), config_.clock());
    return Status::OK;
}

OperationsEngine::Entry* OperationsEngine::settledLocked(const std::string& key, std::unique_lock<std::mutex>& lock) {
    for (;;) {
        const auto found = byRequestId_.find(key);
        if (found == byRequestId_.end()) return nullptr;
        if (found->second->settled) return found->second;
        // The first call is writing its acceptance: the retry answers with what that write decides.
        settledChanged_.wait(lock);
    }
}

std::optional<OperationsEngine::Status> OperationsEngine::retryLocked(const v1::ActionRequest& request,
                                                                      const Entry& first,
                                                                      const std::string& fingerprint) const {
    if (first.fingerprint == fingerprint) return std::nullopt;
    return Status(grpc::StatusCode::INVALID_ARGUMENT,
                  "request id " + quotedForMessage(request.request_id()) + " was already used for " +
                      actionName(first.op.request().type()) + " " + describeTarget(first.op.request()) + " (" +
                      first.op.id() + "); a different action needs a new request id");
}

grpc::Status OperationsEngine::conflictLocked(const v1::ActionRequest& request) const {
    const std::string target = describeTarget(request);
    for (const auto& owned : entries_) {
        const Entry& other = *owned;
        if (!isActive(other.op.state())) continue;
        // Once a drain has taken effect a resume may follow it (Slurm can stay DRAINING for hours);
        // the same action twice, or anything while the first has not reached the backend, may not.
        const bool sameAction = other.op.request().type() == request.type();
        if ((!sameAction && other.effectApplied) || describeTarget(other.op.request()) != target) continue;
        return {grpc::StatusCode::ABORTED,
                target + " already has " + actionName(other.op.request().type()) + " " + other.op.id() + " by " +
                    other.op.principal() + " in progress (" + stateName(other.op.state()) +
                    "); this request was not executed. Follow that operation, or act again once it has finished"};
    }
    return Status::OK;
}

grpc::Status OperationsEngine::repairConflictLocked(const v1::ActionPreview& preview,
                                                    const std::string& operationId) const {
    if (!isRepairAction(preview.type())) return Status::OK;
    for (const auto& owned : entries_) {
        const v1::Operation& other = owned->op;
        if (!isActive(other.state()) || !isRepairAction(other.request().type()) || other.id() == operationId) continue;
        for (const std::string& tray : preview.trays())
            if (std::find(other.preview().trays().begin(), other.preview().trays().end(), tray) !=
                other.preview().trays().end())
                return {grpc::StatusCode::ABORTED,
                        tray + " already has " + actionName(other.request().type()) + " " + other.id() + " by " +
                            other.principal() + " in progress (" + stateName(other.state()) +
                            "); one break/fix step per tray at a time. This request was not executed"};
    }
    return Status::OK;
}

std::unique_ptr<OperationsEngine::Entry> OperationsEngine::newEntry(const Caller& caller,
                                                                    const v1::ActionRequest& request,
                                                                    const v1::ActionPreview& preview) {
    auto entry = std::make_unique<Entry>();
    entry->requester = caller;
    v1::Operation& op = entry->op;
    op.set_id(newOperationId());
    op.set_request_id(request.request_id());
    *op.mutable_request() = request;
    op.mutable_request()->set_reason(caller.principal + ": " + trimmed(request.reason()));
    *op.mutable_preview() = preview;
    op.set_principal(caller.principal);
    op.set_role(caller.role);
    op.set_automated(caller.automated);
    op.set_created_unix_ms(nowUnixMs());
    op.set_updated_unix_ms(op.created_unix_ms());
    if (preview.requires_approval()) {
        op.set_state(v1::OPERATION_STATE_AWAITING_APPROVAL);
        op.set_approval_expires_unix_ms(
            op.created_unix_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(config_.approvalTtl).count());
        op.set_progress_message("awaiting approval by a second operator");
    } else {
        op.set_state(v1::OPERATION_STATE_PENDING);
    }
    return entry;
}

OperationsEngine::Entry* OperationsEngine::adoptLocked(std::unique_ptr<Entry> entry) {
    entry->seq = entries_.empty() ? 1 : entries_.back()->seq + 1;
    entry->key = requestKey(entry->op.principal(), entry->op.request_id());
    Entry* adopted = entry.get();
    byId_[adopted->op.id()] = adopted;
    byRequestId_[adopted->key] = adopted;
    if (!isActive(adopted->op.state())) ++finished_;
    entries_.push_back(std::move(entry));
    return adopted;
}

void OperationsEngine::forgetLocked(std::list<std::unique_ptr<Entry>>::iterator it) {
    Entry& entry = **it;
    byId_.erase(entry.op.id());
    if (const auto found = byRequestId_.find(entry.key); found != byRequestId_.end() && found->second == &entry)
        byRequestId_.erase(found);
    if (!isActive(entry.op.state())) --finished_;
    entries_.erase(it);
}

void OperationsEngine::trimLocked() {
    // Oldest first; active operations stay whatever their age (they are few and still change).
    for (auto it = entries_.begin(); finished_ > config_.maxFinishedOperations && it != entries_.end();)
        if (isActive((*it)->op.state()))
            ++it;
        else
            forgetLocked(it++);
}

std::size_t OperationsEngine::operationsInMemory() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

OperationResult OperationsEngine::execute(const Caller& caller, const v1::ActionRequest& request) {
    if (auto status = validateRequest(request); !status.ok()) return refuse(caller, request, status, nullptr);
    // Protobuf serialization of a message without maps is deterministic.
    const std::string fingerprint = request.SerializeAsString();
    Entry* entry = nullptr;
    AuditRecord record;
    {
        std::unique_lock lock(mutex_);
        if (const Entry* first = settledLocked(requestKey(caller.principal, request.request_id()), lock)) {
            if (auto reused = retryLocked(request, *first, fingerprint)) {
                lock.unlock();
                return refuse(caller, request, *reused, nullptr);
            }
            return {Status::OK, first->op};
        }
        Status refusal;
        std::optional<v1::ActionPreview> seen;
        if (!roleAllows(caller.role, request.type())) {
            refusal = {grpc::StatusCode::PERMISSION_DENIED, caller.principal + " has role " + roleName(caller.role) +
                                                                ", which may not " + actionName(request.type())};
        } else if (auto conflict = conflictLocked(request); !conflict.ok()) {
            refusal = conflict;
        } else if (auto [previewStatus, preview] = previewWithoutOperations(caller, request); !previewStatus.ok()) {
            refusal = previewStatus;
        } else if (auto others = previewAgainstOperationsLocked(request, preview, {}); !others.ok()) {
            refusal = others;
        } else if (auto status = checkAgainstPreview(caller, request, preview); !status.ok()) {
            refusal = status;
            seen = preview;
        } else {
            auto created = newEntry(caller, request, preview);
            created->fingerprint = fingerprint;
            created->settled = false;
            record = auditRecord(caller.principal, caller.role, caller.peer, created->op.request(), "allow");
            record.previewSummary = summarize(preview);
            if (request.expected_state_version() == 0 && preview.state_version() != 0)
                record.previewSummary += "; state not checked (expected_state_version 0)";
            record.result = stateName(created->op.state());
            record.operationId = created->op.id();
            google::protobuf::util::MessageToJsonString(created->op, &record.operationJson);
            // Reserved (a retry waits for it, a second action on the target is refused), but not
            // visible until its acceptance is durable.
            entry = adoptLocked(std::move(created));
        }
        if (!entry) {
            lock.unlock();
            return refuse(caller, request, refusal, seen ? &*seen : nullptr);
        }
    }
    // Durable before it can take effect. Written outside the engine's lock, so other consoles'
    // calls and the operations list do not queue behind this fsync.
    const std::string error = audit_.append(record);
    v1::Operation accepted;
    {
        std::lock_guard lock(mutex_);
        if (error.empty()) {
            entry->settled = true;
            accepted = entry->op;
        } else {
            forgetLocked(std::find_if(entries_.begin(), entries_.end(),
                                      [&](const auto& owned) { return owned.get() == entry; }));
        }
    }
    settledChanged_.notify_all();
    if (!error.empty())
        return {
            {grpc::StatusCode::UNAVAILABLE, "nothing was executed: the audit log cannot be written (" + error + ")"},
            {}};
    notify({accepted});
    if (accepted.state() == v1::OPERATION_STATE_PENDING) return {Status::OK, run(*entry, caller)};
    return {Status::OK, accepted};
}

grpc::Status OperationsEngine::approvalRefusal(const Caller& approver, const v1::Operation& op,
                                               const std::string& reason) const {
    if (op.state() != v1::OPERATION_STATE_AWAITING_APPROVAL)
        return {grpc::StatusCode::FAILED_PRECONDITION, "it is " + stateName(op.state()) + ", not awaiting approval"};
    if (approver.automated) return {grpc::StatusCode::PERMISSION_DENIED, "automation cannot approve"};
    if (approver.principal == op.principal())
        return {grpc::StatusCode::PERMISSION_DENIED,
                "no self-approval: " + op.principal() + " requested it; a second operator must approve"};
    if (!roleAllows(approver.role, op.request().type()))
        return {grpc::StatusCode::PERMISSION_DENIED, approver.principal + " has role " + roleName(approver.role) +
                                                         ", which may not " + actionName(op.request().type())};
    return checkReason(reason);
}

namespace {

// Why an operation accepted on `accepted` must not run any more, judging by the fleet `now`.
std::optional<std::string> noLongerValid(const v1::ActionPreview& accepted, const PreviewOutcome& now) {
    if (!now.status.ok()) return now.status.error_message();
    if (now.preview.state_version() != accepted.state_version())
        return accepted.target_name() + " changed since the request (state version " +
               std::to_string(accepted.state_version()) + ", now " + std::to_string(now.preview.state_version()) +
               "); request it again after review";
    if (!now.preview.allowed()) return now.preview.refusal();
    return std::nullopt;
}

}  // namespace

OperationResult OperationsEngine::approve(const Caller& approver, const std::string& operationId,
                                          const std::string& reason) {
    Entry* entry = nullptr;
    std::vector<v1::Operation> changed;
    AuditRecord refusalRecord, approval;
    Status refusal;
    {
        std::lock_guard lock(mutex_);
        const auto found = byId_.find(operationId);
        v1::ActionRequest attempt;  // what this approval's audit record describes
        if (found != byId_.end()) attempt = found->second->op.request();
        attempt.set_reason(reason);
        refusalRecord = auditRecord(approver.principal, approver.role, approver.peer, attempt, "deny");
        refusalRecord.action = "APPROVE " + refusalRecord.action;
        refusalRecord.operationId = operationId;
        auto deny = [&](const Status& status) {
            refusal = Status(status.error_code(),
                             "approval of " + quotedForMessage(operationId) + " refused: " + status.error_message());
        };
        if (found == byId_.end() || !found->second->settled) {
            deny({grpc::StatusCode::NOT_FOUND, "no such operation" + std::string(kNotInMemory)});
        } else if (entry = found->second; entry->approving) {
            deny({grpc::StatusCode::ABORTED, "another approval of it is being recorded"});
        } else if (v1::Operation& op = entry->op;
                   op.state() == v1::OPERATION_STATE_AWAITING_APPROVAL && nowUnixMs() > op.approval_expires_unix_ms()) {
            finishLocked(*entry, v1::OPERATION_STATE_CANCELLED, "approval window expired without a second operator");
            changed.push_back(op);
            deny({grpc::StatusCode::FAILED_PRECONDITION, "the approval window has expired"});
        } else if (auto status = approvalRefusal(approver, op, reason); !status.ok()) {
            deny(status);
        } else if (const auto now = previewLocked(entry->requester, op.request(), op.id());
                   const auto why = noLongerValid(op.preview(), now)) {
            finishLocked(*entry, v1::OPERATION_STATE_CANCELLED, *why);
            changed.push_back(op);
            deny({grpc::StatusCode::ABORTED, *why});
        } else {
            approval = auditRecord(approver.principal, approver.role, approver.peer, op.request(), "allow");
            approval.action = "APPROVE " + approval.action;
            approval.reason = approver.principal + ": " + trimmed(reason);
            approval.previewSummary = summarize(now.preview);
            approval.result = stateName(v1::OPERATION_STATE_PENDING);
            approval.operationId = op.id();
            entry->approving = true;
        }
    }
    flushAudit();
    if (!refusal.ok()) {
        notify(changed);
        return {auditRefusal(std::move(refusalRecord), refusal), {}};
    }
    // Durable before the approved action can run; written outside the engine's lock.
    const std::string error = audit_.append(approval);
    {
        std::lock_guard lock(mutex_);
        entry->approving = false;
        if (error.empty()) {
            entry->op.set_approved_by(approver.principal);
            entry->op.set_progress_message("approved by " + approver.principal);
            setState(*entry, v1::OPERATION_STATE_PENDING);
            changed.push_back(entry->op);
        }
    }
    if (!error.empty())
        return {{grpc::StatusCode::UNAVAILABLE, "not approved: the audit log cannot be written (" + error + ")"}, {}};
    notify(changed);
    return {Status::OK, run(*entry, entry->requester)};
}

void OperationsEngine::setState(Entry& entry, v1::OperationState state) {
    entry.op.set_state(state);
    entry.op.set_updated_unix_ms(nowUnixMs());
}

void OperationsEngine::finishLocked(Entry& entry, v1::OperationState state, const std::string& message) {
    const bool wasActive = isActive(entry.op.state());
    setState(entry, state);
    if (state == v1::OPERATION_STATE_SUCCEEDED) {
        entry.op.set_progress_ratio(1.0);
        entry.op.set_progress_message(message);
    } else {
        entry.op.set_error(message);
        entry.op.set_progress_message(stateName(state) + ": " + message);
    }
    auditResultLocked(entry);
    if (wasActive && !isActive(state) && links_) links_->finished(entry.op, nowUnixMs());
    // Trimmed in flushAudit(), once no caller holds a reference to an entry any more.
    if (wasActive && !isActive(state)) ++finished_;
}

void OperationsEngine::auditResultLocked(Entry& entry) {
    const v1::Operation& op = entry.op;
    AuditRecord record = auditRecord(op.principal(), op.role(), "", op.request(), "result");
    record.result = stateName(op.state()) + ": " + (op.error().empty() ? op.progress_message() : op.error());
    record.operationId = op.id();
    // The effect has happened (or definitely not): the record follows it, in order, once the
    // engine's lock is released (flushAudit).
    pendingResults_.push_back(std::move(record));
}

void OperationsEngine::auditRepairStartedLocked(Entry& entry) {
    const v1::Operation& op = entry.op;
    AuditRecord record = auditRecord(op.principal(), op.role(), "", op.request(), kRepairStartedDecision);
    google::protobuf::Struct handles;
    std::string words;
    for (const auto& [tray, handle] : entry.repairHandles) {
        (*handles.mutable_fields())[tray].set_string_value(handle);
        words += (words.empty() ? "" : ", ") + tray + " (" + handle + ")";
    }
    google::protobuf::util::MessageToJsonString(handles, &record.repairHandlesJson);
    record.result =
        stateName(op.state()) + ": started on " + (repair_ ? repair_->name() : std::string("?")) + ": " + words;
    record.operationId = op.id();
    pendingResults_.push_back(std::move(record));
}

void OperationsEngine::flushAudit() {
    // One flusher at a time, each taking every record queued so far: records reach the file in
    // the order the engine queued them, so an operation's results never appear out of order.
    std::lock_guard order(auditOrder_);
    std::vector<AuditRecord> records;
    {
        std::lock_guard lock(mutex_);
        records.swap(pendingResults_);
        trimLocked();
    }
    for (const AuditRecord& record : records)
        if (auto error = audit_.append(record); !error.empty())
            std::fprintf(stderr, "fleetd: control: result of %s %s not audited: %s\n", record.operationId.c_str(),
                         record.result.c_str(), error.c_str());
}

ActionOutcome OperationsEngine::dispatch(const v1::Operation& op, const Caller& caller) {
    const v1::ActionRequest& request = op.request();
    const ActionTraits* row = actionTraits(request.type());
    if (!row) return ActionOutcome::failure("unknown action type");
    switch (row->handler) {
    case ActionHandler::Scheduler: return dispatchToScheduler(request);
    case ActionHandler::EventBook:
        if (!acknowledger_) return ActionOutcome::failure("acknowledging events is not connected in this fleetd");
        return acknowledger_->acknowledge(request.event_id(), caller.principal, request.note());
    case ActionHandler::Breaker:
        if (!breaker_) return ActionOutcome::failure("automatic draining is not enabled in this fleetd");
        return breaker_->reset(caller.principal);
    case ActionHandler::IncidentBook:
        if (!incidents_) return ActionOutcome::failure("incident actions are not connected in this fleetd");
        return incidents_->execute(op);
    case ActionHandler::Lifecycle:
        if (!lifecycle_) return ActionOutcome::failure("tray lifecycle is not connected in this fleetd");
        return lifecycle_->set(request.node_name(), request.lifecycle(), caller.principal, request.reason());
    case ActionHandler::Repair: break;  // run() starts a RepairRun; nothing runs a step again
    case ActionHandler::LinkLadder:
        if (!links_) return ActionOutcome::failure("the link ladder is not connected in this fleetd");
        return links_->execute(op, caller, nowUnixMs());
    }
    return ActionOutcome::failure("unknown action type");
}

ActionOutcome OperationsEngine::dispatchToScheduler(const v1::ActionRequest& request) {
    switch (request.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE: return actuator_.drainNode(request.node_name(), request.reason());
    case v1::ACTION_TYPE_RESUME_NODE: return actuator_.resumeNode(request.node_name());
    case v1::ACTION_TYPE_RESTART_JOB:
        return actuator_.requeueJob(request.job_name(),
                                    {request.exclude_node_names().begin(), request.exclude_node_names().end()});
    case v1::ACTION_TYPE_ISOLATE_RACK:
    case v1::ACTION_TYPE_RESTORE_RACK: {
        const auto rack = fleet_.rack(request.rack_name());
        if (!rack) return ActionOutcome::failure("rack " + request.rack_name() + " is no longer known");
        return request.type() == v1::ACTION_TYPE_ISOLATE_RACK
                   ? actuator_.isolateRack(rack->name, rack->nodes, request.reason())
                   : actuator_.restoreRack(rack->name, rack->nodes);
    }
    default: return ActionOutcome::failure(actionName(request.type()) + " has no scheduler step");
    }
}

namespace {

// The tray an operation acts on: a link's step acts on the tray the link serves.
std::string drainedTray(const v1::Operation& op) {
    return LinkLadderActions::handles(op.request().type()) ? LinkLadderActions::trayOf(op) : op.request().node_name();
}

// A drain is done when the node has no work left; until then it is DRAINING.
std::optional<std::string> drainStillWaiting(const FleetView& fleet, const v1::Operation& op) {
    const v1::ActionType type = op.request().type();
    if (type != v1::ACTION_TYPE_DRAIN_NODE && type != v1::ACTION_TYPE_ISOLATE_LINK) return std::nullopt;
    const auto node = fleet.node(drainedTray(op));
    if (!node || node->state == v1::NODE_STATE_DRAINED || node->state == v1::NODE_STATE_DOWN) return std::nullopt;
    // A job that is stopping may no longer be listed on the node while it still holds it.
    if (node->jobs.empty()) {
        if (node->state != v1::NODE_STATE_DRAINING) return std::nullopt;
        return "draining: waiting for the work on " + node->name + " to stop";
    }
    return "draining: waiting for " + commaJoined(node->jobs) + " to leave " + node->name;
}

}  // namespace

v1::Operation OperationsEngine::run(Entry& entry, const Caller& caller) {
    v1::Operation snapshot;
    {
        std::lock_guard lock(mutex_);
        setState(entry, v1::OPERATION_STATE_RUNNING);
        entry.op.set_progress_message("running " + actionName(entry.op.request().type()) + " on " +
                                      describeTarget(entry.op.request()));
        snapshot = entry.op;
    }
    notify({snapshot});
    std::shared_ptr<RepairRun> repairRun;
    ActionOutcome outcome;
    if (!isRepairAction(snapshot.request().type())) {
        outcome = dispatch(snapshot, caller);
    } else if (!repair_) {
        outcome = ActionOutcome::failure("break/fix is not connected in this fleetd");
    } else {
        repairRun = std::make_shared<RepairRun>(
            snapshot, std::vector<std::string>(snapshot.preview().trays().begin(), snapshot.preview().trays().end()));
        outcome = repairRun->begin(fleet_, actuator_);
    }
    {
        // `entry` is active until finished here, so it cannot have been trimmed meanwhile.
        std::lock_guard lock(mutex_);
        entry.effectApplied = outcome.succeeded;
        if (!outcome.succeeded) {
            finishLocked(entry, v1::OPERATION_STATE_FAILED, outcome.message);
        } else if (links_ && LinkLadderActions::waitsForCheckpoint(entry.op)) {
            // Nothing drained yet: tick() drains once the jobs saved their next checkpoint.
            entry.effectApplied = false;
            entry.checkpointWait = links_->startCheckpointWait(entry.op);
            entry.op.set_progress_ratio(0.1);
            entry.op.set_progress_message(
                links_->stillWaiting(*entry.checkpointWait, entry.op).value_or(outcome.message));
            entry.op.set_updated_unix_ms(nowUnixMs());
            auditResultLocked(entry);
        } else if (repairRun) {
            // Started on the back end by the next tick, once every tray is drained.
            entry.repair = std::move(repairRun);
            entry.op.set_progress_message(outcome.message);
            entry.op.set_updated_unix_ms(nowUnixMs());
            auditResultLocked(entry);  // accepted and drained: a restarted fleetd must not run it again
        } else if (const auto waiting = drainStillWaiting(fleet_, entry.op)) {
            entry.op.set_progress_ratio(0.5);
            entry.op.set_progress_message(*waiting);
            entry.op.set_updated_unix_ms(nowUnixMs());
            auditResultLocked(entry);  // the effect is applied: a restarted fleetd must not call it interrupted
        } else {
            finishLocked(entry, v1::OPERATION_STATE_SUCCEEDED, outcome.message);
        }
        snapshot = entry.op;
    }
    flushAudit();
    notify({snapshot});
    return snapshot;
}

void OperationsEngine::tick() {
    std::vector<v1::Operation> changes;
    {
        std::lock_guard lock(mutex_);
        const std::int64_t now = nowUnixMs();
        // finishLocked may trim finished entries: walk a copy of the active ones.
        std::vector<Entry*> active;
        for (const auto& owned : entries_)
            if (owned->settled && !owned->approving && isActive(owned->op.state())) active.push_back(owned.get());
        for (Entry* owned : active) {
            Entry& entry = *owned;
            v1::Operation& op = entry.op;
            if (op.state() == v1::OPERATION_STATE_AWAITING_APPROVAL && now > op.approval_expires_unix_ms()) {
                finishLocked(entry, v1::OPERATION_STATE_CANCELLED,
                             "approval expired after " + std::to_string(config_.approvalTtl.count()) +
                                 " s without a second operator");
                changes.push_back(op);
            } else if (op.state() == v1::OPERATION_STATE_RUNNING && entry.effectApplied &&
                       isRepairAction(op.request().type())) {
                if (!entry.repair && !entry.repairHandles.empty() && repair_) {
                    // Started by an earlier fleetd that recorded its handles: follow the step
                    // under them, never issue it twice.
                    entry.repair = std::make_shared<RepairRun>(RepairRun::following(
                        op, std::vector<std::string>(op.preview().trays().begin(), op.preview().trays().end()),
                        entry.repairHandles, repair_->name()));
                    op.set_progress_message(entry.repair->progressMessage());
                    op.set_updated_unix_ms(now);
                    changes.push_back(op);
                } else if (!entry.repair) {
                    // Started by an earlier fleetd: a step is never issued twice, and this run
                    // cannot follow it (its back end's handle was not recorded yet).
                    finishLocked(entry, v1::OPERATION_STATE_FAILED,
                                 "interrupted: fleetd restarted while " + actionName(op.request().type()) + " of " +
                                     describeTarget(op.request()) +
                                     " was running; it is not started again. Check the tray's state before acting "
                                     "again");
                    changes.push_back(op);
                }
            } else if (op.state() == v1::OPERATION_STATE_RUNNING && entry.effectApplied) {
                const auto waiting = drainStillWaiting(fleet_, op);
                if (!waiting) {
                    finishLocked(entry, v1::OPERATION_STATE_SUCCEEDED, drainedTray(op) + " is drained");
                    changes.push_back(op);
                } else if (*waiting != op.progress_message()) {
                    op.set_progress_message(*waiting);
                    op.set_updated_unix_ms(now);
                    changes.push_back(op);
                }
            }
        }
    }
    advanceRepairs(changes);
    advanceCheckpointWaits(changes);
    flushAudit();
    notify(changes);
}

void OperationsEngine::advanceCheckpointWaits(std::vector<v1::Operation>& changes) {
    if (!links_) return;
    std::vector<v1::Operation> due;
    {
        std::lock_guard lock(mutex_);
        const std::int64_t now = nowUnixMs();
        for (const auto& owned : entries_) {
            Entry& entry = *owned;
            if (!entry.checkpointWait || entry.op.state() != v1::OPERATION_STATE_RUNNING) continue;
            if (const auto waiting = links_->stillWaiting(*entry.checkpointWait, entry.op)) {
                if (*waiting != entry.op.progress_message()) {
                    entry.op.set_progress_message(*waiting);
                    entry.op.set_updated_unix_ms(now);
                    changes.push_back(entry.op);
                }
                continue;
            }
            entry.checkpointWait.reset();
            due.push_back(entry.op);
        }
    }
    // The drain may wait for the twin's tick: the engine's lock is not held meanwhile.
    for (const v1::Operation& op : due) {
        const ActionOutcome drained = links_->drain(op);
        std::lock_guard lock(mutex_);
        const auto found = byId_.find(op.id());
        if (found == byId_.end()) continue;
        Entry& entry = *found->second;
        if (!drained.succeeded) {
            finishLocked(entry, v1::OPERATION_STATE_FAILED, drained.message);
        } else {
            entry.effectApplied = true;
            entry.op.set_progress_ratio(0.5);
            entry.op.set_progress_message(drainStillWaiting(fleet_, entry.op).value_or(drained.message));
            entry.op.set_updated_unix_ms(nowUnixMs());
            auditResultLocked(entry);
        }
        changes.push_back(entry.op);
    }
}

void OperationsEngine::advanceRepairs(std::vector<v1::Operation>& changes) {
    std::vector<std::pair<std::string, std::shared_ptr<RepairRun>>> running;
    {
        std::lock_guard lock(mutex_);
        for (const auto& owned : entries_)
            if (owned->repair && owned->op.state() == v1::OPERATION_STATE_RUNNING)
                running.emplace_back(owned->op.id(), owned->repair);
    }
    if (running.empty() || !repair_) return;
    // The back end may take a command's time per tray: the engine's lock is not held meanwhile.
    for (const auto& [id, run] : running) run->advance(fleet_, *repair_);
    std::lock_guard lock(mutex_);
    const std::int64_t now = nowUnixMs();
    for (const auto& [id, run] : running) {
        const auto found = byId_.find(id);
        if (found == byId_.end() || found->second->repair != run) continue;
        Entry& entry = *found->second;
        v1::Operation& op = entry.op;
        if (auto handles = run->handles(); handles != entry.repairHandles) {
            entry.repairHandles = std::move(handles);
            auditRepairStartedLocked(entry);  // before its result: a restart follows what was started
        }
        const std::string message = run->progressMessage();
        const v1::RepairOutcome outcome = run->outcome();
        const bool changed = message != op.progress_message() ||
                             !(outcome.SerializeAsString() == op.repair().SerializeAsString()) || run->finished();
        if (!changed) continue;
        *op.mutable_repair() = outcome;
        if (run->finished()) {
            entry.repair.reset();
            op.set_progress_ratio(1);
            finishLocked(entry, run->succeeded() ? v1::OPERATION_STATE_SUCCEEDED : v1::OPERATION_STATE_FAILED, message);
        } else {
            op.set_progress_ratio(run->progressRatio());
            op.set_progress_message(message);
            op.set_updated_unix_ms(now);
        }
        changes.push_back(op);
    }
}

namespace {

std::string stringField(const google::protobuf::Struct& record, const char* key) {
    const auto found = record.fields().find(key);
    return found != record.fields().end() && found->second.has_string_value() ? found->second.string_value() : "";
}

// A "started" record's tray -> handle object.
std::map<std::string, std::string> repairHandlesOf(const google::protobuf::Struct& record) {
    std::map<std::string, std::string> handles;
    const auto found = record.fields().find("repair_handles");
    if (found == record.fields().end() || !found->second.has_struct_value()) return handles;
    for (const auto& [tray, handle] : found->second.struct_value().fields())
        if (handle.has_string_value() && !handle.string_value().empty()) handles[tray] = handle.string_value();
    return handles;
}

}  // namespace

RecoveryReport OperationsEngine::recover(const std::string& auditPath) {
    RecoveryReport report = recoverLocked(auditPath);
    flushAudit();
    return report;
}

RecoveryReport OperationsEngine::recoverLocked(const std::string& auditPath) {
    RecoveryReport report;
    std::lock_guard lock(mutex_);
    std::vector<Entry*> recovered;
    auto adopt = [&](const google::protobuf::Struct& record) {
        const auto found = record.fields().find("operation");
        if (found == record.fields().end() || !found->second.has_struct_value()) return;
        std::string json;
        auto entry = std::make_unique<Entry>();
        if (!google::protobuf::util::MessageToJsonString(found->second.struct_value(), &json).ok() ||
            !google::protobuf::util::JsonStringToMessage(json, &entry->op).ok() || entry->op.id().empty())
            return;
        v1::Operation& op = entry->op;
        // The fingerprint is of the request as the caller sent it, before the reason was attributed.
        v1::ActionRequest sent = op.request();
        const std::string prefix = op.principal() + ": ";
        if (sent.reason().starts_with(prefix)) sent.set_reason(sent.reason().substr(prefix.size()));
        entry->fingerprint = sent.SerializeAsString();
        entry->requester = Caller{op.principal(), op.role(), op.automated(), {}};
        recovered.push_back(adoptLocked(std::move(entry)));
    };
    auto apply = [&](Entry& entry, const google::protobuf::Struct& record, const std::string& decision) {
        v1::Operation& op = entry.op;
        if (decision == "allow") {  // the second operator's approval
            op.set_approved_by(stringField(record, "principal"));
            op.set_state(v1::OPERATION_STATE_PENDING);
            return;
        }
        const std::string result = stringField(record, "result");
        const auto colon = result.find(": ");
        v1::OperationState state{};
        if (colon == std::string::npos ||
            !v1::OperationState_Parse("OPERATION_STATE_" + result.substr(0, colon), &state))
            return;
        const std::string message = result.substr(colon + 2);
        op.set_state(state);
        if (state == v1::OPERATION_STATE_RUNNING) {
            entry.effectApplied = true;
            op.set_progress_message(message);
        } else if (state == v1::OPERATION_STATE_SUCCEEDED) {
            op.set_progress_ratio(1.0);
            op.set_progress_message(message);
        } else {
            op.set_error(message);
            op.set_progress_message(stateName(state) + ": " + message);
        }
    };
    report.error = AuditLog::readRecords(
        auditPath,
        [&](const google::protobuf::Struct& record) {
            const std::string id = stringField(record, "operation_id");
            const std::string decision = stringField(record, "decision");
            // A "resume" record precedes running an interrupted operation again: until its result
            // is recorded it is as interrupted as before.
            if (id.empty() || decision == "deny" || decision == kResumeDecision) return;
            const auto found = byId_.find(id);
            if (decision == kRepairStartedDecision) {
                if (found != byId_.end()) found->second->repairHandles = repairHandlesOf(record);
                return;
            }
            if (found == byId_.end()) {
                if (decision == "allow") adopt(record);
            } else {
                apply(*found->second, record, decision);
            }
        },
        &report.unreadableLines);
    // Replaying changed states after adoption counted them.
    finished_ = static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(),
                                                       [](const auto& owned) { return !isActive(owned->op.state()); }));
    StandingActions standing;
    for (Entry* entry : recovered) {
        standing.note(entry->op, entry->effectApplied);
        if (entry->op.state() != v1::OPERATION_STATE_PENDING &&
            (entry->op.state() != v1::OPERATION_STATE_RUNNING || entry->effectApplied))
            continue;
        // Active, so kept in memory and in the way of another action on its target until judged.
        entry->interrupted = true;
        setState(*entry, v1::OPERATION_STATE_RUNNING);
        entry->op.set_progress_message("fleetd restarted before recording the outcome; checking " +
                                       describeTarget(entry->op.request()) + " to confirm or finish it");
        ++report.interrupted;
    }
    report.operations = recovered.size();
    report.standing = standing.list();
    report.lifecycles = standing.lifecycles();
    return report;
}

ReconcileReport OperationsEngine::reconcileInterrupted() {
    std::vector<Entry*> interrupted;
    {
        std::lock_guard lock(mutex_);
        for (const auto& owned : entries_)
            if (owned->interrupted) interrupted.push_back(owned.get());
    }
    ReconcileReport report;
    for (Entry* entry : interrupted) {
        switch (reconcile(*entry)) {
        case Reconciliation::Verdict::Confirmed:
        case Reconciliation::Verdict::Draining: ++report.confirmed; break;
        case Reconciliation::Verdict::RunAgain: ++report.runAgain; break;
        case Reconciliation::Verdict::CheckByHand: ++report.failed; break;
        }
    }
    return report;
}

std::optional<std::string> OperationsEngine::auditResumption(Entry& entry, const std::string& found) {
    const v1::Operation& op = entry.op;
    AuditRecord record = auditRecord(op.principal(), op.role(), "", op.request(), kResumeDecision);
    record.result = "RUNNING: run again after fleetd restarted (" + found + ")";
    record.operationId = op.id();
    if (auto error = audit_.append(record); !error.empty()) return error;
    return std::nullopt;
}

Reconciliation::Verdict OperationsEngine::reconcile(Entry& entry) {
    v1::Operation op;
    {
        std::lock_guard lock(mutex_);
        op = entry.op;
    }
    Reconciliation judged = judgeInterrupted(fleet_, op, breaker_);
    auto settle = [&](auto&& change) {
        v1::Operation snapshot;
        {
            std::lock_guard lock(mutex_);
            entry.interrupted = false;
            change();
            snapshot = entry.op;
        }
        flushAudit();
        notify({snapshot});
    };
    const std::string restarted = "after fleetd restarted: ";
    switch (judged.verdict) {
    case Reconciliation::Verdict::Confirmed:
        settle([&] {
            finishLocked(entry, v1::OPERATION_STATE_SUCCEEDED, "effect confirmed " + restarted + judged.message);
        });
        return judged.verdict;
    case Reconciliation::Verdict::Draining:
        settle([&] {
            entry.effectApplied = true;
            entry.op.set_progress_ratio(0.5);
            entry.op.set_progress_message("effect confirmed " + restarted + judged.message);
            entry.op.set_updated_unix_ms(nowUnixMs());
            auditResultLocked(entry);
        });
        return judged.verdict;
    case Reconciliation::Verdict::CheckByHand:
        settle([&] { finishLocked(entry, v1::OPERATION_STATE_FAILED, judged.message); });
        return judged.verdict;
    case Reconciliation::Verdict::RunAgain: break;
    }
    // Finishing it must still be allowed now (a node the health check took out cannot be resumed).
    const PreviewOutcome now = preview(entry.requester, op.request());
    std::optional<std::string> refusal;
    if (!now.status.ok())
        refusal = now.status.error_message();
    else if (!now.preview.allowed())
        refusal = now.preview.refusal();
    else if (auto error = auditResumption(entry, judged.message))
        refusal = "the audit log cannot be written (" + *error + ")";
    if (refusal) {
        settle([&] {
            finishLocked(entry, v1::OPERATION_STATE_FAILED,
                         "interrupted by a fleetd restart and not finished: " + judged.message + ", and " + *refusal);
        });
        return Reconciliation::Verdict::CheckByHand;
    }
    {
        std::lock_guard lock(mutex_);
        entry.interrupted = false;
    }
    run(entry, entry.requester);
    return judged.verdict;
}

OperationResult OperationsEngine::get(const std::string& operationId, const std::string& requestId,
                                      const std::string& principal) const {
    if (operationId.empty() && requestId.empty())
        return {{grpc::StatusCode::INVALID_ARGUMENT, "give an operation_id or a request_id"}, {}};
    std::lock_guard lock(mutex_);
    const auto& index = operationId.empty() ? byRequestId_ : byId_;
    const auto found = index.find(operationId.empty() ? requestKey(principal, requestId) : operationId);
    if (found == index.end() || !found->second->settled)
        return {{grpc::StatusCode::NOT_FOUND,
                 "no operation " +
                     (operationId.empty() ? "with your request id " + quotedForMessage(requestId)
                                          : quotedForMessage(operationId)) +
                     kNotInMemory},
                {}};
    return {Status::OK, found->second->op};
}

ListResult OperationsEngine::list(const v1::ListOperationsRequest& request) const {
    const std::uint32_t pageSize =
        request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
    std::uint64_t before = UINT64_MAX;
    if (!request.page_token().empty()) {
        const std::string& token = request.page_token();
        const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), before);
        if (error != std::errc() || end != token.data() + token.size())
            return {{grpc::StatusCode::INVALID_ARGUMENT,
                     "page_token " + quotedForMessage(token) + " was not issued by this fleetd"},
                    {}};
    }
    ListResult result;
    std::uint64_t lastListedSeq = 0;
    std::lock_guard lock(mutex_);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
        const Entry& entry = **it;
        if (!entry.settled || entry.seq >= before || (request.active_only() && !isActive(entry.op.state()))) continue;
        if (static_cast<std::uint32_t>(result.response.operations_size()) == pageSize) {
            result.response.set_next_page_token(std::to_string(lastListedSeq));
            break;
        }
        *result.response.add_operations() = entry.op;
        lastListedSeq = entry.seq;
    }
    return result;
}

int OperationsEngine::addListener(Listener listener) {
    std::lock_guard lock(listenersMutex_);
    const int id = nextListenerId_++;
    listeners_.emplace(id, std::move(listener));
    return id;
}

void OperationsEngine::removeListener(int id) {
    std::lock_guard lock(listenersMutex_);
    listeners_.erase(id);
}

void OperationsEngine::notify(const std::vector<v1::Operation>& changes) {
    if (changes.empty()) return;
    std::lock_guard lock(listenersMutex_);
    for (const v1::Operation& op : changes)
        for (const auto& [id, listener] : listeners_) listener(op);
}

}  // namespace watchfloor::server::control
