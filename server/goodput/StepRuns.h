#pragma once
// Runs of consecutive training steps as the goodput ledger keeps them: the steps not yet made
// durable by a checkpoint (they may still be lost) and the steps inside the sliding ETTR window.
//
// A run can be cut at a step number. The cut is proportional: a run of `count` steps that took
// `d` seconds gives its first k steps k/count of its duration, productive and straggler time.
// Exact for steps of equal length, which is what aggregating them into one record assumes.

#include <cstdint>
#include <deque>

namespace watchfloor::server {

// Time of kept steps, split into the part at the ideal pace and the straggler excess.
struct StepTime {
    double productiveS = 0;
    double stragglerS = 0;

    double totalS() const { return productiveS + stragglerS; }
    StepTime& operator+=(const StepTime& other);
    StepTime& operator-=(const StepTime& other);
};

struct StepRun {
    std::uint64_t firstStep = 0;
    std::uint64_t count = 0;  // >= 1
    double beginS = 0;
    double endS = 0;
    StepTime time;

    std::uint64_t lastStep() const { return firstStep + count - 1; }
    // Removes the steps <= `step` from the front of this run and returns them as a run
    // (precondition: firstStep <= step < lastStep()).
    StepRun cutHeadThrough(std::uint64_t step);
};

// Runs in increasing step and time order, with their summed time kept current so every query is
// O(1) and every change O(1) amortised (each run is pushed once and popped or cut at most once
// per call).
class StepRunQueue {
public:
    void push(const StepRun& run);
    // Removes the steps <= `step` (from the front) and returns their time.
    StepTime takeThroughStep(std::uint64_t step);
    // Removes the steps > `step` (from the back) and returns their time.
    StepTime takeAfterStep(std::uint64_t step);
    StepTime takeAll();
    // Takes up to `seconds` of time out of the newest run, productive time first (a blocking
    // checkpoint save that overlapped it). Returns what was taken.
    StepTime deductFromNewest(double seconds);
    // Forgets the runs that ended at or before `t`.
    void dropEndedBy(double t);
    // Step time inside [t, +inf), spreading each run's productive and straggler time evenly
    // over it.
    StepTime timeSince(double t) const;

    const StepTime& sum() const { return sum_; }
    bool empty() const { return runs_.empty(); }
    const StepRun& newest() const { return runs_.back(); }

private:
    void recomputeSumIfEmpty();

    std::deque<StepRun> runs_;
    StepTime sum_;
};

}  // namespace watchfloor::server
