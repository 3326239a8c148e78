#include "GoodputLedger.h"

#include "EttrBudget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace watchfloor::server {

namespace {

std::string secondsText(double s) { return std::to_string(s) + " s"; }

}  // namespace

GoodputLedger::GoodputLedger(Seconds idealStepTime, Seconds slidingWindow)
    : idealStepS_(std::isfinite(idealStepTime.count()) ? std::max(0.0, idealStepTime.count()) : 0.0),
      windowS_(std::isfinite(slidingWindow.count()) ? std::max(0.0, slidingWindow.count()) : 0.0) {}

// --- record validation ---------------------------------------------------------------------

void GoodputLedger::reject(const char* what, const std::string& why) {
    ++issues_.rejected;
    issues_.lastProblem = std::string(what) + " ignored: " + why;
}

void GoodputLedger::clip(const char* what, const std::string& why) {
    ++issues_.clipped;
    issues_.lastProblem = std::string(what) + " clipped: " + why;
}

bool GoodputLedger::acceptingRecords(bool timesFinite, const char* what) {
    if (!timesFinite) {
        reject(what, "time is not a finite number");
        return false;
    }
    if (!started_) {
        reject(what, "no jobStart recorded yet");
        return false;
    }
    if (ended_) {
        reject(what, "the job already ended");
        return false;
    }
    return true;
}

bool GoodputLedger::acceptPoint(double& tS, const char* what) {
    if (!acceptingRecords(std::isfinite(tS), what)) return false;
    const double earliestS = inDisruption_ ? std::max(cursorS_, downSinceS_) : cursorS_;
    if (tS < earliestS) {
        clip(what, "at " + secondsText(tS) + ", before the last record (" + secondsText(earliestS) + "); moved to it");
        tS = earliestS;
    }
    return true;
}

bool GoodputLedger::acceptWork(double beginS, double endS, const char* what) {
    if (!acceptingRecords(std::isfinite(beginS) && std::isfinite(endS), what)) return false;
    if (inDisruption_) {
        reject(what, "the job is down since a disruption; record jobStart first");
        return false;
    }
    if (endS < beginS) {
        reject(what, "ends (" + secondsText(endS) + ") before it begins (" + secondsText(beginS) + ")");
        return false;
    }
    return true;
}

bool GoodputLedger::claimFromCursor(double& beginS, double endS, const char* what) {
    if (endS < cursorS_) {
        reject(what, "ends at " + secondsText(endS) + ", inside time already accounted (up to " +
                         secondsText(cursorS_) + ")");
        return false;
    }
    if (beginS < cursorS_) {
        clip(what, "begins at " + secondsText(beginS) + ", before the last record ended (" + secondsText(cursorS_) +
                       "); only the part after it counts");
        beginS = cursorS_;
    }
    cursorS_ = endS;
    return true;
}

bool GoodputLedger::acceptInterval(Seconds begin, Seconds end, const char* what, double& beginS, double& endS) {
    beginS = begin.count();
    endS = end.count();
    if (!acceptWork(beginS, endS, what) || !claimFromCursor(beginS, endS, what)) return false;
    lastRecordWasSteps_ = false;
    return true;
}

// --- lifecycle records ---------------------------------------------------------------------

void GoodputLedger::beginSegment() {
    firstDataLoadPending_ = true;
    lastRecordWasSteps_ = false;
    nextStep_ = hasDurable_ ? lastDurableStep_ + 1 : 0;
}

void GoodputLedger::jobStart(Seconds t) {
    double tS = t.count();
    if (!started_ && std::isfinite(tS) && !ended_) {
        started_ = true;
        firstStartS_ = cursorS_ = tS;
        beginSegment();
        return;
    }
    if (!acceptPoint(tS, "jobStart")) return;
    if (!inDisruption_) enterDisruption();  // a restart is proof of an interruption, recorded or not
    // Google: new job_start_time − start of the last step before the disruption. The step in
    // flight began when the segment's last record ended (the cursor).
    infraRecoveryS_ += tS - cursorS_;
    cursorS_ = tS;
    inDisruption_ = false;
    beginSegment();
}

