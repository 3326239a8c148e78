#include "ScrapeSource.h"

#include "Plural.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <deque>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kStatusName = "scrape";
constexpr std::chrono::milliseconds kSlurmPeriod{10'000};  // squeue is the controller's load, not ours
constexpr std::size_t kReservedDescriptors = 512;          // gRPC, files, the store client

// Every target keeps a connection open between rounds; the default soft limit (1,024 descriptors)
// is below a large shard's count, and the hard limit is the administrator's answer to that.
std::size_t descriptorBudget() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
        getrlimit(RLIMIT_NOFILE, &limit);
    }
    const auto soft = limit.rlim_cur == RLIM_INFINITY ? rlim_t(1) << 20 : limit.rlim_cur;
    return soft > kReservedDescriptors + 64 ? std::size_t(soft - kReservedDescriptors) : 64;
}

}  // namespace

// The scrape thread's state: everything here is touched by that thread only.
class ScrapeSource::Loop {
public:
    Loop(ScrapeSource& source, prom::ScrapeOptions http)
        : source_(source),
          targets_(source.targets_),
          scraper_(std::move(http)),
          telemetry_(source.topology_, source.options_.interval, source.log_),
          health_(source.topology_, source.targets_, source.options_.frozenAfter, source.options_.stateRefresh),
          queued_(targets_.size(), 0),
          inFlight_(targets_.size(), 0),
          countedDown_(targets_.size(), 0),
          downCap_(std::max<std::size_t>(1, scraper_.options().maxConcurrent / 4)) {
        const auto& o = source.options_;
        // A GPU whose last temperature is older than this (its host silent) drops out of the counts.
        telemetry_.aggregateOverLatest(2 * o.interval + o.http.timeout);
        entities_.resize(targets_.size());
        for (std::size_t t = 0; t < targets_.size(); ++t)
            telemetry_.inventory().hostEntities(targets_[t].host, entities_[t]);
        status_.set_name(kStatusName);
        status_.set_kind("scrape");
        status_.set_targets(std::uint32_t(targets_.size()));
    }

    // One pass of the scrape thread: a round begun when due, targets launched, pages read for up
    // to 50 ms, finished pages flushed. Returns when the next pass is due: now while pages are in
    // flight or a batch is open, the next round when there is nothing to do until then.
    Clock::time_point step();

private:
    void beginRound();
    void launch();
    void onPage(const prom::ScrapeResult& result);
    void openBatch();
    void flush(bool roundDone);
    void finishRound(bool overran, FleetChanges& changes);
    void stamp(std::size_t target, std::int64_t timeMs);

    ScrapeSource& source_;
    const std::vector<ScrapeTarget>& targets_;
    prom::Scraper scraper_;
    StoreTelemetry telemetry_;
    ScrapeHealth health_;
    ScrapePageReader reader_;
    std::vector<InventoryIndex::HostEntities> entities_;  // what each target's page is about

    std::deque<std::size_t> live_, down_;  // to start: targets that answered last time first
    std::vector<std::uint8_t> queued_, inFlight_, countedDown_;
    std::size_t downInFlight_ = 0;
    const std::size_t downCap_;

    bool batchOpen_ = false;
    Clock::time_point batchOpened_;
    std::size_t pageIndex_ = 0;

    Clock::time_point nextRound_{};  // when the next round begins (epoch: at the first step)
    bool roundOpen_ = false;
    Clock::time_point roundStarted_, lastPageAt_;
    std::int64_t roundStartMs_ = 0;
    std::uint64_t roundSeries_ = 0;
    PollNotes roundNotes_;
    v1::SourceStatus status_;

    ScrapePageReader::Read read_;
    PageScrape scrape_;
    std::vector<std::uint32_t> frozenGpus_, frozenEntities_;
};

ScrapeSource::Clock::time_point ScrapeSource::Loop::step() {
    const auto interval = source_.options_.interval;
    const auto flushEvery = source_.options_.flushEvery;
    auto now = Clock::now();
    if (nextRound_ == Clock::time_point{}) nextRound_ = now;
    if (now >= nextRound_) {
        if (roundOpen_) {  // targets of the last round still waiting: say so, then carry on
            openBatch();
            flush(false);
            FleetChanges changes;
            finishRound(true, changes);
            source_.pending().post(changes);
        }
        beginRound();
        nextRound_ += interval;
        if (nextRound_ <= now) nextRound_ = now + interval;  // behind: no burst of rounds
    }
    launch();
    auto wait = std::min<Clock::duration>(std::chrono::milliseconds(50), nextRound_ - now);
    if (batchOpen_) wait = std::min<Clock::duration>(wait, flushEvery - (now - batchOpened_));
    const auto waitMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::max(wait, Clock::duration::zero()));
    if (scraper_.inFlight() > 0)
        scraper_.run(std::max(waitMs, std::chrono::milliseconds(1)),
                     [this](const prom::ScrapeResult& result) { onPage(result); });
    else if (!batchOpen_)
        return nextRound_;  // nothing in flight, nothing to flush: sleep until the next round
    now = Clock::now();
    const bool roundDone = roundOpen_ && live_.empty() && down_.empty() && scraper_.inFlight() == 0;
    if (batchOpen_ && (roundDone || now - batchOpened_ >= flushEvery)) flush(roundDone);
    return now;
}

