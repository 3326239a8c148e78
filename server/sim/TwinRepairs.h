#pragma once
// Break/fix steps on the twin's compute trays (README.md, "Break/fix steps"; the times and
// probabilities, and why, in docs/domain/break-fix.md, "The twin"): a GPU reset, a reboot, a power
// cycle or a DCGM diagnostic takes the tray out of service for a modelled time, then may clear the
// tray's fault with a probability per rung and per Xid bucket, reports what the real tool would
// have printed, and puts the tray where the request says. It reads trays and racks and changes
// them only through RepairHost, which the coordinator implements, so the two do not depend on each
// other. Steps draw from their own random stream: a run without them is the run it always was.

#include "FleetModel.h"
#include "Rng.h"
#include "TelemetryPublisher.h"
#include "TwinActions.h"
#include "TwinScheduler.h"
#include "TwinState.h"

#include "watchfloor/v1/control.pb.h"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace watchfloor::server::sim {

// What a break/fix step needs the rest of the twin to do to a tray.
class RepairHost {
public:
    virtual ~RepairHost() = default;
    virtual void setTray(std::uint32_t t, watchfloor::v1::NodeState state, watchfloor::v1::HealthState health,
                         const std::string& reason, bool announce) = 0;
    virtual void emitTrayState(std::uint32_t t) = 0;
    // What the twin's own repair does to the fault (the GPUs' recovery action, the fabric's
    // ports), with the repair epoch moved on so that repair, still scheduled, does nothing.
    virtual void clearFault(std::uint32_t t) = 0;
    // The tray's health check sees the fault again after a step that did not clear it: its Xid.
    virtual void faultPersists(std::uint32_t t) = 0;
    virtual void offerTrays() = 0;  // jobs waiting for trays may take one back in service
    virtual std::string jobName(std::uint32_t j) const = 0;
};

class TwinRepairs {
public:
    TwinRepairs(Rng rng, const FleetModel& model, TwinScheduler& clock, TelemetryPublisher& publisher,
                ViewedTable<TrayState>& trays, const ViewedTable<RackStatus>& racks, RepairHost& host);

    // A request, in the tick: refused (a job holds the tray, its rack is isolated, a step already
    // runs on it, ...), or the step started; the result's handle names it.
    TwinActionResult start(const std::string& node, const TwinRepairRequest& request, const std::string& reason);
    // The tick, once time has moved: the running steps' progress into the view.
    void publishProgress();
    // Thread-safe: the step as of the last tick that changed it; nullopt for an unknown handle.
    std::optional<TwinRepairView> view(const std::string& handle) const;

    // The mean modelled time of a step, seconds (the preview's expected time out); 0 for a type
    // that is not a break/fix step or a diagnostic level outside 1-4.
    static double meanSeconds(watchfloor::v1::ActionType type, std::uint32_t diagnosticLevel);
    // The chance that a completed reset, reboot or power cycle clears `fault` (0 for diagnostics).
    static double fixProbability(watchfloor::v1::ActionType type, const TrayState::Fault& fault);

private:
    struct Step {
        std::string handle;
        std::uint32_t tray = 0;
        TwinRepairRequest request;
        std::string reason;
        double startS = 0;
        double endS = 0;
    };
    struct Result {
        bool succeeded = false;
        std::string line;  // for the event and the operation
        watchfloor::v1::RepairOutcome outcome;
    };

    double drawSeconds(const TwinRepairRequest& request);
    void finish(std::uint32_t t, const std::string& handle);
    Result run(const Step& step, double roll);
    // Where the tray goes once the step ended; returns the words for it.
    std::string place(const Step& step, bool succeeded);
    void publish(const TwinRepairView& view);

    Rng rng_;
    const FleetModel& model_;
    TwinScheduler& clock_;
    TelemetryPublisher& publisher_;
    ViewedTable<TrayState>& trays_;
    const ViewedTable<RackStatus>& racks_;
    RepairHost& host_;
    std::map<std::uint32_t, Step> running_;  // by tray
    std::uint64_t nextStep_ = 1;
    std::string runTag_;  // this twin's, in every handle: "twin-<tag>-<n>"

    mutable std::mutex mutex_;  // guards the view
    std::map<std::string, TwinRepairView> views_;
    std::deque<std::string> finished_;  // oldest first, so the view stays bounded
};

}  // namespace watchfloor::server::sim
