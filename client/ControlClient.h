#pragma once
// The console's side of watchfloor.v1.ControlService for one fleetd endpoint: who the operator
// is (WhoAmI), previews, idempotent execution with safe automatic retries, approvals, the live
// list of operations (ListOperations + a reconnecting WatchOperations stream) and the audit trail.
//
// Threading: lives on its owner's thread (the GUI thread) and never blocks it. Every call uses
// gRPC's callback API with a deadline; reactions only post a queued call back to this object,
// so every `done` callback and every signal runs on the owner's thread. The destructor cancels
// what is in flight and waits for gRPC's last reaction, then retires the channel (see
// ChannelRetirement.h: its last reference must not drop on a gRPC thread).
//
// Retries: execute() keeps the request id it was given (or generates one UUID) and resends the
// SAME request on UNAVAILABLE, DEADLINE_EXCEEDED or a dropped connection, with capped, jittered
// backoff and a bounded number of attempts. fleetd executes a request id at most once and answers
// a retry with the first operation, so a retry can never act twice. No other call is retried: a
// refusal (PERMISSION_DENIED, ABORTED, FAILED_PRECONDITION, ...) is the answer.

#include "ChannelSecurity.h"
#include "InFlightCalls.h"
#include "QueuedCalls.h"
#include "ReconnectBackoff.h"

#include "watchfloor/v1/control.grpc.pb.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace watchfloor::client {

template <class T>
struct ControlResult {
    bool ok = false;
    T value;
    grpc::StatusCode code = grpc::StatusCode::OK;
    // Operator words, e.g. "Refused: node r01-n03 changed since the preview (...). Preview again."
    QString message;
    int attempts = 1;  // how many times the request was sent (execute() retries)
};

struct ControlClientOptions {
    std::chrono::milliseconds unaryDeadline{5000};
    // ExecuteAction answers once the action is accepted and audited (fsync) on fleetd.
    std::chrono::milliseconds executeDeadline{10000};
    int executeMaxAttempts = 8;
    ReconnectPolicy executeRetry{std::chrono::milliseconds(200), 2.0, 0.2, std::chrono::milliseconds(3000)};
    ReconnectPolicy watchReconnect{std::chrono::milliseconds(1000), 1.6, 0.2, std::chrono::milliseconds(15000)};
    // Same reasoning as EndpointConfig: gRFC A8 clamps keepalive to >= 10 s; fleetd permits 10 s.
    std::chrono::milliseconds keepaliveTime{15000};
    std::chrono::milliseconds keepaliveTimeout{10000};
    quint32 operationsPageSize = 1000;  // the newest operations listed when the watch (re)connects
};

class ControlClient : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControlClient)

public:
    struct Stats {
        quint64 executeAttempts = 0;  // ExecuteAction calls sent, retries included
        quint64 executeRetries = 0;
        quint64 watchesOpened = 0;
        quint64 watchChanges = 0;  // Operation messages read from WatchOperations
        quint64 listsMerged = 0;
    };

    ControlClient(QString target, ChannelSecurity security, QObject* parent = nullptr);
    ControlClient(QString target, ChannelSecurity security, ControlClientOptions options, QObject* parent = nullptr);
    // Uses the given channel (already carrying any token), e.g. an in-process server in tests.
    ControlClient(QString target, std::shared_ptr<grpc::Channel> channel, ControlClientOptions options,
                  QObject* parent = nullptr);
    ~ControlClient() override;

    // WhoAmI, then WatchOperations (reconnecting) and, each time the watch is live, ListOperations.
    void start();
    // Ends the watch; calls in flight still complete.
    void stop();

    const QString& target() const { return m_target; }
    // Non-empty when no channel could be made (e.g. a token over plaintext to a remote host);
    // every call then fails with this text.
    const QString& channelError() const { return m_channelError; }

    watchfloor::v1::Role role() const { return m_role; }  // ROLE_UNSPECIFIED until known
    QString principal() const { return m_principal; }
    // Why the identity is unknown, e.g. "fleetd at … did not accept the token: unknown bearer token".
    QString identityError() const { return m_identityError; }
    bool canAct() const;  // operator or admin, and identity known

    void preview(const watchfloor::v1::ActionRequest& action,
                 std::function<void(const ControlResult<watchfloor::v1::ActionPreview>&)> done);
    // Fills request_id (UUID) when empty; retries UNAVAILABLE / DEADLINE_EXCEEDED / connection loss
    // with the SAME request id (capped jittered backoff, bounded attempts); returns the request id.
    QString execute(watchfloor::v1::ActionRequest action,
                    std::function<void(const ControlResult<watchfloor::v1::Operation>&)> done);
    void approve(const QString& operationId, const QString& reason,
                 std::function<void(const ControlResult<watchfloor::v1::Operation>&)> done);
    void getOperation(const QString& operationId, const QString& requestId,
                      std::function<void(const ControlResult<watchfloor::v1::Operation>&)> done);
    // beforeSeq 0 = the newest page.
    void listAudit(quint64 beforeSeq, quint32 pageSize,
                   std::function<void(const ControlResult<watchfloor::v1::ListAuditEntriesResponse>&)> done);

    QList<watchfloor::v1::Operation> operations() const;  // newest first, merged from list + watch
    std::optional<watchfloor::v1::Operation> operation(const QString& operationId) const;
    bool isAcknowledged(quint64 eventId) const;  // an ACKNOWLEDGE_EVENT op succeeded for it
    bool isWatchLive() const { return m_watchLive; }
    // e.g. "Operations live from fleetd at 10.0.0.5:7443" or "… lost (UNAVAILABLE …). Retrying in 3.2 s".
    QString watchStatusText() const { return m_watchStatus; }
    const Stats& stats() const { return m_stats; }

