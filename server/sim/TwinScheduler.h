#pragma once
// The twin's simulated clock and its queue of timed actions (repairs, recovery stages, the next
// draw of each random stream). Actions at equal times run in the order they were scheduled, so a
// run is deterministic.

#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace watchfloor::server::sim {

class TwinScheduler {
public:
    std::int64_t nowMs() const { return nowMs_; }  // since SimConfig::start
    double nowS() const { return static_cast<double>(nowMs_) / 1000.0; }

    // Runs `action` at simulated second `simS` (now, if that has passed).
    void at(double simS, std::function<void()> action) {
        const auto atMs = std::max(nowMs_, static_cast<std::int64_t>(std::llround(simS * 1000.0)));
        queue_.push(Timed{atMs, sequence_++, std::move(action)});
    }
    void after(double delayS, std::function<void()> action) { at(nowS() + delayS, std::move(action)); }

    // Runs the earliest action due at or before `limitMs`, moving the clock to it; false when none is.
    bool runNext(std::int64_t limitMs) {
        if (queue_.empty() || queue_.top().atMs > limitMs) return false;
        Timed action = queue_.top();
        queue_.pop();
        nowMs_ = std::max(nowMs_, action.atMs);
        action.run();
        return true;
    }
    // Moves the clock forward (never back).
    void advanceTo(std::int64_t ms) { nowMs_ = ms; }

private:
    struct Timed {
        std::int64_t atMs;
        std::uint64_t sequence;  // FIFO among equal times
        std::function<void()> run;
        bool operator>(const Timed& other) const {
            return atMs != other.atMs ? atMs > other.atMs : sequence > other.sequence;
        }
    };
    std::int64_t nowMs_ = 0;
    std::priority_queue<Timed, std::vector<Timed>, std::greater<>> queue_;
    std::uint64_t sequence_ = 0;
};

}  // namespace watchfloor::server::sim
