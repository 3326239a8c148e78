#pragma once
// How a stored value becomes a Reading the console may show: its age on the server's clock and
// how far to trust it (Freshness.h). Pure functions over one endpoint's fleet; the store adds
// whether that endpoint is Live.
//
// - Periodic metrics turn Stale after max(`staleAfter`, 3 of their reporting periods) plus the
//   delivery lag of the endpoint's stores (MetricCadence); every value of an endpoint that is not
//   Live is Stale.
// - Metrics sent on change (counters, link states) that were never sent read 0, current while Live:
//   unchanged since the server run began.
// - A value NaN from the source is Blank; a value of a silent scraped tray is Silent.

#include "EndpointFleet.h"
#include "Freshness.h"

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <span>

namespace watchfloor::client {

struct ReadingRules {
    bool live = true;  // the endpoint's connection is Live
    std::chrono::milliseconds staleAfter{3000};
};

// `metric` of the entity with server index `index` in `fleet`; Missing for an unknown entity.
Reading readingOf(const EndpointFleet& fleet, std::uint32_t index, watchfloor::v1::Metric metric,
                  const ReadingRules& rules);

// The less trustworthy of two freshnesses (Fresh < Stale < Silent < Blank < Missing).
Freshness worseFreshness(Freshness a, Freshness b);

// Max / sum / mean of readings (e.g. of a tray's GPUs). The result takes the worst freshness and
// the oldest sample of the values that contribute; with none it is Blank if any was Blank, else
// Missing.
enum class ReadingAggregate { Max, Sum, Mean };
Reading aggregate(std::span<const Reading> readings, ReadingAggregate how);

}  // namespace watchfloor::client
