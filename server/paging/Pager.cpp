#include "Pager.h"

#include "AlertmanagerJson.h"
#include "TickClock.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::paging {

namespace v1 = watchfloor::v1;
using Clock = std::chrono::steady_clock;

namespace {

// Alertmanager resolves a firing alert by itself once its endsAt passes: four resends ahead
// survive three lost ones, as Prometheus sends its alerts.
constexpr int kEndsAtResends = 4;

std::int64_t wallMsOf(Clock::time_point t) {
    return wallNowMs() + std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
}

const std::string* annotation(const PagedAlert& alert, std::string_view name) {
    for (const auto& [key, value] : alert.annotations)
        if (key == name) return &value;
    return nullptr;
}

// What a receiver routes or reads first changed: worth a send now rather than at the next resend
// (the goodput cost in the annotations grows every tick; it rides along with the resends).
bool noticeablyChanged(const PagedAlert& before, const PagedAlert& after) {
    auto same = [&](std::string_view name) {
        const auto* a = annotation(before, name);
        const auto* b = annotation(after, name);
        return (!a && !b) || (a && b && *a == *b);
    };
    return before.labels != after.labels || before.startsAtMs != after.startsAtMs || !same("title") || !same("summary");
}

}  // namespace

struct Pager::Work {
    enum class Kind { Alerts, Silence } kind = Kind::Alerts;
    std::vector<PagedAlert> alerts;                                   // resolutions first, then firing
    std::vector<std::pair<std::uint64_t, std::uint64_t>> firingSent;  // (incident id, version sent)
    std::deque<PagedAlert> resolutions;                               // taken from the queue
    SilenceChange change;
    std::vector<std::string> deleting;  // Silence, !create: ids at take time
    std::size_t queued = 0;             // of the items, those the status counted as queued (not plain resends)
};

Pager::Pager(const v1::Topology& topology, PagerOptions options)
    : alerts_(topology), options_(std::move(options)), http_(options_.http) {
    options_.speed = options_.speed > 0 ? options_.speed : 1.0;
    options_.maxAlertsPerPost = std::max<std::size_t>(options_.maxAlertsPerPost, 1);
    status_.set_target(http_.target());
    changedLocked();
    worker_ = std::thread([this] { run(); });
}

Pager::~Pager() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
}

std::int64_t Pager::wallOf(std::int64_t fleetMs) const {
    if (!ticked_) return fleetMs;
    return wallAtTickMs_ + std::llround(double(fleetMs - fleetAtTickMs_) / options_.speed);
}

void Pager::observe(FleetChanges& changes) {
    observeIncidents(changes.incidents, toUnixMs(changes.time));
    std::lock_guard lock(mu_);
    if (publishedVersion_ == statusVersion_) return;
    publishedVersion_ = statusVersion_;
    changes.hasPaging = true;
    changes.paging = status_;
}

void Pager::observeIncidents(const std::vector<v1::Incident>& incidents, std::int64_t fleetMs) {
    const std::int64_t wallNow = wallNowMs();
    std::lock_guard lock(mu_);
    fleetAtTickMs_ = fleetMs;
    wallAtTickMs_ = wallNow;
    ticked_ = true;
    bool queued = false;
    for (const auto& incident : incidents) {
        auto alert = alerts_.alertOf(incident);
        alert.startsAtMs = std::min(wallOf(incident.started_unix_ms()), wallNow);
        const auto known = firing_.find(incident.id());
        if (incident.state() == v1::INCIDENT_STATE_RESOLVED) {
            if (known == firing_.end()) continue;  // never paged: nothing to resolve
            // The label set Alertmanager holds: another one would be a second alert, ended
            // while the firing one waited for its endsAt.
            alert.labels = known->second.alert.labels;
            alert.startsAtMs = known->second.alert.startsAtMs;
            alert.endsAtMs = std::clamp(wallOf(incident.resolved_unix_ms()), alert.startsAtMs, wallNow);
            firing_.erase(known);
            resolutions_.push_back(std::move(alert));
            queued = true;
            continue;
        }
        if (known == firing_.end()) {
            firing_[incident.id()] = Firing{std::move(alert), ++nextVersion_, 0, {}};
            queued = true;
        } else {
            alert.startsAtMs = known->second.alert.startsAtMs;  // fixed once paged: the mapping drifts by ms
            if (alert.labels != known->second.alert.labels) {
                // Severity escalated or the cause was named anew: to Alertmanager a new label set
                // is a new alert, so the old one is ended now, explicitly, rather than left firing
                // beside it until its endsAt. A resolution of the new set still queued (a change
                // back) would end it after it fires again: dropped.
                std::erase_if(resolutions_, [&](const PagedAlert& r) { return r.labels == alert.labels; });
                PagedAlert ended = known->second.alert;
                ended.endsAtMs = std::max(ended.startsAtMs, wallNow);
                resolutions_.push_back(std::move(ended));
            }
            if (noticeablyChanged(known->second.alert, alert)) {
                known->second.version = ++nextVersion_;
                queued = true;
            }
            known->second.alert = std::move(alert);
        }
    }
    boundQueueLocked();
    changedLocked();
    if (queued) wake_.notify_all();
}

