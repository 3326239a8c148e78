#include "ControlClient.h"

#include "ChannelRetirement.h"
#include "ControlErrorText.h"
#include "HappensBefore.h"
#include "UnaryCall.h"

#include <QMetaObject>
#include <QUuid>

#include <QSignalBlocker>

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

constexpr auto kWatchHealthyAfter = std::chrono::seconds(10);  // a watch that lived this long resets the backoff

bool isRetryableForExecute(grpc::StatusCode code) {
    // The request may or may not have reached fleetd; resending the same request id is safe because
    // fleetd answers a known id with its first operation. CANCELLED comes from a server shutting
    // down (our own cancellation only happens in the destructor, whose callbacks never run).
    return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED ||
           code == grpc::StatusCode::CANCELLED;
}

int stateRank(v1::OperationState state) {
    switch (state) {
    case v1::OPERATION_STATE_AWAITING_APPROVAL: return 1;
    case v1::OPERATION_STATE_PENDING: return 2;
    case v1::OPERATION_STATE_RUNNING: return 3;
    case v1::OPERATION_STATE_SUCCEEDED:
    case v1::OPERATION_STATE_FAILED:
    case v1::OPERATION_STATE_CANCELLED: return 4;
    default: return 0;
    }
}

// Which of two versions of one operation is newer: the later update, then the further state,
// then the further progress (several changes can share a millisecond).
auto freshness(const v1::Operation& op) {
    return std::make_tuple(op.updated_unix_ms(), stateRank(op.state()), op.progress_ratio());
}

grpc::ChannelArguments controlChannelArguments(const ControlClientOptions& options) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, int(options.keepaliveTime.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, int(options.keepaliveTimeout.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, int(options.watchReconnect.initial.count()));
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, int(options.watchReconnect.initial.count()));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, int(options.watchReconnect.cap.count()));
    // A control channel of its own (not shared with telemetry), so a 30 MB snapshot never queues
    // in front of an operator's drain.
    args.SetString("watchfloor.channel", "control");
    return args;
}

QString seconds(std::chrono::milliseconds d) { return QString::number(double(d.count()) / 1000.0, 'f', 1) + " s"; }

}  // namespace

// One WatchOperations call, read with the callback API. Reactions only buffer and notify; the
// owner drains the buffer on its own thread. The reactor keeps the reader alive until OnDone.
class ControlClient::WatchReader {
public:
    struct Callbacks {
        std::function<void()> live;       // the server registered the watch (initial metadata)
        std::function<void()> dataReady;  // buffer went from empty to non-empty
        std::function<void(const grpc::Status&)> finished;
    };

    static std::shared_ptr<WatchReader> start(v1::ControlService::Stub& stub, Callbacks callbacks) {
        std::shared_ptr<WatchReader> reader(new WatchReader(std::move(callbacks)));
        auto* reactor = new Reactor(reader);
        stub.async()->WatchOperations(&reader->m_context, &reader->m_request, reactor);
        happensbefore::publish(reactor);
        reactor->StartRead(&reactor->m_message);
        reactor->StartCall();
        return reader;
    }

    void cancel() { m_context.TryCancel(); }

    std::vector<v1::Operation> takePending() {
        std::vector<v1::Operation> out;
        std::lock_guard lock(m_mutex);
        out.swap(m_pending);
        return out;
    }

    void waitUntilDone() {
        std::unique_lock lock(m_mutex);
        m_doneCv.wait(lock, [this] { return m_done; });
    }

    bool isDone() {
        std::lock_guard lock(m_mutex);
        return m_done;
    }

private:
    class Reactor final : public grpc::ClientReadReactor<v1::Operation> {
    public:
        explicit Reactor(std::shared_ptr<WatchReader> reader) : m_reader(std::move(reader)) {}

        void OnReadInitialMetadataDone(bool ok) override {
            happensbefore::receive(this);
            if (ok) {
                m_reader->m_callbacks.live();
            }
        }

        void OnReadDone(bool ok) override {
            happensbefore::receive(this);
            if (!ok) {
                return;  // OnDone follows with the status
            }
            bool wasEmpty = false;
            {
                std::lock_guard lock(m_reader->m_mutex);
                wasEmpty = m_reader->m_pending.empty();
                m_reader->m_pending.push_back(std::move(m_message));
            }
            m_message.Clear();
            if (wasEmpty) {
                m_reader->m_callbacks.dataReady();
            }
            happensbefore::publish(this);
            StartRead(&m_message);
        }

