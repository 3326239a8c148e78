#include "RepairCaseBook.h"

#include "CountPerWindow.h"
#include "FleetStateKinds.h"
#include "RepairLadder.h"
#include "TextBounds.h"

#include <algorithm>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMaxOutcomeBytes = 300;

bool finished(v1::OperationState state) {
    return state == v1::OPERATION_STATE_SUCCEEDED || state == v1::OPERATION_STATE_FAILED ||
           state == v1::OPERATION_STATE_CANCELLED;
}

// The highest fix rung a case's ended steps took (UNSPECIFIED: none yet).
v1::RepairRung highestFix(const v1::RepairCase& c) {
    v1::RepairRung highest = v1::REPAIR_RUNG_UNSPECIFIED;
    for (const auto& step : c.steps())
        if (!step.dry_run() && step.ended_unix_ms() != 0 && proto::isFixRung(step.rung()) && step.rung() > highest)
            highest = step.rung();
    return highest;
}

int failedDiagnostics(const v1::RepairCase& c) {
    int failed = 0;
    for (const auto& step : c.steps())
        if (!step.dry_run() && step.ended_unix_ms() != 0 && step.rung() == v1::REPAIR_RUNG_DIAGNOSTICS &&
            !step.succeeded())
            ++failed;
    return failed;
}

std::string bounded(std::string text) {
    if (text.size() <= kMaxOutcomeBytes) return text;
    text.resize(utf8Prefix(text, kMaxOutcomeBytes));
    return text + "…";
}

}  // namespace

std::string rungName(v1::RepairRung rung) {
    const std::string words = proto::rungWords(rung);
    return words.empty() ? "no step" : words;
}

std::string stepOutcomeLine(const v1::Operation& op) {
    const v1::RepairOutcome& repair = op.repair();
    std::string line;
    if (op.state() == v1::OPERATION_STATE_CANCELLED) {
        line = "cancelled" + (op.error().empty() ? std::string() : ": " + op.error());
    } else if (!repair.tests().empty()) {
        std::vector<std::string> failedTests;
        for (const auto& test : repair.tests())
            if (test.result() == v1::DIAGNOSTIC_RESULT_FAIL) failedTests.push_back(test.name());
        line = failedTests.empty() ? "all " + std::to_string(repair.tests_size()) + " tests passed"
                                   : std::to_string(failedTests.size()) + " of " + std::to_string(repair.tests_size()) +
                                         " tests failed: ";
        for (std::size_t i = 0; i < failedTests.size(); ++i) line += (i ? ", " : "") + failedTests[i];
    } else if (op.state() == v1::OPERATION_STATE_FAILED) {
        line = op.error().empty() ? "failed" : op.error();
    } else if (!repair.power_state().empty()) {
        line = "power state " + repair.power_state();
    } else if (repair.command_ran()) {
        line = "exit status " + std::to_string(repair.exit_status());
    } else {
        line = op.progress_message();
    }
    return bounded(std::move(line));
}

v1::RepairCase* RepairCaseBook::openCaseMutable(const std::string& node) {
    const auto found = openByNode_.find(node);
    return found == openByNode_.end() ? nullptr : &cases_.at(found->second);
}

const v1::RepairCase* RepairCaseBook::openCase(const std::string& node) const {
    const auto found = openByNode_.find(node);
    return found == openByNode_.end() ? nullptr : &cases_.at(found->second);
}

const v1::RepairCase* RepairCaseBook::find(std::uint64_t id) const {
    const auto found = cases_.find(id);
    return found == cases_.end() ? nullptr : &found->second;
}

std::vector<const v1::RepairCase*> RepairCaseBook::open() const {
    std::vector<const v1::RepairCase*> out;
    for (const auto& [node, id] : openByNode_) out.push_back(&cases_.at(id));
    return out;
}

std::uint64_t RepairCaseBook::fault(const RepairFault& fault) {
    const v1::RepairRung first = proto::firstRung(fault.action);
    if (first == v1::REPAIR_RUNG_UNSPECIFIED) return 0;
    if (v1::RepairCase* c = openCaseMutable(fault.node)) {
        if (c->state() == v1::REPAIR_CASE_STATE_BURN_IN) {
            reopen(*c, fault);
        } else {
            c->set_faults(c->faults() + 1);
            addNote(*c, "fleetd", "another fault: " + fault.text, fault.timeMs);
            changed(*c, fault.timeMs);
        }
        return c->id();
    }
    return open(fault, first);
}