void GoodputLedger::acceleratorInit(Seconds begin, Seconds end) {
    double b = 0, e = 0;
    if (acceptInterval(begin, end, "acceleratorInit", b, e)) acceleratorInitS_ += e - b;
}

void GoodputLedger::trainingPrep(Seconds begin, Seconds end) {
    double b = 0, e = 0;
    if (acceptInterval(begin, end, "trainingPrep", b, e)) trainingPrepS_ += e - b;
}

void GoodputLedger::dataLoadingSync(Seconds begin, Seconds end) {
    // Only the first load after a (re)start blocks; later ones overlap steps (DATA_LOADING_ASYNC,
    // outside badput and the denominator), so they are not time of their own.
    if (started_ && !inDisruption_ && !ended_ && !firstDataLoadPending_) return;
    double b = 0, e = 0;
    if (acceptInterval(begin, end, "dataLoadingSync", b, e)) {
        dataLoadingSyncS_ += e - b;
        firstDataLoadPending_ = false;
    }
}

void GoodputLedger::checkpointRestore(std::uint64_t step, Seconds begin, Seconds end) {
    double b = 0, e = 0;
    if (!acceptInterval(begin, end, "checkpointRestore", b, e)) return;
    checkpointRestoreS_ += e - b;
    if (!hasDurable_ || step > lastDurableStep_)
        markDurableThrough(step);
    else if (step < lastDurableStep_)
        rollBackTo(step);
    // Whatever is still at risk comes after the restored step: it will be recomputed.
    loseAtRiskSteps();
    nextStep_ = step + 1;
}

void GoodputLedger::steps(std::uint64_t firstStep, std::uint64_t count, Seconds begin, Seconds end,
                          bool includesFirstStepOfSegment) {
    if (count == 0 || firstStep > std::numeric_limits<std::uint64_t>::max() - count) {
        reject("steps", "count " + std::to_string(count) + " from step " + std::to_string(firstStep) +
                            " is empty or overflows the step number");
        return;
    }
    if (started_ && !inDisruption_ && firstStep < nextStep_) {
        reject("steps", "steps " + std::to_string(firstStep) + ".." + std::to_string(firstStep + count - 1) +
                            " repeat steps already recorded in this segment (next expected " +
                            std::to_string(nextStep_) + ")");
        return;
    }
    double b = 0, e = 0;
    if (!acceptInterval(begin, end, "steps", b, e)) return;

    const double durationS = e - b;
    StepTime time;
    time.productiveS = std::min(durationS, double(count) * idealStepS_);
    const double excessS = durationS - time.productiveS;
    if (includesFirstStepOfSegment)
        programStartupS_ += excessS;  // compilation and tracing show up as a long first step
    else
        time.stragglerS = excessS;

    const StepRun run{firstStep, count, b, e, time};
    window_.push(run);
    window_.dropEndedBy(e - windowS_);
    atRisk_.push(run);
    if (hasDurable_) durable_ += atRisk_.takeThroughStep(lastDurableStep_);

    nextStep_ = firstStep + count;
    lastRecordWasSteps_ = true;
    lastStepsBeginS_ = b;
}

void GoodputLedger::checkpointSave(std::uint64_t step, Seconds begin, Seconds end) {
    double b = begin.count();
    double e = end.count();
    if (!acceptWork(b, e, "checkpointSave")) return;

    bool claimed = false;
    if (b < cursorS_ && lastRecordWasSteps_ && b >= lastStepsBeginS_) {
        // The save blocked inside the step record just before it (Google subtracts blocking
        // save time from step time): that overlap moves from the steps to checkpoint_save.
        const double overlapEndS = std::min(e, cursorS_);
        checkpointSaveS_ += takeFromNewestSteps(overlapEndS - b);
        b = overlapEndS;
        claimed = e <= cursorS_;
    }
    if (!claimed) {
        if (!claimFromCursor(b, e, "checkpointSave")) return;
        checkpointSaveS_ += e - b;
    }
    lastRecordWasSteps_ = false;
    if (!hasDurable_ || step > lastDurableStep_) markDurableThrough(step);
}