bool Pager::silence(const SilenceWindow& window) {
    if (window.places.empty() || window.endsUnixMs <= window.startsUnixMs) return false;
    std::lock_guard lock(mu_);
    SilenceChange create{true, window.id, window};
    create.window.startsUnixMs = wallOf(window.startsUnixMs);
    create.window.endsUnixMs = wallOf(window.endsUnixMs);
    if (create.window.endsUnixMs <= wallNowMs()) return false;  // over already: Alertmanager refuses it
    // A window set again replaces its silences: a creation still queued is dropped, created ones deleted.
    const auto before = silenceChanges_.size();
    std::erase_if(silenceChanges_, [&](const SilenceChange& c) { return c.create && c.windowId == window.id; });
    if (silenceChanges_.size() == before && silenceIds_.count(window.id))
        silenceChanges_.push_back(SilenceChange{false, window.id, {}});
    silenceIds_.try_emplace(window.id);
    silenceChanges_.push_back(std::move(create));
    boundQueueLocked();
    changedLocked();
    wake_.notify_all();
    return true;
}

bool Pager::cancelSilence(const std::string& windowId) {
    std::lock_guard lock(mu_);
    if (!silenceIds_.count(windowId)) return false;
    const auto before = silenceChanges_.size();
    std::erase_if(silenceChanges_, [&](const SilenceChange& c) { return c.create && c.windowId == windowId; });
    // Nothing was created yet (the creation was still queued): nothing to delete either.
    if (silenceChanges_.size() < before && silenceIds_[windowId].empty() && inFlight_ == 0)
        silenceIds_.erase(windowId);
    else
        silenceChanges_.push_back(SilenceChange{false, windowId, {}});
    boundQueueLocked();
    changedLocked();
    wake_.notify_all();
    return true;
}

std::vector<std::string> Pager::silenceIdsOf(const std::string& windowId) const {
    std::lock_guard lock(mu_);
    const auto it = silenceIds_.find(windowId);
    return it == silenceIds_.end() ? std::vector<std::string>{} : it->second;
}

v1::PagingStatus Pager::status() const {
    std::lock_guard lock(mu_);
    return status_;
}

bool Pager::waitDelivered(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mu_);
    return progress_.wait_for(lock, timeout, [this] { return failures_ == 0 && queuedLocked() == 0; });
}

// Oldest first: a resolution (it still ends at the endsAt last sent), else a silence change.
void Pager::boundQueueLocked() {
    while (resolutions_.size() + silenceChanges_.size() > options_.maxQueued) {
        if (!resolutions_.empty())
            resolutions_.pop_front();
        else
            silenceChanges_.pop_front();
        status_.set_dropped(status_.dropped() + 1);
    }
}

std::size_t Pager::queuedLocked() const {
    std::size_t changed = 0;
    for (const auto& [id, f] : firing_) changed += f.sentVersion < f.version;
    return changed + resolutions_.size() + silenceChanges_.size() +
           inFlight_;  // inFlight_: resolutions, silence changes
}

