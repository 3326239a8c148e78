#pragma once
// The break/fix ladder as both sides read it (NVIDIA's Xid resolution buckets, see
// docs/domain/break-fix.md): the rung a fault's bucket starts at, the action a rung is taken with
// and the rung an action is. fleetd's repair cases propose their next rung from it, and the
// console's recommended-action button offers that same step, so the button and the case agree.

#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::proto {

// Where the ladder starts for an Xid's recommended action. UNSPECIFIED: not a repair (ignore,
// restart the application), so no case is opened.
constexpr watchfloor::v1::RepairRung firstRung(watchfloor::v1::XidAction action) {
    using namespace watchfloor::v1;
    switch (action) {
    case XID_ACTION_RESET_GPU:
    case XID_ACTION_WORKFLOW_XID_48:  // reset first, then check the SRAM threshold with diagnostics
    case XID_ACTION_WORKFLOW_NVLINK_ERR:
    case XID_ACTION_WORKFLOW_NVLINK5_ERR: return REPAIR_RUNG_RESET_GPU;
    case XID_ACTION_RESTART_BM: return REPAIR_RUNG_POWER_CYCLE;  // the bucket's "restart bare metal"
    case XID_ACTION_RMA:                                         // verify before sending a tray back
    case XID_ACTION_CHECK_MECHANICALS:
    case XID_ACTION_CONTACT_SUPPORT: return REPAIR_RUNG_DIAGNOSTICS;
    default: return REPAIR_RUNG_UNSPECIFIED;
    }
}

// The buckets fleetd --auto-remediate acts on: a GPU reset or a restart of the tray. The others
// need a person's judgement (a mechanical check, the vendor).
constexpr bool automatable(watchfloor::v1::XidAction action) {
    return action == watchfloor::v1::XID_ACTION_RESET_GPU || action == watchfloor::v1::XID_ACTION_RESTART_BM;
}

// The ControlService action that takes a rung on one tray. RMA is a lifecycle change a person
// makes (SET_LIFECYCLE to RMA); UNSPECIFIED maps to UNSPECIFIED.
constexpr watchfloor::v1::ActionType actionFor(watchfloor::v1::RepairRung rung) {
    using namespace watchfloor::v1;
    switch (rung) {
    case REPAIR_RUNG_RESET_GPU: return ACTION_TYPE_RESET_GPU;
    case REPAIR_RUNG_REBOOT: return ACTION_TYPE_REBOOT_NODE;
    case REPAIR_RUNG_POWER_CYCLE: return ACTION_TYPE_POWER_CYCLE_NODE;
    case REPAIR_RUNG_DIAGNOSTICS: return ACTION_TYPE_RUN_DIAGNOSTICS;
    case REPAIR_RUNG_RMA: return ACTION_TYPE_SET_LIFECYCLE;
    default: return ACTION_TYPE_UNSPECIFIED;
    }
}

// The rung a break/fix action takes (a rack's power cycle is each tray's); UNSPECIFIED for any
// other action.
constexpr watchfloor::v1::RepairRung rungOf(watchfloor::v1::ActionType type) {
    using namespace watchfloor::v1;
    switch (type) {
    case ACTION_TYPE_RESET_GPU: return REPAIR_RUNG_RESET_GPU;
    case ACTION_TYPE_REBOOT_NODE: return REPAIR_RUNG_REBOOT;
    case ACTION_TYPE_POWER_CYCLE_NODE:
    case ACTION_TYPE_POWER_CYCLE_RACK: return REPAIR_RUNG_POWER_CYCLE;
    case ACTION_TYPE_RUN_DIAGNOSTICS: return REPAIR_RUNG_DIAGNOSTICS;
    default: return REPAIR_RUNG_UNSPECIFIED;
    }
}

// The rungs that try to fix the tray (the others verify it or send it back).
constexpr bool isFixRung(watchfloor::v1::RepairRung rung) {
    using namespace watchfloor::v1;
    return rung == REPAIR_RUNG_RESET_GPU || rung == REPAIR_RUNG_REBOOT || rung == REPAIR_RUNG_POWER_CYCLE;
}

// The rung in words, as fleetd's case notes and the console say it: "GPU reset", "reboot", "power
// cycle", "diagnostics", "RMA"; "" for UNSPECIFIED.
constexpr const char* rungWords(watchfloor::v1::RepairRung rung) {
    using namespace watchfloor::v1;
    switch (rung) {
    case REPAIR_RUNG_RESET_GPU: return "GPU reset";
    case REPAIR_RUNG_REBOOT: return "reboot";
    case REPAIR_RUNG_POWER_CYCLE: return "power cycle";
    case REPAIR_RUNG_DIAGNOSTICS: return "diagnostics";
    case REPAIR_RUNG_RMA: return "RMA";
    default: return "";
    }
}

// The fix rung above `rung` (reset -> reboot -> power cycle); after a power cycle, RMA.
constexpr watchfloor::v1::RepairRung nextFixRung(watchfloor::v1::RepairRung rung) {
    using namespace watchfloor::v1;
    switch (rung) {
    case REPAIR_RUNG_UNSPECIFIED: return REPAIR_RUNG_RESET_GPU;
    case REPAIR_RUNG_RESET_GPU: return REPAIR_RUNG_REBOOT;
    case REPAIR_RUNG_REBOOT: return REPAIR_RUNG_POWER_CYCLE;
    default: return REPAIR_RUNG_RMA;
    }
}

}  // namespace watchfloor::proto
