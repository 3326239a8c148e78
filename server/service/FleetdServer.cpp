#include "FleetdServer.h"

#include "MetricsEndpoint.h"
#include "TelemetryService.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cstdio>
#include <random>

namespace watchfloor::server::service {

namespace {
constexpr int kMaxRequestBytes = 4 << 20;
// Snapshots at 1,800 racks with full topology reach ~200 MB; deltas stay under 2 MB.
constexpr int kMaxResponseBytes = 512 << 20;
// Clients may ping every 10 s (gRFC A8 minimum); more often earns too_many_pings.
constexpr int kMinClientPingIntervalMs = 10'000;
constexpr int kServerKeepaliveMs = 30'000;
constexpr int kKeepaliveTimeoutMs = 10'000;
}  // namespace

// Work done by the tick thread since the last statistics line.
struct FleetdServer::TickCost {
    std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
    std::uint64_t ticks = 0;
    std::uint64_t samples = 0;
    std::chrono::duration<double> sourceTime{0};
    std::chrono::duration<double> storeTime{0};
    std::chrono::duration<double> incidentTime{0};
};

std::string newRunId() {
    std::random_device random;
    std::uniform_int_distribution<std::uint64_t> any;
    std::mt19937_64 mix(random() ^ std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
    char text[40];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(any(mix)),
                  static_cast<unsigned long long>(any(mix)));
    return text;
}

FleetdServer::FleetdServer(FleetSource& source, FleetdOptions options)
    : source_(source), options_(std::move(options)) {}

std::unique_ptr<FleetdServer> FleetdServer::start(FleetSource& source, FleetdOptions options, std::string* error) {
    std::unique_ptr<FleetdServer> self(new FleetdServer(source, std::move(options)));
    const FleetdOptions& o = self->options_;
    self->store_ = std::make_unique<FleetStateStore>(source.topology(), o.store);
    self->incidents_ = std::make_unique<incidents::FleetIncidents>(source.topology(), o.incidents);
    self->incidents_->setMaintenance(o.maintenance);
    self->incidents_->setLifecycle(o.lifecycle);
    LinkHealthOptions links;
    links.countersOnChange = !source.countersPeriodic();
    self->links_ = std::make_unique<LinkHealthKeeper>(source.topology(), links);
    self->links_->setLadder(o.linkLadder);
    NvlinkHealthOptions nvlinks;
    nvlinks.countersOnChange = links.countersOnChange;
    self->nvlinks_ = std::make_unique<NvlinkHealthKeeper>(source.topology(), nvlinks);
    self->log_ = std::make_unique<ReplayLog>(o.log);
    self->history_ = std::make_unique<HistoryStore>(self->store_->index(), o.history);
    self->history_->setExternal(o.externalHistory);
    ServerIdentity identity{newRunId(), o.serverVersion, o.speed};
    identity.telemetryPeriodMs = source.telemetryPeriod().count();
    identity.countersPeriodic = source.countersPeriodic();
    self->pump_ = std::make_unique<SubscriptionPump>(*self->store_, *self->log_, std::move(identity), o.pump);
    self->service_ = std::make_unique<TelemetryService>(*self->store_, *self->log_, *self->history_, *self->pump_);

    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    builder.AddListeningPort(o.listenAddress, o.credentials ? o.credentials : grpc::InsecureServerCredentials(),
                             &self->port_);
    builder.RegisterService(self->service_.get());
    for (grpc::Service* extra : o.extraServices) builder.RegisterService(extra);
    builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
    builder.SetMaxSendMessageSize(kMaxResponseBytes);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kMinClientPingIntervalMs);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kServerKeepaliveMs);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
    grpc::ResourceQuota quota("fleetd");
    quota.Resize(o.grpcMemoryBytes);
    builder.SetResourceQuota(quota);
    self->server_ = builder.BuildAndStart();
    if (!self->server_ || self->port_ == 0) {
        *error = "cannot listen on " + o.listenAddress + " (address in use or not local?)";
        self->pump_->stop();
        return nullptr;
    }
    if (auto* health = self->server_->GetHealthCheckService()) {
        health->SetServingStatus(true);
        health->SetServingStatus(watchfloor::v1::TelemetryService::service_full_name(), true);
    }
    if (!o.metricsListen.empty()) {
        self->metrics_ = MetricsEndpoint::start(
            o.metricsListen, [s = self.get()] { return s->renderMetrics(); }, error);
        if (!self->metrics_) {
            self->server_->Shutdown();
            self->pump_->stop();
            return nullptr;
        }
    }
    TickCost first;
    self->tick(first);
    self->tickThread_ = std::thread([s = self.get()] { s->tickLoop(); });
    return self;
}

