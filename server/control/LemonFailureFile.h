#pragma once
// The lemon detector's failure counts across fleetd restarts: a tray that failed twice before a
// restart and once after is a lemon at --lemon 3/WINDOW. A small file beside the audit log
// (AUDIT_LOG.lemon-failures, under the same lock: one fleetd per file), rewritten whole (temporary
// file, fsync, rename) whenever the counts change, so a kill -9 leaves the old or the new file.
//
// Why a file of its own: the audit log holds what operators and automation did (drains, lifecycle
// states), not what the trays did; a drain is not a failure. The event journal and history are in
// memory only. What counts is a tray's health turning FAILED (the twin's health check, or a real
// source's), which only the detector saw.
//
// Clocks: failures are kept on the tick clock (fleet time). A real source's tick clock is wall
// time and continues across a restart; the digital twin's starts again at its fixed start time on
// every run. So the file keeps each failure's age when saved (the tick clock then minus the
// failure's time) and the wall time of the save; at the first tick after a restart a failure's
// age is that age plus the wall time fleetd was down (exact for a real source; for the twin, whose
// time does not pass while fleetd is down, the downtime counts as real time). The saved tick clock
// is refreshed at least every tenth of the window while anything is kept, so the twin's failures
// look younger by at most that much.
//
// Format, one record a line:
//   watchfloor-lemon-failures 1
//   saved CLOCK_MS WALL_MS
//   TRAY CLOCK_MS            (one line per failure; at most k per tray, the newest)
// A line that does not parse, a tray the topology does not have and failures past the first k of a
// tray are skipped and counted; a file larger than kMaxBytes is not read at all.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

namespace watchfloor::server::control {

struct LemonFailureSnapshot {
    std::int64_t savedClockMs = 0;                             // the tick clock when saved
    std::int64_t savedWallMs = 0;                              // Unix ms (wall) when saved
    std::map<std::string, std::deque<std::int64_t>> failures;  // tray -> failure times, tick clock, oldest first
};

struct LemonFailureLoad {
    bool found = false;  // false: no file (a first start)
    std::string error;   // unreadable or too large: nothing restored
    LemonFailureSnapshot snapshot;
    std::size_t skippedLines = 0;
};

class LemonFailureFile {
public:
    static constexpr std::size_t kMaxBytes = 16u << 20;  // 32 k trays x 1,000 failures would not fit; k is small
    static constexpr std::size_t kMaxLine = 512;

    // `path` empty: nothing is saved or loaded. `perTray`: k, the most failures kept per tray.
    LemonFailureFile(std::string path, std::uint32_t perTray) : path_(std::move(path)), perTray_(perTray) {}

    const std::string& path() const { return path_; }
    // Empty on success, else why (the old file is still there).
    [[nodiscard]] std::string save(const LemonFailureSnapshot& snapshot) const;
    // `isTray`: whether the topology has a compute tray of that name.
    LemonFailureLoad load(const std::function<bool(const std::string&)>& isTray) const;

    // A saved failure's time on the clock of this run: now minus (its age when saved plus the
    // wall time since the save, never negative).
    static std::int64_t carriedOver(std::int64_t failureClockMs, const LemonFailureSnapshot& saved,
                                    std::int64_t nowClockMs, std::int64_t nowWallMs);

private:
    std::string path_;
    std::uint32_t perTray_;
};

}  // namespace watchfloor::server::control