        void OnDone(const grpc::Status& status) override {
            happensbefore::receive(this);
            m_reader->m_callbacks.finished(status);
            {
                std::lock_guard lock(m_reader->m_mutex);
                m_reader->m_done = true;
            }
            m_reader->m_doneCv.notify_all();
            delete this;
        }

        v1::Operation m_message;

    private:
        std::shared_ptr<WatchReader> m_reader;
    };

    explicit WatchReader(Callbacks callbacks) : m_callbacks(std::move(callbacks)) {}

    grpc::ClientContext m_context;
    v1::WatchOperationsRequest m_request;
    Callbacks m_callbacks;
    std::mutex m_mutex;
    std::condition_variable m_doneCv;
    std::vector<v1::Operation> m_pending;
    bool m_done = false;
};

struct ControlClient::ExecuteCall {
    v1::ExecuteActionRequest request;  // resent unchanged: fleetd matches retries on the whole request
    std::function<void(const ControlResult<v1::Operation>&)> done;
    ReconnectBackoff backoff;
    int attempts = 0;
};

ControlClient::ControlClient(QString target, ChannelSecurity security, QObject* parent)
    : ControlClient(std::move(target), std::move(security), ControlClientOptions{}, parent) {}

ControlClient::ControlClient(QString target, ChannelSecurity security, ControlClientOptions options, QObject* parent)
    : ControlClient(target, security, nullptr, QString(), options, parent) {
    auto made = makeChannel(m_target, m_security, controlChannelArguments(m_options));
    m_channelError = made.error;
    m_channel = std::move(made.channel);
    if (m_channel) {
        m_stub = v1::ControlService::NewStub(m_channel);
    }
}

ControlClient::ControlClient(QString target, std::shared_ptr<grpc::Channel> channel, ControlClientOptions options,
                             QObject* parent)
    : ControlClient(std::move(target), ChannelSecurity{}, std::move(channel), QString(), options, parent) {}

ControlClient::ControlClient(QString target, ChannelSecurity security, std::shared_ptr<grpc::Channel> channel,
                             QString channelError, ControlClientOptions options, QObject* parent)
    : QObject(parent),
      m_target(std::move(target)),
      m_security(std::move(security)),
      m_options(std::move(options)),
      m_channel(std::move(channel)),
      m_channelError(std::move(channelError)),
      m_watchBackoff(m_options.watchReconnect) {
    releaseIdleRetiredChannels();
    if (m_channel) {
        m_stub = v1::ControlService::NewStub(m_channel);
    }
    m_watchRetryTimer.setSingleShot(true);
    connect(&m_watchRetryTimer, &QTimer::timeout, this, &ControlClient::openWatch);
    m_watchStatus = QStringLiteral("Operations not watched yet (fleetd at %1)").arg(m_target);
}

ControlClient::~ControlClient() {
    m_running = false;
    m_watchRetryTimer.stop();
    closeWatch();
    m_inFlight.cancelAllAndWait();
    m_stub.reset();
    retireChannel(std::move(m_channel));
}

void ControlClient::start() {
    if (m_running) {
        return;
    }
    m_running = true;
    if (!m_stub) {
        m_identityError = m_channelError;
        setWatchLive(false, m_channelError);
        emit identityChanged();
        return;
    }
    fetchIdentity();
    openWatch();
}

void ControlClient::stop() {
    m_running = false;
    m_watchRetryTimer.stop();
    closeWatch();
    setWatchLive(false, QStringLiteral("Operations watch stopped (fleetd at %1)").arg(m_target));
}

bool ControlClient::canAct() const {
    return !m_principal.isEmpty() && (m_role == v1::ROLE_OPERATOR || m_role == v1::ROLE_ADMIN);
}

template <class T>
ControlResult<T> ControlClient::failure(const grpc::Status& status, const char* rpcName,
                                        const v1::ActionRequest* action, int attempts) const {
    ControlFailure f;
    f.target = m_target;
    f.rpcName = rpcName;
    f.code = status.error_code();
    f.serverMessage = QString::fromStdString(status.error_message());
    f.callerRole = m_role;
    f.action = action;
    f.deadline = std::string_view(rpcName) == "ExecuteAction" ? m_options.executeDeadline : m_options.unaryDeadline;
    f.attempts = attempts;
    ControlResult<T> refused;
    refused.code = status.error_code();
    refused.message = describeControlFailure(f);
    refused.attempts = attempts;
    return refused;
}