FleetdServer::~FleetdServer() { shutdown(); }

void FleetdServer::reportStats(TickCost& cost) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - cost.since).count();
    if (seconds <= 0 || !options_.statsLog) return;
    char line[400];
    std::snprintf(
        line, sizeof line,
        "fleetd stats: %.2f ticks/s, %.0f samples/s, source %.1f ms/tick, incidents %.2f ms/tick, "
        "store %.1f ms/tick, %u open incidents, %zu subscribers, replay log %zu deltas / %.1f MB, sequence %llu",
        double(cost.ticks) / seconds, double(cost.samples) / seconds,
        cost.ticks ? 1e3 * cost.sourceTime.count() / double(cost.ticks) : 0.0,
        cost.ticks ? 1e3 * cost.incidentTime.count() / double(cost.ticks) : 0.0,
        cost.ticks ? 1e3 * cost.storeTime.count() / double(cost.ticks) : 0.0, store_->openIncidents(),
        pump_->streamCount(), log_->size(), double(log_->bytes()) / (1 << 20),
        static_cast<unsigned long long>(store_->lastSequence()));
    options_.statsLog(line);
    cost = TickCost{};
}

void FleetdServer::tick(TickCost& cost) {
    using Clock = std::chrono::steady_clock;
    FleetChanges& changes = changes_;  // reused: keeps the capacity of 1.3 M samples
    changes.clear();
    const UnixTime until = source_.now() + options_.telemetryPeriod;
    changes.time = until;
    const auto began = Clock::now();
    source_.advanceTo(until, changes);
    if (options_.addChanges) options_.addChanges(changes);
    const auto advanced = Clock::now();
    // Incidents name their member events: ids first, then grouping, then the store applies both.
    store_->numberEvents(changes);
    incidents_->apply(changes);
    links_->observe(changes);
    nvlinks_->observe(changes);
    if (options_.afterGrouping) options_.afterGrouping(changes);
    const auto grouped = Clock::now();
    auto deltas = store_->apply(changes, history_.get());
    if (options_.eventTap && !deltas.empty())
        for (const auto& event : deltas.front()->events()) options_.eventTap(event);
    log_->append(deltas);
    pump_->wake();
    ++ticks_;
    cost.sourceTime += advanced - began;
    cost.incidentTime += grouped - advanced;
    cost.storeTime += Clock::now() - grouped;
    ++cost.ticks;
    cost.samples += changes.samples.size();
    samplesTotal_ += changes.samples.size();
}

std::uint64_t FleetdServer::eventsJournaled() const {
    const std::uint64_t last = store_->journal().lastId();
    return last == 0 ? 0 : last - (options_.store.firstEventId - 1);
}

int FleetdServer::metricsPort() const { return metrics_ ? metrics_->port() : 0; }

// MTTR as operators read it (fleet.proto RepairStats): fault to back in production, over the
// repairs closed within the window, split by who repaired; the outcome mix by the rung that fixed.
void FleetdServer::renderRepairMetrics(const watchfloor::v1::RepairStats& r, std::string& out) {
    auto family = [&](const char* name, const char* type, const char* help) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    };
    auto sample = [&](const std::string& series, double value) {
        char number[64];
        std::snprintf(number, sizeof number, "%.17g", value);
        out += series + " " + number + "\n";
    };
    family("fleetd_repair_cases_open", "gauge", "Repair cases open (triage or burn-in).");
    sample("fleetd_repair_cases_open", r.open_cases());
    family("fleetd_repair_out_of_service_gpu_hours", "gauge", "GPU-hours the open repair cases have kept out so far.");
    sample("fleetd_repair_out_of_service_gpu_hours", r.out_of_service_gpu_hours());
    family("fleetd_repair_window_seconds", "gauge", "The window the repair counts and MTTR are over.");
    sample("fleetd_repair_window_seconds", double(r.window_s()));
    family("fleetd_repair_mttr_seconds", "gauge",
           "Mean time from fault to back in production over the repairs fixed within the window (0 = none).");
    sample("fleetd_repair_mttr_seconds{repair=\"all\"}", r.mttr_s());
    sample("fleetd_repair_mttr_seconds{repair=\"automated\"}", r.mttr_automated_s());
    sample("fleetd_repair_mttr_seconds{repair=\"manual\"}", r.mttr_manual_s());
    family("fleetd_repairs", "gauge", "Repair cases closed within the window, by outcome.");
    sample("fleetd_repairs{outcome=\"reset\"}", r.fixed_by_reset());
    sample("fleetd_repairs{outcome=\"reboot\"}", r.fixed_by_reboot());
    sample("fleetd_repairs{outcome=\"power_cycle\"}", r.fixed_by_power_cycle());
    sample("fleetd_repairs{outcome=\"diagnostics\"}", r.fixed_by_diagnostics());
    sample("fleetd_repairs{outcome=\"rma\"}", r.sent_to_rma());
    family("fleetd_repairs_fixed", "gauge", "Repair cases fixed within the window, by who repaired.");
    sample("fleetd_repairs_fixed{repair=\"automated\"}", r.fixed_automated());
    sample("fleetd_repairs_fixed{repair=\"manual\"}", r.fixed_manual());
}

