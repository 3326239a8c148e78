#pragma once
// How a real source's own thread hands what it read to fleetd's tick thread, and the events and
// words every source uses for its status: shared by the metrics-store, scrape and Redfish sources,
// so that none of them depends on another.

#include "FleetChanges.h"

#include <cstdint>
#include <mutex>
#include <string>

namespace watchfloor::server {

// Appends `from` to `into`: events and states in order, the newest fleet line, and one entry per
// job (by index) and per source (by name). Samples move when `into` has none, the usual case:
// millions of them are not copied under a lock the tick thread waits on.
void appendChanges(FleetChanges& into, FleetChanges& from);

// Changes a source's own thread produced and fleetd's tick thread has not taken yet.
class PendingChanges {
public:
    void post(FleetChanges& changes);
    // Everything posted since the last call, appended to `out`.
    void takeInto(FleetChanges& out);

private:
    std::mutex mutex_;
    FleetChanges pending_;
};

// One event when a source goes DOWN (critical: `downMessage`) or comes back from DOWN (info:
// `upMessage`); nothing for any other change, nor for a first poll that is not DOWN. True when it
// raised one.
bool noteSourceTransition(watchfloor::v1::SourceHealth before, const watchfloor::v1::SourceStatus& status,
                          std::int64_t timeMs, std::uint32_t fleetIndex, const std::string& downMessage,
                          const std::string& upMessage, FleetChanges& out);

}  // namespace watchfloor::server
