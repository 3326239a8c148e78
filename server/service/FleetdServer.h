#pragma once
// A running fleetd around one FleetSource: the tick thread (source -> store -> log -> pump),
// the history, and the gRPC server with TelemetryService, grpc.health.v1 and reflection.

#include "FleetIncidents.h"
#include "FleetSource.h"
#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "LinkHealthKeeper.h"
#include "NvlinkHealthKeeper.h"
#include "ReplayLog.h"
#include "SubscriptionPump.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class Server;
class ServerCredentials;
class Service;
}  // namespace grpc

namespace watchfloor::server::service {

class TelemetryService;
class MetricsEndpoint;

struct FleetdOptions {
    std::string listenAddress = "127.0.0.1:50551";  // port 0 picks a free port
    double speed = 1.0;                             // simulated seconds per wall second
    std::chrono::milliseconds telemetryPeriod{1000};
    std::string serverVersion = "fleetd";
    StoreLimits store;
    ReplayLogLimits log;
    HistoryPlan history;
    PumpOptions pump;
    incidents::GrouperOptions incidents;  // hold time and bounds of incident grouping
    // Optional, must outlive the server: maintenance windows (held back from grouping, streamed)
    // and the incidents' lifecycle (operators' steps over the grouping), both fed by fleetd's
    // ControlService; null = grouping alone.
    incidents::MaintenanceCalendar* maintenance = nullptr;
    incidents::IncidentLifecycle* lifecycle = nullptr;
    // Optional, must outlive the server: the link ladder's stages (fleetd's ControlService moves
    // them), which the link keeper lists with each link's health.
    LinkLadderBook* linkLadder = nullptr;
    std::size_t grpcMemoryBytes = std::size_t(1) << 30;  // ResourceQuota
    // Periodic one-line statistics (rates, subscribers, log size, tick cost); 0 = none.
    std::chrono::milliseconds statsInterval{0};
    std::function<void(const std::string&)> statsLog;  // where statistics lines go
    std::string metricsListen;                         // HOST:PORT for Prometheus GET /metrics; empty = none
    // GetHistory answered from the site's metrics store (real sources); null = fleetd's own.
    std::shared_ptr<const ExternalHistory> externalHistory;

    // Hooks for services beside telemetry (fleetd's ControlService):
    // the listening port's transport (TLS applies to every service on it); null = plaintext.
    std::shared_ptr<grpc::ServerCredentials> credentials;
    // Served on the same port; must outlive the server.
    std::vector<grpc::Service*> extraServices;
    // On the tick thread after the source reported a tick: adds fleetd's own events (the
    // automation breaker's alert) to what the store applies. Must not block.
    std::function<void(FleetChanges&)> addChanges;
    // Every event as journaled (id assigned), on the tick thread, before any console can see it.
    // Must not block: the tick thread is what applies queued twin actions.
    std::function<void(const watchfloor::v1::Event&)> eventTap;
    // On the tick thread after grouping, before the store applies the tick: sees the incidents
    // opened, changed or resolved (changes.incidents) and may add fleetd's pager status. Must
    // not block (the pager hands its work to its own thread).
    std::function<void(FleetChanges&)> afterGrouping;
    // Called once at shutdown before the gRPC server stops, e.g. to end long-lived streams.
    std::function<void()> beforeShutdown;
};

class FleetdServer {
public:
    // Runs the first tick (so the first snapshot has values and the history its plan), then
    // serves and ticks. Returns nullptr and fills `error` when it cannot listen.
    [[nodiscard]] static std::unique_ptr<FleetdServer> start(FleetSource& source, FleetdOptions options,
                                                             std::string* error);
    ~FleetdServer();

    int port() const { return port_; }
    int metricsPort() const;            // 0 without a metrics endpoint
    std::string renderMetrics() const;  // Prometheus text exposition
    const std::string& runId() const { return pump_->identity().runId; }
    const HistoryStore& history() const { return *history_; }
    const FleetStateStore& store() const { return *store_; }
    std::uint64_t ticks() const { return ticks_; }
    std::uint32_t openIncidents() const { return store_->openIncidents(); }
    std::uint64_t eventsJournaled() const;  // this run
    std::size_t subscriberCount() const { return pump_->streamCount(); }

    // Ends every stream with UNAVAILABLE "fleetd shutting down", stops ticking and serving.
    void shutdown();

private:
    static void renderRepairMetrics(const watchfloor::v1::RepairStats& repairs, std::string& out);
    static void renderLinkMetrics(const watchfloor::v1::LinkHealthSummary& links, std::string& out);
    FleetdServer(FleetSource& source, FleetdOptions options);
    void tickLoop();
    struct TickCost;
    void tick(TickCost& cost);
    void reportStats(TickCost& cost);

    FleetSource& source_;
    FleetdOptions options_;
    std::unique_ptr<FleetStateStore> store_;
    std::unique_ptr<incidents::FleetIncidents> incidents_;  // tick thread
    std::unique_ptr<LinkHealthKeeper> links_;               // tick thread
    std::unique_ptr<NvlinkHealthKeeper> nvlinks_;           // tick thread
    std::unique_ptr<ReplayLog> log_;
    std::unique_ptr<HistoryStore> history_;
    std::unique_ptr<SubscriptionPump> pump_;
    std::unique_ptr<TelemetryService> service_;
    std::unique_ptr<grpc::Server> server_;
    std::unique_ptr<MetricsEndpoint> metrics_;
    std::atomic<std::uint64_t> samplesTotal_{0};
    int port_ = 0;

    std::mutex tickMu_;
    std::condition_variable tickWake_;
    bool stopTicking_ = false;
    bool shutDown_ = false;
    std::atomic<std::uint64_t> ticks_{0};
    FleetChanges changes_;  // tick thread (the first tick: start())
    std::thread tickThread_;
};

std::string newRunId();

}  // namespace watchfloor::server::service
