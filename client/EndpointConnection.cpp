#include "EndpointConnection.h"

#include "ChannelRetirement.h"
#include "SubscribeStreamReader.h"
#include "UnaryCall.h"

#include <grpcpp/channel.h>

#include <QDateTime>

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

constexpr int kMaxReceiveMessageBytes = 1 << 30;  // a 1,800-rack snapshot is tens of MB
constexpr auto kStaleCheckInterval = std::chrono::milliseconds(250);
// A stream that delivered data at least this long before it ended was a working subscription.
constexpr auto kStreamLivedLongEnough = std::chrono::milliseconds(2000);
// How often the channel's state is read while fleetd is away: a local call, no network.
constexpr auto kChannelPollInterval = std::chrono::milliseconds(50);

QString statusCodeName(grpc::StatusCode code) {
    switch (code) {
    case grpc::StatusCode::OK: return QStringLiteral("OK");
    case grpc::StatusCode::CANCELLED: return QStringLiteral("CANCELLED");
    case grpc::StatusCode::UNKNOWN: return QStringLiteral("UNKNOWN");
    case grpc::StatusCode::INVALID_ARGUMENT: return QStringLiteral("INVALID_ARGUMENT");
    case grpc::StatusCode::DEADLINE_EXCEEDED: return QStringLiteral("DEADLINE_EXCEEDED");
    case grpc::StatusCode::NOT_FOUND: return QStringLiteral("NOT_FOUND");
    case grpc::StatusCode::ALREADY_EXISTS: return QStringLiteral("ALREADY_EXISTS");
    case grpc::StatusCode::PERMISSION_DENIED: return QStringLiteral("PERMISSION_DENIED");
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return QStringLiteral("RESOURCE_EXHAUSTED");
    case grpc::StatusCode::FAILED_PRECONDITION: return QStringLiteral("FAILED_PRECONDITION");
    case grpc::StatusCode::ABORTED: return QStringLiteral("ABORTED");
    case grpc::StatusCode::OUT_OF_RANGE: return QStringLiteral("OUT_OF_RANGE");
    case grpc::StatusCode::UNIMPLEMENTED: return QStringLiteral("UNIMPLEMENTED");
    case grpc::StatusCode::INTERNAL: return QStringLiteral("INTERNAL");
    case grpc::StatusCode::UNAVAILABLE: return QStringLiteral("UNAVAILABLE");
    case grpc::StatusCode::DATA_LOSS: return QStringLiteral("DATA_LOSS");
    case grpc::StatusCode::UNAUTHENTICATED: return QStringLiteral("UNAUTHENTICATED");
    default: return QStringLiteral("status %1").arg(int(code));
    }
}

QString seconds(std::chrono::milliseconds d) { return QString::number(double(d.count()) / 1000.0, 'f', 1) + " s"; }

// An operator-facing sentence for a failed call.
QString describeFailure(const char* rpcName, const QString& target, grpc::StatusCode code, const QString& message,
                        std::chrono::milliseconds deadline) {
    const QString detail =
        message.isEmpty() ? statusCodeName(code) : QStringLiteral("%1: %2").arg(statusCodeName(code), message);
    switch (code) {
    case grpc::StatusCode::UNAVAILABLE: return QStringLiteral("Cannot reach fleetd at %1 (%2)").arg(target, detail);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        return QStringLiteral("%1 on fleetd at %2 got no answer within %3")
            .arg(QLatin1String(rpcName), target, seconds(deadline));
    case grpc::StatusCode::UNIMPLEMENTED:
        return QStringLiteral("The server at %1 does not implement watchfloor.v1 %2 — is it fleetd? (%3)")
            .arg(target, QLatin1String(rpcName), detail);
    default: return QStringLiteral("%1 on fleetd at %2 failed (%3)").arg(QLatin1String(rpcName), target, detail);
    }
}

}  // namespace

