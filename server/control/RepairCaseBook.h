#pragma once
// Each compute tray's repair case (fleet.proto RepairCase): opened by a fault whose Xid bucket is
// a repair, its steps the break/fix operations taken on the tray, its next rung what the ladder
// (proto/RepairLadder.h) proposes after the newest step, closed when the tray is back in
// production or goes to RMA. The book only decides: what the tray's lifecycle should become is
// handed out as requests (fleetd sets them as "auto" on its control thread), and whatever acts on
// a proposal (a person, or fleetd --auto-remediate) does so through ControlService.
//
// The ladder after a step ended:
//   a fix step (reset, reboot, power cycle) succeeded  -> diagnostics, to verify it
//   a fix step failed                                   -> the next fix rung above the highest taken
//   diagnostics passed                                  -> BURN_IN: the tray serves under watch
//   diagnostics failed                                  -> the next fix rung; RMA after a power cycle
//                                                          or a second failed diagnostic
// A case in BURN_IN closes FIXED once the tray served burnIn without a new fault; a new fault
// reopens it (TRIAGE) and the ladder goes on above the highest fix rung taken. A person setting
// the tray to RMA closes it RMA; a person setting PRODUCTION closes it FIXED (they vouch for it).
//
// Times are the tick clock (fleet time: simulated under the twin), as event times. One thread
// (fleetd's tick thread) calls it; not thread-safe.

#include "TrayLifecycle.h"
#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::control {

struct RepairFault {
    std::uint32_t nodeIndex = 0;
    std::string node;                  // the compute tray, by entity name
    std::optional<std::uint32_t> gpu;  // the tray-local GPU the fault names
    std::uint64_t eventId = 0;
    std::int64_t timeMs = 0;
    std::string text;  // "Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS on r01-n04-g2"
    watchfloor::v1::XidAction action = watchfloor::v1::XID_ACTION_UNSPECIFIED;
};

struct RepairCaseSettings {
    std::chrono::seconds burnIn{std::chrono::minutes(30)};         // in service without a fault, to close FIXED
    std::chrono::seconds statsWindow{std::chrono::hours(24 * 7)};  // RepairStats: cases closed within it
    std::uint32_t gpusPerTray = 4;
};

// A lifecycle state the book asks for (fleetd sets it as "auto"; refused when a person set another).
struct RepairLifecycleRequest {
    std::uint64_t caseId = 0;
    std::string node;
    watchfloor::v1::TrayLifecycle state = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;
    std::string reason;
};

class RepairCaseBook {
public:
    static constexpr int kMaxSteps = 32;  // per case, the oldest dropped (fleet.proto)
    static constexpr int kMaxNotes = 64;
    static constexpr std::size_t kClosedHeld = 2000;    // closed cases kept for stats and the stream, newest
    static constexpr std::int64_t kRefreshMs = 60'000;  // an open case's GPU-hours are sent again this often

    explicit RepairCaseBook(RepairCaseSettings settings) : settings_(settings) {}

    // A fault on a tray: opens a case when its bucket is a repair and none is open, reopens one in
    // BURN_IN, counts it on an open one. The case's id, or 0 when the fault is not a repair.
    std::uint64_t fault(const RepairFault& fault);
    // A break/fix operation (ActionType 50-54) was accepted or changed: the step of the tray's open
    // case (each tray's of a rack power cycle). Other operations and trays without a case: nothing.
    void operation(const watchfloor::v1::Operation& op, std::int64_t nowMs);
    // A dry-run step automation would have taken (fleetd --auto-remediate dry-run).
    void dryRun(std::uint64_t caseId, watchfloor::v1::RepairRung rung, const std::string& what, std::int64_t nowMs);
    // A note on the case's timeline (automation standing back, a refusal).
    void note(std::uint64_t caseId, const std::string& actor, const std::string& text, std::int64_t nowMs);
    // The tray's lifecycle now: a person's RMA or PRODUCTION closes its case.
    void lifecycle(const std::string& node, const LifecycleEntry& entry, std::int64_t nowMs);
    // Burn-in clocks and GPU-hours: `inService` says whether a tray serves jobs now.
    void advance(std::int64_t nowMs, const std::function<bool(const std::string&)>& inService);

    // Cases a restart brought back (RepairCaseFile), times already on this run's clock.
    void restore(std::vector<watchfloor::v1::RepairCase> cases, std::uint64_t nextId);

    std::vector<watchfloor::v1::RepairCase> takeChanges();
    std::vector<RepairLifecycleRequest> takeLifecycleRequests();
    watchfloor::v1::RepairStats stats(std::int64_t nowMs) const;

    const watchfloor::v1::RepairCase* openCase(const std::string& node) const;
    const watchfloor::v1::RepairCase* find(std::uint64_t id) const;
    std::vector<const watchfloor::v1::RepairCase*> open() const;
    const std::map<std::uint64_t, watchfloor::v1::RepairCase>& all() const { return cases_; }
    std::uint64_t nextId() const { return nextId_; }
    std::uint64_t revision() const { return revision_; }  // changes whenever a case's record does

private:
    watchfloor::v1::RepairCase* openCaseMutable(const std::string& node);
    std::uint64_t open(const RepairFault& fault, watchfloor::v1::RepairRung first);  // the new case's id
    void reopen(watchfloor::v1::RepairCase& c, const RepairFault& fault);
    void stepChanged(watchfloor::v1::RepairCase& c, const watchfloor::v1::Operation& op, std::int64_t nowMs);
    void stepEnded(watchfloor::v1::RepairCase& c, const watchfloor::v1::RepairStep& step, std::int64_t nowMs);
    void close(watchfloor::v1::RepairCase& c, watchfloor::v1::RepairCaseState state, const std::string& actor,
               const std::string& why, std::int64_t nowMs);
    void propose(watchfloor::v1::RepairCase& c, watchfloor::v1::RepairRung rung, std::string reason);
    void addNote(watchfloor::v1::RepairCase& c, const std::string& actor, const std::string& text, std::int64_t nowMs);
    void askLifecycle(const watchfloor::v1::RepairCase& c, watchfloor::v1::TrayLifecycle state, std::string reason);
    // Record: something of the case itself changed (saved); Refresh: only its GPU-hours to now
    // (streamed, not worth a save: they are recomputed from its times).
    enum class Change { Record, Refresh };
    void changed(watchfloor::v1::RepairCase& c, std::int64_t nowMs, Change change = Change::Record);
    void dropOldClosed();

    RepairCaseSettings settings_;
    std::map<std::uint64_t, watchfloor::v1::RepairCase> cases_;  // by id: open and the newest closed
    std::map<std::string, std::uint64_t> openByNode_;
    std::map<std::uint64_t, std::int64_t> inServiceSince_;  // BURN_IN cases: since when the tray serves
    std::map<std::uint64_t, std::int64_t> refreshedMs_;     // open cases: when their GPU-hours were last sent
    std::map<std::uint64_t, std::string> seenLifecycle_;    // open cases: the tray's lifecycle entry last seen
    std::map<std::uint64_t, watchfloor::v1::RepairCase> changes_;
    std::vector<RepairLifecycleRequest> lifecycleRequests_;
    std::uint64_t nextId_ = 1;
    std::uint64_t revision_ = 0;
};

// The rung's words for people: "GPU reset", "reboot", "power cycle", "diagnostics", "RMA".
std::string rungName(watchfloor::v1::RepairRung rung);
// One line for a finished break/fix operation: "exit status 0", "2 of 9 tests failed: memory, pcie",
// "power state On", or its error.
std::string stepOutcomeLine(const watchfloor::v1::Operation& op);

}  // namespace watchfloor::server::control
