#pragma once
// Every operator or automated action as an operation: validated, previewed, checked against the
// state the operator saw, optionally approved by a second operator, audited (fsync) before it
// takes effect, executed exactly once per request id, and reported to every listener at every
// change. Transport-agnostic and thread-safe; the gRPC service only translates.

#include "AccessPolicy.h"
#include "Actuator.h"
#include "AuditLog.h"
#include "AutomationCircuitBreaker.h"
#include "BlastRadius.h"
#include "FleetView.h"
#include "IncidentActions.h"
#include "InterruptedOperations.h"
#include "LinkLadderActions.h"
#include "RepairBackend.h"
#include "TrayLifecycle.h"
#include "watchfloor/v1/control.pb.h"

#include <grpcpp/support/status.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::control {

struct OperationsConfig {
    BlastRadiusPolicy blastRadius;
    std::chrono::seconds approvalTtl{std::chrono::minutes(15)};
    // Finished operations kept in memory (newest first; active ones are always kept). Older ones
    // are answered NOT_FOUND pointing at the audit log, and their request ids are forgotten.
    std::size_t maxFinishedOperations = 10'000;
    std::function<std::chrono::system_clock::time_point()> clock = [] { return std::chrono::system_clock::now(); };
};

struct OperationResult {
    grpc::Status status;
    watchfloor::v1::Operation operation;  // valid when status is OK
};

struct PreviewOutcome {
    grpc::Status status;
    watchfloor::v1::ActionPreview preview;
};

struct ListResult {
    grpc::Status status;
    watchfloor::v1::ListOperationsResponse response;
};

struct RecoveryReport {
    std::size_t operations = 0;   // rebuilt from the audit log of the previous run
    std::size_t interrupted = 0;  // accepted there without a recorded outcome: to reconcile
    std::size_t unreadableLines = 0;
    std::string error;                       // the audit log could not be read
    std::vector<StandingAction> standing;    // operator drains and isolations in force at its end
    std::vector<StandingAction> lifecycles;  // the last SET_LIFECYCLE of each tray that succeeded
};

// What reconcileInterrupted() did with each interrupted operation.
struct ReconcileReport {
    std::size_t confirmed = 0;  // the intended state held: SUCCEEDED (or a drain still DRAINING)
    std::size_t runAgain = 0;   // finished under the same operation
    std::size_t failed = 0;     // not safe to repeat, or refused now: FAILED, saying what to check
};

// The FleetView must be safe to read from several threads at once.
class OperationsEngine {
public:
    using Listener = std::function<void(const watchfloor::v1::Operation&)>;

    OperationsEngine(const FleetView& fleet, Actuator& actuator, AuditLog& audit, OperationsConfig config);
    ~OperationsEngine();
    OperationsEngine(const OperationsEngine&) = delete;
    OperationsEngine& operator=(const OperationsEngine&) = delete;

    // Optional collaborators; set before the engine is shared between threads.
    void setCircuitBreaker(AutomationCircuitBreaker* breaker) { breaker_ = breaker; }
    void setEventAcknowledger(EventAcknowledger* acknowledger) { acknowledger_ = acknowledger; }
    // The incident and maintenance actions (ActionType 20-29); without, they are refused.
    void setIncidentActions(IncidentActions* incidents) { incidents_ = incidents; }
    void setLifecycleBook(TrayLifecycleBook* book) { lifecycle_ = book; }
    // Where break/fix steps run (ActionType 50-59); without, they are refused.
    void setRepairBackend(RepairBackend* backend) { repair_ = backend; }
    // The link ladder (ActionType 60-69); without, it is refused.
    void setLinkLadder(LinkLadderActions* links) { links_ = links; }

    // Rebuilds the operations, and so the request ids already used, from the audit log of the
    // previous run; call once before serving. An operation accepted without a recorded outcome
    // may or may not have taken effect: it stays RUNNING ("reconciling") until
    // reconcileInterrupted() has judged it. A drain whose effect was recorded keeps waiting for
    // DRAINED.
    RecoveryReport recover(const std::string& auditPath);