void Pager::changedLocked() {
    v1::PagingStatus next = status_;
    next.set_queued(static_cast<std::uint32_t>(queuedLocked()));
    next.set_firing(static_cast<std::uint32_t>(firing_.size()));
    std::size_t silences = 0;
    for (const auto& [window, ids] : silenceIds_) silences += ids.size();
    next.set_silences(static_cast<std::uint32_t>(silences));
    next.set_state(failures_ > 0       ? v1::PAGING_STATE_FAILING
                   : next.queued() > 0 ? v1::PAGING_STATE_QUEUED
                                       : v1::PAGING_STATE_DELIVERED);
    next.set_next_attempt_unix_ms(failures_ > 0 ? wallMsOf(nextAttempt_) : 0);
    if (next.SerializeAsString() == status_.SerializeAsString()) return;
    status_ = std::move(next);
    ++statusVersion_;
}

bool Pager::hasWorkLocked(Clock::time_point now) const {
    if (now < nextAttempt_) return false;
    if (!resolutions_.empty() || !silenceChanges_.empty()) return true;
    for (const auto& [id, f] : firing_)
        if (f.sentVersion < f.version || now - f.lastSent >= options_.resendInterval) return true;
    return false;
}

Clock::time_point Pager::nextWakeLocked() const {
    auto next = Clock::now() + std::chrono::hours(1);  // new work wakes the worker anyway
    for (const auto& [id, f] : firing_) next = std::min(next, f.lastSent + options_.resendInterval);
    return std::max(next, nextAttempt_);
}

Pager::Work Pager::takeWorkLocked(Clock::time_point now) {
    Work work;
    if (!silenceChanges_.empty()) {
        work.kind = Work::Kind::Silence;
        work.change = std::move(silenceChanges_.front());
        silenceChanges_.pop_front();
        if (!work.change.create) work.deleting = silenceIds_[work.change.windowId];
        work.queued = 1;
        return work;
    }
    const std::int64_t endsAt =
        wallNowMs() +
        kEndsAtResends * std::chrono::duration_cast<std::chrono::milliseconds>(options_.resendInterval).count();
    for (auto& [id, f] : firing_) {
        if (work.alerts.size() >= options_.maxAlertsPerPost) break;
        if (f.sentVersion >= f.version && now - f.lastSent < options_.resendInterval) continue;
        work.alerts.push_back(f.alert);
        work.alerts.back().endsAtMs = endsAt;
        work.firingSent.emplace_back(id, f.version);
        // Not counted again while in flight: queuedLocked() still sees it unsent.
    }
    const auto firing = static_cast<std::ptrdiff_t>(work.alerts.size());
    while (!resolutions_.empty() && work.alerts.size() < options_.maxAlertsPerPost) {
        work.alerts.push_back(resolutions_.front());
        work.resolutions.push_back(std::move(resolutions_.front()));
        resolutions_.pop_front();
        ++work.queued;
    }
    // Firing ones have the room first, but resolutions go first in the body: an incident whose
    // label set changed is, between the two, briefly listed by none rather than twice.
    std::rotate(work.alerts.begin(), work.alerts.begin() + firing, work.alerts.end());
    return work;
}

void Pager::run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
        if (!hasWorkLocked(Clock::now())) {
            wake_.wait_until(lock, nextWakeLocked());
            continue;
        }
        Work work = takeWorkLocked(Clock::now());
        inFlight_ = work.queued;
        changedLocked();
        lock.unlock();
        if (work.kind == Work::Kind::Alerts)
            deliverAlerts(work);
        else
            deliverSilenceChange(work);
        lock.lock();
        inFlight_ = 0;
        changedLocked();
        progress_.notify_all();
    }
}

