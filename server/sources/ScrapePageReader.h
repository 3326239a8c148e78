#pragma once
// One scraped exporter page into StoreTelemetry: each line of a family fleetd reads (the
// dcgm-exporter fields and node_exporter's InfiniBand families of telemetry::ExporterFields, the
// same PollQuery entries the store path queries by name) goes in as the scrape target's host's; the
// host's hottest hwmon sensor becomes one value, as the store path's max by (instance). Everything
// else on a page (the Go runtime, other collectors) is not mapped, only fingerprinted.
//
// While reading it also fingerprints every value on the page (read by fleetd or not), whole and
// per GPU (dcgm-exporter's `gpu` label), so ScrapeHealth can tell a frozen exporter, or a frozen
// GPU, from a live one, and keeps node_exporter's node_time_seconds (the host's clock).

#include "Exposition.h"
#include "StoreTelemetry.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace watchfloor::server::sources {

class ScrapePageReader {
public:
    ScrapePageReader();
    ScrapePageReader(const ScrapePageReader&) = delete;  // byName_ points into queries_
    ScrapePageReader& operator=(const ScrapePageReader&) = delete;

    struct Read {
        prom::ExpositionStats stats;
        std::uint64_t fingerprint = 0;                              // every value on the page, any order
        std::vector<std::pair<std::uint32_t, std::uint64_t>> gpus;  // per DCGM gpu index
        std::uint64_t mapped = 0;                                   // lines of a family fleetd reads
        double exporterTimeS = 0;  // node_time_seconds (Unix seconds); NaN when the page has none
    };
    // `pageIndex` tags the values in `telemetry` (for StoreTelemetry::discard of a frozen page).
    void read(std::string_view page, prom::ExpositionFormat format, std::string_view host, std::size_t pageIndex,
              StoreTelemetry& telemetry, Read& out);

private:
    std::vector<PollQuery> queries_;
    std::unordered_map<std::string_view, const PollQuery*> byName_;
    const PollQuery* hostTemperature_ = nullptr;
    prom::ExpositionParser parser_;
};

}  // namespace watchfloor::server::sources
