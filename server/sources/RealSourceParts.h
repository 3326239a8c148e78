#pragma once
// What the real sources (PrometheusSource, ScrapeSource) share beyond the mapping in
// StoreTelemetry: handing their changes to fleetd's tick thread, the fleet line the consoles'
// KPIs read, and the jobs Slurm runs with that source's status.

#include "FleetChanges.h"
#include "SlurmJobs.h"
#include "StoreTelemetry.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sources {

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

// "1 series", "3 values": counts in status lines.
std::string plural(std::uint64_t n, const std::string& what);

// fleetd's own notes on a poll (unmapped, duplicates, skew, infinities, values without a sample
// time) as the status warnings the console lists.
void appendNoteWarnings(const PollNotes& notes, std::vector<std::string>& warnings);

// One event when a source goes DOWN (critical: `downMessage`) or comes back from DOWN (info:
// `upMessage`); nothing for any other change, nor for a first poll that is not DOWN. True when it
// raised one.
bool noteSourceTransition(watchfloor::v1::SourceHealth before, const watchfloor::v1::SourceStatus& status,
                          std::int64_t timeMs, std::uint32_t fleetIndex, const std::string& downMessage,
                          const std::string& upMessage, FleetChanges& out);

}  // namespace watchfloor::server::sources
