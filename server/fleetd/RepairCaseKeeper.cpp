#include "RepairCaseKeeper.h"

#include "RepairLadder.h"
#include "TickClock.h"

#include <chrono>
#include <unordered_set>

namespace watchfloor::server::fleetd {
namespace v1 = watchfloor::v1;

namespace {

bool serves(v1::NodeState state) { return state == v1::NODE_STATE_IDLE || state == v1::NODE_STATE_ALLOCATED; }

control::RepairCaseSettings settingsOf(const control::ControlOptions& options) {
    control::RepairCaseSettings settings;
    settings.burnIn = options.repairBurnIn;
    return settings;
}

}  // namespace

RepairCaseKeeper::RepairCaseKeeper(const v1::Topology& topology, control::ControlPlane& plane,
                                   const control::FleetView& fleet, const control::ControlOptions& options, Post post,
                                   Log log, Propose propose)
    : plane_(plane),
      post_(post),
      log_(log),
      propose_(std::move(propose)),
      setLifecycle_(options.autoLifecycle),
      book_(settingsOf(options)),
      file_(options.auditLogFile.empty() ? std::string() : options.auditLogFile + ".repair-cases"),
      automation_(options.autoRemediate, plane, fleet, post, log) {
    for (const auto& node : topology.nodes()) trayNames_[node.index()] = node.name();
    for (const auto& gpu : topology.gpus()) {
        gpuPlaces_[gpu.index()] = {gpu.node_index(), gpu.local_id()};
        gpuNames_[gpu.index()] = gpu.name();
    }
    listener_ = plane_.engine().addListener([this](const v1::Operation& op) {
        if (proto::rungOf(op.request().type()) == v1::REPAIR_RUNG_UNSPECIFIED) return;
        std::lock_guard lock(mutex_);
        operations_.push_back(op);
    });
}

RepairCaseKeeper::~RepairCaseKeeper() { plane_.engine().removeListener(listener_); }

void RepairCaseKeeper::apply(FleetChanges& changes) {
    const std::int64_t nowMs = toUnixMs(changes.time);
    restore(nowMs);
    takeOperations(nowMs);
    trayStates(changes);
    faults(changes);
    lifecycles(nowMs);
    book_.advance(nowMs, [this](const std::string& node) {
        const auto state = trayStates_.find(node);
        return state != trayStates_.end() && serves(state->second);
    });
    automation_.consider(book_, nowMs);
    askLifecycles();
    for (v1::RepairCase& c : book_.takeChanges()) changes.repairCases.push_back(std::move(c));
    if (changes.hasFleet) *changes.fleet.mutable_repairs() = book_.stats(nowMs);
    save(nowMs);
}

void RepairCaseKeeper::restore(std::int64_t nowMs) {
    if (restored_) return;
    restored_ = true;
    std::unordered_set<std::string> trays;
    for (const auto& [index, tray] : trayNames_) trays.insert(tray);
    control::RepairCaseLoad loaded =
        file_.load([&trays](const std::string& name) { return trays.count(name) > 0; }, nowMs, wallNowMs());
    if (!loaded.error.empty()) {
        if (log_) log_("repair cases start empty: " + loaded.error);
        return;
    }
    if (!loaded.found) return;
    const std::size_t count = loaded.cases.size();
    book_.restore(std::move(loaded.cases), loaded.nextId);
    savedRevision_ = book_.revision();
    if (log_)
        log_("repair cases from " + file_.path() + ": " + std::to_string(count) + " (" +
             std::to_string(book_.open().size()) + " open)" +
             (loaded.skippedLines ? "; " + std::to_string(loaded.skippedLines) + " line(s) skipped" : std::string()));
    // Steps that ran when the last run stopped: the engine judged their operations at recovery
    // (a break/fix step interrupted by a restart is never issued again).
    for (const v1::RepairCase* c : book_.open())
        for (const auto& step : c->steps()) {
            if (step.dry_run() || step.ended_unix_ms() != 0 || step.operation_id().empty()) continue;
            const control::OperationResult found = plane_.engine().get(step.operation_id(), "");
            if (found.status.ok()) {
                std::lock_guard lock(mutex_);
                operations_.push_back(found.operation);
                continue;
            }
            v1::Operation gone;
            gone.set_id(step.operation_id());
            gone.mutable_request()->set_type(proto::actionFor(step.rung()));
            gone.mutable_request()->set_node_name(c->node_name());
            gone.set_principal(step.principal());
            gone.set_state(v1::OPERATION_STATE_FAILED);
            gone.set_error("fleetd restarted and no longer holds operation " + step.operation_id() +
                           "; its outcome is in the audit log");
            std::lock_guard lock(mutex_);
            operations_.push_back(std::move(gone));
        }
}

void RepairCaseKeeper::takeOperations(std::int64_t nowMs) {
    std::vector<v1::Operation> operations;
    std::vector<LifecycleRefusal> refusals;
    {
        std::lock_guard lock(mutex_);
        operations.swap(operations_);
        refusals.swap(lifecycleRefusals_);
    }
    for (const v1::Operation& op : operations) book_.operation(op, nowMs);
    for (const LifecycleRefusal& r : refusals) book_.note(r.caseId, "auto", "lifecycle not set: " + r.message, nowMs);
}

void RepairCaseKeeper::trayStates(const FleetChanges& changes) {
    for (const v1::EntityState& state : changes.states) {
        const auto name = trayNames_.find(state.entity_index());
        if (name != trayNames_.end()) trayStates_[name->second] = state.node_state();
    }
}

void RepairCaseKeeper::faults(const FleetChanges& changes) {
    for (const v1::Event& event : changes.events) {
        if (event.type() != v1::EVENT_TYPE_XID) continue;
        const auto place = gpuPlaces_.find(event.entity_index());
        if (place == gpuPlaces_.end()) continue;
        const auto tray = trayNames_.find(place->second.node);
        if (tray == trayNames_.end()) continue;
        control::RepairFault fault;
        fault.nodeIndex = place->second.node;
        fault.node = tray->second;
        fault.gpu = place->second.local;
        fault.eventId = event.id();
        fault.timeMs = event.time_unix_ms();
        fault.action = event.xid().recommended_action();
        fault.text = "Xid " + std::to_string(event.xid().xid()) +
                     (event.xid().mnemonic().empty() ? std::string() : " " + event.xid().mnemonic()) + " on " +
                     gpuNames_[event.entity_index()];
        const bool wasOpen = book_.openCase(fault.node) != nullptr;
        const std::uint64_t id = book_.fault(fault);
        if (id != 0 && !wasOpen && log_)
            log_("repair case " + std::to_string(id) + " opened for " + fault.node + ": " + fault.text + "; " +
                 book_.find(id)->next_reason());
    }
}

void RepairCaseKeeper::lifecycles(std::int64_t nowMs) {
    std::vector<std::string> nodes;
    for (const v1::RepairCase* c : book_.open()) nodes.push_back(c->node_name());
    for (const std::string& node : nodes) book_.lifecycle(node, plane_.lifecycle().get(node), nowMs);
}

void RepairCaseKeeper::askLifecycles() {
    for (control::RepairLifecycleRequest& asked : book_.takeLifecycleRequests()) {
        if (!setLifecycle_) {
            propose_(asked.node, asked.state, std::move(asked.reason));
            continue;
        }
        v1::ActionRequest request;
        // Unique per ask, across runs too: an id the engine saw before would be answered as a retry.
        request.set_request_id("repair-case-" + std::to_string(asked.caseId) + "-" +
                               control::lifecycleName(asked.state) + "-" + std::to_string(wallNowMs()) + "-" +
                               std::to_string(++asks_));
        request.set_type(v1::ACTION_TYPE_SET_LIFECYCLE);
        request.set_node_name(asked.node);
        request.set_lifecycle(asked.state);
        request.set_reason(asked.reason);
        const std::uint64_t caseId = asked.caseId;
        post_([this, request, caseId] {
            const control::OperationResult result = plane_.engine().execute(control::Caller::repairCase(), request);
            if (result.status.ok()) return;
            if (log_)
                log_("repair case " + std::to_string(caseId) + ": " + request.node_name() + " not set to " +
                     control::lifecycleName(request.lifecycle()) + ": " + result.status.error_message());
            std::lock_guard lock(mutex_);
            lifecycleRefusals_.push_back(
                {caseId, control::lifecycleName(request.lifecycle()) + ": " + result.status.error_message()});
        });
    }
}

void RepairCaseKeeper::save(std::int64_t nowMs) {
    if (book_.revision() == savedRevision_) return;
    savedRevision_ = book_.revision();
    std::vector<const v1::RepairCase*> cases;
    cases.reserve(book_.all().size());
    for (const auto& [id, c] : book_.all()) cases.push_back(&c);
    if (const std::string error = file_.save(cases, book_.nextId(), nowMs, wallNowMs()); !error.empty() && log_)
        log_("repair cases not saved (a restart would lose their changes): " + error);
}

}  // namespace watchfloor::server::fleetd
