#pragma once
// fleetd --serve-exporters HOST:PORT [--exporters-config DIR [--exporters-scrape-interval D]]
// [--exporters-blanks omit|sentinel]: the exporter server over fleetd's store, and the scrape
// configuration naming its address, in one call for main().

#include "ExporterServer.h"

#include <chrono>
#include <memory>
#include <string>

namespace watchfloor::server::exporters {

struct FleetdExportersOptions {
    std::string listen;     // HOST:PORT, port 0 = any free port
    std::string configDir;  // empty = write no scrape configuration
    std::chrono::milliseconds scrapeInterval{15'000};
    bool blankSentinels = false;
};

// The running server, and in `announce` the line fleetd logs ("exporters listening on
// HOST:PORT ..."); nullptr and `error` when it cannot listen or write the configuration.
std::unique_ptr<ExporterServer> startFleetdExporters(const service::FleetStateStore& store,
                                                     const FleetdExportersOptions& options, std::string* announce,
                                                     std::string* error);

}  // namespace watchfloor::server::exporters
