#pragma once
// One fleetd endpoint: a gRPC channel, the Subscribe stream with resume and reconnect, the
// connection state the operator sees, and the unary queries (history, events, topology).
//
// Lives on a Qt thread (normally the GUI thread) and never blocks it on the network: the stream
// is read by gRPC's callback threads (SubscribeStreamReader), which hand messages over in
// batches; unary calls are asynchronous with a deadline and report back on the caller's thread.
//
// The connection validates the stream before anyone sees it: it refuses a server of another API
// major version (state Incompatible), drops duplicate deltas, and on a sequence gap re-subscribes
// for a fresh snapshot. Consumers (FleetStore) pull validated messages with takeResponses() when
// responsesReady() fires.

#include "ChannelSecurity.h"
#include "ConnectionState.h"
#include "InFlightCalls.h"
#include "QueuedCalls.h"
#include "ReconnectBackoff.h"
#include "RpcOutcome.h"

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace watchfloor::client {

class SubscribeStreamReader;

struct EndpointConfig {
    QString target;  // "host:port" of fleetd
    QString label;   // short name for status and name qualification; default target
    watchfloor::v1::DetailLevel detail = watchfloor::v1::DETAIL_LEVEL_STANDARD;
    QStringList regionNames;  // Subscribe filters; empty = everything
    QStringList rackNames;
    std::chrono::milliseconds staleAfter{5000};  // silence (not even a heartbeat) => Stale
    std::chrono::milliseconds unaryDeadline{5000};
    // gRFC A8 clamps client keepalive to >= 10 s; fleetd accepts pings every 10 s, so 15 s keeps
    // a margin against ping strikes (too_many_pings GOAWAY).
    std::chrono::milliseconds keepaliveTime{15000};
    std::chrono::milliseconds keepaliveTimeout{10000};
    // While fleetd cannot be reached the console never re-subscribes: it watches the channel,
    // whose connection attempts (a TCP connect, no RPC) come at most this far apart, jittered
    // ±20 % by gRPC, and subscribes once the channel is READY. Live again within about this long
    // after fleetd listens, however long it was away.
    std::chrono::milliseconds probeInterval{1000};
    // Between re-subscribes to a fleetd that can be reached but failed the stream (an error
    // answer, or a stream that ended before any data): capped, jittered exponential backoff.
    ReconnectBackoff::Policy backoff;
    ChannelSecurity security;  // TLS / mTLS / bearer token; the same for the control channel

    QString displayLabel() const { return label.isEmpty() ? target : label; }
};

class EndpointConnection : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EndpointConnection)

public:
    struct Stats {
        quint64 messages = 0;
        quint64 snapshots = 0;
        quint64 deltas = 0;
        quint64 heartbeats = 0;
        quint64 duplicateDeltasDropped = 0;
        quint64 sequenceGaps = 0;  // each one triggered a resync
        quint64 streamsOpened = 0;
        quint64 resumedWithoutSnapshot = 0;  // reconnects the server served from its replay log
    };

    explicit EndpointConnection(EndpointConfig config, QObject* parent = nullptr);
    // Uses the given channel instead of dialling config.target (in-process fake servers in tests).
    EndpointConnection(EndpointConfig config, std::shared_ptr<grpc::Channel> channel, QObject* parent = nullptr);
    // Cancels the stream and every unary call, and waits for their last callbacks.
    ~EndpointConnection() override;

    void start();
    void stop();
    // Drops the current stream and re-subscribes at once, resuming after lastSequence().
    void reconnectNow();
    // Forgets the resume point so the next stream starts with a snapshot.
    void requestResync();

    const EndpointConfig& config() const { return m_config; }
    ConnectionState state() const { return m_state; }
    // One line an operator can act on, e.g. "Cannot reach fleetd at 10.0.0.5:7443 (connection
    // refused). Retrying in 3.1 s (attempt 4)."
    QString statusText() const { return m_statusText; }
    const Stats& stats() const { return m_stats; }
    quint64 lastSequence() const { return m_lastSequence; }
    QString runId() const { return m_runId; }
    QString serverVersion() const { return m_serverVersion; }
    // The delay the pending re-subscribe waits (zero when none is scheduled).
    std::chrono::milliseconds pendingRetryDelay() const { return m_pendingRetryDelay; }
    // Waiting for the channel to reach fleetd before re-subscribing (see probeInterval).
    bool isWaitingForChannel() const { return m_probeTimer.isActive(); }

    // Validated messages since the last call, in stream order.
    std::vector<watchfloor::v1::SubscribeResponse> takeResponses();

    // Unary queries. `done` runs on `context`'s thread, unless `context` died first.
    void getHistory(const watchfloor::v1::GetHistoryRequest& request, QObject* context,
                    std::function<void(RpcOutcome<watchfloor::v1::GetHistoryResponse>)> done);
    void listEvents(const watchfloor::v1::ListEventsRequest& request, QObject* context,
                    std::function<void(RpcOutcome<watchfloor::v1::ListEventsResponse>)> done);
    void getTopology(const watchfloor::v1::GetTopologyRequest& request, QObject* context,
                     std::function<void(RpcOutcome<watchfloor::v1::Topology>)> done);
    void getStepTimeHeatmap(const watchfloor::v1::StepTimeHeatmapRequest& request, QObject* context,
                            std::function<void(RpcOutcome<watchfloor::v1::StepTimeHeatmap>)> done);
    // Rewind: the fleet as it was at request.as_of_unix_ms (fleet.proto, AsOfRequest).
    void getStateAsOf(const watchfloor::v1::AsOfRequest& request, QObject* context,
                      std::function<void(RpcOutcome<watchfloor::v1::AsOfState>)> done);

