#include "AutomationCircuitBreaker.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace watchfloor::server::control {

namespace {

std::int64_t unixMs(AutomationCircuitBreaker::Clock::time_point t) {
    return t == AutomationCircuitBreaker::Clock::time_point{}
               ? 0
               : std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string percentText(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, "%g %%", ratio * 100.0);
    return text;
}

}  // namespace

std::size_t CircuitBreakerConfig::effectiveLimit() const {
    if (!(maxFleetRatio > 0) || fleetTrays == 0) return maxActionsPerWindow;
    const auto share = static_cast<std::size_t>(std::floor(maxFleetRatio * static_cast<double>(fleetTrays)));
    return std::min(maxActionsPerWindow, std::max<std::size_t>(1, share));
}

AutomationCircuitBreaker::AutomationCircuitBreaker(CircuitBreakerConfig config, AlertSink alert)
    : config_(config), alert_(std::move(alert)) {}

void AutomationCircuitBreaker::dropExpiredLocked(Clock::time_point now) const {
    while (!recent_.empty() && recent_.front().time + config_.window <= now) recent_.pop_front();
}

grpc::Status AutomationCircuitBreaker::admit(const std::string& target, Clock::time_point now) {
    std::string alertMessage;
    grpc::Status status;
    {
        std::lock_guard lock(mutex_);
        dropExpiredLocked(now);
        const bool seen = std::any_of(recent_.begin(), recent_.end(),
                                      [&](const Admitted& admitted) { return admitted.target == target; });
        const std::size_t limit = config_.effectiveLimit();
        if (!tripped_ && !seen && recent_.size() >= limit) {
            tripped_ = true;
            trippedAt_ = now;
            const std::string which = limit < config_.maxActionsPerWindow
                                          ? "limit " + std::to_string(limit) + " = " +
                                                percentText(config_.maxFleetRatio) + " of " +
                                                std::to_string(config_.fleetTrays) + " trays, below " +
                                                std::to_string(config_.maxActionsPerWindow)
                                          : "limit " + std::to_string(limit);
            tripReason_ = "automation circuit breaker tripped: " + std::to_string(recent_.size()) +
                          " automated actions within " + std::to_string(config_.window.count()) + " s (" + which +
                          "), next was " + target +
                          "; automated actions stay refused until an admin resets the breaker";
            alertMessage = tripReason_;
        }
        if (tripped_) {
            status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, tripReason_);
        } else if (!seen) {
            recent_.push_back({target, now});
        }
    }
    if (!alertMessage.empty() && alert_) alert_(alertMessage);
    return status;
}

ActionOutcome AutomationCircuitBreaker::reset(const std::string& principal) {
    std::lock_guard lock(mutex_);
    if (!tripped_) return ActionOutcome::failure("the automation circuit breaker is not tripped");
    tripped_ = false;
    tripReason_.clear();
    recent_.clear();
    lastResetBy_ = principal;
    lastResetAt_ = Clock::now();
    return ActionOutcome::success("automation circuit breaker reset by " + principal);
}

void AutomationCircuitBreaker::restoreTripped(std::string reason) {
    std::lock_guard lock(mutex_);
    tripped_ = true;
    tripReason_ = std::move(reason);
}

bool AutomationCircuitBreaker::tripped() const {
    std::lock_guard lock(mutex_);
    return tripped_;
}

std::string AutomationCircuitBreaker::tripReason() const {
    std::lock_guard lock(mutex_);
    return tripReason_;
}

watchfloor::v1::AutomationStatus AutomationCircuitBreaker::status(Clock::time_point now) const {
    std::lock_guard lock(mutex_);
    dropExpiredLocked(now);
    watchfloor::v1::AutomationStatus out;
    out.set_state(tripped_ ? watchfloor::v1::BREAKER_STATE_TRIPPED : watchfloor::v1::BREAKER_STATE_CLOSED);
    out.set_max_actions_per_window(static_cast<std::uint32_t>(config_.maxActionsPerWindow));
    out.set_window_s(config_.window.count());
    out.set_max_fleet_ratio(config_.maxFleetRatio);
    out.set_fleet_trays(static_cast<std::uint32_t>(config_.fleetTrays));
    out.set_effective_limit(static_cast<std::uint32_t>(config_.effectiveLimit()));
    out.set_actions_in_window(static_cast<std::uint32_t>(recent_.size()));
    out.set_trip_reason(tripReason_);
    out.set_tripped_unix_ms(tripped_ ? unixMs(trippedAt_) : 0);
    out.set_last_reset_by(lastResetBy_);
    out.set_last_reset_unix_ms(unixMs(lastResetAt_));
    return out;
}

bool xidCallsForDrain(std::uint32_t xid) {
    static constexpr std::array<std::uint32_t, 9> kDrainXids = {46, 48, 62, 79, 95, 109, 155, 156, 158};
    return std::find(kDrainXids.begin(), kDrainXids.end(), xid) != kDrainXids.end();
}

}  // namespace watchfloor::server::control