template <typename Request, typename Response, typename StartFn>
void ControlClient::callUnary(const Request& request, std::chrono::milliseconds deadline, StartFn start,
                              std::function<void(const grpc::Status&, Response&&)> done) {
    if (!m_stub) {
        const grpc::Status refused(grpc::StatusCode::FAILED_PRECONDITION, m_channelError.toStdString());
        QMetaObject::invokeMethod(
            this, [done = std::move(done), refused] { done(refused, Response()); }, Qt::QueuedConnection);
        return;
    }
    UnaryCall<Request, Response>::start(
        start, request, deadline, m_inFlight,
        // On a gRPC thread: hand over and leave. The destructor waits for the call to finish, so
        // `this` is alive for the post; Qt drops the event if it dies before delivery.
        [this, done = std::move(done)](const grpc::Status& status, Response&& response) mutable {
            m_calls.post([done = std::move(done), status, response = std::move(response)]() mutable {
                done(status, std::move(response));
            });
        });
}

void ControlClient::fetchIdentity() {
    callUnary<v1::WhoAmIRequest, v1::WhoAmIResponse>(
        v1::WhoAmIRequest(), m_options.unaryDeadline,
        [this](grpc::ClientContext* c, const v1::WhoAmIRequest* q, v1::WhoAmIResponse* r, auto* reactor) {
            m_stub->async()->WhoAmI(c, q, r, reactor);
        },
        [this](const grpc::Status& status, v1::WhoAmIResponse&& response) {
            const auto before = std::make_tuple(m_role, m_principal, m_identityError);
            if (status.ok()) {
                m_role = response.role();
                m_principal = QString::fromStdString(response.principal());
                m_identityError.clear();
            } else {
                m_identityError = failure<v1::WhoAmIResponse>(status, "WhoAmI", nullptr).message;
                if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
                    m_role = v1::ROLE_UNSPECIFIED;  // the token no longer counts: no action controls
                    m_principal.clear();
                }
                // Otherwise (fleetd unreachable) the last known identity still holds.
            }
            if (before != std::make_tuple(m_role, m_principal, m_identityError)) {
                emit identityChanged();
            }
        });
}

template <class T>
ControlResult<T> ControlClient::result(const grpc::Status& status, T&& value, const char* rpcName,
                                       const v1::ActionRequest* action, int attempts) const {
    if (!status.ok()) {
        return failure<T>(status, rpcName, action, attempts);
    }
    ControlResult<T> ok;
    ok.ok = true;
    ok.value = std::move(value);
    ok.attempts = attempts;
    return ok;
}

template <typename Request, typename StartFn>
void ControlClient::callForOperation(const char* rpcName, const Request& request, StartFn start,
                                     std::function<void(const ControlResult<v1::Operation>&)> done) {
    callUnary<Request, v1::Operation>(
        request, m_options.unaryDeadline, start,
        [this, rpcName, done = std::move(done)](const grpc::Status& status, v1::Operation&& op) {
            if (status.ok()) {
                mergeOperation(op);
            }
            done(result(status, std::move(op), rpcName, nullptr));
        });
}

void ControlClient::preview(const v1::ActionRequest& action,
                            std::function<void(const ControlResult<v1::ActionPreview>&)> done) {
    v1::PreviewActionRequest request;
    *request.mutable_action() = action;
    callUnary<v1::PreviewActionRequest, v1::ActionPreview>(
        request, m_options.unaryDeadline,
        [this](grpc::ClientContext* c, const v1::PreviewActionRequest* q, v1::ActionPreview* r, auto* reactor) {
            m_stub->async()->PreviewAction(c, q, r, reactor);
        },
        [this, action, done = std::move(done)](const grpc::Status& status, v1::ActionPreview&& preview) {
            done(result(status, std::move(preview), "PreviewAction", &action));
        });
}

QString ControlClient::execute(v1::ActionRequest action,
                               std::function<void(const ControlResult<v1::Operation>&)> done) {
    if (action.request_id().empty()) {
        action.set_request_id(QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString());
    }
    const QString requestId = QString::fromStdString(action.request_id());
    auto call =
        std::make_shared<ExecuteCall>(ExecuteCall{{}, std::move(done), ReconnectBackoff(m_options.executeRetry), 0});
    *call->request.mutable_action() = std::move(action);
    sendExecute(std::move(call));
    return requestId;
}

