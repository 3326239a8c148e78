#include "PrometheusSource.h"

#include <algorithm>
#include <sstream>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMostWarnings = 8;
constexpr std::uint32_t kJobSlots = 65'536;                     // job entity indexes in one run
constexpr std::chrono::milliseconds kSlurmTimeout{15'000};      // squeue can hang on a dead controller

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string plural(std::uint64_t n, const std::string& what) {
    const bool invariant = what.ends_with("series");
    return std::to_string(n) + " " + what + (n == 1 || invariant ? "" : "s");
}

}  // namespace

PrometheusSource::PrometheusSource(v1::Topology topology, PrometheusSourceOptions options, Log log)
    : topology_(std::move(topology)), options_(std::move(options)), log_(std::move(log)), queries_(pollQueries()) {
    telemetry_ = std::make_unique<StoreTelemetry>(topology_, options_.lookback, log_);
    if (options_.slurmJobs) {
        slurm_ = std::make_unique<SlurmJobs>(topology_, firstIndexAfter(topology_), kJobSlots, options_.slurmConf,
                                             kSlurmTimeout);
        v1::SourceStatus status;
        status.set_name("slurm");
        status.set_kind("slurm");
        statuses_.push_back(status);
        pending_.sources.push_back(status);
    }
    for (const auto& store : options_.stores) {
        clients_.push_back(std::make_unique<prom::PromClient>(store));
        v1::SourceStatus status;
        status.set_name("prometheus=" + store.url);
        status.set_kind("prometheus");
        status.set_health(v1::SOURCE_HEALTH_UNSPECIFIED);
        statuses_.push_back(status);
        pending_.sources.push_back(status);
    }
}

PrometheusSource::~PrometheusSource() { stop(); }

void PrometheusSource::start() {
    thread_ = std::thread([this] { pollLoop(); });
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, options_.firstPollWait, [this] { return polls_ > 0 || stopping_; });
}

void PrometheusSource::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

UnixTime PrometheusSource::now() const { return fromUnixMs(wallMs()); }

void PrometheusSource::advanceTo(UnixTime until, FleetChanges& out) {
    std::lock_guard lock(mutex_);
    // The tick thread takes every finished poll at once; the store applies them as one instant
    // whose samples keep their own times.
    mergeInto(out, pending_);
    pending_ = FleetChanges{};
    out.time = std::min(until, now());
}

// Appends `from` to `into`: events and states in order, the newest fleet line, and one entry per
// job (by index) and per source (by name). Samples move when `into` has none, which is the usual
// case on both hand-overs: millions of them are not copied under the lock the tick thread waits on.
void PrometheusSource::mergeInto(FleetChanges& into, FleetChanges& from) {
    if (into.samples.empty()) {
        into.samples = std::move(from.samples);
        into.sampleTimesMs = std::move(from.sampleTimesMs);
    } else {
        into.samples.insert(into.samples.end(), from.samples.begin(), from.samples.end());
        into.sampleTimesMs.insert(into.sampleTimesMs.end(), from.sampleTimesMs.begin(), from.sampleTimesMs.end());
    }
    for (auto& e : from.events) into.events.push_back(std::move(e));
    for (auto& state : from.states) into.states.push_back(std::move(state));
    if (from.hasFleet) {
        into.hasFleet = true;
        into.fleet = std::move(from.fleet);
    }
    for (auto& job : from.jobs) {
        auto same = std::find_if(into.jobs.begin(), into.jobs.end(),
                                 [&](const v1::Job& j) { return j.index() == job.index(); });
        if (same != into.jobs.end()) *same = std::move(job);
        else into.jobs.push_back(std::move(job));
    }
    for (auto& status : from.sources) {
        auto same = std::find_if(into.sources.begin(), into.sources.end(),
                                 [&](const v1::SourceStatus& s) { return s.name() == status.name(); });
        if (same != into.sources.end()) *same = std::move(status);
        else into.sources.push_back(std::move(status));
    }
}

void PrometheusSource::pollLoop() {
    auto next = std::chrono::steady_clock::now();
    while (true) {
        pollOnce();
        ++polls_;
        wake_.notify_all();
        next += options_.poll;
        std::unique_lock lock(mutex_);
        if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
        // A poll that took longer than the period: start the next one now, not in a burst.
        next = std::max(next, std::chrono::steady_clock::now());
    }
}