void ScrapeSource::Loop::beginRound() {
    roundOpen_ = true;
    roundStarted_ = lastPageAt_ = Clock::now();
    roundStartMs_ = wallMs();
    roundSeries_ = 0;
    roundNotes_ = {};
    const auto& o = source_.options_;
    health_.expire(roundStartMs_, 2 * o.interval + o.http.timeout);
    for (std::size_t t = 0; t < targets_.size(); ++t) {
        if (queued_[t] || inFlight_[t]) continue;  // still waiting from the round before
        queued_[t] = 1;
        (health_.health(t) == v1::TARGET_HEALTH_DOWN ? down_ : live_).push_back(t);
    }
}

void ScrapeSource::Loop::launch() {
    const std::size_t most = scraper_.options().maxConcurrent;
    while (scraper_.inFlight() < most && (!live_.empty() || (!down_.empty() && downInFlight_ < downCap_))) {
        const bool fromDown = live_.empty();
        const std::size_t t = fromDown ? down_.front() : live_.front();
        (fromDown ? down_ : live_).pop_front();
        queued_[t] = 0;
        inFlight_[t] = 1;
        countedDown_[t] = fromDown;
        downInFlight_ += fromDown;
        scraper_.start(t, targets_[t].url);
    }
}

void ScrapeSource::Loop::openBatch() {
    if (batchOpen_) return;
    telemetry_.begin(wallMs());
    batchOpen_ = true;
    batchOpened_ = Clock::now();
}

void ScrapeSource::Loop::stamp(std::size_t target, std::int64_t timeMs) {
    const auto& entities = entities_[target];
    if (targets_[target].exporter == Exporter::Dcgm) {
        for (const std::uint32_t gpu : entities.gpus) telemetry_.setSampleTime(gpu, timeMs);
        return;
    }
    for (const std::uint32_t port : entities.nicPorts) telemetry_.setSampleTime(port, timeMs);
    telemetry_.setSampleTime(entities.node, timeMs);
}

void ScrapeSource::Loop::onPage(const prom::ScrapeResult& result) {
    const std::size_t t = result.target;
    inFlight_[t] = 0;
    if (countedDown_[t]) {
        countedDown_[t] = 0;
        --downInFlight_;
    }
    openBatch();
    ++source_.pages_;
    lastPageAt_ = Clock::now();
    const ScrapeTarget& target = targets_[t];
    const std::size_t page = pageIndex_++;
    scrape_.ok = result.ok;
    scrape_.error = result.error;
    scrape_.seconds = result.seconds;
    scrape_.timeMs = result.startedUnixMs;
    scrape_.series = scrape_.rejectedLines = scrape_.fingerprint = 0;
    scrape_.exporterTimeS = std::nan("");
    scrape_.parseError.clear();
    scrape_.gpus.clear();
    if (result.ok) {
        reader_.read(result.body, result.format, target.host, page, telemetry_, read_);
        scrape_.series = read_.stats.samples;
        scrape_.rejectedLines = read_.stats.rejectedLines;
        scrape_.parseError = read_.stats.firstError;
        scrape_.fingerprint = read_.fingerprint;
        scrape_.exporterTimeS = read_.exporterTimeS;
        scrape_.gpus = read_.gpus;
        roundSeries_ += read_.stats.samples;
    }
    const bool keep = health_.record(t, scrape_, frozenGpus_);
    if (!result.ok) return;
    if (!keep) {
        telemetry_.discard(page);
        return;
    }
    if (!frozenGpus_.empty()) {
        frozenEntities_.clear();
        for (const std::uint32_t index : frozenGpus_)
            if (const auto gpu = telemetry_.inventory().gpu(target.host, index)) frozenEntities_.push_back(*gpu);
        telemetry_.discardEntities(page, frozenEntities_);
    }
    stamp(t, result.startedUnixMs);
}

void ScrapeSource::Loop::flush(bool roundDone) {
    FleetChanges changes;
    const PollNotes notes = telemetry_.finish(changes);
    roundNotes_.unmapped += notes.unmapped;
    roundNotes_.duplicates += notes.duplicates;
    roundNotes_.fromTheFuture += notes.fromTheFuture;
    roundNotes_.notFinite += notes.notFinite;
    roundNotes_.withoutAnchor += notes.withoutAnchor;
    const std::int64_t now = wallMs();
    health_.report(now, changes);
    if (roundDone) finishRound(false, changes);
    if (notes.gpusHealthy + notes.gpusDegraded > 0)
        fillFleetLine(source_.topology_, source_.slurm_ ? source_.slurm_->lastJobs() : std::vector<v1::Job>{}, notes,
                      now, changes);
    source_.pending().post(changes);
    batchOpen_ = false;
}

