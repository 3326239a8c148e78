#pragma once
// fleetd's repair cases (control::RepairCaseBook) fed from the tick and the operations engine:
// repair-bucket Xid events open cases, every break/fix operation becomes a step, the trays' states
// run burn-in, the trays' lifecycle closes cases a person sent to RMA or PRODUCTION. What the book
// asks of a tray's lifecycle follows the product's lifecycle rule: with --auto-lifecycle it is set
// as "auto" on the control thread (bookkeeping: no breaker slot; a refusal, such as a person's own
// state, is noted in the case), without it proposed; --auto-remediate acts on the cases (AutoRemediation). Each tick's
// changed cases go into the Delta, the fleet's RepairStats into FleetGoodput.repairs, and the cases into
// AUDIT_LOG.repair-cases (RepairCaseFile) whenever one changed.
//
// apply() runs on the telemetry tick thread; the engine's listener only queues.

#include "AutoRemediation.h"
#include "ControlPlane.h"
#include "FleetChanges.h"
#include "RepairCaseBook.h"
#include "RepairCaseFile.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::fleetd {

class RepairCaseKeeper {
public:
    using Task = std::function<void()>;
    using Post = std::function<void(Task)>;
    using Log = std::function<void(const std::string&)>;
    // Without --auto-lifecycle the case proposes its lifecycle moves instead (TrayAutomation shows
    // them as the tray's proposed_lifecycle); tick thread.
    using Propose = std::function<void(const std::string& node, watchfloor::v1::TrayLifecycle, std::string reason)>;

    RepairCaseKeeper(const watchfloor::v1::Topology& topology, control::ControlPlane& plane,
                     const control::FleetView& fleet, const control::ControlOptions& options, Post post, Log log,
                     Propose propose);
    ~RepairCaseKeeper();
    RepairCaseKeeper(const RepairCaseKeeper&) = delete;
    RepairCaseKeeper& operator=(const RepairCaseKeeper&) = delete;

    watchfloor::v1::AutoRemediation autoRemediation() const { return automation_.status(); }
    // The telemetry tick thread, before the store applies `changes`.
    void apply(FleetChanges& changes);

private:
    struct Place {
        std::uint32_t node = 0;
        std::uint32_t local = 0;
    };
    struct LifecycleRefusal {
        std::uint64_t caseId = 0;
        std::string message;
    };
    // The first tick: the cases an earlier run saved, on this run's clock, and their steps then.
    void restore(std::int64_t nowMs);
    void takeOperations(std::int64_t nowMs);
    void trayStates(const FleetChanges& changes);
    void faults(const FleetChanges& changes);
    void lifecycles(std::int64_t nowMs);
    void askLifecycles();
    void save(std::int64_t nowMs);

    control::ControlPlane& plane_;
    const Post post_;
    const Log log_;
    const Propose propose_;
    const bool setLifecycle_;  // --auto-lifecycle: set the moves as "auto"; else propose them
    control::RepairCaseBook book_;
    control::RepairCaseFile file_;
    AutoRemediation automation_;
    int listener_ = -1;
    bool restored_ = false;
    std::uint64_t savedRevision_ = 0;
    std::uint64_t asks_ = 0;
    std::unordered_map<std::uint32_t, Place> gpuPlaces_;        // GPU entity index -> tray, local id
    std::unordered_map<std::uint32_t, std::string> trayNames_;  // tray entity index -> name
    std::unordered_map<std::uint32_t, std::string> gpuNames_;
    std::unordered_map<std::string, watchfloor::v1::NodeState> trayStates_;

    std::mutex mutex_;  // the engine's listener and the control thread's results
    std::vector<watchfloor::v1::Operation> operations_;
    std::vector<LifecycleRefusal> lifecycleRefusals_;
};

}  // namespace watchfloor::server::fleetd
