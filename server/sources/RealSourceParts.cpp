#include "RealSourceParts.h"

#include "EttrBudget.h"
#include "Plural.h"

#include <algorithm>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {
constexpr std::uint32_t kJobSlots = 65'536;                 // job entity indexes in one run
constexpr std::chrono::milliseconds kSlurmTimeout{15'000};  // squeue can hang on a dead controller
}  // namespace

void appendNoteWarnings(const PollNotes& notes, std::vector<std::string>& warnings) {
    if (notes.unmapped) warnings.push_back(plural(notes.unmapped, "series") + " named no entity of the inventory");
    if (notes.duplicates)
        warnings.push_back(plural(notes.duplicates, "duplicate series") + " (the newest sample kept)");
    if (notes.fromTheFuture)
        warnings.push_back(plural(notes.fromTheFuture, "sample") +
                           " stamped in the future: the store's clock or an "
                           "exporter's is ahead of fleetd's (shown as read now)");
    if (notes.notFinite) warnings.push_back(plural(notes.notFinite, "infinite value") + " shown as blank");
    if (notes.withoutAnchor)
        warnings.push_back(plural(notes.withoutAnchor, "value") +
                           " without a sample time (no DCGM_FI_DEV_GPU_TEMP or "
                           "state_id series beside it): shown as old");
}

void fillFleetLine(const v1::Topology& topology, const std::vector<v1::Job>& jobs, const PollNotes& notes,
                   std::int64_t pollTimeMs, FleetChanges& changes) {
    v1::FleetGoodput& fleet = changes.fleet;
    changes.hasFleet = true;
    fleet.set_time_unix_ms(pollTimeMs);
    fleet.set_gpus_total(std::uint32_t(topology.gpus_size()));
    fleet.set_gpus_healthy(notes.gpusHealthy);
    fleet.set_gpus_degraded(notes.gpusDegraded);
    double weight = 0, goodput = 0, confirmed = 0, ettr = 0, sliding = 0, slidingGoodput = 0;
    v1::EttrBudget budget;
    std::uint32_t interruptions = 0;
    for (const auto& job : jobs) {
        if (job.no_step_telemetry() || job.state() == v1::JOB_STATE_FINISHED) continue;
        const double w = job.gpu_count();
        weight += w;
        goodput += w * job.goodput_ratio();
        confirmed += w * job.confirmed_goodput_ratio();
        ettr += w * job.ettr_ratio();
        sliding += w * job.ettr_sliding_1h_ratio();
        slidingGoodput += w * job.goodput_sliding_1h_ratio();
        addWeightedDoubles(budget, job.ettr_budget(), w);
        interruptions += job.interruptions();
    }
    if (weight > 0) {
        fleet.set_goodput_ratio(goodput / weight);
        fleet.set_confirmed_goodput_ratio(confirmed / weight);
        fleet.set_ettr_ratio(ettr / weight);
        fleet.set_ettr_sliding_1h_ratio(sliding / weight);
        fleet.set_goodput_sliding_1h_ratio(slidingGoodput / weight);
        scaleDoubles(budget, 1.0 / weight);
        *fleet.mutable_ettr_budget() = budget;  // GPU-weighted, like the ratios above
    }
    fleet.set_interruptions(interruptions);
}

JobsFromSlurm::JobsFromSlurm(const v1::Topology& topology, std::string slurmConf, Log log)
    : slurm_(topology, firstIndexAfter(topology), kJobSlots, std::move(slurmConf), kSlurmTimeout),
      log_(std::move(log)),
      status_(initialStatus()) {}

v1::SourceStatus JobsFromSlurm::initialStatus() {
    v1::SourceStatus status;
    status.set_name("slurm");
    status.set_kind("slurm");
    return status;
}

void JobsFromSlurm::poll(const std::unordered_map<std::string, JobProgress>& progress, std::int64_t pollTimeMs,
                         FleetChanges& changes) {
    const auto began = std::chrono::steady_clock::now();
    std::string error;
    const std::size_t firstJob = changes.jobs.size();
    const bool ok = slurm_.poll(progress, pollTimeMs, changes.jobs, &error);
    if (ok) {
        std::lock_guard lock(mutex_);
        lastJobs_.assign(changes.jobs.begin() + std::ptrdiff_t(firstJob), changes.jobs.end());
    }
    const bool wasDown = status_.health() == v1::SOURCE_HEALTH_DOWN;
    status_.set_last_poll_unix_ms(pollTimeMs);
    status_.set_last_poll_duration_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
    status_.set_last_error(error);
    status_.set_health(!ok             ? v1::SOURCE_HEALTH_DOWN
                       : error.empty() ? v1::SOURCE_HEALTH_UP
                                       : v1::SOURCE_HEALTH_DEGRADED);
    if (ok) status_.set_last_good_poll_unix_ms(pollTimeMs);
    status_.clear_warnings();
    if (slurm_.hostsNotInInventory())
        status_.add_warnings(plural(slurm_.hostsNotInInventory(), "job node") + " not in the inventory (not drawn)");
    changes.sources.push_back(status_);
    if (wasDown != !ok && log_) log_(ok ? "slurm answers again" : "slurm: " + error + " (jobs kept as last read)");
}

std::vector<v1::Job> JobsFromSlurm::lastJobs() const {
    std::lock_guard lock(mutex_);
    return lastJobs_;
}

}  // namespace watchfloor::server::sources
