#pragma once
// The link ladder's actions (ActionType 60-69) as the operations engine previews and runs them:
// isolate a rail link (drain the tray it serves, now or once its jobs have saved their next
// checkpoint), record its treatment, return it after a clean window. The stages live in the
// LinkLadderBook fleetd's link keeper reads; the drain and resume go through the Actuator like any
// other. Thread-safe as the book, the fleet view and the actuator are.

#include "AccessPolicy.h"
#include "Actuator.h"
#include "BlastRadius.h"
#include "FleetView.h"
#include "LinkLadderBook.h"
#include "watchfloor/v1/control.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace watchfloor::server::control {

class LinkLadderActions {
public:
    LinkLadderActions(LinkLadderBook& book, const FleetView& fleet, Actuator& actuator, BlastRadiusPolicy policy);

    static bool handles(watchfloor::v1::ActionType type);
    // The tray a link operation acts on (its preview's only tray); "" for another operation.
    static std::string trayOf(const watchfloor::v1::Operation& operation);

    // INVALID_ARGUMENT for a stray or missing field, NOT_FOUND for a name that is no rail link;
    // else the preview (allowed, or the refusal), `effect` saying what execute will do.
    PreviewResult preview(const watchfloor::v1::ActionRequest& request, const Caller& caller,
                          std::int64_t nowUnixMs) const;
    // ISOLATE_LINK drains now, or only records ISOLATING when it waits for a checkpoint
    // (waitsForCheckpoint); TREAT_LINK records; RETURN_LINK resumes the tray.
    ActionOutcome execute(const watchfloor::v1::Operation& operation, const Caller& caller, std::int64_t nowUnixMs);
    static bool waitsForCheckpoint(const watchfloor::v1::Operation& operation);

    // An isolation waiting for the checkpoints of the jobs on its tray: each job's checkpoint age
    // as last seen. A job has saved one when its age drops; a job that left the tray waits no more.
    struct CheckpointWait {
        std::map<std::string, double> ages;
    };
    CheckpointWait startCheckpointWait(const watchfloor::v1::Operation& operation) const;
    // What it still waits for ("waiting for llm-405b-1's next checkpoint"), nullopt once every job
    // has saved one since (or left the tray).
    std::optional<std::string> stillWaiting(CheckpointWait& wait, const watchfloor::v1::Operation& operation) const;
    // The isolation's drain, after the checkpoint (or at once).
    ActionOutcome drain(const watchfloor::v1::Operation& operation);

    // A link operation ended: an isolation that drained is ISOLATED, one that failed or was
    // cancelled goes back to WATCH.
    void finished(const watchfloor::v1::Operation& operation, std::int64_t nowUnixMs);
    // A link operation of an earlier run that SUCCEEDED, oldest first: what it did to the book,
    // at its own time, so the ladder (and the isolations within 30 days) survive a restart.
    static void replay(LinkLadderBook& book, const watchfloor::v1::Operation& operation);

private:
    PreviewResult previewIsolate(const watchfloor::v1::ActionRequest& request, const Caller& caller,
                                 const std::string& tray, std::int64_t nowUnixMs) const;

    LinkLadderBook& book_;
    const FleetView& fleet_;
    Actuator& actuator_;
    const BlastRadiusPolicy policy_;
};

}  // namespace watchfloor::server::control
