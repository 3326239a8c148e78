#include "StepRuns.h"

#include <algorithm>

namespace watchfloor::server {

StepTime& StepTime::operator+=(const StepTime& other) {
    productiveS += other.productiveS;
    stragglerS += other.stragglerS;
    return *this;
}

StepTime& StepTime::operator-=(const StepTime& other) {
    productiveS -= other.productiveS;
    stragglerS -= other.stragglerS;
    return *this;
}

StepRun StepRun::cutHeadThrough(std::uint64_t step) {
    const std::uint64_t headCount = step - firstStep + 1;
    const double share = double(headCount) / double(count);
    StepRun head;
    head.firstStep = firstStep;
    head.count = headCount;
    head.beginS = beginS;
    head.endS = beginS + (endS - beginS) * share;
    head.time = {time.productiveS * share, time.stragglerS * share};

    firstStep = step + 1;
    count -= headCount;
    beginS = head.endS;
    time -= head.time;
    return head;
}

void StepRunQueue::push(const StepRun& run) {
    runs_.push_back(run);
    sum_ += run.time;
}

StepTime StepRunQueue::takeThroughStep(std::uint64_t step) {
    StepTime taken;
    while (!runs_.empty() && runs_.front().firstStep <= step) {
        StepRun& front = runs_.front();
        if (front.lastStep() <= step) {
            taken += front.time;
            runs_.pop_front();
        } else {
            taken += front.cutHeadThrough(step).time;
        }
    }
    sum_ -= taken;
    recomputeSumIfEmpty();
    return taken;
}

StepTime StepRunQueue::takeAfterStep(std::uint64_t step) {
    StepTime taken;
    while (!runs_.empty() && runs_.back().lastStep() > step) {
        StepRun& back = runs_.back();
        if (back.firstStep > step) {
            taken += back.time;
            runs_.pop_back();
        } else {
            // The back run keeps its head (steps <= step); its tail is what is taken.
            StepRun head = back.cutHeadThrough(step);
            taken += back.time;
            back = head;
        }
    }
    sum_ -= taken;
    recomputeSumIfEmpty();
    return taken;
}

StepTime StepRunQueue::takeAll() {
    StepTime taken = sum_;
    runs_.clear();
    sum_ = {};
    return taken;
}

StepTime StepRunQueue::deductFromNewest(double seconds) {
    StepTime taken;
    if (runs_.empty() || seconds <= 0) return taken;
    StepRun& back = runs_.back();
    taken.productiveS = std::min(seconds, back.time.productiveS);
    taken.stragglerS = std::min(seconds - taken.productiveS, back.time.stragglerS);
    back.time -= taken;
    sum_ -= taken;
    return taken;
}

void StepRunQueue::dropEndedBy(double t) {
    while (!runs_.empty() && runs_.front().endS <= t) {
        sum_ -= runs_.front().time;
        runs_.pop_front();
    }
    recomputeSumIfEmpty();
}

StepTime StepRunQueue::timeSince(double t) const {
    StepTime inside = sum_;
    // Only the oldest run can straddle `t` once runs ended by `t` are dropped; runs not yet
    // dropped are subtracted whole.
    for (const StepRun& run : runs_) {
        if (run.beginS >= t) break;
        const double durationS = run.endS - run.beginS;
        const double outsideShare = durationS > 0 ? std::min(1.0, (t - run.beginS) / durationS) : 1.0;
        inside.productiveS -= run.time.productiveS * outsideShare;
        inside.stragglerS -= run.time.stragglerS * outsideShare;
    }
    return {std::max(0.0, inside.productiveS), std::max(0.0, inside.stragglerS)};
}

void StepRunQueue::recomputeSumIfEmpty() {
    // Running sums of millions of additions and subtractions drift by rounding; an empty queue
    // is an exact zero.
    if (runs_.empty()) sum_ = {};
}

}  // namespace watchfloor::server
