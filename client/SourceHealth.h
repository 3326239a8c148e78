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
    // Endpoints with sources, all of them down: everything they show is frozen and aging.
    QList<int> blindEndpoints;
    std::vector<SourceRef> problems;  // every source not up, worst first (down, degraded, not polled)

    bool allUp() const { return up == total; }
};

SourcesOverview overviewOfSources(const FleetStore& store);

// Since the source's last good poll, by its endpoint's server clock; nullopt if it never had one.
std::optional<std::chrono::milliseconds> sinceLastGoodPoll(const FleetStore& store, int endpoint,
                                                           const watchfloor::v1::SourceStatus& source);
// "last good 2 min ago", "never polled successfully"
QString lastGoodPollText(const FleetStore& store, int endpoint, const watchfloor::v1::SourceStatus& source);

// One line for a banner, empty when every source is up (or there are none):
// "Sources: 1 of 2 down — prometheus=http://prom:9090: connection refused (last good 2 min ago)".
QString sourcesHeadline(const FleetStore& store, const SourcesOverview& overview);

}  // namespace watchfloor::client
