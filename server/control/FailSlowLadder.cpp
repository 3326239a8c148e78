#include "FailSlowLadder.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::control {

namespace v1 = watchfloor::v1;

double failSlowGainGpuHoursPerDay(std::uint32_t gpus, double slowdown) {
    if (!(slowdown > 1) || !std::isfinite(slowdown)) return 0;
    return double(gpus) * 24.0 * (1.0 - 1.0 / slowdown);
}

double failSlowCostGpuHours(std::uint32_t gpus, double restartOverheadS, double checkpointIntervalS) {
    const double u0 = std::isfinite(restartOverheadS) ? std::max(0.0, restartOverheadS) : 0.0;
    const double tau = std::isfinite(checkpointIntervalS) ? std::max(0.0, checkpointIntervalS) : 0.0;
    return double(gpus) * (u0 + tau / 2.0) / 3600.0;
}

FailSlowLadder::FailSlowLadder(FailSlowConfig config, NodeName nodeName)
    : config_(config), nodeName_(std::move(nodeName)) {}

std::vector<FailSlowEviction> FailSlowLadder::observe(std::vector<v1::Job>& jobs, std::int64_t nowMs) {
    const std::int64_t windowMs = std::max<std::int64_t>(1, config_.window.count() * 1000);
    const std::int64_t window = nowMs / windowMs;
    std::vector<FailSlowEviction> confirmed;
    for (const v1::Job& job : jobs) {
        if (job.state() == v1::JOB_STATE_FINISHED) continue;
        record(job, window, nowMs, confirmed);
    }
    forgetOld(window);
    for (v1::Job& job : jobs) fill(job);
    return confirmed;
}

void FailSlowLadder::record(const v1::Job& job, std::int64_t window, std::int64_t nowMs,
                            std::vector<FailSlowEviction>& confirmed) {
    // A report counts only while the job computes at or above the threshold: a recovering job
    // reports no pace, and a slowdown under it is noise, not fail-slow.
    if (!(job.straggler_slowdown() >= config_.minSlowdown)) return;
    for (const std::uint32_t node : job.straggler_node_indexes()) {
        const std::string name = nodeName_(node);
        Track& track = tracks_[{job.name(), name}];
        if (track.windows == 0) {
            track.nodeIndex = node;
            track.firstSeenMs = nowMs;
        }
        track.slowdown = std::max(track.slowdown, job.straggler_slowdown());
        track.lastSeenWindow = window;
        if (track.lastWindow != window) {
            track.lastWindow = window;
            ++track.windows;
        }
        if (!track.handedOut && track.windows >= config_.confirmWindows) {
            track.handedOut = true;
            confirmed.push_back(eviction(job, name, track));
        }
    }
}

void FailSlowLadder::forgetOld(std::int64_t window) {
    for (auto it = tracks_.begin(); it != tracks_.end();) {
        // An evicted tray is no longer the job's: its finding goes once the job stops reporting it.
        if (window - it->second.lastSeenWindow > std::int64_t(config_.forgetWindows))
            it = tracks_.erase(it);
        else
            ++it;
    }
}

v1::FailSlowStage FailSlowLadder::stageOf(const Track& track) const {
    if (!track.operationId.empty()) return v1::FAIL_SLOW_STAGE_EVICTING;
    return track.windows >= config_.confirmWindows ? v1::FAIL_SLOW_STAGE_PROPOSED : v1::FAIL_SLOW_STAGE_OBSERVED;
}

FailSlowEviction FailSlowLadder::eviction(const v1::Job& job, const std::string& node, const Track& track) const {
    FailSlowEviction out;
    out.job = job.name();
    out.node = node;
    out.slowdown = track.slowdown;
    out.windows = track.windows;
    out.gainGpuHoursPerDay = failSlowGainGpuHoursPerDay(job.gpu_count(), track.slowdown);
    out.costGpuHours =
        failSlowCostGpuHours(job.gpu_count(), job.ettr_budget().restart_overhead_s(), job.checkpoint_interval_s());
    return out;
}

void FailSlowLadder::fill(v1::Job& job) const {
    job.clear_fail_slow();
    for (auto it = tracks_.lower_bound({job.name(), std::string()});
         it != tracks_.end() && it->first.first == job.name(); ++it) {
        const Track& track = it->second;
        v1::FailSlowFinding& f = *job.add_fail_slow();
        f.set_node_index(track.nodeIndex);
        f.set_node_name(it->first.second);
        f.set_slowdown(track.slowdown);
        f.set_windows_slow(track.windows);
        f.set_windows_needed(config_.confirmWindows);
        f.set_stage(stageOf(track));
        const FailSlowEviction e = eviction(job, it->first.second, track);
        f.set_gain_gpu_hours_per_day(e.gainGpuHoursPerDay);
        f.set_cost_gpu_hours(e.costGpuHours);
        f.set_operation_id(track.operationId);
        f.set_first_seen_unix_ms(track.firstSeenMs);
        f.set_refusal(track.refusal);
    }
}

void FailSlowLadder::evicting(const std::string& job, const std::string& node, const std::string& operationId) {
    if (auto it = tracks_.find({job, node}); it != tracks_.end()) {
        it->second.operationId = operationId;
        it->second.refusal.clear();
    }
}

void FailSlowLadder::refused(const std::string& job, const std::string& node, const std::string& why) {
    if (auto it = tracks_.find({job, node}); it != tracks_.end()) it->second.refusal = why;
}

}  // namespace watchfloor::server::control
