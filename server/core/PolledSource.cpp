#include "PolledSource.h"

#include <algorithm>

namespace watchfloor::server {

PolledSource::~PolledSource() { stop(); }

void PolledSource::start() {
    threads_.emplace_back([this] { runPollThread(); });
    for (Beside& b : beside_)
        threads_.emplace_back([this, &b] {
            do b.poll();
            while (sleepUntil(Clock::now() + b.period));
        });
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, firstPollWait_, [this] { return polls_ > 0 || stopping_; });
}

void PolledSource::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

void PolledSource::runPollThread() {
    nextDue_ = Clock::now();
    while (!stopping())
        if (!sleepUntil(pollStep())) return;
}

bool PolledSource::sleepUntil(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_until(lock, deadline, [this] { return stopping_; });
}

void PolledSource::notePolled() {
    {
        std::lock_guard lock(mutex_);
        ++polls_;
    }
    wake_.notify_all();
}

bool PolledSource::stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
}

std::uint64_t PolledSource::polls() const {
    std::lock_guard lock(mutex_);
    return polls_;
}

PolledSource::Clock::time_point PolledSource::nextPeriod(std::chrono::milliseconds period) {
    nextDue_ = std::max(nextDue_ + period, Clock::now());
    return nextDue_;
}

void PolledSource::pollBeside(std::chrono::milliseconds period, std::function<void()> poll) {
    beside_.push_back({period, std::move(poll)});
}

UnixTime PolledSource::now() const { return fromUnixMs(wallMs()); }

void PolledSource::advanceTo(UnixTime until, FleetChanges& out) {
    pending_.takeInto(out);
    out.time = std::min(until, now());
}

std::int64_t PolledSource::wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace watchfloor::server