void ControlClient::sendExecute(std::shared_ptr<ExecuteCall> call) {
    ++call->attempts;
    ++m_stats.executeAttempts;
    callUnary<v1::ExecuteActionRequest, v1::Operation>(
        call->request, m_options.executeDeadline,
        [this](grpc::ClientContext* c, const v1::ExecuteActionRequest* q, v1::Operation* r, auto* reactor) {
            m_stub->async()->ExecuteAction(c, q, r, reactor);
        },
        [this, call](const grpc::Status& status, v1::Operation&& operation) {
            if (status.ok()) {
                mergeOperation(operation);
            } else if (m_stub && isRetryableForExecute(status.error_code()) &&
                       call->attempts < m_options.executeMaxAttempts) {
                ++m_stats.executeRetries;
                QTimer::singleShot(call->backoff.nextDelay(), this, [this, call] { sendExecute(call); });
                return;
            }
            call->done(result(status, std::move(operation), "ExecuteAction", &call->request.action(), call->attempts));
        });
}

void ControlClient::approve(const QString& operationId, const QString& reason,
                            std::function<void(const ControlResult<v1::Operation>&)> done) {
    v1::ApproveOperationRequest request;
    request.set_operation_id(operationId.toStdString());
    request.set_reason(reason.toStdString());
    callForOperation(
        "ApproveOperation", request,
        [this](grpc::ClientContext* c, const v1::ApproveOperationRequest* q, v1::Operation* r, auto* reactor) {
            m_stub->async()->ApproveOperation(c, q, r, reactor);
        },
        std::move(done));
}

void ControlClient::getOperation(const QString& operationId, const QString& requestId,
                                 std::function<void(const ControlResult<v1::Operation>&)> done) {
    v1::GetOperationRequest request;
    request.set_operation_id(operationId.toStdString());
    request.set_request_id(requestId.toStdString());
    callForOperation(
        "GetOperation", request,
        [this](grpc::ClientContext* c, const v1::GetOperationRequest* q, v1::Operation* r, auto* reactor) {
            m_stub->async()->GetOperation(c, q, r, reactor);
        },
        std::move(done));
}

void ControlClient::listAudit(quint64 beforeSeq, quint32 pageSize,
                              std::function<void(const ControlResult<v1::ListAuditEntriesResponse>&)> done) {
    v1::ListAuditEntriesRequest request;
    request.set_before_seq(beforeSeq);
    request.set_page_size(pageSize);
    callUnary<v1::ListAuditEntriesRequest, v1::ListAuditEntriesResponse>(
        request, m_options.unaryDeadline,
        [this](grpc::ClientContext* c, const v1::ListAuditEntriesRequest* q, v1::ListAuditEntriesResponse* r,
               auto* reactor) { m_stub->async()->ListAuditEntries(c, q, r, reactor); },
        [this, done = std::move(done)](const grpc::Status& status, v1::ListAuditEntriesResponse&& page) {
            done(result(status, std::move(page), "ListAuditEntries", nullptr));
        });
}

QList<v1::Operation> ControlClient::operations() const {
    QList<v1::Operation> out = m_operations.values();
    std::sort(out.begin(), out.end(), [](const v1::Operation& a, const v1::Operation& b) {
        if (a.created_unix_ms() != b.created_unix_ms()) {
            return a.created_unix_ms() > b.created_unix_ms();
        }
        return a.id() > b.id();
    });
    return out;
}

std::optional<v1::Operation> ControlClient::operation(const QString& operationId) const {
    const auto found = m_operations.constFind(operationId);
    if (found == m_operations.constEnd()) {
        return std::nullopt;
    }
    return *found;
}

bool ControlClient::isAcknowledged(quint64 eventId) const { return m_acknowledgedEvents.contains(eventId); }

bool ControlClient::mergeOperation(const v1::Operation& incoming) {
    if (incoming.id().empty()) {
        return false;
    }
    const QString id = QString::fromStdString(incoming.id());
    auto found = m_operations.find(id);
    if (found != m_operations.end() && freshness(*found) > freshness(incoming)) {
        return false;  // an older version (e.g. a list answer overtaken by the watch)
    }
    if (found != m_operations.end()) {
        *found = incoming;
    } else {
        m_operations.insert(id, incoming);
    }
    if (incoming.request().type() == v1::ACTION_TYPE_ACKNOWLEDGE_EVENT &&
        incoming.state() == v1::OPERATION_STATE_SUCCEEDED) {
        m_acknowledgedEvents.insert(incoming.request().event_id());
    }
    emit operationChanged(incoming);
    return true;
}