void PrometheusSource::pollOnce() {
    const std::int64_t pollTimeMs = wallMs();
    FleetChanges changes;
    telemetry_->begin(pollTimeMs);
    std::vector<std::string> promqls;
    for (const auto& q : queries_) promqls.push_back(q.promql);
    std::vector<std::vector<prom::QueryResult>> results(clients_.size());
    std::vector<double> seconds(clients_.size());
    for (std::size_t s = 0; s < clients_.size(); ++s) {
        const auto began = std::chrono::steady_clock::now();
        // Query indexes are unique across shards so a failed answer is discarded alone.
        const std::size_t base = s * queries_.size();
        results[s] = clients_[s]->instantQueries(
            promqls, std::nullopt, [&](std::size_t q, std::span<const prom::Label> labels, prom::Point point) {
                telemetry_->add(base + q, queries_[q], labels, point);
            });
        for (std::size_t q = 0; q < results[s].size(); ++q)
            if (!results[s][q].ok) telemetry_->discard(base + q);
        seconds[s] = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    }
    const PollNotes notes = telemetry_->finish(changes);
    for (std::size_t s = 0; s < clients_.size(); ++s)
        updateStatus(s, results[s], notes, pollTimeMs, seconds[s], changes);
    if (slurm_) pollSlurm(pollTimeMs, changes);
    if (notes.gpusHealthy + notes.gpusDegraded > 0) summarizeFleet(pollTimeMs, notes, changes);

    std::lock_guard lock(mutex_);
    mergeInto(pending_, changes);
    progress_ = telemetry_->jobProgress();
}

// One line per problem, bounded: the console shows these beside the store's health.
void PrometheusSource::updateStatus(std::size_t store, const std::vector<prom::QueryResult>& results,
                                    const PollNotes& notes, std::int64_t pollTimeMs, double seconds,
                                    FleetChanges& out) {
    std::size_t failed = 0;
    std::string firstError;
    std::vector<std::string> warnings;
    for (std::size_t q = 0; q < results.size(); ++q) {
        if (!results[q].ok) {
            if (firstError.empty()) firstError = queries_[q].promql + ": " + results[q].error;
            ++failed;
        }
        for (const auto& w : results[q].warnings)
            if (warnings.size() < kMostWarnings) warnings.push_back("store: " + w);
    }
    if (notes.unmapped) warnings.push_back(plural(notes.unmapped, "series") + " named no entity of the inventory");
    if (notes.duplicates) warnings.push_back(plural(notes.duplicates, "duplicate series") + " (the newest sample kept)");
    if (notes.fromTheFuture)
        warnings.push_back(plural(notes.fromTheFuture, "sample") + " stamped in the future: the store's clock or an "
                           "exporter's is ahead of fleetd's (shown as read now)");
    if (notes.notFinite) warnings.push_back(plural(notes.notFinite, "infinite value") + " shown as blank");
    if (notes.withoutAnchor)
        warnings.push_back(plural(notes.withoutAnchor, "value") + " without a sample time (no DCGM_FI_DEV_GPU_TEMP or "
                           "state_id series beside it): shown as old");

    v1::SourceStatus status;
    {
        std::lock_guard lock(mutex_);
        status = statuses_[store];
    }
    const v1::SourceHealth before = status.health();
    status.set_last_poll_unix_ms(pollTimeMs);
    status.set_last_poll_duration_s(seconds);
    status.clear_warnings();
    for (const auto& w : warnings) status.add_warnings(w);
    if (failed == results.size()) {
        status.set_health(v1::SOURCE_HEALTH_DOWN);
        status.set_last_error(firstError);
    } else {
        status.set_last_good_poll_unix_ms(pollTimeMs);
        status.set_series(notes.series);
        status.set_unmapped_series(notes.unmapped);
        status.set_health(failed || !warnings.empty() ? v1::SOURCE_HEALTH_DEGRADED : v1::SOURCE_HEALTH_UP);
        status.set_last_error(failed ? std::to_string(failed) + " of " + std::to_string(results.size()) +
                                           " queries failed; first: " + firstError
                                     : std::string());
    }
    {
        std::lock_guard lock(mutex_);
        statuses_[store] = status;
    }
    out.sources.push_back(status);

    const bool wasDown = before == v1::SOURCE_HEALTH_DOWN;
    const bool isDown = status.health() == v1::SOURCE_HEALTH_DOWN;
    if (wasDown == isDown && before != v1::SOURCE_HEALTH_UNSPECIFIED) return;
    if (before == v1::SOURCE_HEALTH_UNSPECIFIED && !isDown) {
        if (log_) log_(status.name() + ": first poll read " + plural(notes.series, "series") + " in " +
                       std::to_string(seconds).substr(0, 5) + " s");
        return;
    }
    v1::Event e;
    e.set_time_unix_ms(pollTimeMs);
    e.set_type(v1::EVENT_TYPE_SOURCE);
    e.set_entity_index(topology_.fleet_index());
    e.set_cause(isDown ? "source_down" : "source_up");
    e.set_severity(isDown ? v1::SEVERITY_CRITICAL : v1::SEVERITY_INFO);
    e.set_message(isDown ? status.name() + " is not answering (" + firstError +
                               "): its values are kept and shown stale"
                         : status.name() + " answers again");
    if (log_) log_(e.message());
    out.events.push_back(std::move(e));
}

