#pragma once
// fleetd's flags for real telemetry sources (--source prometheus=URL and the store's connection
// options), kept apart from the twin's and the control plane's.

#include "PromClient.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::fleetd {

struct SourceFlags {
    std::vector<std::string> prometheusUrls;               // --source prometheus=URL, repeatable (shards)
    std::chrono::milliseconds poll{15'000};                 // --poll D
    std::chrono::milliseconds storeScrapeInterval{15'000};  // --store-scrape-interval D
    std::chrono::milliseconds lookback{300'000};            // --store-lookback D
    prom::StoreOptions store;                               // --prom-* connection options, every shard
    bool slurmJobs = false;                                 // --jobs slurm[=SLURM_CONF]
    std::string slurmConf;

    bool realSource() const { return !prometheusUrls.empty(); }
    std::vector<prom::StoreOptions> stores() const;
};

// The flags this file handles (all take a value).
bool isSourceFlag(const std::string& flag);
// Applies one; false with `problem` set for a bad value.
bool applySourceFlag(const std::string& flag, const std::string& value, SourceFlags& flags, std::string* problem);
// Their lines of fleetd --help.
std::string sourceUsageText();

}  // namespace watchfloor::server::fleetd