std::shared_ptr<grpc::Channel> makeTelemetryChannel(const EndpointConfig& config) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, int(config.keepaliveTime.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, int(config.keepaliveTimeout.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    // The channel's connection attempts are the console's probe while fleetd is away: a TCP
    // connect (and handshake) at most probeInterval apart, which gRPC jitters ±20 % so that many
    // consoles do not dial in step. Never a cap of tens of seconds: a wall display must be live
    // again within seconds of fleetd's return, after 2 s or after an hour. The minimum connect
    // timeout (this argument's meaning in gRPC core) bounds an attempt at a black-holed host.
    const int probeMs =
        int(std::max<std::chrono::milliseconds>(config.probeInterval, std::chrono::milliseconds(100)).count());
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, probeMs / 2);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, std::max(probeMs, 1000));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, probeMs);
    args.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
    auto made = makeChannel(config.target, config.security, args);
    if (!made.channel) {
        qWarning("fleetd %s: %s; telemetry connects without the token", qPrintable(config.target),
                 qPrintable(made.error));
        ChannelSecurity withoutToken = config.security;
        withoutToken.bearerToken.clear();
        made = makeChannel(config.target, withoutToken, args);
    }
    if (!made.channel) {  // an unreadable certificate file: connect in plaintext and fail visibly
        qWarning("fleetd %s: %s", qPrintable(config.target), qPrintable(made.error));
        return grpc::CreateCustomChannel(config.target.toStdString(), grpc::InsecureChannelCredentials(), args);
    }
    return made.channel;
}

EndpointConnection::EndpointConnection(EndpointConfig config, QObject* parent)
    : EndpointConnection(config, makeTelemetryChannel(config), parent) {}

EndpointConnection::EndpointConnection(EndpointConfig config, std::shared_ptr<grpc::Channel> channel, QObject* parent)
    : QObject(parent),
      m_config(std::move(config)),
      m_channel(std::move(channel)),
      m_stub(v1::TelemetryService::NewStub(m_channel)),
      m_backoff(m_config.backoff) {
    releaseIdleRetiredChannels();
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, [this] {
        m_pendingRetryDelay = std::chrono::milliseconds(0);
        resubscribeWhenReachable();
    });
    m_staleTimer.setInterval(kStaleCheckInterval);
    connect(&m_staleTimer, &QTimer::timeout, this, &EndpointConnection::checkStaleness);
    m_probeTimer.setInterval(kChannelPollInterval);
    connect(&m_probeTimer, &QTimer::timeout, this, &EndpointConnection::resubscribeWhenReachable);
}

EndpointConnection::~EndpointConnection() {
    m_running = false;
    closeStream();
    m_unaryInFlight.cancelAllAndWait();
    // A finished reactor may still be releasing its context (and with it the channel) on a gRPC
    // thread: never let the last channel reference drop there.
    m_stub.reset();
    retireChannel(std::move(m_channel));
}

void EndpointConnection::start() {
    if (m_running) {
        return;
    }
    m_running = true;
    m_incompatible = false;
    m_backoff.reset();
    setState(ConnectionState::Connecting, QStringLiteral("Connecting to fleetd at %1").arg(m_config.target));
    openStream();
    m_staleTimer.start();
}

void EndpointConnection::stop() {
    m_running = false;
    m_reconnectTimer.stop();
    m_probeTimer.stop();
    m_staleTimer.stop();
    m_pendingRetryDelay = std::chrono::milliseconds(0);
    closeStream();
    setState(ConnectionState::Disconnected, QStringLiteral("Disconnected from %1").arg(m_config.target));
}

void EndpointConnection::reconnectNow() {
    if (!m_running) {
        return;
    }
    m_reconnectTimer.stop();
    m_probeTimer.stop();
    m_pendingRetryDelay = std::chrono::milliseconds(0);
    closeStream();
    if (!m_incompatible) {
        setState(
            ConnectionState::Reconnecting,
            QStringLiteral("Reconnecting to %1 (resuming after sequence %2)").arg(m_config.target).arg(m_lastSequence));
    }
    m_incompatible = false;
    openStream();
}

void EndpointConnection::requestResync() {
    m_resyncRequested = true;
    reconnectNow();
}

void EndpointConnection::closeStream() {
    if (!m_reader) {
        return;
    }
    ++m_generation;  // callbacks of the old stream are now ignored
    auto reader = std::move(m_reader);
    reader->cancel();
    reader->waitUntilDone();
}

void EndpointConnection::openStream() {
    if (!m_running || m_reader) {
        return;
    }
    v1::SubscribeRequest request;
    request.set_detail(m_config.detail);
    request.set_client_api_version(v1::API_VERSION_1);
    for (const QString& region : m_config.regionNames) {
        request.add_region_names(region.toStdString());
    }
    for (const QString& rack : m_config.rackNames) {
        request.add_rack_names(rack.toStdString());
    }
    if (m_resyncRequested) {
        m_lastSequence = 0;
        m_runId.clear();
        m_resyncRequested = false;
    }
    if (m_lastSequence > 0 && !m_runId.isEmpty()) {
        request.set_resume_after_sequence(m_lastSequence);
        request.set_resume_run_id(m_runId.toStdString());
    }

    grpc::experimental::ChannelResetConnectionBackoff(m_channel.get());
    const quint64 generation = ++m_generation;
    m_streamHadMessage = false;
    m_streamOpened.start();
    ++m_stats.streamsOpened;
    // Both callbacks run on gRPC threads. Posting to `this` is safe: the destructor waits for
    // OnDone, and Qt discards events still queued for a deleted object.
    m_reader = SubscribeStreamReader::start(
        *m_stub, request, [this, generation] { m_calls.post([this, generation] { drainStream(generation); }); },
        [this, generation](const grpc::Status& status) {
            const auto code = status.error_code();
            const QString message = QString::fromStdString(status.error_message());
            m_calls.post([this, generation, code, message] { onStreamFinished(generation, code, message); });
        });
}

