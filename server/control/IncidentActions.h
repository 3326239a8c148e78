#pragma once
// The incident and maintenance actions (ActionType 20-29) as the operations engine previews and
// runs them: acknowledge, mitigate, resolve and annotate an incident (IncidentLifecycle), and
// schedule or cancel a maintenance window (MaintenanceCalendar); and the shift handoff
// (ActionType 40-44): post a note for the next shift, acknowledge one (HandoffBook). They change
// fleetd's own records, not the fleet, so a preview's verdict is exactly what execute will do.
// Thread-safe as the lifecycle, the calendar and the handoff book are.

#include "Actuator.h"
#include "BlastRadius.h"
#include "HandoffBook.h"
#include "IncidentLifecycle.h"
#include "MaintenanceCalendar.h"
#include "watchfloor/v1/control.pb.h"

#include <string>

namespace watchfloor::server::control {

class IncidentActions {
public:
    // Any may be null: its actions are then refused as not connected.
    IncidentActions(incidents::IncidentLifecycle* lifecycle, incidents::MaintenanceCalendar* calendar,
                    incidents::HandoffBook* handoffs = nullptr)
        : lifecycle_(lifecycle), calendar_(calendar), handoffs_(handoffs) {}

    static bool handles(watchfloor::v1::ActionType type);
    // The window a SCHEDULE_MAINTENANCE operation creates is named after it: "mw-" + its id's hex.
    static std::string windowIdFor(const std::string& operationId);
    // Likewise the handoff a POST_HANDOFF operation posts: "ho-" + its id's hex.
    static std::string handoffIdFor(const std::string& operationId);
    // Applies a POST_HANDOFF or ACKNOWLEDGE_HANDOFF `operation` to `book`: what execute does, and
    // what fleetd does with each one recovered from the audit log at start-up.
    static ActionOutcome applyHandoff(incidents::HandoffBook& book, const watchfloor::v1::Operation& operation);

    // INVALID_ARGUMENT for a stray or missing target field, NOT_FOUND for an unknown incident,
    // window or scope; else the preview (allowed, or the refusal) with `effect` filled in.
    PreviewResult preview(const watchfloor::v1::ActionRequest& request, const std::string& principal) const;
    ActionOutcome execute(const watchfloor::v1::Operation& operation);

    // An operation of the engine finished: linked into the incidents whose blast radius it hit.
    void noteOperation(const watchfloor::v1::Operation& operation);

private:
    incidents::IncidentLifecycle* lifecycle_;
    incidents::MaintenanceCalendar* calendar_;
    incidents::HandoffBook* handoffs_;
};

}  // namespace watchfloor::server::control
