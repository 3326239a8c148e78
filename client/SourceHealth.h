#pragma once
// fleetd's telemetry sources (a Prometheus-compatible store, Slurm, ...) over every endpoint, in
// the console's words. A source that is down does not stop the stream: fleetd keeps sending the
// last good values, which age. Without this an operator would see a quiet, slowly going-stale
// fleet and not know why.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>
#include <vector>

namespace watchfloor::client {

class FleetStore;

// "up", "degraded", "down", "not polled yet"
QString sourceHealthLabel(watchfloor::v1::SourceHealth health);

// One source of one endpoint. Points into the store: valid until its next change.
struct SourceRef {
    int endpoint = 0;
    const watchfloor::v1::SourceStatus* status = nullptr;
};

struct SourcesOverview {
    int total = 0;
    int up = 0;
    int degraded = 0;
    int down = 0;
    int unpolled = 0;
    // Endpoints with sources, every one of them down or silent (a scrape source all of whose
    // trays are silent, even if some exporter still answers): everything they show is frozen and
    // aging. fleetd answers, but the fleet it shows is as dead as an unreachable endpoint's.
    QList<int> blindEndpoints;
    // Hosts (compute trays) silent, summed over the sources' hosts_silent, of the trays scraped
    // (those whose states carry telemetry health; before the first round, the topology's trays).
    quint32 hostsSilent = 0;
    quint32 hostsScraped = 0;
    std::vector<SourceRef> problems;  // every source not up, worst first (down, degraded, not polled)

    bool allUp() const { return up == total; }
};

SourcesOverview overviewOfSources(const FleetStore& store);
// "12 of 36 hosts silent"; empty when no source scrapes hosts.
QString silentHostsText(const SourcesOverview& overview);
// A scrape source (it has targets) that reports every one of `scrapedTrays` silent.
bool allHostsSilent(const watchfloor::v1::SourceStatus& source, quint32 scrapedTrays);
// The trays of `endpoint` a scrape source reports on: those with telemetry health, else (before
// fleetd sent any) every tray of the topology when some source has targets.
quint32 scrapedTrays(const FleetStore& store, int endpoint);

// Since the source's last good poll, by its endpoint's server clock; nullopt if it never had one.
std::optional<std::chrono::milliseconds> sinceLastGoodPoll(const FleetStore& store, int endpoint,
                                                           const watchfloor::v1::SourceStatus& source);
// "last good 2 min ago", "never polled successfully"
QString lastGoodPollText(const FleetStore& store, int endpoint, const watchfloor::v1::SourceStatus& source);

// One line for a banner, empty when every source is up (or there are none):
// "Sources: 1 of 2 down — prometheus=http://prom:9090: connection refused (last good 2 min ago)",
// "Sources: 1 of 1 degraded, 1 of 18 hosts silent — scrape: 1 of 36 targets not up; first: …".
QString sourcesHeadline(const FleetStore& store, const SourcesOverview& overview);

}  // namespace watchfloor::client
