#pragma once
// A site's exporters on loopback for the latency benchmarks, held still between flips: the digital
// twin's state after a few ticks in a FleetStateStore, served as every tray's dcgm-exporter and
// node_exporter pages (ExporterServer), and a real Prometheus scraping those pages (the store of
// part 1's path). A flip is a change applied to that store: every page served from the moment
// apply() returns carries it, so its time is the fault's time at the exporters.
//
// Start it from the thread that lives as long as it (the store's child dies with that thread).

#include "ExporterServer.h"
#include "FleetChanges.h"
#include "FleetStateStore.h"
#include "LoopbackStore.h"
#include "SimConfig.h"

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace watchfloor::bench {

class ExporterSite {
public:
    struct Options {
        server::sim::SimConfig twin;
        std::chrono::milliseconds storeScrapeInterval{15'000};  // Prometheus's scrape_interval
        std::size_t serverThreads = 4;                          // the exporter server's pool
    };

    // nullptr and `error` when the twin, the exporter server or Prometheus does not come up.
    static std::unique_ptr<ExporterSite> start(const Options& options, std::string* error);
    ~ExporterSite();
    ExporterSite(const ExporterSite&) = delete;
    ExporterSite& operator=(const ExporterSite&) = delete;

    const v1::Topology& topology() const { return topology_; }
    std::string exporterAddress() const { return exporters_->address(); }
    // fleetd's --scrape-dcgm / --scrape-node for these pages ({host} is replaced per tray).
    std::string dcgmUrlPattern() const { return "http://" + exporterAddress() + "/dcgm/{host}/metrics"; }
    std::string nodeUrlPattern() const { return "http://" + exporterAddress() + "/node/{host}/metrics"; }
    std::string prometheusUrl() const { return prometheus_->url(); }
    std::size_t exporterThreads() const { return threads_; }

    // Sets one value as the exporters serve it from now on.
    void set(std::uint32_t entity, v1::Metric metric, float value);

private:
    ExporterSite() = default;

    v1::Topology topology_;
    std::unique_ptr<server::service::FleetStateStore> store_;
    std::unique_ptr<server::exporters::ExporterServer> exporters_;
    std::unique_ptr<test::LoopbackStore> prometheus_;
    std::filesystem::path configDir_;
    server::UnixTime now_{};
    std::size_t threads_ = 0;
};

}  // namespace watchfloor::bench
