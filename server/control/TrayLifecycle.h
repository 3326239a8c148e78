#pragma once
// Each compute tray's lifecycle state (fleet.proto TrayLifecycle): production, triage, burn-in,
// RMA, maintenance. fleetd's own record, not the scheduler's: the operations engine writes it for
// SET_LIFECYCLE (operators, and automation as "auto"), fleetd's tick reads it into every tray's
// EntityState. Rebuilt from the audit log on restart. Thread-safe.

#include "Actuator.h"
#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace watchfloor::server::control {

struct LifecycleEntry {
    watchfloor::v1::TrayLifecycle state = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;
    std::string setBy;   // principal; "auto" for automation
    std::string reason;  // as stored: "<principal>: <text>"
    std::int64_t sinceUnixMs = 0;
};

// "TRIAGE", "BURN_IN", ...; "PRODUCTION" for UNSPECIFIED (a tray never set is in production).
std::string lifecycleName(watchfloor::v1::TrayLifecycle state);
// The state a change starts from: "PRODUCTION (never set)" for UNSPECIFIED. Setting PRODUCTION
// on a tray never set is a change: a person vouched for it (a lemon's count starts again).
std::string lifecycleTransitionFrom(watchfloor::v1::TrayLifecycle state);
// A person set it: automation does not overrule it (except to TRIAGE, see fleet.proto).
bool setByPerson(const LifecycleEntry& entry);

class TrayLifecycleBook {
public:
    using Clock = std::function<std::int64_t()>;  // Unix ms
    explicit TrayLifecycleBook(Clock nowUnixMs) : now_(std::move(nowUnixMs)) {}

    // The engine's effect of SET_LIFECYCLE. Setting the state a tray already has succeeds and
    // changes nothing (not even who set it or since when).
    ActionOutcome set(const std::string& node, watchfloor::v1::TrayLifecycle state, const std::string& principal,
                      const std::string& reason);
    // A state found in force in the audit log at start-up (no change notification).
    void restore(const std::string& node, watchfloor::v1::TrayLifecycle state, const std::string& principal,
                 const std::string& reason, std::int64_t sinceUnixMs);
    // The tray's entry; a tray never set has state UNSPECIFIED.
    LifecycleEntry get(const std::string& node) const;
    // Trays whose state changed (or was restored) since the last call, by name.
    std::vector<std::string> takeChanged();
    // Trays not in production (TRIAGE, BURN_IN, RMA, MAINTENANCE).
    std::size_t outOfProduction() const;

private:
    const Clock now_;
    mutable std::mutex mutex_;
    std::map<std::string, LifecycleEntry> entries_;
    std::set<std::string> changed_;
};

}  // namespace watchfloor::server::control