std::uint64_t RepairCaseBook::open(const RepairFault& fault, v1::RepairRung first) {
    v1::RepairCase& c = cases_[nextId_];
    c.set_id(nextId_++);
    c.set_node_index(fault.nodeIndex);
    c.set_node_name(fault.node);
    c.set_state(v1::REPAIR_CASE_STATE_OPEN);
    c.set_opened_unix_ms(fault.timeMs);
    c.set_fault_event_id(fault.eventId);
    c.set_fault(fault.text);
    c.set_recommended_action(fault.action);
    if (fault.gpu) c.set_gpu_index(*fault.gpu);
    c.set_faults(1);
    c.set_automated(true);
    openByNode_[fault.node] = c.id();
    addNote(c, "fleetd", "opened by " + fault.text, fault.timeMs);
    propose(c, first, "the fault's recommended action: " + rungName(first) + " first");
    askLifecycle(c, v1::TRAY_LIFECYCLE_TRIAGE, "repair case " + std::to_string(c.id()) + ": " + fault.text);
    changed(c, fault.timeMs);
    return c.id();
}

void RepairCaseBook::reopen(v1::RepairCase& c, const RepairFault& fault) {
    c.set_state(v1::REPAIR_CASE_STATE_OPEN);
    c.set_faults(c.faults() + 1);
    c.set_burn_in_until_unix_ms(0);
    c.set_fixed_by(v1::REPAIR_RUNG_UNSPECIFIED);
    inServiceSince_.erase(c.id());
    addNote(c, "fleetd", "reopened: a new fault during burn-in: " + fault.text, fault.timeMs);
    const v1::RepairRung next = proto::nextFixRung(highestFix(c));
    propose(c, next, "a new fault during burn-in: " + rungName(next) + " next");
    askLifecycle(c, v1::TRAY_LIFECYCLE_TRIAGE,
                 "repair case " + std::to_string(c.id()) + " reopened: a new fault during burn-in");
    changed(c, fault.timeMs);
}

void RepairCaseBook::operation(const v1::Operation& op, std::int64_t nowMs) {
    const v1::RepairRung rung = proto::rungOf(op.request().type());
    if (rung == v1::REPAIR_RUNG_UNSPECIFIED) return;
    if (op.request().type() == v1::ACTION_TYPE_POWER_CYCLE_RACK) {
        for (const std::string& tray : op.preview().trays())
            if (v1::RepairCase* c = openCaseMutable(tray)) stepChanged(*c, op, nowMs);
        return;
    }
    if (v1::RepairCase* c = openCaseMutable(op.request().node_name())) stepChanged(*c, op, nowMs);
}

void RepairCaseBook::stepChanged(v1::RepairCase& c, const v1::Operation& op, std::int64_t nowMs) {
    v1::RepairStep* step = nullptr;
    for (auto& s : *c.mutable_steps())
        if (s.operation_id() == op.id()) step = &s;
    if (!step) {
        step = c.add_steps();
        step->set_operation_id(op.id());
        step->set_rung(proto::rungOf(op.request().type()));
        step->set_principal(op.principal());
        step->set_started_unix_ms(nowMs);
        if (!op.automated()) {
            c.set_owner(op.principal());
            c.set_automated(false);
        }
        addNote(c, op.principal(), rungName(step->rung()) + " asked (" + op.id() + ")", nowMs);
        if (c.state() == v1::REPAIR_CASE_STATE_BURN_IN && step->rung() != v1::REPAIR_RUNG_DIAGNOSTICS) {
            c.set_state(v1::REPAIR_CASE_STATE_OPEN);
            c.set_burn_in_until_unix_ms(0);
            inServiceSince_.erase(c.id());
            addNote(c, "fleetd", "a " + rungName(step->rung()) + " during burn-in: back to triage", nowMs);
            askLifecycle(c, v1::TRAY_LIFECYCLE_TRIAGE,
                         "repair case " + std::to_string(c.id()) + ": " + rungName(step->rung()) + " during burn-in");
        }
        if (c.steps_size() > kMaxSteps) c.mutable_steps()->DeleteSubrange(0, c.steps_size() - kMaxSteps);
        step = c.mutable_steps(c.steps_size() - 1);
    }
    if (step->ended_unix_ms() != 0) return;  // already ended: a late repeat of its last state
    if (finished(op.state())) {
        step->set_ended_unix_ms(nowMs);
        step->set_succeeded(op.state() == v1::OPERATION_STATE_SUCCEEDED &&
                            (!op.has_repair() || op.repair().succeeded()));
        step->set_outcome(stepOutcomeLine(op));
        const v1::RepairStep ended = *step;
        stepEnded(c, ended, nowMs);
    } else {
        step->set_outcome(
            bounded(op.state() == v1::OPERATION_STATE_AWAITING_APPROVAL ? "awaiting approval" : op.progress_message()));
        propose(c, v1::REPAIR_RUNG_UNSPECIFIED, rungName(step->rung()) + " in progress (" + op.id() + ")");
    }
    changed(c, nowMs);
}