signals:
    void identityChanged();  // role/principal known or changed
    void operationChanged(const watchfloor::v1::Operation& operation);
    void operationsReset();  // a list replaced many operations at once
    void watchStateChanged(bool live);

private:
    struct ExecuteCall;
    class WatchReader;

    ControlClient(QString target, ChannelSecurity security, std::shared_ptr<grpc::Channel> channel,
                  QString channelError, ControlClientOptions options, QObject* parent);

    template <typename Request, typename Response, typename StartFn>
    void callUnary(const Request& request, std::chrono::milliseconds deadline, StartFn start,
                   std::function<void(const grpc::Status&, Response&&)> done);

    void fetchIdentity();
    void sendExecute(std::shared_ptr<ExecuteCall> call);
    void openWatch();
    void closeWatch();
    void drainWatch(quint64 generation);
    void onWatchLive(quint64 generation);
    void onWatchFinished(quint64 generation, grpc::StatusCode code, const QString& message);
    void listOperations();
    // Keeps the newer of the known and the incoming version; true when `incoming` was taken.
    bool mergeOperation(const watchfloor::v1::Operation& incoming);
    void setWatchLive(bool live, const QString& status);
    template <typename Request, typename StartFn>
    void callForOperation(const char* rpcName, const Request& request, StartFn start,
                          std::function<void(const ControlResult<watchfloor::v1::Operation>&)> done);
    template <class T>
    ControlResult<T> result(const grpc::Status& status, T&& value, const char* rpcName,
                            const watchfloor::v1::ActionRequest* action, int attempts = 1) const;
    template <class T>
    ControlResult<T> failure(const grpc::Status& status, const char* rpcName,
                             const watchfloor::v1::ActionRequest* action, int attempts = 1) const;

    QString m_target;
    ChannelSecurity m_security;
    ControlClientOptions m_options;
    std::shared_ptr<grpc::Channel> m_channel;
    QString m_channelError;
    std::unique_ptr<watchfloor::v1::ControlService::Stub> m_stub;

    watchfloor::v1::Role m_role = watchfloor::v1::ROLE_UNSPECIFIED;
    QString m_principal;
    QString m_identityError;

    QHash<QString, watchfloor::v1::Operation> m_operations;  // by operation id
    QSet<quint64> m_acknowledgedEvents;

    bool m_running = false;
    std::shared_ptr<WatchReader> m_watch;
    quint64 m_watchGeneration = 0;
    bool m_watchLive = false;
    QElapsedTimer m_watchLiveSince;
    QString m_watchStatus;
    ReconnectBackoff m_watchBackoff;
    QTimer m_watchRetryTimer;
    Stats m_stats;

    InFlightCalls m_inFlight;
    QueuedCalls m_calls{this};  // what gRPC threads hand to this object's thread
};

}  // namespace watchfloor::client