// The link watch's fleet-wide counts (fleet.proto LinkHealthSummary).
void FleetdServer::renderLinkMetrics(const watchfloor::v1::LinkHealthSummary& s, std::string& out) {
    auto gauge = [&](const char* name, const char* help, double value) {
        char number[64];
        std::snprintf(number, sizeof number, "%.17g", value);
        out +=
            std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + " " + number + "\n";
    };
    gauge("fleetd_links", "Rail links fleetd judges from their port counters.", s.links());
    gauge("fleetd_links_judged", "Rail links with a full BER window (3e15 bits).", s.judged());
    gauge("fleetd_links_at_risk", "Rail links forecast to cross the Error line or go down within 6 h.", s.at_risk());
    gauge("fleetd_links_warning", "Rail links whose symbol BER is provably over the Warning line.", s.warning());
    gauge("fleetd_links_error", "Rail links whose symbol BER is provably over the Error line.", s.error());
    gauge("fleetd_links_at_stake_gpu_hours", "GPU-hours unplanned failures of the links at risk would cost their jobs.",
          s.at_stake_gpu_hours());
}

std::string FleetdServer::renderMetrics() const {
    std::string out;
    auto metric = [&](const char* name, const char* type, const char* help, double value) {
        char line[96];
        std::snprintf(line, sizeof line, "%.17g", value);
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " + line +
               "\n";
    };
    metric("fleetd_ticks_total", "counter", "Telemetry periods applied from the fleet source.", double(ticks_));
    metric("fleetd_samples_total", "counter", "Samples applied from the fleet source.", double(samplesTotal_));
    metric("fleetd_events_total", "counter", "Events journaled (ids assigned).", double(eventsJournaled()));
    metric("fleetd_sequence", "gauge", "Latest delta sequence.", double(store_->lastSequence()));
    metric("fleetd_subscribers", "gauge", "Open Subscribe streams.", double(pump_->streamCount()));
    metric("fleetd_replay_log_deltas", "gauge", "Deltas held for resuming streams.", double(log_->size()));
    metric("fleetd_replay_log_bytes", "gauge", "Bytes accounted to the replay log.", double(log_->bytes()));
    metric("fleetd_sim_speed", "gauge", "Simulated seconds per wall second.", options_.speed);
    metric("fleetd_incidents_open", "gauge", "Incidents not resolved.", double(store_->openIncidents()));
    if (const auto repairs = store_->repairs()) renderRepairMetrics(*repairs, out);
    if (const auto links = store_->linkSummary()) renderLinkMetrics(*links, out);
    return out;
}

void FleetdServer::tickLoop() {
    using Clock = std::chrono::steady_clock;
    TickCost cost;
    const auto wallPeriod = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(options_.telemetryPeriod.count() / std::max(options_.speed, 1e-6)));
    auto next = Clock::now() + wallPeriod;  // start() ran the first tick
    std::unique_lock lock(tickMu_);
    while (!stopTicking_) {
        if (tickWake_.wait_until(lock, next, [this] { return stopTicking_; })) break;
        lock.unlock();
        tick(cost);
        if (options_.statsInterval.count() > 0 && Clock::now() - cost.since >= options_.statsInterval)
            reportStats(cost);
        next += wallPeriod;
        const auto now = Clock::now();
        if (now > next + std::chrono::seconds(1)) next = now;  // behind: run flat out, no catch-up burst
        lock.lock();
    }
}

void FleetdServer::shutdown() {
    {
        std::lock_guard lock(tickMu_);
        if (shutDown_) return;
        shutDown_ = true;
        stopTicking_ = true;
        tickWake_.notify_all();
    }
    if (tickThread_.joinable()) tickThread_.join();
    metrics_.reset();
    if (options_.beforeShutdown) options_.beforeShutdown();
    pump_->finishAll(grpc::Status(grpc::StatusCode::UNAVAILABLE, "fleetd shutting down"));
    if (server_) {
        if (auto* health = server_->GetHealthCheckService()) health->Shutdown();
        // Streams whose client stopped reading cannot finish politely; the deadline cancels them.
        server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(3));
        server_->Wait();
    }
    pump_->stop();
}

}  // namespace watchfloor::server::service
