#pragma once
// Operator actions on the digital twin as values (request, result, ticket) and the thread-safe
// read view an action preview needs: what DigitalTwin's callers, its ActionQueue and its
// ActionEffects share, so none of them needs another for these types. Actions are requested
// from any thread and take effect at the start of the twin's next advanceTo(), in request order,
// at the twin's current simulated time.

#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

enum class TwinActionType : std::uint8_t {
    DrainNode,
    ResumeNode,
    RequeueJob,
    IsolateRack,
    RestoreRack,
    Repair,
    MendLink
};

// A break/fix step on one compute tray (TwinRepairs; README.md, "Break/fix steps").
struct TwinRepairRequest {
    // RESET_GPU, REBOOT_NODE, POWER_CYCLE_NODE (POWER_CYCLE_RACK: one request per tray), RUN_DIAGNOSTICS
    watchfloor::v1::ActionType type = watchfloor::v1::ACTION_TYPE_UNSPECIFIED;
    std::optional<std::uint32_t> gpu;   // RESET_GPU: the tray-local GPU; unset: all of the tray's
    std::uint32_t diagnosticLevel = 0;  // RUN_DIAGNOSTICS: 1-4
    watchfloor::v1::TrayAfterRepair after = watchfloor::v1::TRAY_AFTER_REPAIR_STAY_DRAINED;
    std::string operationId;  // the engine's operation, for the step's events
};

struct TwinAction {
    TwinActionType type = TwinActionType::DrainNode;
    std::string target;                     // node, job or rack name
    std::string reason;                     // "<principal>: <text>", stored as given
    std::vector<std::string> excludeNodes;  // RequeueJob: never run the job on these again
    TwinRepairRequest repair;               // Repair

    static TwinAction drainNode(std::string node, std::string reason) {
        return {TwinActionType::DrainNode, std::move(node), std::move(reason), {}, {}};
    }
    static TwinAction resumeNode(std::string node, std::string reason = {}) {
        return {TwinActionType::ResumeNode, std::move(node), std::move(reason), {}, {}};
    }
    static TwinAction requeueJob(std::string job, std::vector<std::string> excludeNodes, std::string reason = {}) {
        return {TwinActionType::RequeueJob, std::move(job), std::move(reason), std::move(excludeNodes), {}};
    }
    static TwinAction isolateRack(std::string rack, std::string reason) {
        return {TwinActionType::IsolateRack, std::move(rack), std::move(reason), {}, {}};
    }
    static TwinAction restoreRack(std::string rack, std::string reason = {}) {
        return {TwinActionType::RestoreRack, std::move(rack), std::move(reason), {}, {}};
    }
    static TwinAction repairStep(std::string node, TwinRepairRequest request, std::string reason) {
        return {TwinActionType::Repair, std::move(node), std::move(reason), {}, std::move(request)};
    }
    // A person treated rail link `nic` (a NIC port's name): its drift or step ends (RailLinks::mend).
    static TwinAction mendLink(std::string nic, std::string reason) {
        return {TwinActionType::MendLink, std::move(nic), std::move(reason), {}, {}};
    }
};

struct TwinActionResult {
    bool succeeded = false;
    std::string message;  // what happened, or why nothing did (names the target)
    std::string handle;   // Repair: the step it started ("twin-7"), for repairView()
};

// A queued request: `result` is ready once the twin applied (or refused) it.
struct TwinActionTicket {
    std::uint64_t id = 0;
    std::future<TwinActionResult> result;
};

// --- read view (as of the end of the last advanceTo or applied action) --------------------------
// stateVersion comes from one fleet-wide counter and changes whenever the target's facts below
// change (not for the checkpoint clock ticking on), so a preview can detect stale decisions.

struct TwinNodeView {
    std::string name;
    std::string rack;
    std::uint32_t gpus = 0;
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    std::string reason;
    std::vector<std::string> jobs;  // jobs holding the node now
    bool drainRequested = false;    // an operator drain is in force
    std::string drainReason;        // its stored reason "<principal>: <text>"
    std::uint64_t stateVersion = 0;
};

struct TwinJobView {
    std::string name;
    std::uint32_t gpus = 0;
    double checkpointAgeS = 0;  // since the last durable checkpoint (or the first start)
    // Training time an interruption now would throw away: steps since the last durable
    // checkpoint × step time. 0 while recovering (those steps are already lost).
    double unsavedProgressS = 0;
    bool recovering = false;         // detect .. first step after an interruption
    std::vector<std::string> nodes;  // trays it holds now (fewer while it waits for spares)
    std::uint64_t stateVersion = 0;
};

struct TwinTrayView {
    std::string name;
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
};

// A break/fix step as far as it has got (DigitalTwin::repairView), as of the tick that last
// changed it: started, then finished with its outcome.
struct TwinRepairView {
    std::string handle;
    std::string node;
    bool finished = false;
    std::string message;                    // the step's progress line, or its result once finished
    double ratio = 0;                       // simulated time spent / the step's drawn duration, as of the last tick
    watchfloor::v1::RepairOutcome outcome;  // backend "twin", handle; the rest once finished
};

struct TwinRackView {
    std::string name;
    std::vector<TwinTrayView> trays;
    watchfloor::v1::RackState state = watchfloor::v1::RACK_STATE_UNSPECIFIED;
    bool leakActive = false;  // leak sensors wet: restore is refused
    bool isolated = false;    // valve closed and trays powered down
    std::uint64_t stateVersion = 0;
};

}  // namespace watchfloor::server::sim
