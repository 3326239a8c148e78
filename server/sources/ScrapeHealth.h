#pragma once
// Whether each scraped tray's telemetry still arrives. Silence is not health: an exporter that
// stops answering leaves the tray's last values on screen, and one that keeps serving the same
// values (a GPU fallen off the bus while dcgm-exporter repeats its last reading, a caching proxy,
// a hung collector) looks live unless someone notices nothing changes. So every target has a
// health: UP, DOWN (no usable answer) or FROZEN (its values, or one GPU's, unchanged for longer
// than `frozenAfter`), and every tray a telemetry state: LIVE, or SILENT when one of its targets
// is not UP. "Its values" are every value on the page, not only those fleetd reads: an idle tray
// (no InfiniBand traffic or errors, no hwmon sensors) is healthy, and a live node_exporter's page
// moves on every scrape (node_time_seconds, from the time collector that is on by default, and
// its collectors' scrape durations), as a live dcgm-exporter's GPU power and energy do. Only a
// page served unchanged (a cache, a hung exporter repeating itself) is frozen. A tray that goes silent raises one event
// (not one per metric), and one more when it is live again; its EntityState carries the state, the reason and its
// targets.
//
// Frozen values are not passed on (record() says which to drop): the values already sent age into
// stale in the console, as a silent target's do.

#include "FleetChanges.h"
#include "ScrapeTargets.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace watchfloor::server::sources {

// What one scrape of one target gave.
struct PageScrape {
    bool ok = false;    // a page came back (2xx, a metrics Content-Type)
    std::string error;  // when !ok
    double seconds = 0;
    std::int64_t timeMs = 0;   // when the request was sent
    std::uint64_t series = 0;  // samples on the page
    std::uint64_t rejectedLines = 0;
    std::string parseError;         // the parser's first complaint
    std::uint64_t fingerprint = 0;  // of every value on the page, in any order
    double exporterTimeS = 0;       // node_exporter's node_time_seconds; NaN when the page has none
    std::vector<std::pair<std::uint32_t, std::uint64_t>> gpus;  // (DCGM gpu index, fingerprint of its values)
};

class ScrapeHealth {
public:
    ScrapeHealth(const watchfloor::v1::Topology& topology, const std::vector<ScrapeTarget>& targets,
                 std::chrono::milliseconds frozenAfter, std::chrono::milliseconds refreshEvery);
    ScrapeHealth(const ScrapeHealth&) = delete;  // targets point into specs_
    ScrapeHealth& operator=(const ScrapeHealth&) = delete;

    // Records one scrape. True when the page's values should be passed on (except the GPUs listed
    // in `frozenGpus`, by DCGM index); false when none should (no page, nothing on it, or frozen).
    bool record(std::size_t target, const PageScrape& scrape, std::vector<std::uint32_t>& frozenGpus);
    // A target whose last scrape began more than `limit` ago is DOWN: fleetd has fallen behind
    // (more targets than it can scrape in an interval), and its values are no longer current.
    void expire(std::int64_t nowMs, std::chrono::milliseconds limit);
    // Trays whose state, reason or targets changed (or last sent more than refreshEvery ago), and
    // one event per tray that went silent or came back.
    void report(std::int64_t nowMs, FleetChanges& out);

    watchfloor::v1::TargetHealth health(std::size_t target) const { return targets_[target].health; }
    struct Counts {
        std::uint32_t targets = 0, up = 0, down = 0, frozen = 0, hostsSilent = 0;
        std::uint64_t rejectedLines = 0;  // over every target's last page
        std::string firstProblem;         // "<host> <exporter>: <error>" of the first target not UP
    };
    Counts counts() const;

private:
    struct GpuPrint {
        std::uint32_t gpu;
        std::uint64_t fingerprint;
        std::int64_t sinceMs;
    };
    struct Target {
        const ScrapeTarget* spec = nullptr;
        std::size_t tray = 0;
        watchfloor::v1::TargetHealth health = watchfloor::v1::TARGET_HEALTH_UNSPECIFIED;
        std::int64_t sinceMs = 0, lastSuccessMs = 0, lastAttemptMs = 0;
        double seconds = 0;
        std::string error;
        std::uint64_t series = 0, rejectedLines = 0;
        std::uint64_t fingerprint = 0;
        std::int64_t fingerprintSinceMs = 0;
        std::vector<GpuPrint> gpus;
    };
    struct Tray {
        std::uint32_t node = 0;
        std::string name, host;
        std::vector<std::size_t> targets;
        watchfloor::v1::TelemetryState state = watchfloor::v1::TELEMETRY_STATE_UNSPECIFIED;
        std::int64_t sinceMs = 0, lastSentMs = 0;
        bool dirty = false;
    };
    void setHealth(Target& target, watchfloor::v1::TargetHealth health, std::string error, std::int64_t nowMs);
    watchfloor::v1::EntityState stateOf(const Tray& tray, const std::string& reason) const;

    std::vector<ScrapeTarget> specs_;
    std::vector<Target> targets_;
    std::vector<Tray> trays_;
    std::int64_t frozenAfterMs_, refreshMs_;
};

}  // namespace watchfloor::server::sources
