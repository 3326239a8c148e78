#pragma once
// The fail-slow ladder (fleet.proto FailSlowFinding): observe the trays a source reports as a
// job's straggler, confirm one that stays slow across N distinct windows (restarts in between
// allowed: a slow tray is slow again after the job restarts on it), propose its eviction with
// what it is worth against what it costs, and hand confirmed trays to automation when that is
// on. Pure bookkeeping: no I/O, no clock of its own. One instance, one thread (fleetd's tick).
// Sources: ByteDance ByteRobust (arXiv 2509.16293) and MegaScale (NSDI'24) on persistent
// stragglers; docs/domain/goodput.md.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::server::control {

struct FailSlowConfig {
    double minSlowdown = 1.05;  // S at or above which a report counts
    std::chrono::seconds window{std::chrono::minutes(10)};
    std::uint32_t confirmWindows = 3;  // distinct windows to confirm
    std::uint32_t forgetWindows = 6;   // windows without a report: forgotten
};

// A confirmed slow tray automation may evict.
struct FailSlowEviction {
    std::string job;
    std::string node;
    double slowdown = 1;
    std::uint32_t windows = 0;
    double gainGpuHoursPerDay = 0;
    double costGpuHours = 0;
};

class FailSlowLadder {
public:
    using NodeName = std::function<std::string(std::uint32_t nodeIndex)>;

    FailSlowLadder(FailSlowConfig config, NodeName nodeName);

    // One tick's job messages at `nowMs`: records their straggler reports and writes each job's
    // findings into its fail_slow field. Returns the trays confirmed at this tick (each once).
    std::vector<FailSlowEviction> observe(std::vector<watchfloor::v1::Job>& jobs, std::int64_t nowMs);

    // What automation did with a confirmed tray: its drain's operation (EVICTING), or why it
    // was refused (the finding stays PROPOSED for operators).
    void evicting(const std::string& job, const std::string& node, const std::string& operationId);
    void refused(const std::string& job, const std::string& node, const std::string& why);

    const FailSlowConfig& config() const { return config_; }

private:
    struct Track {
        std::uint32_t nodeIndex = 0;
        std::int64_t firstSeenMs = 0;
        std::int64_t lastWindow = -1;
        std::int64_t lastSeenWindow = -1;
        std::uint32_t windows = 0;
        double slowdown = 1;
        bool handedOut = false;
        std::string operationId;
        std::string refusal;
    };
    using Key = std::pair<std::string, std::string>;  // job, node name

    void record(const watchfloor::v1::Job& job, std::int64_t window, std::int64_t nowMs,
                std::vector<FailSlowEviction>& confirmed);
    void forgetOld(std::int64_t window);
    void fill(watchfloor::v1::Job& job) const;
    watchfloor::v1::FailSlowStage stageOf(const Track& track) const;
    FailSlowEviction eviction(const watchfloor::v1::Job& job, const std::string& node, const Track& track) const;

    const FailSlowConfig config_;
    const NodeName nodeName_;
    std::map<Key, Track> tracks_;
};

// GPUs × 24 h × (1 − 1/S): the progress a job running S× slower loses in a day.
double failSlowGainGpuHoursPerDay(std::uint32_t gpus, double slowdown);
// GPUs × (u0 + τ/2) / 3600: one restart from the last checkpoint (u0 the job's restart overhead,
// τ its checkpoint interval).
double failSlowCostGpuHours(std::uint32_t gpus, double restartOverheadS, double checkpointIntervalS);

}  // namespace watchfloor::server::control
