#include "FleetReadings.h"

#include "MetricCadence.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

Reading fromColumn(const EndpointFleet& fleet, v1::EntityKind kind, std::uint32_t slot, v1::Metric metric,
                   const ReadingRules& rules) {
    Reading r;
    const MetricCadence cadence = metricCadence(metric, fleet.sourceCadence());
    const MetricColumn* column = fleet.column(kind, metric);
    if (!column || slot >= column->values.size() || column->stamps[slot] == 0) {
        if (cadence.reporting == MetricReporting::OnChange && fleet.hasSnapshot()) {
            // Sent on change only: never sent means unchanged since the server run began.
            r.value = 0.0f;
            r.freshness = rules.live ? Freshness::Fresh : Freshness::Stale;
        }
        return r;  // Missing otherwise
    }
    r.value = column->values[slot];
    r.sampleTimeUnixMs = fleet.sampleTimeOf(*column, slot);
    r.age = std::chrono::milliseconds(std::max<std::int64_t>(0, fleet.serverTimeUnixMs() - r.sampleTimeUnixMs));
    const auto staleAfter =
        std::max<std::chrono::milliseconds>(rules.staleAfter, 3 * cadence.period) + cadence.deliveryLag;
    const bool aged = cadence.reporting == MetricReporting::Periodic && r.age > staleAfter;
    if (std::isnan(r.value)) {
        r.freshness = Freshness::Blank;
    } else if (!rules.live || aged) {
        r.freshness = Freshness::Stale;
    } else {
        r.freshness = Freshness::Fresh;
    }
    return r;
}

}  // namespace

Reading readingOf(const EndpointFleet& fleet, std::uint32_t index, v1::Metric metric, const ReadingRules& rules) {
    const TopologyIndex::Entry* entry = fleet.topology().find(index);
    if (!entry) return {};
    Reading r = fromColumn(fleet, v1::EntityKind(entry->kind), entry->slot, metric, rules);
    // A silent tray's values are the last read: whatever their age says, they are not current.
    if ((r.freshness == Freshness::Fresh || r.freshness == Freshness::Stale) && fleet.inSilentTray(index)) {
        r.freshness = Freshness::Silent;
    }
    return r;
}

Freshness worseFreshness(Freshness a, Freshness b) {
    auto rank = [](Freshness f) {
        switch (f) {
        case Freshness::Fresh: return 0;
        case Freshness::Stale: return 1;
        case Freshness::Silent: return 2;  // stale, and we know why: its source stopped
        case Freshness::Blank: return 3;
        case Freshness::Missing: return 4;
        }
        return 4;
    };
    return rank(a) >= rank(b) ? a : b;
}

Reading aggregate(std::span<const Reading> readings, ReadingAggregate how) {
    Reading out;
    int contributing = 0;
    bool anyBlank = false;
    double acc = how == ReadingAggregate::Max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (const Reading& r : readings) {
        if (!r.hasValue()) {
            anyBlank |= r.freshness == Freshness::Blank;
            continue;
        }
        acc = how == ReadingAggregate::Max ? std::max(acc, double(r.value)) : acc + double(r.value);
        out.freshness = contributing == 0 ? r.freshness : worseFreshness(out.freshness, r.freshness);
        if (contributing == 0 || r.sampleTimeUnixMs < out.sampleTimeUnixMs) {
            out.sampleTimeUnixMs = r.sampleTimeUnixMs;
            out.age = r.age;
        }
        ++contributing;
    }
    if (contributing == 0) {
        out.freshness = anyBlank ? Freshness::Blank : Freshness::Missing;
        return out;
    }
    out.value = float(how == ReadingAggregate::Mean ? acc / contributing : acc);
    return out;
}

}  // namespace watchfloor::client
