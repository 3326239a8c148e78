// fleetd: the Watchfloor fleet service. Runs a fleet source (the digital twin or a real site) and
// serves the watchfloor.v1 API until SIGTERM/SIGINT, or runs the twin headless and dumps its events.

#include "BmcSession.h"
#include "CommandLine.h"
#include "DigitalTwin.h"
#include "EventDump.h"
#include "Fail.h"
#include "FleetModel.h"
#include "FleetSpec.h"
#include "FleetdControl.h"
#include "FleetdExporters.h"
#include "FleetdServer.h"
#include "MaintenanceSilencer.h"
#include "Pager.h"
#include "PrometheusSource.h"
#include "RedfishCoolingSource.h"
#include "RedfishServer.h"
#include "ScrapeSource.h"
#include "SlurmFleetOverlay.h"
#include "StoreHistory.h"
#include "TopologyFleetView.h"
#include "TwinControlAdapter.h"

#include <pthread.h>
#include <systemd/sd-daemon.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <memory>
#include <vector>

namespace {

namespace v1 = watchfloor::v1;
using namespace watchfloor::server;

constexpr const char* kVersion = "fleetd " FLEETD_VERSION;

// The way out of main on an error: the message on stderr, the exit status.
int exitWith(int status, const std::string& error) {
    std::cerr << "fleetd: " << error << "\n";
    return status;
}

void logLine(const std::string& line) { std::cerr << "fleetd: " << line << std::endl; }
void logSourceLine(const std::string& line) { std::cerr << "fleetd: source: " << line << std::endl; }
void logControlLine(const std::string& line) { std::cerr << "fleetd: control: " << line << std::endl; }

// SIGTERM and SIGINT, blocked before fleetd starts any thread: every thread inherits the mask, so
// only the main thread takes them (sigwait) and no gRPC, tick or poll thread is interrupted.
sigset_t blockStopSignals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    return signals;
}

// A serving fleetd: its fleet source, what that stands on, and what serves it. stop() is the one
// shutdown path, run after SIGTERM/SIGINT and, from the destructor, on every other way out (a
// part that cannot start): the listeners first (no new calls), then the server (ends the streams
// and the tick), the control plane's thread, Slurm's poller, and last the sources the tick read.
class Fleetd {
public:
    Fleetd() = default;
    Fleetd(const Fleetd&) = delete;
    Fleetd& operator=(const Fleetd&) = delete;
    ~Fleetd() { stop(); }

    // The digital twin (--racks/--regions, --fleet, --scenario).
    [[nodiscard]] bool openTwin(const fleetd::CommandLine& cl, std::string* error);
    // A real site (--source ...): its fleet file, read once for every source; the GPU source and
    // the cooling sources started.
    [[nodiscard]] bool openSite(const fleetd::CommandLine& cl, std::string* error);
    sim::DigitalTwin* twin() { return twin_.get(); }
    // Serves until SIGTERM/SIGINT (blocked in `signals`); fleetd's exit status.
    int serve(const fleetd::CommandLine& cl, const sigset_t& signals);
    void stop();

private:
    std::unique_ptr<sim::DigitalTwin> twin_;
    std::vector<std::unique_ptr<redfish::RedfishCoolingSource>> cooling_;
    std::unique_ptr<PolledSource> gpu_;  // --source scrape or prometheus=URL
    std::vector<std::unique_ptr<redfish::CoolingOverlay>> overlays_;
    std::shared_ptr<const service::ExternalHistory> history_;  // a Prometheus store's
    FleetSource* fleet_ = nullptr;                             // the twin, or the site with its cooling merged in

    std::unique_ptr<control::SlurmReadBack> slurm_;
    std::unique_ptr<fleetd::FleetdControl> control_;
    std::unique_ptr<paging::Pager> pager_;
    std::unique_ptr<paging::MaintenanceSilencer> silencer_;
    std::unique_ptr<service::FleetdServer> server_;
    std::unique_ptr<exporters::ExporterServer> exporters_;
    std::unique_ptr<sim::TwinControlAdapter> bmcRepairs_;  // the twin's steps behind its trays' BMCs
    std::unique_ptr<exporters::RedfishServer> redfish_;
};

bool Fleetd::openTwin(const fleetd::CommandLine& cl, std::string* error) {
    sim::SimConfig config;
    config.seed = cl.seed;
    if (cl.racks) config.racks = *cl.racks;
    if (cl.regions) config.regions = *cl.regions;
    if (cl.racks && !cl.regions) config.regions = std::min(config.regions, config.racks);
    config.fleetFile = cl.fleetFile;
    config.scenarioFile = cl.scenarioFile;
    config.warmStart = cl.warmStart;
    ConfigError configError;
    twin_ = sim::DigitalTwin::create(config, &configError);
    if (!twin_) return fleetd::fail(error, configError.toString());
    fleet_ = twin_.get();
    return true;
}