// The fleet line every console's KPIs read: GPUs by what this poll read (a GPU not read is in
// none of healthy, degraded or down: its state is unknown, not down), and goodput over the jobs
// that publish step telemetry, weighted by their GPUs (none: 0, and the console says no job does).
void PrometheusSource::summarizeFleet(std::int64_t pollTimeMs, const PollNotes& notes, FleetChanges& changes) {
    v1::FleetGoodput& fleet = changes.fleet;
    changes.hasFleet = true;
    fleet.set_time_unix_ms(pollTimeMs);
    fleet.set_gpus_total(std::uint32_t(topology_.gpus_size()));
    fleet.set_gpus_healthy(notes.gpusHealthy);
    fleet.set_gpus_degraded(notes.gpusDegraded);
    double weight = 0, goodput = 0, confirmed = 0, ettr = 0, sliding = 0;
    std::uint32_t interruptions = 0;
    for (const auto& job : lastJobs_) {
        if (job.no_step_telemetry() || job.state() == v1::JOB_STATE_FINISHED) continue;
        const double w = job.gpu_count();
        weight += w;
        goodput += w * job.goodput_ratio();
        confirmed += w * job.confirmed_goodput_ratio();
        ettr += w * job.ettr_ratio();
        sliding += w * job.ettr_sliding_1h_ratio();
        interruptions += job.interruptions();
    }
    if (weight > 0) {
        fleet.set_goodput_ratio(goodput / weight);
        fleet.set_confirmed_goodput_ratio(confirmed / weight);
        fleet.set_ettr_ratio(ettr / weight);
        fleet.set_ettr_sliding_1h_ratio(sliding / weight);
    }
    fleet.set_interruptions(interruptions);
}

void PrometheusSource::pollSlurm(std::int64_t pollTimeMs, FleetChanges& changes) {
    const auto began = std::chrono::steady_clock::now();
    std::string error;
    const bool ok = slurm_->poll(telemetry_->jobProgress(), pollTimeMs, changes.jobs, &error);
    if (ok) lastJobs_ = changes.jobs;
    v1::SourceStatus status;
    {
        std::lock_guard lock(mutex_);
        status = statuses_.back();
    }
    const bool wasDown = status.health() == v1::SOURCE_HEALTH_DOWN;
    status.set_last_poll_unix_ms(pollTimeMs);
    status.set_last_poll_duration_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
    status.set_last_error(error);
    status.set_health(!ok ? v1::SOURCE_HEALTH_DOWN : error.empty() ? v1::SOURCE_HEALTH_UP : v1::SOURCE_HEALTH_DEGRADED);
    if (ok) status.set_last_good_poll_unix_ms(pollTimeMs);
    status.clear_warnings();
    if (slurm_->hostsNotInInventory())
        status.add_warnings(plural(slurm_->hostsNotInInventory(), "job node") + " not in the inventory (not drawn)");
    {
        std::lock_guard lock(mutex_);
        statuses_.back() = status;
    }
    changes.sources.push_back(status);
    if (wasDown != !ok && log_) log_(ok ? "slurm answers again" : "slurm: " + error + " (jobs kept as last read)");
}

std::vector<v1::SourceStatus> PrometheusSource::statuses() const {
    std::lock_guard lock(mutex_);
    return statuses_;
}

std::unordered_map<std::string, JobProgress> PrometheusSource::jobProgress() const {
    std::lock_guard lock(mutex_);
    return progress_;
}

}  // namespace watchfloor::server::sources