    // Settles what recover() found interrupted, by the fleet as it is now: the intended state
    // holds -> SUCCEEDED (audited as confirmed); an idempotent action (drain, resume, isolate,
    // restore, acknowledge, breaker reset) without its effect -> run again under the same
    // operation (audited as "resume" first); a job restart -> FAILED, naming what to check. Call
    // once the fleet view shows the fleet (fleetd: after its first tick), from a thread that may
    // block while actions run (not the telemetry tick thread).
    ReconcileReport reconcileInterrupted();

    PreviewOutcome preview(const Caller& caller, const watchfloor::v1::ActionRequest& request) const;

    // Accepts, audits and runs the action on the calling thread. A retry (the same principal with
    // the same request id) returns the operation of the first call, whatever its state, and never
    // runs it again; request ids are per principal, so another principal's id is a new request.
    OperationResult execute(const Caller& caller, const watchfloor::v1::ActionRequest& request);

    // The second operator's approval of an AWAITING_APPROVAL operation; runs it when accepted.
    OperationResult approve(const Caller& caller, const std::string& operationId, const std::string& reason);

    // By operation id, or by `principal`'s own request id (request ids are per principal).
    OperationResult get(const std::string& operationId, const std::string& requestId,
                        const std::string& principal = {}) const;
    ListResult list(const watchfloor::v1::ListOperationsRequest& request) const;

    // Listeners are called after every change, outside the engine's lock, possibly from several
    // threads; each snapshot carries updated_unix_ms. A listener must not add or remove listeners.
    int addListener(Listener listener);
    void removeListener(int id);

    // Periodic housekeeping (fleetd calls it about once a second): cancels approvals that expired
    // and completes drains whose node has become DRAINED.
    void tick();

    std::size_t operationsInMemory() const;

private:
    struct Entry;
    using Status = grpc::Status;

