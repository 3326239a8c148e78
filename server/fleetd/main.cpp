// fleetd: the Watchfloor fleet service. Runs a fleet source (the digital twin) and serves the
// watchfloor.v1 API until SIGTERM/SIGINT, or runs the twin headless and dumps its events.

#include "CommandLine.h"
#include "DigitalTwin.h"
#include "EventDump.h"
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

#include <pthread.h>
#include <systemd/sd-daemon.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

namespace {

namespace v1 = watchfloor::v1;
using namespace watchfloor::server;

constexpr const char* kVersion = "fleetd " FLEETD_VERSION;

// A real site's fleet, from its fleet file (a message on stderr when it cannot be read). No job
// block: a real source's jobs come from Slurm and take indexes past the topology.
std::optional<watchfloor::v1::Topology> siteTopology(const fleetd::CommandLine& cl) {
    ConfigError error;
    auto spec = readFleetFile(cl.fleetFile, &error);
    if (!spec) {
        std::cerr << "fleetd: " << error.toString() << "\n";
        return std::nullopt;
    }
    return FleetModel(*spec, 0).topology();
}

void logSourceLine(const std::string& line) { std::cerr << "fleetd: source: " << line << std::endl; }

// --source prometheus=URL: the site's telemetry from its store.
std::unique_ptr<sources::PrometheusSource> makePrometheusSource(const fleetd::CommandLine& cl) {
    auto topology = siteTopology(cl);
    if (!topology) return nullptr;
    sources::PrometheusSourceOptions options;
    options.stores = cl.sources.stores();
    options.poll = cl.sources.poll;
    options.storeScrapeInterval = cl.sources.storeScrapeInterval;
    options.lookback = cl.sources.lookback;
    options.slurmJobs = cl.sources.slurmJobs;
    options.slurmConf = cl.sources.slurmConf;
    return std::make_unique<sources::PrometheusSource>(std::move(*topology), options, logSourceLine);
}

// --source scrape: the site's telemetry from its exporters.
std::unique_ptr<sources::ScrapeSource> makeScrapeSource(const fleetd::CommandLine& cl) {
    auto topology = siteTopology(cl);
    if (!topology) return nullptr;
    std::string problem;
    auto source =
        sources::ScrapeSource::create(std::move(*topology), cl.sources.scrapeOptions(), logSourceLine, &problem);
    if (!source) std::cerr << "fleetd: " << problem << "\n";
    return source;
}

// --source redfish=URL (each): the facility's cooling, mapped to racks by the fleet file.
std::vector<std::unique_ptr<redfish::RedfishCoolingSource>> makeRedfishSources(const fleetd::CommandLine& cl) {
    std::vector<std::unique_ptr<redfish::RedfishCoolingSource>> result;
    ConfigError error;
    auto spec = readFleetFile(cl.fleetFile, &error);
    if (!spec) {
        std::cerr << "fleetd: " << error.toString() << "\n";
        return result;
    }
    const auto topology = FleetModel(*spec, 0).topology();
    for (auto& service : cl.sources.redfishServices()) {
        redfish::RedfishSourceOptions options;
        options.http = std::move(service);
        result.push_back(std::make_unique<redfish::RedfishCoolingSource>(
            topology, redfish::CoolingMap(topology, &*spec), std::move(options), logSourceLine));
    }
    return result;
}

// The GPU source (or, with cooling only, the first Redfish service) with every Redfish service's
// cooling merged in, started; the sources stop when it goes.
class RealFleet {
public:
    bool start(FleetSource* gpu, std::vector<std::unique_ptr<redfish::RedfishCoolingSource>> cooling) {
        cooling_ = std::move(cooling);
        FleetSource* source = gpu ? gpu : cooling_.empty() ? nullptr : cooling_.front().get();
        if (!source) return false;
        for (std::size_t i = gpu ? 0 : 1; i < cooling_.size(); ++i) {
            overlays_.push_back(std::make_unique<redfish::CoolingOverlay>(*source, *cooling_[i]));
            source = overlays_.back().get();
        }
        for (auto& c : cooling_) c->start();
        top_ = source;
        return true;
    }
    ~RealFleet() {
        for (auto& c : cooling_) c->stop();
    }
    FleetSource& source() { return *top_; }

private:
    std::vector<std::unique_ptr<redfish::RedfishCoolingSource>> cooling_;
    std::vector<std::unique_ptr<redfish::CoolingOverlay>> overlays_;
    FleetSource* top_ = nullptr;
};

int serve(FleetSource& fleet, sim::DigitalTwin* twin, const fleetd::CommandLine& cl,
          std::shared_ptr<const service::ExternalHistory> history = nullptr) {
    // Signals are taken synchronously by the main thread only: every thread started below
    // inherits this mask, so no gRPC or tick thread is interrupted by SIGTERM.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    service::FleetdOptions options;
    options.listenAddress = cl.listenAddress;
    options.speed = cl.speed;
    options.serverVersion = kVersion;
    options.statsInterval = cl.statsInterval;
    options.incidents.hold = cl.incidentHold;
    options.metricsListen = cl.metricsListen;
    options.externalHistory = std::move(history);
    // Scraped pages arrive all through an interval: a tick a second would add up to a second to
    // every value's way to the console.
    if (cl.sources.scrape) options.telemetryPeriod = std::chrono::milliseconds(100);
    if (cl.replayLogMiB) options.log.maxBytes = std::size_t(*cl.replayLogMiB) << 20;
    options.statsLog = [](const std::string& line) { std::cerr << line << std::endl; };
    // --scheduler slurm: Slurm's node states over the twin's, read once before serving.
    // --scheduler slurm: Slurm's node states over the source's, read once before serving. Slurm
    // knows a real site's trays by their host names (the fleet file's hosts=).
    std::unique_ptr<control::SlurmReadBack> slurm;
    FleetSource* source = &fleet;
    if (cl.control.scheduler == control::ControlOptions::Scheduler::Slurm) {
        control::SlurmConfig slurmConfig;
        slurmConfig.slurmConf = cl.control.slurmConf;
        slurmConfig.nodeNames = control::slurmNodeNamesOf(fleet.topology());
        slurm = std::make_unique<control::SlurmReadBack>(
            slurmConfig, fleet, control::SlurmReadBack::kDefaultPeriod,
            [](const std::string& line) { std::cerr << "fleetd: " << line << std::endl; });
        slurm->start();
        source = &slurm->source();
    }
    const auto controlLog = [](const std::string& line) { std::cerr << "fleetd: control: " << line << std::endl; };
    auto control = twin ? fleetd::FleetdControl::create(cl, *twin, controlLog, slurm ? &slurm->poller() : nullptr)
                        : fleetd::FleetdControl::createForRealFleet(cl, fleet.topology(), controlLog,
                                                                    slurm ? &slurm->poller() : nullptr);
    if (!control.control) {
        std::cerr << "fleetd: " << control.error << "\n";
        return 2;
    }
    control.control->attachTo(options);
    // --alertmanager: open incidents paged from the pager's own thread; it outlives the server.
    std::unique_ptr<paging::Pager> pager;
    if (!cl.alertmanagerUrl.empty()) {
        paging::PagerOptions paging;
        paging.http.url = cl.alertmanagerUrl;
        paging.speed = cl.speed;
        paging.log = [](const std::string& line) { std::cerr << "fleetd: " << line << std::endl; };
        pager = std::make_unique<paging::Pager>(source->topology(), std::move(paging));
        options.afterGrouping = [p = pager.get()](FleetChanges& changes) { p->observe(changes); };
    }
    // Maintenance windows become Alertmanager silences: the ones restored from the audit log now,
    // later ones as they are scheduled or cancelled (before the calendar is shared with the server).
    std::unique_ptr<paging::MaintenanceSilencer> silencer;
    if (pager) {
        silencer = std::make_unique<paging::MaintenanceSilencer>(*pager, source->topology());
        auto& calendar = control.control->maintenance();
        calendar.setChangeListener([s = silencer.get()](const v1::MaintenanceWindow& w) { s->onWindow(w); });
        for (const auto& window : calendar.windows()) silencer->onWindow(window);
    }
    std::string error;
    auto server = service::FleetdServer::start(*source, options, &error);
    if (!server) {
        std::cerr << "fleetd: " << error << "\n";
        return 1;
    }
    control.control->serving();
    const auto& t = source->topology();
    const auto host = cl.listenAddress.substr(0, cl.listenAddress.rfind(':'));
    std::cerr << kVersion << " listening on " << host << ":" << server->port() << " | fleet \"" << t.fleet_name()
              << "\": " << t.racks_size() << " racks, " << t.regions_size() << " regions, " << t.gpus_size() << " GPUs"
              << (server->metricsPort() ? " | metrics on port " + std::to_string(server->metricsPort()) : "")
              << (pager ? " | paging " + pager->status().target() : "")
              << (twin ? " | seed " + std::to_string(cl.seed) + " | speed " + std::to_string(cl.speed) + "x"
                       : " | " + cl.sources.describe())
              << " | run " << server->runId() << " | " << server->history().describeRetention() << std::endl;
    // --serve-exporters: the twin's state as every tray's dcgm-exporter and node_exporter pages.
    std::unique_ptr<exporters::ExporterServer> exporterServer;
    if (!cl.exportersListen.empty()) {
        std::string announce;
        exporterServer = exporters::startFleetdExporters(
            server->store(),
            {cl.exportersListen, cl.exportersConfigDir, cl.exportersScrapeInterval, cl.exportersBlankSentinels},
            &announce, &error);
        if (!exporterServer) {
            std::cerr << "fleetd: " << error << "\n";
            server->shutdown();
            control.control->stop();
            if (slurm) slurm->stop();
            return 1;
        }
        std::cerr << "fleetd: " << announce << std::endl;
    }
    // --serve-redfish: the twin's cooling as its CDUs' Redfish service.
    std::unique_ptr<exporters::RedfishServer> redfishServer;
    if (!cl.redfishListen.empty()) {
        std::string announce;
        redfishServer =
            exporters::startFleetdRedfish(server->store(), cl.fleetFile, cl.redfishListen, &announce, &error);
        if (!redfishServer) {
            std::cerr << "fleetd: " << error << "\n";
            if (exporterServer) exporterServer->stop();
            server->shutdown();
            control.control->stop();
            if (slurm) slurm->stop();
            return 1;
        }
        std::cerr << "fleetd: " << announce << std::endl;
    }

    // Under systemd (Type=notify, NOTIFY_SOCKET set) the unit counts as started only now, when
    // every listener above answers; elsewhere sd_notify does nothing.
    sd_notifyf(0, "READY=1\nSTATUS=listening on %s:%d", host.c_str(), server->port());
    int signal = 0;
    sigwait(&signals, &signal);
    sd_notify(0, "STOPPING=1\nSTATUS=shutting down");
    std::cerr << "fleetd: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << " received, shutting down" << std::endl;
    if (redfishServer) redfishServer->stop();
    if (exporterServer) exporterServer->stop();
    server->shutdown();
    control.control->stop();
    if (slurm) slurm->stop();
    std::cerr << "fleetd: stopped" << std::endl;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    fleetd::CommandLine cl;
    std::string problem;
    if (!fleetd::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc), &cl, &problem)) {
        std::cerr << "fleetd: " << problem << "\n\n" << fleetd::usageText();
        return 2;
    }
    if (cl.mode == fleetd::CommandLine::Mode::Help) {
        std::cout << fleetd::usageText();
        return 0;
    }
    if (cl.mode == fleetd::CommandLine::Mode::Version) {
        std::cout << kVersion << "\n";
        return 0;
    }
    if (cl.sources.realSource()) {
        auto cooling = makeRedfishSources(cl);
        if (cooling.size() != cl.sources.redfishUrls.size()) return 1;
        RealFleet fleet;
        if (cl.sources.scrape) {
            auto scrape = makeScrapeSource(cl);
            if (!scrape) return 1;
            scrape->start();
            // Live values from the scrape; history, when a store is named too, from the store.
            std::shared_ptr<sources::StoreHistory> history;
            if (!cl.sources.prometheusUrls.empty())
                history = std::make_shared<sources::StoreHistory>(scrape->topology(), cl.sources.stores(),
                                                                  cl.sources.storeScrapeInterval);
            fleet.start(scrape.get(), std::move(cooling));
            const int status = serve(fleet.source(), nullptr, cl, std::move(history));
            scrape->stop();
            return status;
        }
        if (cl.sources.prometheusUrls.empty()) {
            // Cooling only: no GPU telemetry, the facility's Redfish services alone.
            fleet.start(nullptr, std::move(cooling));
            return serve(fleet.source(), nullptr, cl);
        }
        auto prometheus = makePrometheusSource(cl);
        if (!prometheus) return 1;
        prometheus->start();
        auto history = std::make_shared<sources::StoreHistory>(prometheus->topology(), cl.sources.stores(),
                                                               cl.sources.storeScrapeInterval);
        fleet.start(prometheus.get(), std::move(cooling));
        const int status = serve(fleet.source(), nullptr, cl, std::move(history));
        prometheus->stop();
        return status;
    }
    sim::SimConfig config;
    config.seed = cl.seed;
    if (cl.racks) config.racks = *cl.racks;
    if (cl.regions) config.regions = *cl.regions;
    if (cl.racks && !cl.regions) config.regions = std::min(config.regions, config.racks);
    config.fleetFile = cl.fleetFile;
    config.scenarioFile = cl.scenarioFile;
    config.warmStart = cl.warmStart;
    ConfigError configError;
    auto twin = sim::DigitalTwin::create(config, &configError);
    if (!twin) {
        std::cerr << "fleetd: " << configError.toString() << "\n";
        return 1;
    }
    if (cl.mode == fleetd::CommandLine::Mode::DumpEvents) {
        sim::DumpOptions dump;
        dump.duration = *cl.simDuration;
        dump.path = cl.dumpEventsPath;
        dump.incidents.hold = cl.incidentHold;
        std::string error;
        if (!sim::dumpEvents(*twin, dump, &error)) {
            std::cerr << "fleetd: " << error << "\n";
            return 1;
        }
        return 0;
    }
    return serve(*twin, twin.get(), cl);
}