void GoodputLedger::disruption(Seconds t) {
    double tS = t.count();
    if (started_ && inDisruption_ && !ended_) {
        reject("disruption", "the job is already down since " + secondsText(downSinceS_));
        return;
    }
    if (!acceptPoint(tS, "disruption")) return;
    enterDisruption();
    downSinceS_ = tS;
}

void GoodputLedger::jobEnd(Seconds t) {
    double tS = t.count();
    if (!acceptPoint(tS, "jobEnd")) return;
    if (inDisruption_) {
        // Ended while down (cancelled after a failure): it never recovered.
        infraRecoveryS_ += tS - cursorS_;
        inDisruption_ = false;
    }
    cursorS_ = tS;
    endS_ = tS;
    ended_ = true;
}

// --- step bookkeeping ----------------------------------------------------------------------

void GoodputLedger::enterDisruption() {
    ++disruptions_;
    inDisruption_ = true;
    downSinceS_ = cursorS_;
    lastRecordWasSteps_ = false;
    loseAtRiskSteps();
}

void GoodputLedger::loseAtRiskSteps() {
    wastedProgressS_ += atRisk_.takeAll().totalS();
    if (hasDurable_)
        window_.takeAfterStep(lastDurableStep_);
    else
        window_.takeAll();
}

void GoodputLedger::markDurableThrough(std::uint64_t step) {
    hasDurable_ = true;
    lastDurableStep_ = step;
    durable_ += atRisk_.takeThroughStep(step);
    durableMarks_.push_back({step, durable_});
    if (durableMarks_.size() > kMaxDurableMarks) {
        durableMarks_.pop_front();
        durableMarksTruncated_ = true;
    }
}

void GoodputLedger::rollBackTo(std::uint64_t step) {
    while (!durableMarks_.empty() && durableMarks_.back().step > step) durableMarks_.pop_back();
    if (durableMarks_.empty() && durableMarksTruncated_) {
        clip("checkpointRestore", "step " + std::to_string(step) + " is older than the " +
                                      std::to_string(kMaxDurableMarks) +
                                      " checkpoints remembered; its later durable steps stay productive");
    } else {
        // Durable steps between the newest remembered checkpoint <= step and the restored step
        // (a checkpoint this ledger never saw saved) are counted as lost too.
        const StepTime kept = durableMarks_.empty() ? StepTime{} : durableMarks_.back().durable;
        StepTime lost = durable_;
        lost -= kept;
        wastedProgressS_ += std::max(0.0, lost.totalS());
        durable_ = kept;
    }
    window_.takeAfterStep(step);
    lastDurableStep_ = step;
    durableMarks_.push_back({step, durable_});
}

double GoodputLedger::takeFromNewestSteps(double seconds) {
    // The newest step record is at risk unless a checkpoint already covered it; a record that
    // was split has its newest part at risk and the rest durable.
    StepTime taken = atRisk_.deductFromNewest(seconds);
    double leftS = seconds - taken.totalS();
    const double fromProductiveS = std::min(leftS, durable_.productiveS);
    durable_.productiveS -= fromProductiveS;
    leftS -= fromProductiveS;
    const double fromStragglerS = std::min(leftS, durable_.stragglerS);
    durable_.stragglerS -= fromStragglerS;
    // The window holds the same steps: it loses the same time, productive first.
    const double takenS = taken.totalS() + fromProductiveS + fromStragglerS;
    window_.deductFromNewest(takenS);
    return takenS;
}

// --- results -------------------------------------------------------------------------------

double GoodputLedger::effectiveNowS(Seconds now) const {
    if (ended_) return endS_;
    const double nowS = now.count();
    return std::isfinite(nowS) ? std::max(nowS, cursorS_) : cursorS_;
}