    [[nodiscard]] Status validateRequest(const watchfloor::v1::ActionRequest& request) const;
    AuditRecord auditRecord(const std::string& principal, watchfloor::v1::Role role, const std::string& peer,
                            const watchfloor::v1::ActionRequest& request, const char* decision) const;
    [[nodiscard]] Status auditRefusal(AuditRecord record, Status status) const;
    // The entry of a request key once its acceptance is settled (waits while it is being audited).
    Entry* settledLocked(const std::string& key, std::unique_lock<std::mutex>& lock);
    // The refusal of a request id reused for another action; nullopt for a true retry.
    std::optional<Status> retryLocked(const watchfloor::v1::ActionRequest& request, const Entry& first,
                                      const std::string& fingerprint) const;
    // Another console's operation on the same target still in flight: running this one too would act twice.
    [[nodiscard]] Status conflictLocked(const watchfloor::v1::ActionRequest& request) const;
    // A break/fix step on a tray another running break/fix operation touches: one step per tray.
    // `operationId`: the operation being approved, which does not conflict with itself.
    [[nodiscard]] Status repairConflictLocked(const watchfloor::v1::ActionPreview& preview,
                                              const std::string& operationId) const;
    // The preview from the request and the fleet; then what other operations add to it (locked).
    PreviewOutcome previewWithoutOperations(const Caller& caller, const watchfloor::v1::ActionRequest& request) const;
    // What the operations in flight say about this one: a break/fix step on a tray that has one
    // running is refused (the status); a power cycle while another tray of the same rack is in one
    // needs a second person (set on the preview).
    [[nodiscard]] Status previewAgainstOperationsLocked(const watchfloor::v1::ActionRequest& request,
                                                        watchfloor::v1::ActionPreview& preview,
                                                        const std::string& operationId) const;
    // preview() with the engine's lock held; `operationId` as above ("" for a new request).
    PreviewOutcome previewLocked(const Caller& caller, const watchfloor::v1::ActionRequest& request,
                                 const std::string& operationId) const;
    // Break/fix: the back end's expected time (or the refusal without a back end).
    void previewRepair(const watchfloor::v1::ActionRequest& request, watchfloor::v1::ActionPreview& preview) const;
    // Break/fix operations started by run(): asks each back end where it stands (outside the lock).
    void advanceRepairs(std::vector<watchfloor::v1::Operation>& changes);
    // Link isolations waiting for their jobs' checkpoints: drains those whose jobs saved one
    // (the actuator called outside the lock).
    void advanceCheckpointWaits(std::vector<watchfloor::v1::Operation>& changes);
    std::unique_ptr<Entry> newEntry(const Caller& caller, const watchfloor::v1::ActionRequest& request,
                                    const watchfloor::v1::ActionPreview& preview);
    Entry* adoptLocked(std::unique_ptr<Entry> entry);
    void forgetLocked(std::list<std::unique_ptr<Entry>>::iterator it);
    void trimLocked();  // down to maxFinishedOperations finished entries, oldest first
    RecoveryReport recoverLocked(const std::string& auditPath);
    [[nodiscard]] Status approvalRefusal(const Caller& approver, const watchfloor::v1::Operation& op,
                                         const std::string& reason) const;
    OperationResult refuse(const Caller& caller, const watchfloor::v1::ActionRequest& request, Status status,
                           const watchfloor::v1::ActionPreview* preview) const;
    // SET_LIFECYCLE: the transition (or "nothing changes") first among the warnings; refused for
    // automation over a person's state.
    void previewLifecycle(const Caller& caller, const watchfloor::v1::ActionRequest& request,
                          watchfloor::v1::ActionPreview& preview) const;
    [[nodiscard]] Status checkAgainstPreview(const Caller& caller, const watchfloor::v1::ActionRequest& request,
                                             const watchfloor::v1::ActionPreview& preview);
    watchfloor::v1::Operation run(Entry& entry, const Caller& caller);  // the operation when run() is done
    ActionOutcome dispatch(const watchfloor::v1::Operation& operation, const Caller& caller);
    ActionOutcome dispatchToScheduler(const watchfloor::v1::ActionRequest& request);
    void finishLocked(Entry& entry, watchfloor::v1::OperationState state, const std::string& message);
    void auditResultLocked(Entry& entry);         // queues the record for flushAudit()
    void auditRepairStartedLocked(Entry& entry);  // the step's handles, queued likewise
    void flushAudit();                            // writes queued records in order; call without mutex_
    // One interrupted operation; returns the verdict it was settled by.
    Reconciliation::Verdict reconcile(Entry& entry);
    [[nodiscard]] std::optional<std::string> auditResumption(Entry& entry, const std::string& found);  // error text
    void setState(Entry& entry, watchfloor::v1::OperationState state);
    void notify(const std::vector<watchfloor::v1::Operation>& changes);
    std::string newOperationId();
    std::int64_t nowUnixMs() const;

    const FleetView& fleet_;
    Actuator& actuator_;
    AuditLog& audit_;
    const OperationsConfig config_;
    AutomationCircuitBreaker* breaker_ = nullptr;
    EventAcknowledger* acknowledger_ = nullptr;
    IncidentActions* incidents_ = nullptr;
    TrayLifecycleBook* lifecycle_ = nullptr;
    RepairBackend* repair_ = nullptr;
    LinkLadderActions* links_ = nullptr;

    mutable std::mutex mutex_;
    std::list<std::unique_ptr<Entry>> entries_;  // creation order
    std::size_t finished_ = 0;                   // entries_ no longer active
    std::unordered_map<std::string, Entry*> byId_;
    std::unordered_map<std::string, Entry*> byRequestId_;  // by requestKey(principal, request id)
    std::condition_variable settledChanged_;
    std::vector<AuditRecord> pendingResults_;  // queued under mutex_, written by flushAudit()
    std::mutex auditOrder_;                    // one flushAudit() at a time
    std::mt19937_64 idGenerator_;

    std::mutex listenersMutex_;
    std::map<int, Listener> listeners_;
    int nextListenerId_ = 1;
};

std::string stateName(watchfloor::v1::OperationState state);  // "SUCCEEDED", ...

}  // namespace watchfloor::server::control
