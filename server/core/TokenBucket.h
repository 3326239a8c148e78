#pragma once
// A token bucket that also counts what it turned away, for things a remote party can cause at
// will (log lines, audit records): a burst passes, then a steady rate, and the rest is counted
// so it can be reported as one line instead of being lost silently. Thread-safe.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <utility>

namespace watchfloor::server {

class TokenBucket {
public:
    using Clock = std::chrono::steady_clock;

    TokenBucket(double burst, double perSecond) : burst_(burst), perSecond_(perSecond), tokens_(burst) {}

    // True when one more may pass now; otherwise it is counted as dropped.
    bool admit(Clock::time_point now = Clock::now()) {
        std::lock_guard lock(mutex_);
        refill(now);
        if (tokens_ >= 1.0) {
            tokens_ -= 1.0;
            return true;
        }
        ++dropped_;
        return false;
    }

    // How many were turned away since the last call, and resets the count.
    std::uint64_t takeDropped() {
        std::lock_guard lock(mutex_);
        return std::exchange(dropped_, 0);
    }

private:
    void refill(Clock::time_point now) {
        if (last_ != Clock::time_point{})
            tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * perSecond_);
        last_ = now;
    }

    const double burst_;
    const double perSecond_;
    std::mutex mutex_;
    double tokens_;
    std::uint64_t dropped_ = 0;
    Clock::time_point last_{};
};

}  // namespace watchfloor::server
