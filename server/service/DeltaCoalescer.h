#pragma once
// Turns the log entries a subscriber has not seen yet into one Delta for its filter. Values,
// states, jobs and the fleet-wide kinds (FleetStateKinds.h: incidents, maintenance windows,
// handoffs, every one of them, never bounded): the newest per key wins. Events: every one, in order. The result covers
// sequences [first_sequence, sequence]; when everything pending does not fit the size budget it
// covers a prefix of them, chosen so that no key whose newest value lies in that prefix is left
// out (values from later entries may ride along: newer values are always safe to apply).

#include "ReplayLog.h"

#include <vector>

namespace watchfloor::server::service {

struct CoalescedDelta {
    watchfloor::v1::Delta delta;
    std::size_t entriesCovered = 0;  // a prefix of the input
};

// `pending` must be consecutive log entries; `maxSamples` bounds the message (events, states,
// jobs and the fleet-wide kinds' records count as samples by their encoded size).
CoalescedDelta coalesce(const std::vector<LogEntryPtr>& pending, const SubscriptionFilter& filter,
                        const TopologyLookup& index, std::size_t maxSamples);

// One delta with the filter applied (no coalescing).
watchfloor::v1::Delta filterDelta(const watchfloor::v1::Delta& delta, const SubscriptionFilter& filter,
                                  const TopologyLookup& index);

}  // namespace watchfloor::server::service
