#pragma once
// fleetd's pager: its open incidents as firing Alertmanager alerts, resolved when the incident
// resolves, and maintenance windows as Alertmanager silences — delivered by a worker thread so
// the tick thread never waits for Alertmanager.
//
// Firing alerts are state, not a queue: every non-resolved incident is sent when it opens or
// changes and re-sent every resendInterval (Alertmanager resolves an alert by itself once its
// endsAt passes; fleetd sends endsAt = now + 4 x resendInterval, as Prometheus does), so after an
// outage one round brings Alertmanager up to date. One incident is one alert: its labels
// (IncidentAlerts) do not follow the blast radius; when they do change (severity escalated, the
// cause named anew) the old label set is resolved explicitly, in the round that fires the new
// one, and a resolution goes out with the label set last sent. Resolutions and silence changes are a queue
// bounded by maxQueued: past it the oldest is dropped and counted (a dropped resolution still
// ends once the endsAt last sent passes). A failed exchange is retried with exponential backoff
// (minBackoff doubling up to maxBackoff); a 4xx other than 408/429 is Alertmanager refusing that
// request, dropped and counted, never retried.
//
// Times: Alertmanager runs on wall time; the fleet's clock (the twin's) may run at --speed, so
// fleet times are mapped onto wall time around the last tick: wall = wallAtTick + (t - fleetAtTick)
// / speed.

#include "AlertmanagerHttp.h"
#include "FleetChanges.h"
#include "IncidentAlerts.h"
#include "PagedAlert.h"

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace watchfloor::server::paging {

struct PagerOptions {
    HttpOptions http;
    std::chrono::milliseconds resendInterval{60'000};
    std::size_t maxQueued = 1000;  // resolutions + silence changes waiting
    std::chrono::milliseconds minBackoff{1000};
    std::chrono::milliseconds maxBackoff{60'000};
    std::size_t maxAlertsPerPost = 500;
    double speed = 1.0;                           // fleet seconds per wall second
    std::function<void(const std::string&)> log;  // state changes (failing, delivered again); may be empty
};

class Pager {
public:
    // Keeps a reference to `topology` (IncidentAlerts): it must outlive the pager.
    Pager(const watchfloor::v1::Topology& topology, PagerOptions options);
    ~Pager();  // stops the worker (at most one exchange's timeout)
    Pager(const Pager&) = delete;
    Pager& operator=(const Pager&) = delete;

    // Tick thread, after grouping: takes the incidents opened, changed or resolved at
    // changes.time, and adds the pager's status to `changes` when it changed. Never blocks on
    // Alertmanager.
    void observe(FleetChanges& changes);
    // The same without a tick (tests, and fleetd's first tick): incidents at fleet time `fleetMs`.
    void observeIncidents(const std::vector<watchfloor::v1::Incident>& incidents, std::int64_t fleetMs);

    // Any thread. Creates one silence per place of the window; a window already silenced is
    // replaced (its silences are deleted first). Returns false (and queues nothing) when the
    // window covers no place or ends before it starts.
    bool silence(const SilenceWindow& window);
    // Deletes the window's silences (or drops their creation if it has not gone out yet).
    // Returns false for a window the pager does not know.
    bool cancelSilence(const std::string& windowId);
    // Alertmanager's ids for the window's silences, once created.
    std::vector<std::string> silenceIdsOf(const std::string& windowId) const;

    watchfloor::v1::PagingStatus status() const;
    // Waits until nothing is queued or `timeout` passed; true when delivered (tests, shutdown).
    bool waitDelivered(std::chrono::milliseconds timeout) const;

private:
    struct Firing {
        PagedAlert alert;
        std::uint64_t version = 0;  // bumped on every change; a send delivered an older one if less
        std::uint64_t sentVersion = 0;
        std::chrono::steady_clock::time_point lastSent{};
    };
    struct SilenceChange {
        bool create = true;
        std::string windowId;
        SilenceWindow window;  // create: wall-clock times already mapped
    };
    struct Work;

    std::int64_t wallOf(std::int64_t fleetMs) const;  // mu_ held
    void boundQueueLocked();
    bool hasWorkLocked(std::chrono::steady_clock::time_point now) const;
    std::chrono::steady_clock::time_point nextWakeLocked() const;
    void run();
    Work takeWorkLocked(std::chrono::steady_clock::time_point now);
    void deliver(Work& work);
    void recordLocked(const Exchange& exchange, std::size_t items);  // counts, failures, backoff
    void deliverAlerts(Work& work);
    void deliverSilenceChange(Work& work);
    std::size_t queuedLocked() const;
    void changedLocked();

    IncidentAlerts alerts_;
    PagerOptions options_;
    AlertmanagerHttp http_;  // worker thread only

    mutable std::mutex mu_;
    mutable std::condition_variable wake_;      // the worker: work arrived, or stop
    mutable std::condition_variable progress_;  // waitDelivered: an exchange ended
    bool stop_ = false;
    std::int64_t fleetAtTickMs_ = 0;
    std::int64_t wallAtTickMs_ = 0;
    bool ticked_ = false;
    std::uint64_t nextVersion_ = 0;
    std::map<std::uint64_t, Firing> firing_;  // by incident id
    std::deque<PagedAlert> resolutions_;
    std::deque<SilenceChange> silenceChanges_;
    std::map<std::string, std::vector<std::string>> silenceIds_;  // window id -> Alertmanager ids
    std::size_t inFlight_ = 0;                                    // items of the exchange under way
    std::chrono::steady_clock::time_point nextAttempt_{};         // backoff
    int failures_ = 0;                                            // consecutive
    watchfloor::v1::PagingStatus status_;
    std::uint64_t statusVersion_ = 1;
    std::uint64_t publishedVersion_ = 0;  // tick thread's last published

    std::thread worker_;
};

}  // namespace watchfloor::server::paging
