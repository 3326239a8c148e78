#include "SourceHealth.h"

#include "FleetStore.h"
#include "ValueFormat.h"

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

int badness(v1::SourceHealth health) {
    switch (health) {
    case v1::SOURCE_HEALTH_DOWN: return 3;
    case v1::SOURCE_HEALTH_DEGRADED: return 2;
    case v1::SOURCE_HEALTH_UP: return 0;
    default: return 1;  // not polled yet: no data, but nothing failed either
    }
}

// What went wrong, in fleetd's words: its error, else the first warning.
QString troubleOf(const v1::SourceStatus& source) {
    if (!source.last_error().empty()) return QString::fromStdString(source.last_error());
    if (!source.warnings().empty()) return QString::fromStdString(source.warnings(0));
    return sourceHealthLabel(source.health());
}

}  // namespace

QString sourceHealthLabel(v1::SourceHealth health) {
    switch (health) {
    case v1::SOURCE_HEALTH_UP: return QStringLiteral("up");
    case v1::SOURCE_HEALTH_DEGRADED: return QStringLiteral("degraded");
    case v1::SOURCE_HEALTH_DOWN: return QStringLiteral("down");
    default: return QStringLiteral("not polled yet");
    }
}

bool allHostsSilent(const v1::SourceStatus& source, quint32 trays) {
    return source.targets() > 0 && trays > 0 && source.hosts_silent() >= trays;
}

quint32 scrapedTrays(const FleetStore& store, int endpoint) {
    const EndpointFleet& fleet = store.endpointFleet(endpoint);
    if (!fleet.telemetryByTray().empty()) return quint32(fleet.telemetryByTray().size());
    const bool scrapes = std::any_of(fleet.sources().begin(), fleet.sources().end(),
                                     [](const v1::SourceStatus& s) { return s.targets() > 0; });
    return scrapes ? fleet.topology().count(v1::ENTITY_KIND_NODE) : 0;
}

QString silentHostsText(const SourcesOverview& overview) {
    if (overview.hostsScraped == 0) return {};
    return QStringLiteral("%1 of %2 hosts silent").arg(overview.hostsSilent).arg(overview.hostsScraped);
}

SourcesOverview overviewOfSources(const FleetStore& store) {
    SourcesOverview o;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        const auto& sources = store.endpointFleet(endpoint).sources();
        const quint32 trays = scrapedTrays(store, endpoint);
        o.hostsScraped += trays;
        int down = 0;
        for (const v1::SourceStatus& source : sources) {
            o.hostsSilent += source.hosts_silent();
            if (source.health() != v1::SOURCE_HEALTH_DOWN && allHostsSilent(source, trays)) ++down;
            ++o.total;
            switch (source.health()) {
            case v1::SOURCE_HEALTH_UP: ++o.up; break;
            case v1::SOURCE_HEALTH_DEGRADED: ++o.degraded; break;
            case v1::SOURCE_HEALTH_DOWN:
                ++o.down;
                ++down;
                break;
            default: ++o.unpolled; break;
            }
            if (source.health() != v1::SOURCE_HEALTH_UP) o.problems.push_back(SourceRef{endpoint, &source});
        }
        if (!sources.empty() && down == int(sources.size())) o.blindEndpoints.append(endpoint);
    }
    std::stable_sort(o.problems.begin(), o.problems.end(), [](const SourceRef& a, const SourceRef& b) {
        return badness(a.status->health()) > badness(b.status->health());
    });
    return o;
}

std::optional<std::chrono::milliseconds> sinceLastGoodPoll(const FleetStore& store, int endpoint,
                                                           const v1::SourceStatus& source) {
    if (source.last_good_poll_unix_ms() <= 0) return std::nullopt;
    const std::int64_t now = store.endpointFleet(endpoint).serverTimeUnixMs();
    return std::chrono::milliseconds(std::max<std::int64_t>(0, now - source.last_good_poll_unix_ms()));
}

QString lastGoodPollText(const FleetStore& store, int endpoint, const v1::SourceStatus& source) {
    const auto since = sinceLastGoodPoll(store, endpoint, source);
    if (!since) return QStringLiteral("never polled successfully");
    return QStringLiteral("last good %1 ago").arg(formatAge(*since));
}

QString sourcesHeadline(const FleetStore& store, const SourcesOverview& overview) {
    if (overview.allUp() || overview.problems.empty()) return {};
    QStringList counts;
    auto count = [&](int n, const char* what) {
        if (n == 0) return;
        counts << (counts.isEmpty() ? QStringLiteral("%1 of %2 %3").arg(n).arg(overview.total).arg(QLatin1String(what))
                                    : QStringLiteral("%1 %2").arg(n).arg(QLatin1String(what)));
    };
    count(overview.down, "down");
    count(overview.degraded, "degraded");
    count(overview.unpolled, "not polled yet");
    QString line = QStringLiteral("Sources: %1").arg(counts.join(QStringLiteral(", ")));
    if (overview.hostsSilent > 0) line += QStringLiteral(", ") + silentHostsText(overview);
    const bool several = store.endpointCount() > 1;
    for (int endpoint : overview.blindEndpoints) {
        line += several ? QStringLiteral(" — no live telemetry from fleetd %1").arg(store.endpointLabel(endpoint))
                        : QStringLiteral(" — no live telemetry");
    }
    const SourceRef worst = overview.problems.front();
    const v1::SourceStatus& s = *worst.status;
    line += QStringLiteral(" — %1%2: %3 (%4)")
                .arg(several ? store.endpointLabel(worst.endpoint) + QLatin1Char('/') : QString(),
                     QString::fromStdString(s.name()), troubleOf(s), lastGoodPollText(store, worst.endpoint, s));
    if (overview.problems.size() > 1) line += QStringLiteral(" and %1 more").arg(overview.problems.size() - 1);
    return line;
}

}  // namespace watchfloor::client
