#include "AutoRemediation.h"

#include "RepairLadder.h"

namespace watchfloor::server::fleetd {
namespace v1 = watchfloor::v1;

namespace {

std::size_t realSteps(const v1::RepairCase& c) {
    std::size_t n = 0;
    for (const auto& step : c.steps()) n += step.dry_run() ? 0 : 1;
    return n;
}

bool automationTookAFix(const v1::RepairCase& c) {
    for (const auto& step : c.steps())
        if (!step.dry_run() && step.principal() == "auto" && proto::isFixRung(step.rung())) return true;
    return false;
}

bool hasDryRun(const v1::RepairCase& c) {
    for (const auto& step : c.steps())
        if (step.dry_run()) return true;
    return false;
}

std::string rungAction(const v1::RepairCase& c, v1::RepairRung rung) {
    switch (rung) {
    case v1::REPAIR_RUNG_RESET_GPU:
        return c.has_gpu_index() ? "reset GPU " + std::to_string(c.gpu_index()) : "reset its GPUs";
    case v1::REPAIR_RUNG_REBOOT: return "reboot it";
    case v1::REPAIR_RUNG_POWER_CYCLE: return "power-cycle it";
    default: return "run diagnostics";
    }
}

}  // namespace

AutoRemediation::AutoRemediation(Mode mode, control::ControlPlane& plane, const control::FleetView& fleet, Post post,
                                 Log log)
    : mode_(mode), plane_(plane), fleet_(fleet), post_(std::move(post)), log_(std::move(log)) {}

v1::AutoRemediation AutoRemediation::status() const {
    switch (mode_) {
    case Mode::Act: return v1::AUTO_REMEDIATION_ACTS;
    case Mode::DryRun: return v1::AUTO_REMEDIATION_DRY_RUN;
    default: return v1::AUTO_REMEDIATION_UNSPECIFIED;
    }
}

std::string AutoRemediation::plan(const v1::RepairCase& c) {
    const v1::RepairRung rung = c.next_rung();
    const std::string diagnostics = "run diagnostics (level " + std::to_string(kDiagnosticLevel) + ")";
    if (rung == v1::REPAIR_RUNG_DIAGNOSTICS)
        return diagnostics + " on " + c.node_name() + " and resume it if they pass";
    return "drain " + c.node_name() + ", wait until no job holds it, " + rungAction(c, rung) + ", " + diagnostics +
           " and resume it if they pass";
}

void AutoRemediation::consider(control::RepairCaseBook& book, std::int64_t nowMs) {
    std::vector<Refusal> refusals;
    {
        std::lock_guard lock(refusalsMutex_);
        refusals.swap(refusals_);
    }
    for (const Refusal& r : refusals) {
        inFlight_.erase(r.caseId);
        if (!r.message.empty()) book.note(r.caseId, "auto", "automation refused: " + r.message, nowMs);
    }
    if (mode_ == Mode::Off) return;
    std::vector<v1::RepairCase> open;  // copies: the book changes as automation notes
    for (const v1::RepairCase* c : book.open()) open.push_back(*c);
    for (const v1::RepairCase& c : open) considerCase(book, c, nowMs);
}

std::string AutoRemediation::standBackReason(const v1::RepairCase& c) const {
    if (!c.owner().empty()) return c.owner() + " took a step on this case: it is theirs";
    if (const auto node = fleet_.node(c.node_name()); node && node->drainOwner.kind() == v1::DRAIN_OWNER_KIND_OPERATOR)
        return c.node_name() + " is drained by " +
               (node->drainOwner.principal().empty() ? std::string("a person") : node->drainOwner.principal()) +
               ": automation leaves it";
    const control::LifecycleEntry lifecycle = plane_.lifecycle().get(c.node_name());
    if (control::setByPerson(lifecycle) &&
        (lifecycle.state == v1::TRAY_LIFECYCLE_MAINTENANCE || lifecycle.state == v1::TRAY_LIFECYCLE_RMA))
        return lifecycle.setBy + " set " + c.node_name() + " to " + control::lifecycleName(lifecycle.state) +
               ": automation leaves it";
    const v1::RepairRung rung = c.next_rung();
    if (rung == v1::REPAIR_RUNG_RMA) return "the ladder proposes RMA: a person decides (" + c.next_reason() + ")";
    if (proto::isFixRung(rung) && automationTookAFix(c))
        return "automation took its one fix step and the ladder climbs on (" + c.next_reason() +
               "): the next step is for operators";
    return {};
}

void AutoRemediation::standBack(control::RepairCaseBook& book, const v1::RepairCase& c, const std::string& why,
                                std::int64_t nowMs) {
    if (!stoodBack_.insert(std::to_string(c.id()) + ":" + why).second) return;
    book.note(c.id(), "auto", "automation stands back: " + why, nowMs);
    if (log_)
        log_("repair case " + std::to_string(c.id()) + " (" + c.node_name() + "): automation stands back: " + why);
}

v1::ActionRequest AutoRemediation::request(const v1::RepairCase& c, std::size_t stepCount) const {
    v1::ActionRequest request;
    const v1::RepairRung rung = c.next_rung();
    request.set_request_id("auto-repair-" + std::to_string(c.id()) + "-" + std::to_string(stepCount));
    request.set_type(proto::actionFor(rung));
    request.set_node_name(c.node_name());
    request.set_wait_for_drain(true);
    if (rung == v1::REPAIR_RUNG_DIAGNOSTICS) {
        request.set_diagnostic_level(kDiagnosticLevel);
        request.set_after_repair(v1::TRAY_AFTER_REPAIR_RESUME);
    } else {
        request.set_after_repair(v1::TRAY_AFTER_REPAIR_STAY_DRAINED);  // diagnostics decide whether it serves
    }
    if (rung == v1::REPAIR_RUNG_RESET_GPU && c.has_gpu_index()) request.set_gpu_index(c.gpu_index());
    request.set_reason("repair case " + std::to_string(c.id()) + ": " + c.fault());
    return request;
}

void AutoRemediation::considerCase(control::RepairCaseBook& book, const v1::RepairCase& c, std::int64_t nowMs) {
    if (!proto::automatable(c.recommended_action()) || c.state() != v1::REPAIR_CASE_STATE_OPEN) return;
    if (c.next_rung() == v1::REPAIR_RUNG_UNSPECIFIED || inFlight_.count(c.id())) return;  // a step runs
    if (const std::string why = standBackReason(c); !why.empty()) return standBack(book, c, why, nowMs);
    if (mode_ == Mode::DryRun) {
        if (!hasDryRun(c)) book.dryRun(c.id(), c.next_rung(), "would " + plan(c), nowMs);
        return;
    }
    const std::size_t steps = realSteps(c);
    if (!acted_.insert(std::to_string(c.id()) + ":" + std::to_string(steps)).second) return;
    const v1::ActionRequest asked = request(c, steps);
    inFlight_.insert(c.id());
    if (log_) log_("repair case " + std::to_string(c.id()) + " (" + c.node_name() + "): automation will " + plan(c));
    const std::uint64_t caseId = c.id();
    post_([this, asked, caseId] {
        const control::OperationResult result = plane_.engine().execute(control::Caller::automation(), asked);
        const std::string refusal = result.status.ok() ? std::string() : result.status.error_message();
        if (!refusal.empty() && log_)
            log_("repair case " + std::to_string(caseId) + ": automation's " + asked.node_name() +
                 " step refused: " + refusal);
        std::lock_guard lock(refusalsMutex_);
        refusals_.push_back({caseId, refusal});
    });
}

}  // namespace watchfloor::server::fleetd