void EndpointConnection::drainStream(quint64 generation) {
    if (generation != m_generation || !m_reader) {
        return;
    }
    auto batch = m_reader->takePending();
    const std::size_t readyBefore = m_ready.size();
    for (v1::SubscribeResponse& message : batch) {
        if (generation != m_generation) {
            break;  // acceptMessage() closed the stream (incompatible server or resync)
        }
        if (acceptMessage(message)) {
            m_ready.push_back(std::move(message));
        }
    }
    if (m_ready.size() > readyBefore) {
        emit responsesReady();
    }
}

bool EndpointConnection::acceptMessage(v1::SubscribeResponse& message) {
    ++m_stats.messages;
    m_sinceLastMessage.start();
    bool accepted = true;
    switch (message.payload_case()) {
    case v1::SubscribeResponse::kSnapshot: {
        const v1::Snapshot& snapshot = message.snapshot();
        if (snapshot.api_version() != v1::API_VERSION_1) {
            markIncompatible(snapshot.api_version() == v1::API_VERSION_UNSPECIFIED
                                 ? QStringLiteral("The server at %1 did not announce an API version; this console "
                                                  "speaks watchfloor.v1. Point it at a fleetd of API v1.")
                                       .arg(m_config.target)
                                 : QStringLiteral("fleetd at %1 speaks API v%2 (server %3); this console speaks v1. "
                                                  "Use a console that matches the server, or a v1 fleetd.")
                                       .arg(m_config.target)
                                       .arg(int(snapshot.api_version()))
                                       .arg(QString::fromStdString(snapshot.server_version())));
            return false;
        }
        ++m_stats.snapshots;
        m_lastSequence = snapshot.sequence();
        m_runId = QString::fromStdString(snapshot.run_id());
        m_serverVersion = QString::fromStdString(snapshot.server_version());
        break;
    }
    case v1::SubscribeResponse::kDelta: {
        const v1::Delta& delta = message.delta();
        const quint64 first = delta.first_sequence() != 0 ? delta.first_sequence() : delta.sequence();
        if (m_lastSequence == 0 && m_runId.isEmpty()) {
            // A delta before any snapshot cannot be applied to anything.
            ++m_stats.sequenceGaps;
            requestResync();
            return false;
        }
        if (delta.sequence() <= m_lastSequence) {
            ++m_stats.duplicateDeltasDropped;
            accepted = false;
            break;
        }
        if (first > m_lastSequence + 1) {
            ++m_stats.sequenceGaps;
            qWarning("fleetd %s: sequence gap (expected %llu, got %llu..%llu); resyncing", qPrintable(m_config.target),
                     m_lastSequence + 1, first, quint64(delta.sequence()));
            requestResync();
            return false;
        }
        if (!m_streamHadMessage) {
            ++m_stats.resumedWithoutSnapshot;
        }
        ++m_stats.deltas;
        m_lastSequence = delta.sequence();
        break;
    }
    case v1::SubscribeResponse::kHeartbeat:
        ++m_stats.heartbeats;
        if (message.heartbeat().sequence() > m_lastSequence && !(m_lastSequence == 0 && m_runId.isEmpty())) {
            ++m_stats.sequenceGaps;
            requestResync();
            return false;
        }
        break;
    case v1::SubscribeResponse::PAYLOAD_NOT_SET: return false;
    }
    if (!m_streamHadMessage) {
        m_streamHadMessage = true;
        m_backoff.reset();  // data flows again: the next outage starts the schedule over
        m_outageSinceUtc.clear();
    }
    if (m_state != ConnectionState::Live) {
        setState(ConnectionState::Live, liveText());
    }
    return accepted;
}

