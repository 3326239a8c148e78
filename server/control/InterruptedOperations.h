#pragma once
// After fleetd restarts. An operation it accepted (audited) but whose outcome it never recorded
// may or may not have taken effect; rather than leave the operator to find out, fleetd judges it
// by the fleet as it is now. And a backend that forgets everything on restart (the digital twin)
// needs the operator drains and isolations that were in force when fleetd stopped, so that the
// operations list and the map never disagree.

#include "AutomationCircuitBreaker.h"
#include "FleetView.h"
#include "watchfloor/v1/control.pb.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::server::control {

struct Reconciliation {
    enum class Verdict {
        Confirmed,    // the intended state holds: SUCCEEDED
        Draining,     // a drain in force with work still leaving: RUNNING, completes on DRAINED
        RunAgain,     // idempotent and not in effect: finish it under the same operation
        CheckByHand,  // not safe to repeat (a job restart): FAILED, saying exactly what to check
    };
    Verdict verdict = Verdict::RunAgain;
    std::string message;  // operator-readable: what was found, or what to check
};

// `breaker` may be null (automatic draining off).
Reconciliation judgeInterrupted(const FleetView& fleet, const watchfloor::v1::Operation& operation,
                                const AutomationCircuitBreaker* breaker);

// An operator drain or rack isolation in force at the end of the previous run.
struct StandingAction {
    watchfloor::v1::ActionType type = watchfloor::v1::ACTION_TYPE_UNSPECIFIED;  // DRAIN_NODE or ISOLATE_RACK
    std::string target;                                                         // node or rack name
    std::string reason;                                                         // as audited: "<principal>: <text>"
    std::string operationId;
    // SET_LIFECYCLE only: the state, who set it and when.
    watchfloor::v1::TrayLifecycle lifecycle = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;
    std::string principal;
    std::int64_t timeUnixMs = 0;
};

// Fed the recovered operations in the order they were created; a resume undoes an earlier drain
// of its node, a restore an earlier isolation of its rack.
class StandingActions {
public:
    // `effectApplied`: the backend accepted it (a drain may still have been DRAINING).
    void note(const watchfloor::v1::Operation& operation, bool effectApplied);
    std::vector<StandingAction> list() const;        // drains, then isolations, each by target name
    std::vector<StandingAction> lifecycles() const;  // each tray's last lifecycle set, by tray name

private:
    std::map<std::string, StandingAction> drains_;
    std::map<std::string, StandingAction> isolations_;
    std::map<std::string, StandingAction> lifecycles_;
};

}  // namespace watchfloor::server::control
