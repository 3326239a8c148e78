#pragma once
// fleetd's two clocks: the tick clock (fleet time: simulated under the twin, whose clock starts
// again on every run) and the wall clock. What fleetd keeps across a restart on the tick clock
// (lemon failures, repair cases) is saved with both clocks' readings and read back shifted.

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace watchfloor::server {

// Unix ms now, wall clock.
inline std::int64_t wallNowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// How far a tick-clock time saved at (savedClockMs, savedWallMs) moves onto this run's tick clock:
// its age when saved is kept, and the wall time fleetd was down is added to it (exact for a real
// source, whose tick clock is wall time; for the twin, the downtime counts as real time).
inline std::int64_t carriedClockShiftMs(std::int64_t savedClockMs, std::int64_t savedWallMs, std::int64_t nowClockMs,
                                        std::int64_t nowWallMs) {
    return nowClockMs - savedClockMs - std::max<std::int64_t>(0, nowWallMs - savedWallMs);
}

}  // namespace watchfloor::server
