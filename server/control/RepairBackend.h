#pragma once
// Where break/fix steps run (control.proto ActionType 50-59): the twin, the site's Slurm, or the
// trays' Redfish BMCs, one per fleet. A step takes minutes, so the engine starts it and then asks
// where it stands once a tick (on the control loop's thread, which may block for one short
// command); neither call waits for the step itself. A back end never starts a step on a tray a job
// holds: the engine drains the tray first and starts the step once the tray is empty.

#include "watchfloor/v1/control.pb.h"

#include <cstdint>
#include <optional>
#include <string>

namespace watchfloor::server::control {

struct RepairStep {
    watchfloor::v1::ActionType type = watchfloor::v1::ACTION_TYPE_UNSPECIFIED;  // POWER_CYCLE_RACK: one per tray
    std::string node;                                                           // the compute tray, by entity name
    std::optional<std::uint32_t> gpu;   // RESET_GPU: the tray-local GPU; unset: every GPU of the tray
    std::uint32_t diagnosticLevel = 0;  // RUN_DIAGNOSTICS: 1-4
    watchfloor::v1::TrayAfterRepair after = watchfloor::v1::TRAY_AFTER_REPAIR_STAY_DRAINED;
    std::string reason;       // "<principal>: <text>", as the operation stores it
    std::string operationId;  // for the back end's own records (a Slurm job's name, the twin's events)
};

struct RepairProgress {
    bool finished = false;
    std::string message;                    // the operation's progress line, or its result once finished
    double ratio = 0;                       // 0..1, the back end's best guess
    watchfloor::v1::RepairOutcome outcome;  // outcome.handle once started; outcome.succeeded once finished
};

class RepairBackend {
public:
    virtual ~RepairBackend() = default;
    virtual std::string name() const = 0;  // "twin", "slurm", "redfish": RepairOutcome.backend
    // How long the tray is out for the step itself, for the preview (modelled or configured).
    virtual double expectedOutOfServiceSeconds(const RepairStep& step) const = 0;
    // Starts the step on a tray no job holds. Finished and not succeeded when it could not start
    // (the back end's own words in the message); otherwise outcome.handle names it for poll().
    virtual RepairProgress start(const RepairStep& step) = 0;
    // Where the step started under `handle` stands now.
    virtual RepairProgress poll(const RepairStep& step, const std::string& handle) = 0;
};

}  // namespace watchfloor::server::control