void RepairCaseBook::stepEnded(v1::RepairCase& c, const v1::RepairStep& step, std::int64_t nowMs) {
    addNote(c, step.principal(),
            rungName(step.rung()) + (step.succeeded() ? " succeeded: " : " failed: ") + step.outcome(), nowMs);
    const v1::RepairRung highest = highestFix(c);
    if (proto::isFixRung(step.rung())) {
        if (step.succeeded()) {
            propose(c, v1::REPAIR_RUNG_DIAGNOSTICS,
                    "the " + rungName(step.rung()) + " succeeded: verify with diagnostics");
        } else {
            const v1::RepairRung next = proto::nextFixRung(highest);
            propose(c, next,
                    "the " + rungName(step.rung()) + " failed: " +
                        (next == v1::REPAIR_RUNG_RMA ? std::string("propose RMA") : rungName(next) + " next"));
        }
        return;
    }
    if (step.rung() != v1::REPAIR_RUNG_DIAGNOSTICS) return;
    if (step.succeeded()) {
        c.set_state(v1::REPAIR_CASE_STATE_BURN_IN);
        c.set_fixed_by(highest == v1::REPAIR_RUNG_UNSPECIFIED ? v1::REPAIR_RUNG_DIAGNOSTICS : highest);
        inServiceSince_.erase(c.id());
        propose(c, v1::REPAIR_RUNG_UNSPECIFIED,
                "diagnostics passed: burn-in, until the tray has served " + windowText(settings_.burnIn) +
                    " without a fault");
        askLifecycle(c, v1::TRAY_LIFECYCLE_BURN_IN,
                     "repair case " + std::to_string(c.id()) + ": diagnostics passed after " +
                         (highest == v1::REPAIR_RUNG_UNSPECIFIED ? std::string("no fix step") : rungName(highest)));
        return;
    }
    if (failedDiagnostics(c) >= 2) {
        propose(c, v1::REPAIR_RUNG_RMA, "diagnostics failed twice: propose RMA");
    } else if (highest >= v1::REPAIR_RUNG_POWER_CYCLE) {
        propose(c, v1::REPAIR_RUNG_RMA, "diagnostics failed after a power cycle: propose RMA");
    } else {
        const v1::RepairRung next = proto::nextFixRung(highest);
        propose(c, next, "diagnostics failed: " + rungName(next) + " next");
    }
}

void RepairCaseBook::dryRun(std::uint64_t caseId, v1::RepairRung rung, const std::string& what, std::int64_t nowMs) {
    const auto found = cases_.find(caseId);
    if (found == cases_.end() || fleetstate::RepairCases::retired(found->second)) return;
    v1::RepairCase& c = found->second;
    v1::RepairStep* step = c.add_steps();
    step->set_rung(rung);
    step->set_principal("auto");
    step->set_started_unix_ms(nowMs);
    step->set_ended_unix_ms(nowMs);
    step->set_dry_run(true);
    step->set_outcome(bounded(what));
    if (c.steps_size() > kMaxSteps) c.mutable_steps()->DeleteSubrange(0, c.steps_size() - kMaxSteps);
    addNote(c, "auto", "dry run: " + what, nowMs);
    changed(c, nowMs);
}

void RepairCaseBook::note(std::uint64_t caseId, const std::string& actor, const std::string& text, std::int64_t nowMs) {
    const auto found = cases_.find(caseId);
    if (found == cases_.end()) return;
    addNote(found->second, actor, text, nowMs);
    changed(found->second, nowMs);
}

