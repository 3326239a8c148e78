#pragma once
// The digital twin as the operations engine sees it (fleetd --scheduler sim): control::Actuator
// forwards each action to the twin's request queue and waits for the tick that applies it;
// control::FleetView answers previews from the twin's published read view; control::RepairBackend
// ("twin") starts break/fix steps the same way and follows them in the twin's repair view. Events
// are fleetd's own record (acknowledgements), so their facts come from a lookup fleetd supplies.
//
// A separate library (fleetd_sim_control) so fleetd_sim itself never links the control plane.

#include "Actuator.h"
#include "FleetView.h"
#include "RepairBackend.h"
#include "TwinActuator.h"

#include <chrono>
#include <functional>
#include <optional>

namespace watchfloor::server::sim {

class TwinControlAdapter final : public control::Actuator, public control::FleetView, public control::RepairBackend {
public:
    using EventLookup = std::function<std::optional<control::EventFacts>(std::uint64_t)>;

    // `timeout`: how long an RPC thread waits for the tick loop before the request is withdrawn.
    TwinControlAdapter(DigitalTwin& twin, std::chrono::milliseconds timeout, EventLookup events = {});

    // control::Actuator
    control::ActionOutcome drainNode(const std::string& node, const std::string& reason) override;
    control::ActionOutcome resumeNode(const std::string& node) override;
    control::ActionOutcome requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) override;
    // The twin knows each rack's trays; `nodes` (the engine's view of them) is not needed.
    control::ActionOutcome isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                                       const std::string& reason) override;
    control::ActionOutcome restoreRack(const std::string& rack, const std::vector<std::string>& nodes) override;
    // A reseat, a clean or a replacement mends the twin's cable (RailLinks::mend: its drift or step
    // ends); a port reset mends nothing, so a degrading cable shows it in its clean window.
    control::ActionOutcome linkTreated(const std::string& link, watchfloor::v1::LinkTreatment treatment,
                                       watchfloor::v1::LinkEnd end) override;

    // control::FleetView (thread-safe)
    std::optional<control::NodeFacts> node(const std::string& name) const override;
    // checkpointAgeSeconds is the job's unsaved progress (steps since its last durable checkpoint
    // × step time): what an interruption now wastes. Right after a restart that is far less than
    // the wall-clock age of the checkpoint it restarted from.
    std::optional<control::JobFacts> job(const std::string& name) const override;
    std::optional<control::RackFacts> rack(const std::string& name) const override;
    std::optional<control::EventFacts> event(std::uint64_t id) const override;

    // control::RepairBackend. start() waits for the tick that applies the request, as an action
    // does (the twin refuses a tray a job holds, an isolated rack's tray, a second step on a
    // tray); poll() only reads the twin's repair view, so it never waits for a tick.
    std::string name() const override { return "twin"; }
    double expectedOutOfServiceSeconds(const control::RepairStep& step) const override;
    control::RepairProgress start(const control::RepairStep& step) override;
    control::RepairProgress poll(const control::RepairStep& step, const std::string& handle) override;

private:
    static control::ActionOutcome outcome(const TwinActionResult& result);

    DigitalTwin& twin_;
    TwinActuator actuator_;
    EventLookup events_;
};

}  // namespace watchfloor::server::sim
