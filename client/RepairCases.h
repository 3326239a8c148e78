#pragma once
// The console's reading of fleetd's repair cases (fleet.proto RepairCase, RepairStats): the case a
// tray has open, the break/fix step offered for an Xid or a tray, the Repairs view's rows and the
// fleet's repair numbers merged over endpoints. The step is the tray's open case's next rung when
// fleetd has a case for it, else the first rung of the Xid's bucket (proto/RepairLadder.h), so the
// button an operator sees and the step fleetd's case proposes are the same. Plain data: ui/ draws it.

#include "EntityId.h"

#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace watchfloor::client {

class FleetStore;
struct StoredEvent;

// "GPU reset", "reboot", "power cycle", "diagnostics", "RMA"; "" for UNSPECIFIED.
QString repairRungLabel(watchfloor::v1::RepairRung rung);
// "open", "burn-in", "fixed", "RMA".
QString repairCaseStateLabel(watchfloor::v1::RepairCaseState state);
// Where a tray goes after a break/fix step: "back in service", "stays drained", "held down".
QString trayAfterRepairLabel(watchfloor::v1::TrayAfterRepair after);
bool isOpenRepairCase(const watchfloor::v1::RepairCase& repairCase);  // OPEN or BURN_IN

// The tray's open case (the newest when fleetd sent several), or null.
const watchfloor::v1::RepairCase* openRepairCase(const FleetStore& store, EntityId tray);
// The tray's cases, open and closed, newest first.
std::vector<const watchfloor::v1::RepairCase*> repairCasesOf(const FleetStore& store, EntityId tray);

// A break/fix step the console offers on one tray.
struct RepairStepProposal {
    EntityId tray;
    QString trayName;  // fleetd's name of the tray, as the request carries it
    watchfloor::v1::RepairRung rung = watchfloor::v1::REPAIR_RUNG_UNSPECIFIED;
    std::optional<std::uint32_t> gpu;  // the faulted GPU (tray-local), when the fault names one
    bool fromCase = false;             // the tray's open case proposed it (else the Xid's bucket)
    QString why;                       // the case's next_reason, or NVIDIA's action for the Xid
};

// For an Xid event (XidDetail.recommended_action) on a compute tray or one of its GPUs: the open
// case's next rung, else firstRung(recommended action). None for any other event, a bucket that is
// no repair (IGNORE, RESTART_APP), an open case with a step running (no next rung), or a fault a
// closed case already dealt with (the case opened at or after the Xid).
std::optional<RepairStepProposal> repairStepForEvent(const FleetStore& store, const StoredEvent& event);
// For a tray: its open case's next rung; without one, the newest Xid on the tray as above.
std::optional<RepairStepProposal> repairStepForTray(const FleetStore& store, EntityId tray);

// The request that takes the step (type, tray, GPU; SET_LIFECYCLE to RMA for the RMA rung), with
// the dialog's defaults: a fix rung leaves the tray drained for the diagnostics that verify it, a
// diagnostic returns it to service when it passes (level 2, DCGM's post-failure level).
watchfloor::v1::ActionRequest repairStepRequest(const RepairStepProposal& step);
// "Reset GPU r01-n03-g2", "Reboot r01-n03", "Power-cycle r01-n04", "Run diagnostics r01-n04",
// "Set r01-n04 to RMA": the button's text before its ellipsis.
QString repairStepLabel(const RepairStepProposal& step);

// One row of the Repairs view.
struct RepairCaseRow {
    int endpoint = 0;
    EntityId tray;
    QString trayName;  // fleet-unique (navigation)
    watchfloor::v1::RepairCase record;
    bool open = false;
    std::int64_t ageMs = 0;  // open: opened to the endpoint's fleet time; closed: opened to closed
};
RepairCaseRow repairCaseRow(const FleetStore& store, int endpoint, const watchfloor::v1::RepairCase& record);
// Open cases first, the longest open on top; then the newest `closedLimit` closed ones, newest
// closed first.
std::vector<RepairCaseRow> repairCaseRows(const FleetStore& store, int closedLimit = 50);
// "Reboot: rebooted by alice", "waiting: power cycle", "fixed by reboot", "sent to RMA": the case's
// step column.
QString repairCaseStepText(const watchfloor::v1::RepairCase& repairCase);
QString repairCaseOwnerText(const watchfloor::v1::RepairCase& repairCase);  // "alice", "auto", "—"

// FleetGoodput.repairs merged over the endpoints that sent one: counts summed, MTTRs weighted by
// the cases behind them.
struct RepairSummary {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    int endpoints = 0;  // endpoints that sent RepairStats
    std::int64_t windowS = 0;
    std::uint32_t open = 0, fixed = 0, sentToRma = 0, fixedAutomated = 0, fixedManual = 0;
    std::uint32_t byReset = 0, byReboot = 0, byPowerCycle = 0, byDiagnostics = 0;
    double mttrS = kNaN, mttrAutomatedS = kNaN, mttrManualS = kNaN;  // NaN: no fixed case
    double outOfServiceGpuHours = 0;
    bool any() const { return endpoints > 0; }
};
RepairSummary summarizeRepairs(const FleetStore& store);
// "42 min", "3.4 h", "2.1 d"; "—" for NaN.
QString formatRepairDuration(double seconds);
// "4 reset · 2 reboot · 1 power cycle · 1 diagnostics only · 1 RMA".
QString repairOutcomeMix(const RepairSummary& summary);

}  // namespace watchfloor::client
