#include "FleetdExporters.h"

#include "ScrapeConfig.h"

#include <filesystem>

namespace watchfloor::server::exporters {

std::unique_ptr<ExporterServer> startFleetdExporters(const service::FleetStateStore& store,
                                                     const FleetdExportersOptions& options, std::string* announce,
                                                     std::string* error) {
    ExporterServerOptions serverOptions;
    serverOptions.listenAddress = options.listen;
    serverOptions.dcgm.blanks = options.blankSentinels ? BlankValues::Sentinel : BlankValues::Omit;
    auto server = ExporterServer::start(store, serverOptions, error);
    if (!server) return nullptr;
    const auto& hosts = server->trays().hosts();
    *announce = "exporters listening on " + server->address() + " | " + std::to_string(hosts.size()) +
                " hosts: /dcgm/<host>/metrics, /node/<host>/metrics";
    if (!hosts.empty()) *announce += " (first " + hosts.front().hostname + ")";
    if (options.configDir.empty()) return server;

    ScrapeConfigOptions scrape;
    scrape.exporterAddress = server->address();
    scrape.scrapeInterval = options.scrapeInterval;
    for (const auto& host : hosts) scrape.hostnames.push_back(host.hostname);
    if (!writeScrapeConfig(options.configDir, scrape, error)) return nullptr;
    std::error_code ec;
    const auto config = std::filesystem::absolute(std::filesystem::path(options.configDir) / kPrometheusConfigFile, ec);
    *announce += " | scrape config " + config.string();
    return server;
}

}  // namespace watchfloor::server::exporters
