#pragma once
// One break/fix operation on its way through the back end: each tray it touches (one, or every
// tray of a rack) waits for its drain, is started on the RepairBackend, and is asked where it
// stands until the back end says it ended. The engine holds one per running break/fix operation
// and advances it once a tick, outside its own lock; nothing else touches it meanwhile.

#include "Actuator.h"
#include "FleetView.h"
#include "RepairBackend.h"
#include "watchfloor/v1/control.pb.h"

#include <map>
#include <string>
#include <vector>

namespace watchfloor::server::control {

class RepairRun {
public:
    // `trays`: the preview's (ActionPreview.trays). `operation` as accepted, reason attributed.
    RepairRun(const watchfloor::v1::Operation& operation, std::vector<std::string> trays);
    // The run of an operation an earlier fleetd started: each tray with a handle the audit log
    // recorded is followed under it (never started again); a tray without one was never started by
    // a step this run could follow, so it ends not succeeded, saying so.
    static RepairRun following(const watchfloor::v1::Operation& operation, std::vector<std::string> trays,
                               const std::map<std::string, std::string>& handles, const std::string& backend);

    // Drains the trays a job still holds (the request asked to wait for it; the preview refused
    // it otherwise). A failed drain fails the run before anything was started.
    ActionOutcome begin(const FleetView& fleet, Actuator& actuator);
    // Starts the trays no job holds any more and asks the back end about the started ones.
    void advance(const FleetView& fleet, RepairBackend& backend);

    bool finished() const;
    bool succeeded() const;  // finished, and every tray's step succeeded
    double progressRatio() const;
    std::string progressMessage() const;  // while running, or the result once finished
    // One tray's outcome as the back end reported it; a rack's: the back end, the trays' results
    // in output_tail, succeeded when all did.
    watchfloor::v1::RepairOutcome outcome() const;
    const std::vector<std::string>& trays() const { return trays_; }
    // The back end's handle of every tray started so far, by tray: what a restarted fleetd follows.
    std::map<std::string, std::string> handles() const;

private:
    enum class Stage { WaitingForDrain, Started, Finished };
    struct Tray {
        RepairStep step;
        Stage stage = Stage::WaitingForDrain;
        RepairProgress progress;
    };

    std::string verb() const;  // "reboot", "power cycle", ...
    void start(Tray& tray, RepairBackend& backend);

    std::vector<std::string> trays_;
    std::vector<Tray> steps_;
};

}  // namespace watchfloor::server::control
