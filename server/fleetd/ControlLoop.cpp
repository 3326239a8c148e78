#include "ControlLoop.h"

namespace watchfloor::server::fleetd {

ControlLoop::ControlLoop(control::ControlPlane& plane, std::chrono::milliseconds tickPeriod, Log log)
    : plane_(plane), tickPeriod_(tickPeriod), log_(std::move(log)), thread_([this] { run(); }) {}

ControlLoop::~ControlLoop() { stop(); }

void ControlLoop::post(XidSighting sighting) {
    if (!plane_.autoDrain()) return;
    {
        std::lock_guard lock(mutex_);
        sightings_.push_back(std::move(sighting));
    }
    wake_.notify_one();
}

void ControlLoop::post(std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
}

void ControlLoop::reconcileInterrupted() {
    {
        std::lock_guard lock(mutex_);
        reconcileRequested_ = true;
    }
    wake_.notify_one();
}

void ControlLoop::reconcile() {
    const control::ReconcileReport report = plane_.engine().reconcileInterrupted();
    if (!log_ || report.confirmed + report.runAgain + report.failed == 0) return;
    log_("interrupted operations reconciled: " + std::to_string(report.confirmed) + " confirmed in effect, " +
         std::to_string(report.runAgain) + " finished again, " + std::to_string(report.failed) +
         " failed (not safe to repeat or refused now; their errors say what to check)");
}

void ControlLoop::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void ControlLoop::autoDrain(const XidSighting& sighting) {
    const auto result = plane_.autoDrain()->onXid(sighting.node, sighting.gpu, sighting.xid, sighting.eventId);
    if (!result || !log_) return;
    const std::string what = "auto-drain " + sighting.node + " after Xid " + std::to_string(sighting.xid) + " (event " +
                             std::to_string(sighting.eventId) + ")";
    if (result->status.ok())
        log_(what + ": " + result->operation.id() + " " + control::stateName(result->operation.state()));
    else
        log_(what + " refused: " + result->status.error_message());
}

void ControlLoop::run() {
    using Clock = std::chrono::steady_clock;
    auto nextTick = Clock::now() + tickPeriod_;
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_until(lock, nextTick,
                         [this] { return stopping_ || reconcileRequested_ || !sightings_.empty() || !tasks_.empty(); });
        if (stopping_) break;
        if (reconcileRequested_) {
            reconcileRequested_ = false;
            lock.unlock();
            reconcile();
            lock.lock();
        }
        while (!sightings_.empty() && !stopping_) {
            const XidSighting sighting = std::move(sightings_.front());
            sightings_.pop_front();
            lock.unlock();
            autoDrain(sighting);
            lock.lock();
        }
        while (!tasks_.empty() && !stopping_) {
            const std::function<void()> task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
        if (Clock::now() >= nextTick) {
            lock.unlock();
            plane_.tick();
            lock.lock();
            nextTick = Clock::now() + tickPeriod_;
        }
    }
}

}  // namespace watchfloor::server::fleetd
