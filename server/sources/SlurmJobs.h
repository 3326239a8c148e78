#pragma once
// The jobs a real site's Slurm runs (squeue), with the trays they hold, and — for jobs that
// publish their progress (docs/real-telemetry.md: gauges training_step and checkpoint_step with a
// slurm_job_id label, read from the same store) — a goodput ledger fed from those gauges. A job
// that publishes nothing is marked no_step_telemetry: the console shows that, never a 0 % goodput.

#include "GoodputLedger.h"
#include "InventoryIndex.h"
#include "StoreTelemetry.h"

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sources {

// One line of `squeue -h -o "%i|%j|%u|%S|%N"`.
struct SqueueJob {
    std::string id, name, user;
    std::int64_t startMs = 0;        // 0: not started / unknown
    std::vector<std::string> hosts;  // expanded from Slurm's compressed hostlist
};

// Lines that do not parse are skipped and named in `problems` (bounded).
std::vector<SqueueJob> parseSqueueJobs(std::string_view output, std::vector<std::string>* problems);

// A job's ledger from its progress gauges, polled: steps between two polls are one record; a
// step counter that goes back is a restart from the checkpoint it went back to.
class ProgressLedger {
public:
    void observe(const JobProgress& progress, std::int64_t startedMs);
    bool reporting() const { return ledger_ != nullptr; }
    void fill(watchfloor::v1::Job& job, std::int64_t nowMs) const;

private:
    std::unique_ptr<GoodputLedger> ledger_;
    std::optional<JobProgress> first_;  // the first sight, until a second gives a pace
    JobProgress last_;
    double idealStepS_ = 0;
    double stepTimeS_ = 0;
    double lastCheckpoint_ = -1;
    std::int64_t lastCheckpointMs_ = 0;
    std::int64_t epochMs_ = 0;  // ledger seconds count from here
};

class SlurmJobs {
public:
    // Job entity indexes are taken from [firstIndex, firstIndex + slots): past the topology's.
    SlurmJobs(const watchfloor::v1::Topology& topology, std::uint32_t firstIndex, std::uint32_t slots,
              std::string slurmConf, std::chrono::milliseconds timeout);

    // Reads squeue; appends every running job (whole message) and, once, each job that left the
    // queue (FINISHED). False and `error` when Slurm did not answer: the last jobs are kept.
    [[nodiscard]] bool poll(const std::unordered_map<std::string, JobProgress>& progress, std::int64_t nowMs,
                            std::vector<watchfloor::v1::Job>& out, std::string* error);
    std::uint64_t hostsNotInInventory() const { return unknownHosts_; }

    // For tests: the same from squeue's output.
    void apply(const std::vector<SqueueJob>& jobs, const std::unordered_map<std::string, JobProgress>& progress,
               std::int64_t nowMs, std::vector<watchfloor::v1::Job>& out);

private:
    struct Tracked {
        std::uint32_t index;
        ProgressLedger ledger;
        watchfloor::v1::Job last;
    };
    std::optional<std::uint32_t> indexFor(const std::string& id);

    InventoryIndex inventory_;
    std::uint32_t firstIndex_, slots_, nextSlot_ = 0;
    std::string slurmConf_;
    std::chrono::milliseconds timeout_;
    std::map<std::string, Tracked> tracked_;  // by Slurm job id
    std::uint64_t unknownHosts_ = 0;
};

// The first entity index past every entity of the topology (where job indexes may start).
std::uint32_t firstIndexAfter(const watchfloor::v1::Topology& topology);

}  // namespace watchfloor::server::sources