bool Fleetd::openSite(const fleetd::CommandLine& cl, std::string* error) {
    ConfigError configError;
    const auto spec = readFleetFile(cl.fleetFile, &configError);
    if (!spec) return fleetd::fail(error, configError.toString());
    // No job block: a real source's jobs come from Slurm and take indexes past the topology.
    const v1::Topology topology = FleetModel(*spec, 0).topology();
    // --source redfish=URL (each): the facility's cooling, mapped to racks by the fleet file.
    for (auto& service : cl.sources.redfishServices()) {
        redfish::RedfishSourceOptions options;
        options.http = std::move(service);
        cooling_.push_back(std::make_unique<redfish::RedfishCoolingSource>(
            topology, redfish::CoolingMap(topology, &*spec), std::move(options), logSourceLine));
    }
    if (cl.sources.scrape) {
        // The site's telemetry from its exporters; history, when a store is named too, from the store.
        gpu_ = sources::ScrapeSource::create(topology, cl.sources.scrapeOptions(), logSourceLine, error);
        if (!gpu_) return false;
    } else if (!cl.sources.prometheusUrls.empty()) {
        sources::PrometheusSourceOptions options;
        options.stores = cl.sources.stores();
        options.poll = cl.sources.poll;
        options.storeScrapeInterval = cl.sources.storeScrapeInterval;
        options.lookback = cl.sources.lookback;
        options.slurmJobs = cl.sources.slurmJobs;
        options.slurmConf = cl.sources.slurmConf;
        gpu_ = std::make_unique<sources::PrometheusSource>(topology, options, logSourceLine);
    }
    if (gpu_) {
        gpu_->start();
        if (!cl.sources.prometheusUrls.empty())
            history_ = std::make_shared<sources::StoreHistory>(gpu_->topology(), cl.sources.stores(),
                                                               cl.sources.storeScrapeInterval);
    }
    // Every Redfish service's cooling merged into the GPU source or, with cooling only, the first one.
    fleet_ = gpu_ ? gpu_.get() : static_cast<FleetSource*>(cooling_.front().get());
    for (std::size_t i = gpu_ ? 0 : 1; i < cooling_.size(); ++i) {
        overlays_.push_back(std::make_unique<redfish::CoolingOverlay>(*fleet_, *cooling_[i]));
        fleet_ = overlays_.back().get();
    }
    for (auto& c : cooling_) c->start();
    return true;
}

