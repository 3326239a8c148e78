#pragma once
// What fleetd's flags for real telemetry sources set (--source prometheus=URL and the store's
// connection options, --source scrape and the scraper's, --source redfish=URL and its), and the
// sources' options made from them. The flags themselves are rows of FlagTable.cpp.

#include "PromClient.h"
#include "RedfishHttp.h"
#include "ScrapeSource.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::fleetd {

struct SourceFlags {
    std::vector<std::string> prometheusUrls;                // --source prometheus=URL, repeatable (shards)
    std::chrono::milliseconds poll{15'000};                 // --poll D
    std::chrono::milliseconds storeScrapeInterval{15'000};  // --store-scrape-interval D
    std::chrono::milliseconds lookback{300'000};            // --store-lookback D
    prom::StoreOptions store;                               // --prom-* connection options, every shard
    bool slurmJobs = false;                                 // --jobs slurm[=SLURM_CONF]
    std::string slurmConf;

    bool scrape = false;                                     // --source scrape
    sources::ScrapeSourceOptions scraper;                    // --scrape-* (timeout: see scrapeOptions())
    std::optional<std::chrono::milliseconds> scrapeTimeout;  // --scrape-timeout D
    // --source redfish=URL, repeatable (one Redfish service per CDU or aggregator): cooling.
    std::vector<std::string> redfishUrls;
    redfish::RedfishOptions redfish;                          // --redfish-* options, every service
    std::optional<std::chrono::milliseconds> redfishTimeout;  // --redfish-timeout D (default: see redfishServices())

    bool realSource() const { return scrape || !prometheusUrls.empty() || !redfishUrls.empty(); }
    bool gpuSource() const { return scrape || !prometheusUrls.empty(); }
    // One per --source redfish=URL; the timeout defaults to the interval, at most 5 s.
    std::vector<redfish::RedfishOptions> redfishServices() const;
    std::vector<prom::StoreOptions> stores() const;
    // The scraper's options, the timeout defaulting to the interval (at most 10 s).
    sources::ScrapeSourceOptions scrapeOptions() const;
    // "scrape every 5 s + 1 Prometheus store for history", for fleetd's start-up line.
    std::string describe() const;
};

}  // namespace watchfloor::server::fleetd