QString EndpointConnection::liveText() const {
    // fleetd names itself in its version ("fleetd 0.1.0"): "Live: fleetd fleetd 0.1.0" was read.
    QString server = m_serverVersion.isEmpty() ? QStringLiteral("fleetd") : m_serverVersion;
    if (!server.startsWith(QStringLiteral("fleetd"))) server = QStringLiteral("fleetd ") + server;
    return QStringLiteral("Live: %1 at %2").arg(server, m_config.target);
}

void EndpointConnection::markIncompatible(const QString& why) {
    m_incompatible = true;
    m_reconnectTimer.stop();
    m_probeTimer.stop();
    setState(ConnectionState::Incompatible, why);
    closeStream();
}

void EndpointConnection::onStreamFinished(quint64 generation, grpc::StatusCode code, const QString& message) {
    if (generation != m_generation) {
        return;  // a stream we closed ourselves
    }
    drainStream(generation);  // messages that arrived just before the end are still valid
    if (generation != m_generation) {
        return;
    }
    if (m_reader) {
        m_reader->waitUntilDone();  // returns at once: OnDone already ran
        m_reader.reset();
    }
    if (!m_running || m_incompatible) {
        return;
    }
    if (code == grpc::StatusCode::UNIMPLEMENTED) {
        markIncompatible(describeFailure("Subscribe", m_config.target, code, message, {}));
        return;
    }
    if (code == grpc::StatusCode::INVALID_ARGUMENT && m_lastSequence > 0) {
        // Our resume point is ahead of the server's log (e.g. its state was reset): start over.
        m_resyncRequested = true;
    }
    const QString why = code == grpc::StatusCode::OK
                            ? QStringLiteral("fleetd at %1 closed the stream").arg(m_config.target)
                            : describeFailure("Subscribe", m_config.target, code, message, {});
    // A stream that delivered data for a while and then ended is fleetd going away (killed,
    // restarting, or the network): watch the channel at once. A stream that ended quickly is
    // backed off, so a fleetd that ends every stream is not re-subscribed in a tight loop.
    const bool lived =
        m_streamHadMessage && std::chrono::milliseconds(m_streamOpened.elapsed()) >= kStreamLivedLongEnough;
    scheduleReconnect(why, lived);
}

void EndpointConnection::scheduleReconnect(const QString& why, bool streamWorked) {
    if (m_outageSinceUtc.isEmpty()) {
        m_outageSinceUtc = QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss"));
    }
    m_outageWhy = why;
    // Backing off is for a fleetd that answers and refuses. A Subscribe that failed because the
    // channel has just lost fleetd (it still read READY when the stream was opened) goes back to
    // the probe, which subscribes only once the channel is READY again: no burst either way.
    const bool channelLost = m_channel->GetState(false) != GRPC_CHANNEL_READY;
    m_pendingRetryDelay = streamWorked || channelLost ? std::chrono::milliseconds(0) : m_backoff.nextDelay();
    setState(ConnectionState::Reconnecting, reconnectingText());
    if (m_pendingRetryDelay.count() > 0) {
        m_reconnectTimer.start(m_pendingRetryDelay);
    } else {
        resubscribeWhenReachable();
    }
}

void EndpointConnection::resubscribeWhenReachable() {
    if (!m_running || m_reader || m_incompatible) {
        m_probeTimer.stop();
        return;
    }
    // Asking for the state with try_to_connect wakes an idle channel; a channel backing off after
    // a failed attempt keeps its own (jittered) schedule. Only a READY channel gets a Subscribe.
    if (m_channel->GetState(true) == GRPC_CHANNEL_READY) {
        m_probeTimer.stop();
        openStream();
        return;
    }
    if (!m_probeTimer.isActive()) {
        m_probeTimer.start();
        setState(ConnectionState::Reconnecting, reconnectingText());
    }
}

QString EndpointConnection::reconnectingText() const {
    const QString when =
        m_pendingRetryDelay.count() > 0
            ? QStringLiteral("Subscribing again in %1").arg(seconds(m_pendingRetryDelay))
            : QStringLiteral("Reconnecting as soon as it answers (a connection attempt about every %1)")
                  .arg(seconds(m_config.probeInterval));
    return QStringLiteral("%1, since %2 UTC. %3.").arg(m_outageWhy, m_outageSinceUtc, when);
}

void EndpointConnection::checkStaleness() {
    if (m_state != ConnectionState::Live || !m_sinceLastMessage.isValid()) {
        return;
    }
    const auto silent = std::chrono::milliseconds(m_sinceLastMessage.elapsed());
    if (silent > m_config.staleAfter) {
        setState(ConnectionState::Stale,
                 QStringLiteral("No data from fleetd at %1 for %2 (last sequence %3); values are stale")
                     .arg(m_config.target, seconds(silent))
                     .arg(m_lastSequence));
    }
}