void ControlClient::openWatch() {
    if (!m_running || m_watch || !m_stub) {
        return;
    }
    const quint64 generation = ++m_watchGeneration;
    ++m_stats.watchesOpened;
    grpc::experimental::ChannelResetConnectionBackoff(m_channel.get());
    m_watchLiveSince.invalidate();
    // All three run on gRPC threads; the destructor waits for OnDone, so posting to `this` is safe.
    m_watch = WatchReader::start(
        *m_stub, {[this, generation] { m_calls.post([this, generation] { onWatchLive(generation); }); },
                  [this, generation] { m_calls.post([this, generation] { drainWatch(generation); }); },
                  [this, generation](const grpc::Status& status) {
                      const auto code = status.error_code();
                      const QString message = QString::fromStdString(status.error_message());
                      m_calls.post([this, generation, code, message] { onWatchFinished(generation, code, message); });
                  }});
}

void ControlClient::closeWatch() {
    if (!m_watch) {
        return;
    }
    ++m_watchGeneration;  // callbacks of the old watch are now ignored
    auto watch = std::move(m_watch);
    watch->cancel();
    watch->waitUntilDone();
}

void ControlClient::onWatchLive(quint64 generation) {
    if (generation != m_watchGeneration || !m_watch || m_watch->isDone()) {
        return;  // a refused call also "receives" (empty) initial metadata just before it ends
    }
    m_watchLiveSince.start();
    setWatchLive(true, QStringLiteral("Operations live from fleetd at %1").arg(m_target));
    // Every change from now on arrives on the watch; the list fills in what happened before.
    fetchIdentity();
    listOperations();
}

void ControlClient::drainWatch(quint64 generation) {
    if (generation != m_watchGeneration || !m_watch) {
        return;
    }
    for (const v1::Operation& operation : m_watch->takePending()) {
        ++m_stats.watchChanges;
        mergeOperation(operation);
    }
}

void ControlClient::onWatchFinished(quint64 generation, grpc::StatusCode code, const QString& message) {
    if (generation != m_watchGeneration) {
        return;  // a watch we closed ourselves
    }
    drainWatch(generation);
    if (m_watch) {
        m_watch->waitUntilDone();  // returns at once: OnDone already ran
        m_watch.reset();
    }
    if (!m_running) {
        return;
    }
    if (m_watchLiveSince.isValid() && std::chrono::milliseconds(m_watchLiveSince.elapsed()) >= kWatchHealthyAfter) {
        m_watchBackoff.reset();
    }
    if (code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED) {
        fetchIdentity();  // fleetd's token table may have changed under us
    }
    const int attempt = m_watchBackoff.attempt() + 1;
    const auto delay = m_watchBackoff.nextDelay();
    const grpc::Status status(code, message.toStdString());
    const QString why = code == grpc::StatusCode::OK
                            ? QStringLiteral("fleetd at %1 ended the operations watch").arg(m_target)
                            : failure<int>(status, "WatchOperations", nullptr).message;
    setWatchLive(false, QStringLiteral("Operations watch lost: %1 Retrying in %2 (attempt %3).")
                            .arg(why, seconds(std::chrono::duration_cast<std::chrono::milliseconds>(delay)))
                            .arg(attempt));
    m_watchRetryTimer.start(delay);
}

void ControlClient::listOperations() {
    v1::ListOperationsRequest request;
    request.set_page_size(m_options.operationsPageSize);
    callUnary<v1::ListOperationsRequest, v1::ListOperationsResponse>(
        request, m_options.unaryDeadline,
        [this](grpc::ClientContext* c, const v1::ListOperationsRequest* q, v1::ListOperationsResponse* r,
               auto* reactor) { m_stub->async()->ListOperations(c, q, r, reactor); },
        [this](const grpc::Status& status, v1::ListOperationsResponse&& response) {
            if (!status.ok()) {
                // The watch still delivers every change from now on; only older history is missing.
                qWarning("%s", qPrintable(failure<int>(status, "ListOperations", nullptr).message));
                return;
            }
            ++m_stats.listsMerged;
            {
                const QSignalBlocker blocker(this);  // one reset instead of a signal per operation
                for (const v1::Operation& operation : response.operations()) {
                    mergeOperation(operation);
                }
            }
            emit operationsReset();
        });
}

void ControlClient::setWatchLive(bool live, const QString& status) {
    m_watchStatus = status;
    if (m_watchLive != live) {
        m_watchLive = live;
        emit watchStateChanged(live);
    }
}

}  // namespace watchfloor::client