void RepairCaseBook::lifecycle(const std::string& node, const LifecycleEntry& entry, std::int64_t nowMs) {
    v1::RepairCase* c = openCaseMutable(node);
    if (!c) return;
    // Only a change seen while the case is open counts: a PRODUCTION a person set last week says
    // nothing about today's fault.
    const std::string seen = std::to_string(entry.state) + "|" + entry.setBy + "|" + std::to_string(entry.sinceUnixMs);
    auto [at, first] = seenLifecycle_.try_emplace(c->id(), seen);
    if (first || at->second == seen) return;
    at->second = seen;
    if (!setByPerson(entry)) return;
    if (entry.state == v1::TRAY_LIFECYCLE_RMA) {
        close(*c, v1::REPAIR_CASE_STATE_RMA, entry.setBy, "set to RMA", nowMs);
    } else if (entry.state == v1::TRAY_LIFECYCLE_PRODUCTION) {
        const v1::RepairRung highest = highestFix(*c);
        c->set_fixed_by(highest == v1::REPAIR_RUNG_UNSPECIFIED ? v1::REPAIR_RUNG_DIAGNOSTICS : highest);
        c->set_automated(false);
        close(*c, v1::REPAIR_CASE_STATE_FIXED, entry.setBy, "set back to PRODUCTION", nowMs);
    }
}

void RepairCaseBook::advance(std::int64_t nowMs, const std::function<bool(const std::string&)>& inService) {
    std::vector<std::uint64_t> ids;
    for (const auto& [node, id] : openByNode_) ids.push_back(id);
    for (const std::uint64_t id : ids) {
        v1::RepairCase& c = cases_.at(id);
        if (c.state() == v1::REPAIR_CASE_STATE_BURN_IN) {
            if (inService(c.node_name())) {
                const std::int64_t since = inServiceSince_.try_emplace(id, nowMs).first->second;
                const std::int64_t until = since + settings_.burnIn.count() * 1000;
                if (nowMs >= until) {
                    close(c, v1::REPAIR_CASE_STATE_FIXED, "fleetd",
                          "burn-in passed: " + windowText(settings_.burnIn) + " in service without a fault", nowMs);
                    askLifecycle(c, v1::TRAY_LIFECYCLE_PRODUCTION,
                                 "repair case " + std::to_string(id) + ": burn-in passed");
                    continue;
                }
                if (c.burn_in_until_unix_ms() != until) {
                    c.set_burn_in_until_unix_ms(until);
                    c.set_next_reason("burn-in: back in production once the tray has served " +
                                      windowText(settings_.burnIn) + " without a fault");
                    changed(c, nowMs);
                }
            } else {
                inServiceSince_.erase(id);
                if (c.burn_in_until_unix_ms() != 0 || c.next_reason().rfind("burn-in waits", 0) != 0) {
                    c.set_burn_in_until_unix_ms(0);
                    c.set_next_reason("burn-in waits for the tray to serve jobs again: resume it");
                    changed(c, nowMs);
                }
            }
        }
        const auto refreshed = refreshedMs_.find(id);
        if (refreshed == refreshedMs_.end() || nowMs - refreshed->second >= kRefreshMs)
            changed(c, nowMs, Change::Refresh);
    }
}

void RepairCaseBook::close(v1::RepairCase& c, v1::RepairCaseState state, const std::string& actor,
                           const std::string& why, std::int64_t nowMs) {
    c.set_state(state);
    c.set_closed_unix_ms(nowMs);
    c.set_burn_in_until_unix_ms(0);
    propose(c, v1::REPAIR_RUNG_UNSPECIFIED, "");
    addNote(c, actor,
            "closed: " + why +
                (state == v1::REPAIR_CASE_STATE_FIXED ? " (fixed by " + rungName(c.fixed_by()) + ")" : std::string()),
            nowMs);
    openByNode_.erase(c.node_name());
    inServiceSince_.erase(c.id());
    seenLifecycle_.erase(c.id());
    changed(c, nowMs);
    refreshedMs_.erase(c.id());
    dropOldClosed();
}

void RepairCaseBook::propose(v1::RepairCase& c, v1::RepairRung rung, std::string reason) {
    c.set_next_rung(rung);
    c.set_next_reason(std::move(reason));
}

void RepairCaseBook::addNote(v1::RepairCase& c, const std::string& actor, const std::string& text, std::int64_t nowMs) {
    v1::RepairCaseNote* note = c.add_timeline();
    note->set_time_unix_ms(nowMs);
    note->set_actor(actor);
    note->set_text(bounded(text));
    if (c.timeline_size() > kMaxNotes) c.mutable_timeline()->DeleteSubrange(0, c.timeline_size() - kMaxNotes);
}

void RepairCaseBook::askLifecycle(const v1::RepairCase& c, v1::TrayLifecycle state, std::string reason) {
    lifecycleRequests_.push_back({c.id(), c.node_name(), state, std::move(reason)});
}

