#pragma once
// Repair cases across fleetd restarts: AUDIT_LOG.repair-cases, beside the audit log and under its
// lock (one fleetd per file), rewritten whole (control::replaceFile) when a case changed, so a
// kill -9 leaves the old file or the new one. Its own file, as the lemon counts have one: the audit
// log holds what people and automation did, not the faults that opened the cases or what the
// ladder made of the steps.
//
// Clocks: case times are on the tick clock (fleet time), which for the digital twin starts again
// on every run. As LemonFailureFile does, the file keeps the tick clock and the wall time of the
// save; at load every time moves by (this run's clock - the saved clock - the wall time fleetd was
// down), so ages and durations (MTTR) come through a restart unchanged.
//
// Format: a header line, "saved CLOCK_MS WALL_MS NEXT_ID", then one case a line as protobuf's
// JSON (RepairCase). A line that does not parse, or a case of a tray the topology lacks, is skipped
// and counted; a file larger than kMaxBytes is not read.

#include "watchfloor/v1/fleet.pb.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace watchfloor::server::control {

struct RepairCaseLoad {
    bool found = false;                             // false: no file (a first start)
    std::string error;                              // unreadable, foreign or too large: nothing restored
    std::vector<watchfloor::v1::RepairCase> cases;  // times on this run's clock
    std::uint64_t nextId = 1;
    std::size_t skippedLines = 0;
};

class RepairCaseFile {
public:
    static constexpr std::size_t kMaxBytes = 64u << 20;

    explicit RepairCaseFile(std::string path) : path_(std::move(path)) {}  // empty: nothing saved or loaded
    const std::string& path() const { return path_; }

    // Empty on success, else why (the old file is still there).
    [[nodiscard]] std::string save(const std::vector<const watchfloor::v1::RepairCase*>& cases, std::uint64_t nextId,
                                   std::int64_t clockMs, std::int64_t wallMs) const;
    // `isTray`: whether the topology has a compute tray of that name.
    RepairCaseLoad load(const std::function<bool(const std::string&)>& isTray, std::int64_t nowClockMs,
                        std::int64_t nowWallMs) const;

    // Moves every time of `c` by `deltaMs` (an unset time, 0, stays unset).
    static void shiftTimes(watchfloor::v1::RepairCase& c, std::int64_t deltaMs);

private:
    std::string path_;
};

}  // namespace watchfloor::server::control