void EndpointConnection::setState(ConnectionState state, const QString& text) {
    if (state == m_state && text == m_statusText) {
        return;
    }
    m_state = state;
    m_statusText = text;
    emit stateChanged(state, text);
}

std::vector<v1::SubscribeResponse> EndpointConnection::takeResponses() {
    std::vector<v1::SubscribeResponse> out;
    out.swap(m_ready);
    return out;
}

template <typename Request, typename Response, typename StartFn>
void EndpointConnection::callUnary(const char* rpcName, const Request& request, StartFn start, QObject* context,
                                   std::function<void(RpcOutcome<Response>)> done) {
    QPointer<QObject> receiver(context);
    const QString target = m_config.target;
    const auto deadline = m_config.unaryDeadline;
    UnaryCall<Request, Response>::start(
        start, request, deadline, m_unaryInFlight,
        [this, receiver, done = std::move(done), rpcName, target, deadline](const grpc::Status& status,
                                                                            Response&& response) mutable {
            auto outcome = status.ok() ? RpcOutcome<Response>::success(std::move(response))
                                       : RpcOutcome<Response>::failure(
                                             status.error_code(),
                                             describeFailure(rpcName, target, status.error_code(),
                                                             QString::fromStdString(status.error_message()), deadline));
            // Hop to this object's thread, then to the receiver's, checking it is still alive.
            m_calls.post([receiver, done = std::move(done), outcome = std::move(outcome)]() mutable {
                if (!receiver) {
                    return;
                }
                QMetaObject::invokeMethod(
                    receiver.data(),
                    [done = std::move(done), outcome = std::move(outcome)]() mutable { done(std::move(outcome)); },
                    Qt::AutoConnection);
            });
        });
}

void EndpointConnection::getHistory(const v1::GetHistoryRequest& request, QObject* context,
                                    std::function<void(RpcOutcome<v1::GetHistoryResponse>)> done) {
    callUnary<v1::GetHistoryRequest, v1::GetHistoryResponse>(
        "GetHistory", request,
        [this](grpc::ClientContext* c, const v1::GetHistoryRequest* q, v1::GetHistoryResponse* r, auto* reactor) {
            m_stub->async()->GetHistory(c, q, r, reactor);
        },
        context, std::move(done));
}

void EndpointConnection::listEvents(const v1::ListEventsRequest& request, QObject* context,
                                    std::function<void(RpcOutcome<v1::ListEventsResponse>)> done) {
    callUnary<v1::ListEventsRequest, v1::ListEventsResponse>(
        "ListEvents", request,
        [this](grpc::ClientContext* c, const v1::ListEventsRequest* q, v1::ListEventsResponse* r, auto* reactor) {
            m_stub->async()->ListEvents(c, q, r, reactor);
        },
        context, std::move(done));
}

void EndpointConnection::getTopology(const v1::GetTopologyRequest& request, QObject* context,
                                     std::function<void(RpcOutcome<v1::Topology>)> done) {
    callUnary<v1::GetTopologyRequest, v1::Topology>(
        "GetTopology", request,
        [this](grpc::ClientContext* c, const v1::GetTopologyRequest* q, v1::Topology* r, auto* reactor) {
            m_stub->async()->GetTopology(c, q, r, reactor);
        },
        context, std::move(done));
}

void EndpointConnection::getStepTimeHeatmap(const v1::StepTimeHeatmapRequest& request, QObject* context,
                                            std::function<void(RpcOutcome<v1::StepTimeHeatmap>)> done) {
    callUnary<v1::StepTimeHeatmapRequest, v1::StepTimeHeatmap>(
        "GetStepTimeHeatmap", request,
        [this](grpc::ClientContext* c, const v1::StepTimeHeatmapRequest* q, v1::StepTimeHeatmap* r, auto* reactor) {
            m_stub->async()->GetStepTimeHeatmap(c, q, r, reactor);
        },
        context, std::move(done));
}

void EndpointConnection::getStateAsOf(const v1::AsOfRequest& request, QObject* context,
                                      std::function<void(RpcOutcome<v1::AsOfState>)> done) {
    callUnary<v1::AsOfRequest, v1::AsOfState>(
        "GetStateAsOf", request,
        [this](grpc::ClientContext* c, const v1::AsOfRequest* q, v1::AsOfState* r, auto* reactor) {
            m_stub->async()->GetStateAsOf(c, q, r, reactor);
        },
        context, std::move(done));
}

}  // namespace watchfloor::client