signals:
    void stateChanged(watchfloor::client::ConnectionState state, const QString& statusText);
    void responsesReady();

private:
    void openStream();
    void closeStream();
    void drainStream(quint64 generation);
    void onStreamFinished(quint64 generation, grpc::StatusCode code, const QString& message);
    // `streamWorked`: the stream delivered data for a while before it ended; the console then
    // goes straight to watching the channel instead of waiting a backoff delay first.
    void scheduleReconnect(const QString& why, bool streamWorked);
    void resubscribeWhenReachable();
    QString reconnectingText() const;
    void checkStaleness();
    bool acceptMessage(watchfloor::v1::SubscribeResponse& message);
    void markIncompatible(const QString& why);
    void setState(ConnectionState state, const QString& text);
    QString liveText() const;

    template <typename Request, typename Response, typename StartFn>
    void callUnary(const char* rpcName, const Request& request, StartFn start, QObject* context,
                   std::function<void(RpcOutcome<Response>)> done);

    EndpointConfig m_config;
    std::shared_ptr<grpc::Channel> m_channel;
    std::unique_ptr<watchfloor::v1::TelemetryService::Stub> m_stub;

    std::shared_ptr<SubscribeStreamReader> m_reader;
    quint64 m_generation = 0;  // identifies the current stream; older callbacks are ignored
    bool m_running = false;
    bool m_streamHadMessage = false;
    bool m_incompatible = false;
    bool m_resyncRequested = false;

    ConnectionState m_state = ConnectionState::Disconnected;
    QString m_statusText;
    Stats m_stats;
    quint64 m_lastSequence = 0;
    QString m_runId;
    QString m_serverVersion;

    ReconnectBackoff m_backoff;
    QTimer m_reconnectTimer;
    std::chrono::milliseconds m_pendingRetryDelay{0};
    QTimer m_probeTimer;       // polls the channel's state (no network) while fleetd is away
    QString m_outageWhy;       // the failure that began the outage
    QString m_outageSinceUtc;  // wall clock "HH:mm:ss" of it; empty while data flows
    QTimer m_staleTimer;
    QElapsedTimer m_sinceLastMessage;
    QElapsedTimer m_streamOpened;

    std::vector<watchfloor::v1::SubscribeResponse> m_ready;

    InFlightCalls m_unaryInFlight;
    QueuedCalls m_calls{this};  // what gRPC threads hand to this object's thread
};

// The channel the console dials with: keepalive (permitted without calls) so a black-holed fleetd
// is detected, connection attempts at most config.probeInterval apart, a receive limit sized for full-fleet snapshots,
// and config.security. A security setting makeChannel() refuses (a token in plaintext to a remote host) dials without
// the token and warns: telemetry needs no token, and the app refuses such a configuration before it gets here.
std::shared_ptr<grpc::Channel> makeTelemetryChannel(const EndpointConfig& config);

}  // namespace watchfloor::client