void Pager::recordLocked(const Exchange& exchange, std::size_t items) {
    if (exchange.ok || exchange.refused()) {  // Alertmanager answered: no outage (any more)
        if (failures_ > 0 && options_.log) options_.log("paging: delivered again to " + http_.target());
        failures_ = 0;
        nextAttempt_ = {};
        status_.set_failing_since_unix_ms(0);
    }
    if (exchange.ok) {
        status_.set_last_error("");
        status_.set_last_delivered_unix_ms(wallNowMs());
        status_.set_delivered(status_.delivered() + items);
        return;
    }
    status_.set_last_error(exchange.error);
    if (exchange.refused()) {  // it said no to this request: sending it again cannot succeed
        status_.set_dropped(status_.dropped() + items);
        if (options_.log) options_.log("paging: refused, dropped " + std::to_string(items) + ": " + exchange.error);
        return;
    }
    if (failures_ == 0) {
        status_.set_failing_since_unix_ms(wallNowMs());
        if (options_.log) options_.log("paging: not delivered: " + exchange.error);
    }
    ++failures_;
    const double factor = std::pow(2.0, std::min(failures_ - 1, 20));
    const auto backoff = std::min<std::chrono::milliseconds>(
        options_.maxBackoff, std::chrono::milliseconds(std::llround(double(options_.minBackoff.count()) * factor)));
    nextAttempt_ = Clock::now() + backoff;
}

void Pager::deliverAlerts(Work& work) {
    const Exchange exchange = http_.post("/api/v2/alerts", postableAlerts(work.alerts));
    const auto now = Clock::now();
    std::lock_guard lock(mu_);
    recordLocked(exchange, work.alerts.size());
    if (!exchange.ok && !exchange.refused()) {
        // Retried: resolutions back at the front, in order; firing ones are still unsent.
        for (auto it = work.resolutions.rbegin(); it != work.resolutions.rend(); ++it)
            resolutions_.push_front(std::move(*it));
        boundQueueLocked();
        return;
    }
    for (const auto& [id, version] : work.firingSent) {
        const auto f = firing_.find(id);
        if (f == firing_.end()) continue;  // resolved meanwhile: its resolution is queued
        f->second.sentVersion = std::max(f->second.sentVersion, version);
        f->second.lastSent = now;
    }
}

void Pager::deliverSilenceChange(Work& work) {
    SilenceChange& change = work.change;
    if (change.create) {
        const SilenceWindow& w = change.window;
        while (!change.window.places.empty()) {
            const auto body =
                postableSilence(alerts_.matchersOf(w.places.front()), w.startsUnixMs, w.endsUnixMs, w.owner, w.reason);
            Exchange exchange = http_.post("/api/v2/silences", body);
            std::string problem;
            const auto id = exchange.ok ? silenceIdOf(exchange.body, problem) : std::nullopt;
            if (exchange.ok && !id) {  // a 2xx without an id: not the Alertmanager API
                exchange.ok = false;
                exchange.error = problem + " (from " + http_.target() + "/api/v2/silences)";
            }
            std::lock_guard lock(mu_);
            recordLocked(exchange, 1);
            if (!exchange.ok && !exchange.refused()) {
                silenceChanges_.push_front(std::move(change));  // the places left, retried first
                boundQueueLocked();
                return;
            }
            if (id) silenceIds_[change.windowId].push_back(*id);
            change.window.places.erase(change.window.places.begin());
        }
        return;
    }
    for (const auto& id : work.deleting) {
        const Exchange exchange = http_.remove("/api/v2/silence/" + id);
        std::lock_guard lock(mu_);
        // 404: gone already (expired and collected, or deleted by hand): what the cancel wanted.
        const bool gone = exchange.ok || exchange.httpStatus == 404;
        Exchange counted = exchange;
        counted.ok = gone;
        recordLocked(counted, 1);
        if (!gone && !exchange.refused()) {
            silenceChanges_.push_front(std::move(change));
            boundQueueLocked();
            return;
        }
        auto& ids = silenceIds_[change.windowId];
        std::erase(ids, id);
    }
    std::lock_guard lock(mu_);
    // The window is forgotten unless a newer creation for it waits.
    const bool recreated = std::any_of(silenceChanges_.begin(), silenceChanges_.end(), [&](const SilenceChange& c) {
        return c.create && c.windowId == change.windowId;
    });
    if (!recreated && silenceIds_[change.windowId].empty()) silenceIds_.erase(change.windowId);
}

}  // namespace watchfloor::server::paging
