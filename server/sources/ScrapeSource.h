#pragma once
// fleetd scraping a real site's exporters itself (--source scrape): every tray's dcgm-exporter and
// node_exporter (ScrapeTargets), every `interval`, on a thread of its own, with bounded
// concurrency, per-target timeouts and keep-alive connections (prom::Scraper). Pages map through
// the same StoreTelemetry as the store path, stamped with their own scrape time, so a value is
// as fresh as the scrape that read it: one interval plus one scrape behind the exporter, not the
// store's scrape + poll + lookback.
//
// Finished pages go to fleetd's tick thread in small batches (at least every `flushEvery`), so
// one slow or hanging target never holds the others' values back; targets that failed last time
// go after the live ones and take at most a quarter of the concurrency, so thousands of dead ones
// cannot starve the live ones either. Each target's and tray's health is ScrapeHealth's; the
// source's SourceStatus ("scrape") counts targets and silent trays, and reads DOWN when no target
// answers, so a reachable fleetd whose telemetry is all silent looks as wrong as an unreachable one.

#include "PolledSource.h"
#include "RealSourceParts.h"
#include "ScrapeHealth.h"
#include "ScrapePageReader.h"
#include "ScrapeTargets.h"
#include "Scraper.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::server::sources {

struct ScrapeSourceOptions {
    ScrapeTargetOptions targets;
    prom::ScrapeOptions http;  // timeouts, size cap, concurrency, TLS
    std::chrono::milliseconds interval{5000};
    std::chrono::milliseconds frozenAfter{60'000};   // values unchanged this long: FROZEN
    std::chrono::milliseconds flushEvery{100};       // finished pages wait at most this for the tick thread
    std::chrono::milliseconds firstRoundWait{3000};  // start() waits this long for the first round
    std::chrono::milliseconds stateRefresh{60'000};  // a tray's telemetry state is re-sent this often
    bool slurmJobs = false;                          // --jobs slurm
    std::string slurmConf;
};

class ScrapeSource final : public PolledSource {
public:
    using Log = std::function<void(const std::string&)>;

    // Nullptr and `error` for a bad URL or targets file.
    [[nodiscard]] static std::unique_ptr<ScrapeSource> create(watchfloor::v1::Topology topology,
                                                              ScrapeSourceOptions options, Log log, std::string* error);
    ~ScrapeSource() override;

    // start() runs the scrape thread (and Slurm's) and waits for the first round, bounded.
    const watchfloor::v1::Topology& topology() const override { return topology_; }
    std::chrono::milliseconds telemetryPeriod() const override { return options_.interval; }
    bool countersPeriodic() const override { return true; }

    std::uint64_t rounds() const { return polls(); }
    std::uint64_t pagesRead() const { return pages_; }
    std::size_t targetCount() const { return targets_.size(); }
    const ScrapeSourceOptions& options() const { return options_; }

private:
    ScrapeSource(watchfloor::v1::Topology topology, ScrapeSourceOptions options, Log log,
                 std::vector<ScrapeTarget> targets);
    class Loop;
    Clock::time_point pollStep() override;

    watchfloor::v1::Topology topology_;
    ScrapeSourceOptions options_;
    Log log_;
    std::vector<ScrapeTarget> targets_;
    std::unique_ptr<JobsFromSlurm> slurm_;
    std::unique_ptr<Loop> loop_;  // the scrape thread's state

    std::atomic<std::uint64_t> pages_{0};
};

}  // namespace watchfloor::server::sources
