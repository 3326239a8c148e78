#include "PrometheusSource.h"

#include "Plural.h"

#include <algorithm>
#include <sstream>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMostWarnings = 8;

}  // namespace

PrometheusSource::PrometheusSource(v1::Topology topology, PrometheusSourceOptions options, Log log)
    : PolledSource(options.firstPollWait),
      topology_(std::move(topology)),
      options_(std::move(options)),
      log_(std::move(log)),
      queries_(pollQueries()) {
    telemetry_ = std::make_unique<StoreTelemetry>(topology_, options_.lookback, log_);
    FleetChanges initial;
    if (options_.slurmJobs) {
        slurm_ = std::make_unique<JobsFromSlurm>(topology_, options_.slurmConf, log_);
        initial.sources.push_back(JobsFromSlurm::initialStatus());
    }
    const auto ceiling = DeliveryLag::ceilingFor(options_.poll, options_.storeScrapeInterval, options_.lookback);
    for (const auto& store : options_.stores) {
        clients_.push_back(std::make_unique<prom::PromClient>(store));
        lags_.emplace_back(ceiling);
        v1::SourceStatus status;
        status.set_name("prometheus=" + store.url);
        status.set_kind("prometheus");
        status.set_health(v1::SOURCE_HEALTH_UNSPECIFIED);
        statuses_.push_back(status);
        initial.sources.push_back(status);
    }
    pending().post(initial);
}

PrometheusSource::~PrometheusSource() { stop(); }

// The tick thread takes every finished poll at once (PolledSource::advanceTo); the store applies
// them as one instant whose samples keep their own times.
PolledSource::Clock::time_point PrometheusSource::pollStep() {
    pollOnce();
    notePolled();
    return nextPeriod(options_.poll);
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
    // Each store's delivery lag, from the sample times of its own answers.
    std::vector<std::vector<std::int64_t>> ages(clients_.size());
    for (const FreshAnchor& anchor : telemetry_->freshAnchors())
        if (const std::size_t store = anchor.queryIndex / std::max<std::size_t>(1, queries_.size());
            store < ages.size())
            ages[store].push_back(anchor.ageMs);
    for (std::size_t s = 0; s < clients_.size(); ++s) lags_[s].addPoll(ages[s]);
    for (std::size_t s = 0; s < clients_.size(); ++s)
        updateStatus(s, results[s], notes, pollTimeMs, seconds[s], changes);
    if (slurm_) slurm_->poll(telemetry_->jobProgress(), pollTimeMs, changes);
    if (notes.gpusHealthy + notes.gpusDegraded > 0)
        fillFleetLine(topology_, slurm_ ? slurm_->lastJobs() : std::vector<v1::Job>{}, notes, pollTimeMs, changes);

    pending().post(changes);
    std::lock_guard lock(mutex_);
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
    appendNoteWarnings(notes, warnings);
    const DeliveryLag& lag = lags_[store];
    if (lag.capped() && warnings.size() < kMostWarnings)
        warnings.push_back("its newest samples arrive " + std::to_string(lag.lastPollMedianMs() / 1000) +
                           " s old (median), more than the " + std::to_string(lag.lag()->count() / 1000) +
                           " s the lookback leaves room for: values that old show stale (is the store behind?)");

    v1::SourceStatus status;
    {
        std::lock_guard lock(mutex_);
        status = statuses_[store];
    }
    const v1::SourceHealth before = status.health();
    status.set_last_poll_unix_ms(pollTimeMs);
    status.set_last_poll_duration_s(seconds);
    if (const auto learned = lag.lag()) status.set_delivery_lag_ms(learned->count());
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

    if (before == v1::SOURCE_HEALTH_UNSPECIFIED && status.health() != v1::SOURCE_HEALTH_DOWN) {
        if (log_)
            log_(status.name() + ": first poll read " + plural(notes.series, "series") + " in " +
                 std::to_string(seconds).substr(0, 5) + " s");
        return;
    }
    if (noteSourceTransition(
            before, status, pollTimeMs, topology_.fleet_index(),
            status.name() + " is not answering (" + firstError + "): its values are kept and shown stale",
            status.name() + " answers again", out) &&
        log_)
        log_(out.events.back().message());
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