void ScrapeSource::Loop::finishRound(bool overran, FleetChanges& changes) {
    roundOpen_ = false;
    const ScrapeHealth::Counts c = health_.counts();
    const v1::SourceHealth before = status_.health();
    status_.set_last_poll_unix_ms(roundStartMs_);
    status_.set_last_poll_duration_s(std::chrono::duration<double>(lastPageAt_ - roundStarted_).count());
    status_.set_targets(c.targets);
    status_.set_targets_up(c.up);
    status_.set_targets_down(c.down);
    status_.set_targets_frozen(c.frozen);
    status_.set_hosts_silent(c.hostsSilent);
    status_.set_rejected_lines(c.rejectedLines);
    status_.set_series(roundSeries_);
    status_.set_unmapped_series(roundNotes_.unmapped);
    std::vector<std::string> warnings;
    if (overran)
        warnings.push_back(plural(live_.size() + down_.size() + scraper_.inFlight(), "target") +
                           " still waiting when the next round began: more targets than fleetd scrapes in an interval");
    appendNoteWarnings(roundNotes_, warnings);
    if (c.rejectedLines) warnings.push_back(plural(c.rejectedLines, "exposition line") + " refused (see the targets)");
    status_.clear_warnings();
    for (const auto& w : warnings) status_.add_warnings(w);
    const std::uint32_t notUp = c.targets - c.up;
    if (c.targets > 0 && c.up == 0)
        status_.set_health(v1::SOURCE_HEALTH_DOWN);
    else
        status_.set_health(notUp || !warnings.empty() ? v1::SOURCE_HEALTH_DEGRADED : v1::SOURCE_HEALTH_UP);
    if (c.up > 0) status_.set_last_good_poll_unix_ms(roundStartMs_);
    status_.set_last_error(notUp ? std::to_string(notUp) + " of " + std::to_string(c.targets) +
                                       " targets not up; first: " + c.firstProblem
                                 : std::string());
    changes.sources.push_back(status_);
    if (noteSourceTransition(
            before, status_, roundStartMs_, source_.topology_.fleet_index(),
            "no exporter answers with live values (" + c.firstProblem +
                "): every tray's telemetry is silent; its values are kept and shown stale",
            "exporters answer again (" + std::to_string(c.up) + " of " + std::to_string(c.targets) + " targets up)",
            changes) &&
        source_.log_)
        source_.log_(changes.events.back().message());
    if (before == v1::SOURCE_HEALTH_UNSPECIFIED && source_.log_)
        source_.log_("scrape: first round read " + plural(roundSeries_, "series") + " from " + std::to_string(c.up) +
                     " of " + std::to_string(c.targets) + " targets in " +
                     std::to_string(status_.last_poll_duration_s()).substr(0, 5) + " s");
    source_.notePolled();
}

std::unique_ptr<ScrapeSource> ScrapeSource::create(v1::Topology topology, ScrapeSourceOptions options, Log log,
                                                   std::string* error) {
    std::vector<ScrapeTarget> targets;
    if (!buildScrapeTargets(topology, options.targets, targets, error)) return nullptr;
    return std::unique_ptr<ScrapeSource>(
        new ScrapeSource(std::move(topology), std::move(options), std::move(log), std::move(targets)));
}

ScrapeSource::ScrapeSource(v1::Topology topology, ScrapeSourceOptions options, Log log,
                           std::vector<ScrapeTarget> targets)
    : PolledSource(options.firstRoundWait),
      topology_(std::move(topology)),
      options_(std::move(options)),
      log_(std::move(log)),
      targets_(std::move(targets)) {
    auto& http = options_.http;
    const std::size_t budget = descriptorBudget();
    http.maxConcurrent = std::clamp<std::size_t>(http.maxConcurrent, 1, std::max<std::size_t>(1, budget / 2));
    // One kept connection per target, as far as the descriptors go.
    http.keptConnections = std::clamp<std::size_t>(targets_.size(), http.maxConcurrent, budget - http.maxConcurrent);
    FleetChanges initial;
    if (options_.slurmJobs) {
        slurm_ = std::make_unique<JobsFromSlurm>(topology_, options_.slurmConf, log_);
        initial.sources.push_back(JobsFromSlurm::initialStatus());
        // Slurm on a thread of its own: squeue may take seconds, and no target's scrape waits for it.
        pollBeside(std::max(options_.interval, kSlurmPeriod), [this] {
            FleetChanges changes;
            slurm_->poll({}, wallMs(), changes);
            pending().post(changes);
        });
    }
    v1::SourceStatus status;
    status.set_name(kStatusName);
    status.set_kind("scrape");
    status.set_targets(std::uint32_t(targets_.size()));
    initial.sources.push_back(status);
    pending().post(initial);
    loop_ = std::make_unique<Loop>(*this, http);
}

ScrapeSource::~ScrapeSource() { stop(); }

ScrapeSource::Clock::time_point ScrapeSource::pollStep() { return loop_->step(); }

}  // namespace watchfloor::server::sources
