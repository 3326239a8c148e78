#pragma once
// Operator actions in fleetd: the control plane over the digital twin (or Slurm), its thread, the
// event acknowledgements, and the hooks that put the ControlService on fleetd's gRPC port.
// Without --tokens it is a ControlService that refuses every call and names the flag; TLS flags
// still apply to the port.

#include "CommandLine.h"
#include "ControlDisabledService.h"
#include "ControlLoop.h"
#include "EventAcknowledgementBook.h"
#include "FleetdServer.h"
#include "HandoffBook.h"
#include "IncidentActions.h"
#include "IncidentLifecycle.h"
#include "LinkAutoIsolation.h"
#include "MaintenanceCalendar.h"
#include "RepairCaseKeeper.h"
#include "SlurmFleetOverlay.h"
#include "TrayAutomation.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sim {
class DigitalTwin;
class TwinControlAdapter;
}  // namespace watchfloor::server::sim

namespace watchfloor::server::fleetd {

// Where the audit log goes without --audit-log: $STATE_DIRECTORY/audit.jsonl (systemd's
// StateDirectory=), else $XDG_STATE_HOME or ~/.local/state + /watchfloor/fleetd-audit.jsonl.
std::string defaultAuditLogPath();
// How long a thread waits for the twin's tick to apply an action (an RPC, a BMC's reset); also
// bounds how long shutdown can wait for an action in flight.
std::chrono::milliseconds twinActionTimeout(double speed);

class FleetdControl {
public:
    using Log = std::function<void(const std::string&)>;

    // `log` receives start-up notes, automation results and alerts, one line each. With
    // `slurmStates` (--scheduler slurm) previews read Slurm's node states over the twin's, and
    // every operation change asks for a fresh reading. Null with `error` set (an operator-readable
    // sentence; fleetd exits 2) when a tokens file, TLS file or the audit log is unusable.
    [[nodiscard]] static std::unique_ptr<FleetdControl> create(const CommandLine& cl, sim::DigitalTwin& twin, Log log,
                                                               control::SlurmNodeStatePoller* slurmStates,
                                                               std::string* error);
    // A real fleet (--source prometheus): actions go through Slurm (`slurmStates` required with
    // --tokens), the facts come from the topology and Slurm's view, and Slurm knows the trays by
    // their host names.
    [[nodiscard]] static std::unique_ptr<FleetdControl> createForRealFleet(const CommandLine& cl,
                                                                           const watchfloor::v1::Topology& topology,
                                                                           Log log,
                                                                           control::SlurmNodeStatePoller* slurmStates,
                                                                           std::string* error);
    ~FleetdControl();

    // Transport, the service, the event tap and the shutdown hook for fleetd's server.
    void attachTo(service::FleetdOptions& options);
    // Once the server has applied its first tick (the fleet view shows the fleet): settles the
    // operations an earlier run left interrupted, on the control thread.
    void serving();
    // After the server has shut down: ends the control thread.
    void stop();

    control::ControlPlane* plane() { return plane_.get(); }
    // Held with or without operator actions (then nothing changes them but the grouping and the
    // clock), for what else reads incidents: a pager follows the lifecycle's state listener and
    // the calendar's windows. Set listeners before attachTo().
    incidents::IncidentLifecycle& lifecycle() { return *lifecycle_; }
    incidents::MaintenanceCalendar& maintenance() { return *calendar_; }

private:
    FleetdControl() = default;
    // Everything but the fleet view: audit log, control plane, automation, control thread.
    // `base` is the view before Slurm's overlay; `simulator` acts on the twin (null for Slurm).
    [[nodiscard]] bool assemble(const CommandLine& cl, const watchfloor::v1::Topology& topology,
                                const control::FleetView& base, control::Actuator* simulator,
                                control::SlurmNodeStatePoller* slurmStates, std::string* error);
    // Off without --tokens: a service that refuses every call, naming the flag (TLS still applies).
    [[nodiscard]] bool refuseEveryCall(const CommandLine& cl, std::string* error);
    // The twin starts fresh: the drains and isolations in force when the last run stopped are
    // queued for its first tick, so the map agrees with the operations list from the first snapshot.
    void restoreOperatorStates(sim::DigitalTwin& twin);
    // Maintenance windows scheduled in earlier runs and not cancelled, from the recovered
    // operations: a window planned days ahead survives a restart.
    void restoreMaintenanceWindows();
    // Shift handoffs posted and acknowledged in earlier runs, from the same operations.
    void restoreHandoffs();
    // The link ladder as earlier runs' link operations left it (isolations within 30 days too).
    void restoreLinkLadder();
    // Every operation the engine recovered or ran that SUCCEEDED, oldest first.
    std::vector<watchfloor::v1::Operation> succeededOperations() const;
    void keepIncidentRecords(const watchfloor::v1::Topology& topology);
    void onEvent(const watchfloor::v1::Event& event);
    // The breaker's alert: logged, and an event every console shows (critical, on the fleet).
    void raiseAlert(const std::string& message);
    void addPendingEvents(FleetChanges& changes);
    // The breaker's state (AutomationStatus) when it changed since the last tick; the addChanges
    // hook runs on the telemetry tick thread only, so the last-sent copy needs no lock.
    void addAutomationStatus(FleetChanges& changes);

    struct GpuPlace {
        std::uint32_t node;   // topology node index
        std::uint32_t local;  // 0..3
    };

    Log log_;
    std::uint32_t fleetIndex_ = 0;
    std::mutex pendingMutex_;
    std::vector<watchfloor::v1::Event> pendingEvents_;
    std::shared_ptr<grpc::ServerCredentials> credentials_;
    ControlDisabledService disabled_;
    int auditLockFd_ = -1;
    EventAcknowledgementBook acknowledgements_;
    std::unique_ptr<incidents::IncidentLifecycle> lifecycle_;
    std::unique_ptr<incidents::MaintenanceCalendar> calendar_;
    incidents::HandoffBook handoffs_;
    std::unique_ptr<control::IncidentActions> incidentActions_;
    std::unique_ptr<LinkLadderBook> linkLadder_;
    std::unique_ptr<sim::TwinControlAdapter> twinControl_;
    std::unique_ptr<control::FleetView> topologyView_;    // a real fleet's
    std::unique_ptr<control::SlurmFleetView> slurmView_;  // --scheduler slurm
    std::unique_ptr<control::ControlPlane> plane_;
    // Before loop_: the loop's tasks use it, and members go in reverse order.
    std::unique_ptr<TrayAutomation> trays_;
    std::unique_ptr<RepairCaseKeeper> repairs_;
    std::unique_ptr<LinkAutoIsolation> linkAutomation_;  // --auto-isolate-links
    std::unique_ptr<ControlLoop> loop_;
    std::unordered_map<std::uint32_t, GpuPlace> gpuPlaces_;     // only with --auto-drain
    std::unordered_map<std::uint32_t, std::string> nodeNames_;  // only with --auto-drain
    bool automationSent_ = false;
    std::string lastAutomation_;  // serialized AutomationStatus
};

}  // namespace watchfloor::server::fleetd
