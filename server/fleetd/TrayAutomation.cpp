#include "TrayAutomation.h"

#include "CountPerWindow.h"
#include "FailSlowAutoEvict.h"
#include "TickClock.h"

#include <chrono>

namespace watchfloor::server::fleetd {
namespace v1 = watchfloor::v1;

namespace {

bool triagedAlready(v1::TrayLifecycle state) {
    return state == v1::TRAY_LIFECYCLE_TRIAGE || state == v1::TRAY_LIFECYCLE_RMA ||
           state == v1::TRAY_LIFECYCLE_MAINTENANCE;
}

}  // namespace

TrayAutomation::TrayAutomation(const v1::Topology& topology, control::ControlPlane& plane,
                               const control::ControlOptions& options, Post post, Log log)
    : plane_(plane),
      autoEvict_(options.autoEvictSlow),
      autoLifecycle_(options.autoLifecycle),
      post_(std::move(post)),
      log_(std::move(log)),
      ladder_(options.failSlow,
              [this](std::uint32_t node) {
                  const auto found = trayNames_.find(node);
                  return found == trayNames_.end() ? "tray " + std::to_string(node) : found->second;
              }),
      lemons_(options.lemon),
      lemonFile_(options.auditLogFile.empty() ? std::string() : options.auditLogFile + ".lemon-failures",
                 options.lemon.failures) {
    std::set<std::string> trays;
    for (const auto& node : topology.nodes()) {
        trayNames_[node.index()] = node.name();
        trays.insert(node.name());
    }
    lemonsToRestore_ = lemonFile_.load([&trays](const std::string& name) { return trays.count(name) > 0; });
    if (log_ && !lemonsToRestore_->error.empty())
        log_("lemon failure counts start from zero: " + lemonsToRestore_->error);
    // Lifecycle states restored from the audit log are not news: a PRODUCTION among them vouched
    // for its tray in the run that set it, before the failures saved since; re-applying it now
    // would wipe those. They are still sent again, decorated, like any change.
    for (std::string& node : plane_.lifecycle().takeChanged()) restate_.insert(std::move(node));
}

void TrayAutomation::apply(FleetChanges& changes) {
    const std::int64_t nowMs = toUnixMs(changes.time);
    restoreLemons(nowMs);
    takeOutcomes();
    failSlow(changes, nowMs);
    std::set<std::string> touched;
    trayStates(changes, nowMs, touched);
    restate(changes, nowMs, touched);
    fleet(changes, nowMs);
    saveLemons(nowMs);
}

void TrayAutomation::restoreLemons(std::int64_t nowMs) {
    if (!lemonsToRestore_) return;
    const control::LemonFailureLoad loaded = std::move(*lemonsToRestore_);
    lemonsToRestore_.reset();
    const std::int64_t wallMs = wallNowMs();
    std::size_t carried = 0;
    for (const auto& [node, times] : loaded.snapshot.failures)
        for (const std::int64_t time : times) {
            lemons_.restore(node, control::LemonFailureFile::carriedOver(time, loaded.snapshot, nowMs, wallMs));
            ++carried;
        }
    lemons_.expire(nowMs);  // those older than the window by now
    savedLemonRevision_ = lemons_.revision();
    savedLemonClockMs_ = nowMs;
    std::size_t counted = 0;
    for (const auto& [node, times] : lemons_.failures()) counted += times.size();
    if (log_ && loaded.found)
        log_("lemon failure counts from " + lemonFile_.path() + ": " + std::to_string(carried) + " failure(s) of " +
             std::to_string(loaded.snapshot.failures.size()) + " tray(s) carried over, " + std::to_string(counted) +
             " still within " + control::windowText(lemons_.config().window) + ", " +
             std::to_string(lemons_.lemons(nowMs)) + " lemon(s)" +
             (loaded.skippedLines > 0 ? "; " + std::to_string(loaded.skippedLines) + " line(s) skipped"
                                      : std::string()));
    // A lemon carried over is proposed for triage again (nothing happens when it is triaged already).
    for (const auto& [node, times] : lemons_.failures())
        if (lemons_.lemon(node, nowMs)) proposeTriage(node, lemonReason(node, nowMs), nowMs);
}

void TrayAutomation::saveLemons(std::int64_t nowMs) {
    const std::int64_t refreshMs = static_cast<std::int64_t>(lemons_.config().window.count()) * 100;  // a tenth
    const bool changed = lemons_.revision() != savedLemonRevision_;
    if (!changed && (lemons_.failures().empty() || nowMs - savedLemonClockMs_ < refreshMs)) return;
    control::LemonFailureSnapshot snapshot;
    snapshot.savedClockMs = nowMs;
    snapshot.savedWallMs = wallNowMs();
    snapshot.failures = lemons_.failures();
    savedLemonRevision_ = lemons_.revision();
    savedLemonClockMs_ = nowMs;
    if (const std::string error = lemonFile_.save(snapshot); !error.empty() && log_)
        log_("lemon failure counts not saved (a restart would forget them): " + error);
}

void TrayAutomation::takeOutcomes() {
    std::vector<EvictionOutcome> evictions;
    std::vector<TriageOutcome> triages;
    {
        std::lock_guard lock(outcomesMutex_);
        evictions.swap(evictions_);
        triages.swap(triages_);
    }
    for (const EvictionOutcome& e : evictions) {
        if (e.refusal.empty())
            ladder_.evicting(e.job, e.node, e.operationId);
        else
            ladder_.refused(e.job, e.node, e.refusal);
    }
    for (const TriageOutcome& t : triages) {
        const auto proposal = proposals_.find(t.node);
        if (t.refusal.empty() || proposal == proposals_.end()) continue;
        proposal->second.reason += " (automation refused: " + t.refusal + ")";
        restate_.insert(t.node);
    }
}

void TrayAutomation::failSlow(FleetChanges& changes, std::int64_t nowMs) {
    for (const control::FailSlowEviction& confirmed : ladder_.observe(changes.jobs, nowMs)) {
        if (log_)
            log_(control::failSlowReason(confirmed) +
                 (autoEvict_ ? "; evicting it (--auto-evict-slow)" : "; proposed to operators (no --auto-evict-slow)"));
        if (autoEvict_) evict(confirmed);
    }
    for (const v1::Job& job : changes.jobs) {
        auto& [count, gain] = jobProposals_[job.name()];
        count = 0;
        gain = 0;
        for (const v1::FailSlowFinding& finding : job.fail_slow())
            if (finding.stage() == v1::FAIL_SLOW_STAGE_PROPOSED) {
                ++count;
                gain += finding.gain_gpu_hours_per_day();
            }
    }
}

void TrayAutomation::evict(const control::FailSlowEviction& eviction) {
    post_([this, eviction] {
        const control::OperationResult result = control::FailSlowAutoEvict(plane_.engine()).evict(eviction);
        EvictionOutcome outcome{eviction.job, eviction.node, result.operation.id(),
                                result.status.ok() ? std::string() : result.status.error_message()};
        if (log_)
            log_("fail-slow eviction of " + eviction.node + " from " + eviction.job + ": " +
                 (result.status.ok() ? result.operation.id() + " " + control::stateName(result.operation.state())
                                     : "refused: " + outcome.refusal));
        std::lock_guard lock(outcomesMutex_);
        evictions_.push_back(std::move(outcome));
    });
}

void TrayAutomation::trayStates(FleetChanges& changes, std::int64_t nowMs, std::set<std::string>& touched) {
    for (v1::EntityState& state : changes.states) {
        const auto name = trayNames_.find(state.entity_index());
        if (name == trayNames_.end()) continue;
        const std::string& node = name->second;
        const auto last = lastState_.find(node);
        // A failure is the tray's health turning FAILED; a tray already failed when fleetd
        // started was not seen failing.
        if (last != lastState_.end() && last->second.health() != v1::HEALTH_STATE_FAILED &&
            state.health() == v1::HEALTH_STATE_FAILED)
            onFailure(node, nowMs, plane_.lifecycle().get(node).state == v1::TRAY_LIFECYCLE_BURN_IN);
        lastState_[node] = state;
        decorate(state, node, nowMs);
        touched.insert(node);
    }
}

void TrayAutomation::onFailure(const std::string& node, std::int64_t nowMs, bool burnIn) {
    if (lemons_.failure(node, nowMs)) {
        proposeTriage(node, lemonReason(node, nowMs), nowMs);
    } else if (burnIn) {
        proposeTriage(node, "failed its health check during burn-in", nowMs);
    }
}

std::string TrayAutomation::lemonReason(const std::string& node, std::int64_t nowMs) const {
    const auto& config = lemons_.config();
    return "lemon: " + std::to_string(lemons_.recentFailures(node, nowMs)) + " failures within " +
           control::windowText(config.window) + " (threshold " + std::to_string(config.failures) + ")";
}

void TrayAutomation::proposeTriage(const std::string& node, std::string reason, std::int64_t nowMs) {
    if (triagedAlready(plane_.lifecycle().get(node).state)) return;
    if (log_) log_(node + ": " + reason + "; TRIAGE " + (autoLifecycle_ ? "set by automation" : "proposed"));
    proposals_[node] = {v1::TRAY_LIFECYCLE_TRIAGE, reason};
    if (!autoLifecycle_) return;
    v1::ActionRequest request;
    // One request per failure that called for it: a re-post is a retry, a later failure a new one.
    request.set_request_id("auto-lifecycle-" + node + "-" + std::to_string(nowMs));
    request.set_type(v1::ACTION_TYPE_SET_LIFECYCLE);
    request.set_node_name(node);
    request.set_lifecycle(v1::TRAY_LIFECYCLE_TRIAGE);
    request.set_reason(std::move(reason));
    post_([this, request] {
        const control::OperationResult result = plane_.engine().execute(control::Caller::automation(), request);
        if (!result.status.ok() && log_)
            log_("automation could not set " + request.node_name() + " to TRIAGE: " + result.status.error_message());
        std::lock_guard lock(outcomesMutex_);
        triages_.push_back({request.node_name(), result.status.ok() ? std::string() : result.status.error_message()});
    });
}

void TrayAutomation::proposeLifecycle(const std::string& node, v1::TrayLifecycle state, std::string reason) {
    const v1::TrayLifecycle now = plane_.lifecycle().get(node).state;
    const bool readsAlready =
        now == state || (state == v1::TRAY_LIFECYCLE_PRODUCTION && now == v1::TRAY_LIFECYCLE_UNSPECIFIED);
    if (readsAlready)
        proposals_.erase(node);
    else
        proposals_[node] = {state, std::move(reason)};
    restate_.insert(node);
}

void TrayAutomation::restate(FleetChanges& changes, std::int64_t nowMs, const std::set<std::string>& touched) {
    for (const std::string& node : plane_.lifecycle().takeChanged()) {
        const control::LifecycleEntry entry = plane_.lifecycle().get(node);
        const auto proposal = proposals_.find(node);
        // A person's PRODUCTION vouches for the tray; the proposal is done once its state holds.
        if (control::setByPerson(entry) && entry.state == v1::TRAY_LIFECYCLE_PRODUCTION) lemons_.vouch(node);
        if (proposal != proposals_.end() && (control::setByPerson(entry) || entry.state == proposal->second.state))
            proposals_.erase(proposal);
        restate_.insert(node);
    }
    for (const std::string& node : lemons_.expire(nowMs)) restate_.insert(node);
    for (const std::string& node : restate_) {
        const auto last = lastState_.find(node);
        if (touched.count(node) || last == lastState_.end()) continue;
        v1::EntityState& state = changes.states.emplace_back(last->second);
        decorate(state, node, nowMs);
    }
    restate_.clear();
}

void TrayAutomation::decorate(v1::EntityState& state, const std::string& node, std::int64_t nowMs) const {
    const control::LifecycleEntry entry = plane_.lifecycle().get(node);
    state.set_lifecycle(entry.state);
    state.set_lifecycle_set_by(entry.setBy);
    state.set_lifecycle_reason(entry.reason);
    state.set_lifecycle_since_unix_ms(entry.sinceUnixMs);
    state.set_recent_failures(lemons_.recentFailures(node, nowMs));
    state.set_lemon(lemons_.lemon(node, nowMs));
    const auto proposal = proposals_.find(node);
    state.set_proposed_lifecycle(proposal == proposals_.end() ? v1::TRAY_LIFECYCLE_UNSPECIFIED
                                                              : proposal->second.state);
    state.set_proposal_reason(proposal == proposals_.end() ? std::string() : proposal->second.reason);
}

void TrayAutomation::fleet(FleetChanges& changes, std::int64_t nowMs) {
    if (!changes.hasFleet) return;
    v1::FleetGoodput& fleet = changes.fleet;
    fleet.set_lemon_trays(static_cast<std::uint32_t>(lemons_.lemons(nowMs)));
    fleet.set_lemon_threshold(lemons_.config().failures);
    fleet.set_lemon_window_s(lemons_.config().window.count());
    fleet.set_trays_out_of_production(static_cast<std::uint32_t>(plane_.lifecycle().outOfProduction()));
    std::uint32_t proposals = 0;
    double gain = 0;
    for (const auto& [job, counted] : jobProposals_) {
        proposals += counted.first;
        gain += counted.second;
    }
    fleet.set_fail_slow_proposals(proposals);
    fleet.set_fail_slow_gain_gpu_hours_per_day(gain);
    fleet.set_fail_slow_auto_evict(autoEvict_);
}

}  // namespace watchfloor::server::fleetd