int Fleetd::serve(const fleetd::CommandLine& cl, const sigset_t& signals) {
    service::FleetdOptions options;
    options.listenAddress = cl.listenAddress;
    options.speed = cl.speed;
    options.serverVersion = kVersion;
    options.statsInterval = cl.statsInterval;
    options.incidents.hold = cl.incidentHold;
    options.metricsListen = cl.metricsListen;
    options.externalHistory = history_;
    // Scraped pages arrive all through an interval: a tick a second would add up to a second to
    // every value's way to the console.
    if (cl.sources.scrape) options.telemetryPeriod = std::chrono::milliseconds(100);
    if (cl.replayLogMiB) options.log.maxBytes = std::size_t(*cl.replayLogMiB) << 20;
    options.statsLog = [](const std::string& line) { std::cerr << line << std::endl; };
    // --scheduler slurm: Slurm's node states over the source's, read once before serving. Slurm
    // knows a real site's trays by their host names (the fleet file's hosts=).
    FleetSource* source = fleet_;
    if (cl.control.scheduler == control::ControlOptions::Scheduler::Slurm) {
        control::SlurmConfig slurmConfig;
        slurmConfig.slurmConf = cl.control.slurmConf;
        slurmConfig.nodeNames = control::slurmNodeNamesOf(fleet_->topology());
        slurm_ = std::make_unique<control::SlurmReadBack>(slurmConfig, *fleet_, control::SlurmReadBack::kDefaultPeriod,
                                                          logLine);
        slurm_->start();
        source = &slurm_->source();
    }
    std::string error;
    control::SlurmNodeStatePoller* slurmStates = slurm_ ? &slurm_->poller() : nullptr;
    control_ =
        twin_ ? fleetd::FleetdControl::create(cl, *twin_, logControlLine, slurmStates, &error)
              : fleetd::FleetdControl::createForRealFleet(cl, fleet_->topology(), logControlLine, slurmStates, &error);
    if (!control_) return exitWith(2, error);
    control_->attachTo(options);
    // --alertmanager: open incidents paged from the pager's own thread; it outlives the server.
    if (!cl.alertmanagerUrl.empty()) {
        paging::PagerOptions paging;
        paging.http.url = cl.alertmanagerUrl;
        paging.speed = cl.speed;
        paging.log = logLine;
        pager_ = std::make_unique<paging::Pager>(source->topology(), std::move(paging));
        options.afterGrouping = [p = pager_.get()](FleetChanges& changes) { p->observe(changes); };
        // Maintenance windows become Alertmanager silences: the ones restored from the audit log
        // now, later ones as they are scheduled or cancelled (before the calendar is shared with
        // the server).
        silencer_ = std::make_unique<paging::MaintenanceSilencer>(*pager_, source->topology());
        auto& calendar = control_->maintenance();
        calendar.setChangeListener([s = silencer_.get()](const v1::MaintenanceWindow& w) { s->onWindow(w); });
        for (const auto& window : calendar.windows()) silencer_->onWindow(window);
    }
    server_ = service::FleetdServer::start(*source, options, &error);
    if (!server_) return exitWith(1, error);
    control_->serving();
    const auto& t = source->topology();
    const auto host = cl.listenAddress.substr(0, cl.listenAddress.rfind(':'));
    std::cerr << kVersion << " listening on " << host << ":" << server_->port() << " | fleet \"" << t.fleet_name()
              << "\": " << t.racks_size() << " racks, " << t.regions_size() << " regions, " << t.gpus_size() << " GPUs"
              << (server_->metricsPort() ? " | metrics on port " + std::to_string(server_->metricsPort()) : "")
              << (pager_ ? " | paging " + pager_->status().target() : "")
              << (twin_ ? " | seed " + std::to_string(cl.seed) + " | speed " + std::to_string(cl.speed) + "x"
                        : " | " + cl.sources.describe())
              << " | run " << server_->runId() << " | " << server_->history().describeRetention() << std::endl;
    std::string announce;
    // --serve-exporters: the twin's state as every tray's dcgm-exporter and node_exporter pages.
    if (!cl.exportersListen.empty()) {
        exporters_ = exporters::startFleetdExporters(
            server_->store(),
            {cl.exportersListen, cl.exportersConfigDir, cl.exportersScrapeInterval, cl.exportersBlankSentinels},
            &announce, &error);
        if (!exporters_) return exitWith(1, error);
        logLine(announce);
    }
    // --serve-redfish: the twin's cooling as its CDUs' Redfish service, and every tray's BMC, whose
    // resets are the twin's own break/fix steps (HTTP threads wait for the twin's tick, never the
    // tick thread itself).
    if (!cl.redfishListen.empty()) {
        exporters::TrayBmcOptions bmcs;
        if (twin_) {
            bmcRepairs_ = std::make_unique<sim::TwinControlAdapter>(*twin_, fleetd::twinActionTimeout(cl.speed));
            bmcs.repairs = bmcRepairs_.get();
        }
        if (!cl.redfishCredentialsFile.empty()) {
            const auto credentials = repair::readBmcCredentials(cl.redfishCredentialsFile, &error);
            if (!credentials) return exitWith(2, error);
            bmcs.user = credentials->user;
            bmcs.password = credentials->password;
        }
        redfish_ =
            exporters::startFleetdRedfish(server_->store(), cl.fleetFile, cl.redfishListen, &announce, &error, bmcs);
        if (!redfish_) return exitWith(1, error);
        logLine(announce);
    }

    // Under systemd (Type=notify, NOTIFY_SOCKET set) the unit counts as started only now, when
    // every listener above answers; elsewhere sd_notify does nothing.
    sd_notifyf(0, "READY=1\nSTATUS=listening on %s:%d", host.c_str(), server_->port());
    int signal = 0;
    sigwait(&signals, &signal);
    sd_notify(0, "STOPPING=1\nSTATUS=shutting down");
    std::cerr << "fleetd: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << " received, shutting down" << std::endl;
    stop();
    std::cerr << "fleetd: stopped" << std::endl;
    return 0;
}

void Fleetd::stop() {
    if (redfish_) redfish_->stop();
    if (exporters_) exporters_->stop();
    if (server_) server_->shutdown();
    if (control_) control_->stop();
    if (slurm_) slurm_->stop();
    if (gpu_) gpu_->stop();
    for (auto& c : cooling_) c->stop();
}

}  // namespace

int main(int argc, char** argv) {
    fleetd::CommandLine cl;
    std::string error;
    if (!fleetd::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc), &cl, &error)) {
        std::cerr << "fleetd: " << error << "\n\n" << fleetd::usageText();
        return 2;
    }
    switch (cl.mode) {
    case fleetd::CommandLine::Mode::Help: std::cout << fleetd::usageText(); return 0;
    case fleetd::CommandLine::Mode::Version: std::cout << kVersion << "\n"; return 0;
    case fleetd::CommandLine::Mode::DumpEvents: {
        Fleetd headless;
        if (!headless.openTwin(cl, &error)) return exitWith(1, error);
        sim::DumpOptions dump;
        dump.duration = *cl.simDuration;
        dump.path = cl.dumpEventsPath;
        dump.incidents.hold = cl.incidentHold;
        if (!sim::dumpEvents(*headless.twin(), dump, &error)) return exitWith(1, error);
        return 0;
    }
    case fleetd::CommandLine::Mode::Serve: break;
    }
    const sigset_t signals = blockStopSignals();
    Fleetd serving;
    if (!(cl.sources.realSource() ? serving.openSite(cl, &error) : serving.openTwin(cl, &error)))
        return exitWith(1, error);
    return serving.serve(cl, signals);
}