void RepairCaseBook::changed(v1::RepairCase& c, std::int64_t nowMs, Change change) {
    const std::int64_t end = c.closed_unix_ms() != 0 ? c.closed_unix_ms() : nowMs;
    c.set_out_of_service_gpu_hours(settings_.gpusPerTray * std::max<std::int64_t>(0, end - c.opened_unix_ms()) /
                                   3'600'000.0);
    refreshedMs_[c.id()] = nowMs;
    changes_[c.id()] = c;
    if (change == Change::Record) ++revision_;
}

void RepairCaseBook::dropOldClosed() {
    std::size_t closed = 0;
    for (const auto& [id, c] : cases_) closed += fleetstate::RepairCases::retired(c) ? 1 : 0;
    for (auto it = cases_.begin(); closed > kClosedHeld && it != cases_.end();) {
        if (fleetstate::RepairCases::retired(it->second)) {
            it = cases_.erase(it);
            --closed;
        } else {
            ++it;
        }
    }
}

void RepairCaseBook::restore(std::vector<v1::RepairCase> cases, std::uint64_t nextId) {
    for (v1::RepairCase& c : cases) {
        const std::uint64_t id = c.id();
        if (id == 0) continue;
        if (!fleetstate::RepairCases::retired(c)) {
            if (openByNode_.count(c.node_name())) continue;  // one open case a tray; the first kept
            openByNode_[c.node_name()] = id;
        }
        nextId_ = std::max(nextId_, id + 1);
        cases_[id] = std::move(c);
        changes_[id] = cases_[id];
    }
    nextId_ = std::max(nextId_, nextId);
    dropOldClosed();
    ++revision_;
}

std::vector<v1::RepairCase> RepairCaseBook::takeChanges() {
    std::vector<v1::RepairCase> out;
    out.reserve(changes_.size());
    for (auto& [id, c] : changes_) out.push_back(std::move(c));
    changes_.clear();
    return out;
}

std::vector<RepairLifecycleRequest> RepairCaseBook::takeLifecycleRequests() {
    std::vector<RepairLifecycleRequest> out;
    out.swap(lifecycleRequests_);
    return out;
}

v1::RepairStats RepairCaseBook::stats(std::int64_t nowMs) const {
    v1::RepairStats s;
    s.set_window_s(settings_.statsWindow.count());
    const std::int64_t since = nowMs - settings_.statsWindow.count() * 1000;
    double total = 0, automated = 0, manual = 0, outOfService = 0;
    for (const auto& [id, c] : cases_) {
        if (!fleetstate::RepairCases::retired(c)) {
            s.set_open_cases(s.open_cases() + 1);
            outOfService += settings_.gpusPerTray * std::max<std::int64_t>(0, nowMs - c.opened_unix_ms()) / 3'600'000.0;
            continue;
        }
        if (c.closed_unix_ms() < since) continue;
        if (c.state() == v1::REPAIR_CASE_STATE_RMA) {
            s.set_sent_to_rma(s.sent_to_rma() + 1);
            continue;
        }
        const double seconds = std::max<std::int64_t>(0, c.closed_unix_ms() - c.opened_unix_ms()) / 1000.0;
        s.set_fixed(s.fixed() + 1);
        total += seconds;
        if (c.automated()) {
            s.set_fixed_automated(s.fixed_automated() + 1);
            automated += seconds;
        } else {
            s.set_fixed_manual(s.fixed_manual() + 1);
            manual += seconds;
        }
        switch (c.fixed_by()) {
        case v1::REPAIR_RUNG_RESET_GPU: s.set_fixed_by_reset(s.fixed_by_reset() + 1); break;
        case v1::REPAIR_RUNG_REBOOT: s.set_fixed_by_reboot(s.fixed_by_reboot() + 1); break;
        case v1::REPAIR_RUNG_POWER_CYCLE: s.set_fixed_by_power_cycle(s.fixed_by_power_cycle() + 1); break;
        default: s.set_fixed_by_diagnostics(s.fixed_by_diagnostics() + 1); break;
        }
    }
    if (s.fixed() > 0) s.set_mttr_s(total / s.fixed());
    if (s.fixed_automated() > 0) s.set_mttr_automated_s(automated / s.fixed_automated());
    if (s.fixed_manual() > 0) s.set_mttr_manual_s(manual / s.fixed_manual());
    s.set_out_of_service_gpu_hours(outOfService);
    return s;
}

}  // namespace watchfloor::server::control