double GoodputLedger::totalS(double nowS) const { return started_ ? nowS - firstStartS_ : 0.0; }

double GoodputLedger::productiveS() const { return durable_.productiveS + atRisk_.sum().productiveS; }

watchfloor::v1::GoodputBreakdown GoodputLedger::breakdown(Seconds now) const {
    const double nowS = effectiveNowS(now);
    const double totalTimeS = totalS(nowS);
    const double pendingRecoveryS = inDisruption_ ? nowS - cursorS_ : 0.0;

    watchfloor::v1::GoodputBreakdown out;
    out.set_total_s(totalTimeS);
    out.set_productive_s(productiveS());
    out.set_confirmed_productive_s(durable_.productiveS);
    out.set_accelerator_init_s(acceleratorInitS_);
    out.set_training_prep_s(trainingPrepS_);
    out.set_program_startup_s(programStartupS_);
    out.set_data_loading_sync_s(dataLoadingSyncS_);
    out.set_checkpoint_save_s(checkpointSaveS_);
    out.set_checkpoint_restore_s(checkpointRestoreS_);
    out.set_wasted_progress_s(wastedProgressS_);
    out.set_infra_recovery_s(infraRecoveryS_ + pendingRecoveryS);
    out.set_straggler_slowdown_s(durable_.stragglerS + atRisk_.sum().stragglerS);
    const double knownS = out.productive_s() + out.accelerator_init_s() + out.training_prep_s() +
                          out.program_startup_s() + out.data_loading_sync_s() + out.checkpoint_save_s() +
                          out.checkpoint_restore_s() + out.wasted_progress_s() + out.infra_recovery_s() +
                          out.straggler_slowdown_s();
    out.set_other_s(std::max(0.0, totalTimeS - knownS));
    return out;
}

double GoodputLedger::goodputRatio(Seconds now) const {
    const double totalTimeS = totalS(effectiveNowS(now));
    return totalTimeS > 0 ? productiveS() / totalTimeS : 0.0;
}

double GoodputLedger::confirmedGoodputRatio(Seconds now) const {
    const double totalTimeS = totalS(effectiveNowS(now));
    return totalTimeS > 0 ? durable_.productiveS / totalTimeS : 0.0;
}

double GoodputLedger::ettrRatio(Seconds now) const {
    const double totalTimeS = totalS(effectiveNowS(now));
    const double keptS = productiveS() + durable_.stragglerS + atRisk_.sum().stragglerS;
    return totalTimeS > 0 ? std::min(1.0, keptS / totalTimeS) : 0.0;
}

StepTime GoodputLedger::slidingWindowTime(Seconds now, double& spanS) const {
    spanS = 0;
    if (!started_ || windowS_ <= 0) return {};
    const double nowS = effectiveNowS(now);
    const double cutoffS = nowS - windowS_;
    window_.dropEndedBy(cutoffS);
    spanS = nowS - std::max(cutoffS, firstStartS_);
    return window_.timeSince(cutoffS);
}

double GoodputLedger::slidingEttrRatio(Seconds now) const {
    double spanS = 0;
    const StepTime inside = slidingWindowTime(now, spanS);
    return spanS > 0 ? std::min(1.0, inside.totalS() / spanS) : 0.0;
}

double GoodputLedger::slidingGoodputRatio(Seconds now) const {
    double spanS = 0;
    const StepTime inside = slidingWindowTime(now, spanS);
    return spanS > 0 ? std::min(1.0, inside.productiveS / spanS) : 0.0;
}

void accumulateBreakdown(watchfloor::v1::GoodputBreakdown& fleet, const watchfloor::v1::GoodputBreakdown& job,
                         double weight) {
    // Every field of GoodputBreakdown is a double in seconds: a category added to the proto is
    // summed without touching this code.
    addWeightedDoubles(fleet, job, weight);
}

}  // namespace watchfloor::server
