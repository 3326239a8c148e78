#include "ExporterSite.h"

#include "DigitalTwin.h"
#include "ScrapeConfig.h"

#include <unistd.h>

namespace watchfloor::bench {

using namespace watchfloor::server;

std::unique_ptr<ExporterSite> ExporterSite::start(const Options& options, std::string* error) {
    ConfigError configError;
    auto twin = sim::DigitalTwin::create(options.twin, &configError);
    if (!twin) return *error = configError.toString(), nullptr;
    std::unique_ptr<ExporterSite> site(new ExporterSite);
    site->topology_ = twin->topology();
    site->store_ = std::make_unique<service::FleetStateStore>(site->topology_);
    // A few ticks, so every page has every field; then the twin holds still and only flips change.
    for (int i = 0; i < 3; ++i) {
        FleetChanges changes;
        twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
        site->store_->apply(changes);
    }
    site->now_ = twin->now();
    exporters::ExporterServerOptions serverOptions;
    serverOptions.threads = options.serverThreads;
    site->threads_ = options.serverThreads;
    site->exporters_ = exporters::ExporterServer::start(*site->store_, serverOptions, error);
    if (!site->exporters_) return nullptr;

    site->configDir_ = std::filesystem::temp_directory_path() / ("exporter_site." + std::to_string(getpid()));
    exporters::ScrapeConfigOptions scrape;
    scrape.exporterAddress = site->exporters_->address();
    scrape.scrapeInterval = options.storeScrapeInterval;
    for (const auto& node : site->topology_.nodes()) scrape.hostnames.push_back(node.hostname());
    if (!exporters::writeScrapeConfig(site->configDir_.string(), scrape, error)) return nullptr;
    test::LoopbackStore::Options store;
    store.config = exporters::renderPrometheusConfig(site->configDir_.string(), scrape);
    site->prometheus_ = test::LoopbackStore::start(store, *error);
    if (!site->prometheus_) return nullptr;
    return site;
}

ExporterSite::~ExporterSite() {
    prometheus_.reset();
    if (exporters_) exporters_->stop();
    std::error_code ignored;
    if (!configDir_.empty()) std::filesystem::remove_all(configDir_, ignored);
}

void ExporterSite::set(std::uint32_t entity, v1::Metric metric, float value) {
    FleetChanges change;
    change.time = now_;
    change.samples = {{entity, metric, value}};
    store_->apply(change);
}

}  // namespace watchfloor::bench
