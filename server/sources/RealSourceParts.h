#pragma once
// What the telemetry sources (PrometheusSource, ScrapeSource) share beyond the mapping in
// StoreTelemetry and the hand-off to the tick thread (core/SourceHandoff.h): the fleet line the
// consoles' KPIs read, and the jobs Slurm runs with that source's status.

#include "FleetChanges.h"
#include "SlurmJobs.h"
#include "SourceHandoff.h"
#include "StoreTelemetry.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sources {

// The fleet line every console's KPIs read, from one poll: GPUs by what it read (a GPU not read is
// in none of healthy, degraded or down: its state is unknown, not down), and goodput over the jobs
// that publish step telemetry, weighted by their GPUs.
void fillFleetLine(const watchfloor::v1::Topology& topology, const std::vector<watchfloor::v1::Job>& jobs,
                   const PollNotes& notes, std::int64_t pollTimeMs, FleetChanges& changes);

// `--jobs slurm`: squeue read by SlurmJobs, and the "slurm" SourceStatus beside the telemetry's.
class JobsFromSlurm {
public:
    using Log = std::function<void(const std::string&)>;
    JobsFromSlurm(const watchfloor::v1::Topology& topology, std::string slurmConf, Log log);

    static watchfloor::v1::SourceStatus initialStatus();
    // One squeue read: the jobs and the status into `changes`. On failure the last jobs stand.
    void poll(const std::unordered_map<std::string, JobProgress>& progress, std::int64_t pollTimeMs,
              FleetChanges& changes);
    // Slurm's last good answer (thread-safe).
    std::vector<watchfloor::v1::Job> lastJobs() const;

private:
    SlurmJobs slurm_;
    Log log_;
    watchfloor::v1::SourceStatus status_;
    mutable std::mutex mutex_;
    std::vector<watchfloor::v1::Job> lastJobs_;
};

// fleetd's own notes on a poll (unmapped, duplicates, skew, infinities, values without a sample
// time) as the status warnings the console lists.
void appendNoteWarnings(const PollNotes& notes, std::vector<std::string>& warnings);

}  // namespace watchfloor::server::sources
