#pragma once
// What fleetd's control plane adds to every tick for the trays: the fail-slow ladder over the
// jobs' straggler reports (fleet.proto FailSlowFinding), lemon-tray detection over the trays'
// health, and each tray's lifecycle state (fleet.proto TrayLifecycle) in its EntityState.
//
// apply() runs on the telemetry tick thread and only computes and decorates. Whatever acts (an
// eviction's drain, automation setting TRIAGE) is an operation of principal "auto" posted to the
// control thread: a drain waits for the twin's tick to apply it, so running it here would deadlock.
// Its outcome comes back to the next tick.
//
// The lemon counts survive a restart in AUDIT_LOG.lemon-failures (control::LemonFailureFile says
// why a file of its own and how the clocks are carried over): read at construction, restored at
// the first tick, saved when they change.

#include "ControlPlane.h"
#include "FleetChanges.h"
#include "LemonFailureFile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::fleetd {

class TrayAutomation {
public:
    using Task = std::function<void()>;
    using Post = std::function<void(Task)>;  // runs a task on the control thread
    using Log = std::function<void(const std::string&)>;

    TrayAutomation(const watchfloor::v1::Topology& topology, control::ControlPlane& plane,
                   const control::ControlOptions& options, Post post, Log log);

    // The telemetry tick thread, before the store applies `changes`: fills the jobs' fail_slow,
    // the trays' lifecycle and lemon fields, the fleet's counts; posts what automation does.
    void apply(FleetChanges& changes);
    // Tick thread: a repair case proposes `state` for the tray (without --auto-lifecycle). Nothing
    // is proposed when the tray already reads that state (a tray never set reads PRODUCTION).
    void proposeLifecycle(const std::string& node, watchfloor::v1::TrayLifecycle state, std::string reason);

private:
    struct Proposal {
        watchfloor::v1::TrayLifecycle state = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;
        std::string reason;
    };
    // What the control thread did, for the next tick.
    struct EvictionOutcome {
        std::string job, node, operationId, refusal;
    };
    struct TriageOutcome {
        std::string node, refusal;  // empty refusal: it was set
    };

    void takeOutcomes();
    void failSlow(FleetChanges& changes, std::int64_t nowMs);
    void evict(const control::FailSlowEviction& eviction);
    // Tray states of this tick: failures counted, proposals made; `touched` gets their names.
    void trayStates(FleetChanges& changes, std::int64_t nowMs, std::set<std::string>& touched);
    void onFailure(const std::string& node, std::int64_t nowMs, bool burnIn);
    std::string lemonReason(const std::string& node, std::int64_t nowMs) const;
    void proposeTriage(const std::string& node, std::string reason, std::int64_t nowMs);
    // Lifecycle changes and lemons that aged out: their trays' last states again, decorated.
    void restate(FleetChanges& changes, std::int64_t nowMs, const std::set<std::string>& touched);
    void decorate(watchfloor::v1::EntityState& state, const std::string& node, std::int64_t nowMs) const;
    void fleet(FleetChanges& changes, std::int64_t nowMs);
    // The first tick: the failures an earlier run saved, on this run's clock.
    void restoreLemons(std::int64_t nowMs);
    // When the counts changed, or a tenth of the window passed since the last save with any kept.
    void saveLemons(std::int64_t nowMs);

    control::ControlPlane& plane_;
    const bool autoEvict_;
    const bool autoLifecycle_;
    const Post post_;
    const Log log_;
    control::FailSlowLadder ladder_;
    control::LemonDetector lemons_;
    control::LemonFailureFile lemonFile_;
    std::optional<control::LemonFailureLoad> lemonsToRestore_;  // until the first tick
    std::uint64_t savedLemonRevision_ = 0;
    std::int64_t savedLemonClockMs_ = 0;
    std::unordered_map<std::uint32_t, std::string> trayNames_;                // entity index -> name
    std::unordered_map<std::string, watchfloor::v1::EntityState> lastState_;  // undecorated, by tray
    std::map<std::string, Proposal> proposals_;
    std::set<std::string> restate_;  // trays to send again this tick (tick thread only)
    std::map<std::string, std::pair<std::uint32_t, double>> jobProposals_;  // job -> (PROPOSED findings, gain)

    std::mutex outcomesMutex_;  // the control thread's results
    std::vector<EvictionOutcome> evictions_;
    std::vector<TriageOutcome> triages_;
};

}  // namespace watchfloor::server::fleetd
