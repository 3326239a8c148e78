#pragma once
// fleetd --auto-remediate: automation works the repair cases whose fault is a GPU-reset or a
// restart bucket (proto/RepairLadder.h automatable): it takes the ladder's fix step with
// wait_for_drain (the engine drains the tray and starts the step once no job holds it), then
// diagnostics with after_repair RESUME, each an ExecuteAction as principal "auto" (audited,
// behind the --auto-drain breaker). It stands back, with a note on the case, from a tray a person
// drained or set to MAINTENANCE or RMA, from a case a person took a step on, after its own fix step
// when the ladder climbs further, and at an RMA proposal. dry-run records in the case what it
// would have done and does nothing.
//
// consider() runs on the tick thread; the executions are posted to the control thread (a drain
// waits for the twin's tick) and their refusals come back as notes at the next tick. Request ids
// are the case's id and step count, so a post repeated after a restart is the same operation.

#include "ControlPlane.h"
#include "FleetView.h"
#include "RepairCaseBook.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace watchfloor::server::fleetd {

class AutoRemediation {
public:
    using Task = std::function<void()>;
    using Post = std::function<void(Task)>;
    using Log = std::function<void(const std::string&)>;
    using Mode = control::ControlOptions::AutoRemediate;

    static constexpr std::uint32_t kDiagnosticLevel = 2;  // DCGM's medium run: minutes, not hours

    AutoRemediation(Mode mode, control::ControlPlane& plane, const control::FleetView& fleet, Post post, Log log);

    watchfloor::v1::AutoRemediation status() const;
    // Tick thread: acts on the open cases it may work; notes refusals from the last tick's posts.
    void consider(control::RepairCaseBook& book, std::int64_t nowMs);

private:
    struct Refusal {
        std::uint64_t caseId = 0;
        std::string message;  // empty: accepted
    };
    void considerCase(control::RepairCaseBook& book, const watchfloor::v1::RepairCase& c, std::int64_t nowMs);
    // Why automation leaves the case to people now, or empty when it may act.
    std::string standBackReason(const watchfloor::v1::RepairCase& c) const;
    void standBack(control::RepairCaseBook& book, const watchfloor::v1::RepairCase& c, const std::string& why,
                   std::int64_t nowMs);
    watchfloor::v1::ActionRequest request(const watchfloor::v1::RepairCase& c, std::size_t stepCount) const;
    static std::string plan(const watchfloor::v1::RepairCase& c);

    const Mode mode_;
    control::ControlPlane& plane_;
    const control::FleetView& fleet_;
    const Post post_;
    const Log log_;
    std::set<std::string> acted_;       // "<case>:<steps>": one decision per step of a case
    std::set<std::string> stoodBack_;   // "<case>:<why>": each note once
    std::set<std::uint64_t> inFlight_;  // posted, outcome not back yet

    std::mutex refusalsMutex_;
    std::vector<Refusal> refusals_;
};

}  // namespace watchfloor::server::fleetd
