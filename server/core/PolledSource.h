#pragma once
// A FleetSource whose data is read on threads of its own (a metrics store's poll, a scrape round,
// a Redfish walk): the thread, its schedule, start()'s bounded wait for the first result, stop(),
// and the hand-off to the tick thread, once for every real source.
//
// start() must not miss the first result: a poll that finishes between start()'s look at the
// count and its wait would otherwise leave it waiting the whole `firstPollWait`. The count is
// therefore only changed under the mutex the wait holds (notePolled()).

#include "FleetChanges.h"
#include "FleetSource.h"
#include "SourceHandoff.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace watchfloor::server {

class PolledSource : public FleetSource {
public:
    using Clock = std::chrono::steady_clock;

    // Derived classes call stop() in their own destructor: the threads run their members.
    ~PolledSource() override;
    PolledSource(const PolledSource&) = delete;
    PolledSource& operator=(const PolledSource&) = delete;

    // Runs the poll thread (and any registered with pollBeside) and waits until the first poll
    // has finished (notePolled), stop() was called, or `firstPollWait` passed.
    void start();
    // Ends every thread; a poll in progress finishes first. Idempotent.
    void stop();

    // The wall clock: real sources are as current as their last read.
    UnixTime now() const override;
    // Everything the threads posted since the last call, as one instant no later than `until`.
    void advanceTo(UnixTime until, FleetChanges& out) override;

    // Polls (or rounds) finished so far.
    std::uint64_t polls() const;

protected:
    explicit PolledSource(std::chrono::milliseconds firstPollWait) : firstPollWait_(firstPollWait) {}

    // One step of the poll thread: a whole poll, or a part of a longer round. Returns when the
    // next step is due; the thread sleeps until then or until stop().
    virtual Clock::time_point pollStep() = 0;

    // A poll (or round) finished: counts it and wakes start().
    void notePolled();
    // Whether stop() was called, for a step that loops inside itself.
    bool stopping() const;
    // When a source polling every `period` polls next: one period after the last poll was due, or
    // at once when the poll overran (the next starts now, never a burst of catch-up polls).
    Clock::time_point nextPeriod(std::chrono::milliseconds period);
    // Runs `poll` every `period` on a thread of its own beside the poll thread, from start() to
    // stop() (e.g. squeue, which may take seconds, so that no telemetry waits for it). Call before
    // start().
    void pollBeside(std::chrono::milliseconds period, std::function<void()> poll);

    // Changes the threads produced that the tick thread has not taken yet.
    PendingChanges& pending() { return pending_; }

    static std::int64_t wallMs();

private:
    // Sleeps until `deadline`; false when stop() was called.
    bool sleepUntil(Clock::time_point deadline);
    void runPollThread();

    const std::chrono::milliseconds firstPollWait_;
    PendingChanges pending_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::uint64_t polls_ = 0;
    Clock::time_point nextDue_{};  // poll thread only
    struct Beside {
        std::chrono::milliseconds period;
        std::function<void()> poll;
    };
    std::vector<Beside> beside_;
    std::vector<std::thread> threads_;
};

}  // namespace watchfloor::server
