#pragma once
// Everything fleetd needs for operator actions, assembled from its command-line options: audit
// log (repaired and replayed), tokens, transport credentials, scheduler backend, operations
// engine, optional automation breaker, and the gRPC ControlService. fleetd main creates one,
// registers service() with credentials(), calls tick() about once a second, and feeds Xid
// events to autoDrain() when it is enabled.

#include "AccessPolicy.h"
#include "Actuator.h"
#include "AuditLog.h"
#include "AutomationCircuitBreaker.h"
#include "ControlServiceImpl.h"
#include "FailSlowLadder.h"
#include "FleetView.h"
#include "LemonDetector.h"
#include "OperationsEngine.h"
#include "RedfishRepairBackend.h"
#include "SlurmRepairBackend.h"
#include "SlurmScheduler.h"
#include "TransportSecurity.h"
#include "TrayLifecycle.h"
#include "XidAutoDrain.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::control {

struct ControlOptions {
    std::string tokensFile;                                          // --tokens FILE
    std::string auditLogFile;                                        // --audit-log FILE
    TlsFiles tls;                                                    // --tls-cert, --tls-key, --tls-client-ca
    bool isolateRackNeedsApproval = false;                           // --require-approval isolate-rack
    std::chrono::seconds approvalTtl{std::chrono::minutes(15)};      // --approval-ttl 15m
    enum class Scheduler { Sim, Slurm } scheduler = Scheduler::Sim;  // --scheduler slurm|sim
    std::string slurmConf;                                           // --slurm-conf FILE (else Slurm's default)
    std::string repairOutputDir;  // --repair-output-dir DIR: break/fix jobs' output (default beside the audit log)
    std::shared_ptr<const SlurmNodeNames> slurmNodeNames;  // entity name -> Slurm NodeName (hosts=)
    std::optional<CircuitBreakerConfig> autoDrain;         // --auto-drain N/WINDOW[,max=P%], e.g. 5/10m,max=0.5%
    std::chrono::seconds restartOverhead{std::chrono::minutes(5)};
    FailSlowConfig failSlow;     // --fail-slow-window D, --fail-slow-confirm N
    bool autoEvictSlow = false;  // --auto-evict-slow: drain confirmed fail-slow trays as 'auto'
    LemonConfig lemon;           // --lemon K/WINDOW (default 3/7d)
    bool autoLifecycle = false;  // --auto-lifecycle: automation sets TRIAGE itself
    // --auto-remediate act|dry-run: automation takes a repair case's reset or reboot-bucket steps.
    enum class AutoRemediate { Off, Act, DryRun } autoRemediate = AutoRemediate::Off;
    std::chrono::seconds repairBurnIn{std::chrono::minutes(30)};  // --repair-burn-in D
    // --auto-isolate-links act|dry-run: automation isolates links at risk at their jobs' next checkpoint.
    enum class AutoIsolateLinks { Off, Act, DryRun } autoIsolateLinks = AutoIsolateLinks::Off;
    // --repair-backend: where break/fix steps run. Default: the twin under --scheduler sim, Slurm
    // under --scheduler slurm.
    enum class Repairs { Default, Slurm, Redfish, SlurmAndRedfish } repairs = Repairs::Default;
    struct Bmcs {
        std::string urlTemplate;      // --bmc-url TEMPLATE ({node}, {host}, {rack})
        std::string credentialsFile;  // --bmc-credentials FILE: USER:PASSWORD, mode 0600
        std::string systemTemplate;   // --bmc-system ID (a template too); default: the only system
        std::string caFile;           // --bmc-ca FILE
        std::chrono::seconds taskTimeout{std::chrono::minutes(15)};  // --bmc-task-timeout D
        // Every tray's BMC from the fleet file's bmcs= ("" where none is given), for {bmc}.
        std::shared_ptr<const std::map<std::string, std::string>> names;
    } bmcs;
};

// "5/10m": at most 5 distinct automated drains per 10 minutes; "5/10m,max=0.5%": and at most 0.5 %
// of the fleet's trays (the caller sets fleetTrays), the lower binding. nullopt and *problem on error.
std::optional<CircuitBreakerConfig> parseAutoDrain(std::string_view text, std::string* problem);
// --require-approval takes the actions that need a second operator; only "isolate-rack" exists.
bool parseRequireApproval(std::string_view text, ControlOptions* options, std::string* problem);
// "slurm" or "sim".
bool parseScheduler(std::string_view text, ControlOptions* options, std::string* problem);
// "slurm", "redfish" or "slurm+redfish".
bool parseRepairBackend(std::string_view text, ControlOptions* options, std::string* problem);

class ControlPlane {
public:
    struct Collaborators {
        const FleetView& fleet;
        Actuator* simulatorActuator = nullptr;  // the digital twin's effects, for --scheduler sim
        EventAcknowledger* acknowledger = nullptr;
        std::function<void(const std::string&)> alert;  // the breaker tripped
        IncidentActions* incidents = nullptr;           // incident lifecycle and maintenance windows
        LinkLadderBook* linkLadder = nullptr;           // the link ladder's stages (fleetd's link keeper reads them)
    };
    struct CreateResult {
        std::unique_ptr<ControlPlane> plane;  // null on error
        std::string error;                    // operator-readable; fleetd exits non-zero
    };

    static CreateResult create(const ControlOptions& options, Collaborators collaborators);

    ControlServiceImpl& service() { return *service_; }
    const std::shared_ptr<grpc::ServerCredentials>& credentials() const { return credentials_; }
    OperationsEngine& engine() { return *engine_; }
    XidAutoDrain* autoDrain() { return autoDrain_.get(); }
    AutomationCircuitBreaker* breaker() { return breaker_.get(); }
    TrayLifecycleBook& lifecycle() { return *lifecycle_; }
    // What start-up found and decided, one line each, for fleetd's log (repairs, recovery, transport).
    const std::vector<std::string>& startupNotes() const { return notes_; }
    // Operator drains and isolations in force when the previous run stopped, from the audit log;
    // a backend that starts fresh (the twin) applies them before serving.
    const std::vector<StandingAction>& standingActions() const { return standing_; }
    // The twin's own break/fix steps, under --scheduler sim: the engine's back end unless
    // --repair-backend redfish chose the trays' BMCs (then the twin's BMCs carry the steps out).
    void useSimulatorRepairs(RepairBackend* twin) {
        if (!redfishRepairBackend_) engine_->setRepairBackend(twin);
    }
    void tick() {
        engine_->tick();
        access_->flushSuppressed();
    }

private:
    ControlPlane() = default;

    std::unique_ptr<AuditLog> audit_;
    std::unique_ptr<AccessPolicy> access_;
    std::shared_ptr<grpc::ServerCredentials> credentials_;
    std::unique_ptr<SlurmScheduler> slurm_;
    std::unique_ptr<repair::SlurmRepairs> slurmRepairs_;
    std::unique_ptr<RepairBackend> slurmRepairBackend_;
    std::unique_ptr<RepairBackend> redfishRepairBackend_;
    std::unique_ptr<RepairBackend> routedRepairBackend_;
    std::unique_ptr<AutomationCircuitBreaker> breaker_;
    std::unique_ptr<TrayLifecycleBook> lifecycle_;
    std::unique_ptr<OperationsEngine> engine_;
    std::unique_ptr<LinkLadderActions> linkLadder_;
    std::unique_ptr<XidAutoDrain> autoDrain_;
    std::unique_ptr<ControlServiceImpl> service_;
    std::vector<std::string> notes_;
    std::vector<StandingAction> standing_;
};

}  // namespace watchfloor::server::control
