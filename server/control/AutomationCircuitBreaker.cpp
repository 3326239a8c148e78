#include "AutomationCircuitBreaker.h"

#include <algorithm>
#include <array>

namespace watchfloor::server::control {

AutomationCircuitBreaker::AutomationCircuitBreaker(CircuitBreakerConfig config, AlertSink alert)
    : config_(config), alert_(std::move(alert)) {}

grpc::Status AutomationCircuitBreaker::admit(const std::string& target, Clock::time_point now) {
    std::string alertMessage;
    grpc::Status status;
    {
        std::lock_guard lock(mutex_);
        while (!recent_.empty() && recent_.front().time + config_.window <= now) recent_.pop_front();
        const bool seen = std::any_of(recent_.begin(), recent_.end(),
                                      [&](const Admitted& admitted) { return admitted.target == target; });
        if (!tripped_ && !seen && recent_.size() >= config_.maxActionsPerWindow) {
            tripped_ = true;
            tripReason_ = "automation circuit breaker tripped: " + std::to_string(recent_.size()) +
                          " automated actions within " + std::to_string(config_.window.count()) +
                          " s (limit " + std::to_string(config_.maxActionsPerWindow) + "), next was " + target +
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

bool xidCallsForDrain(std::uint32_t xid) {
    static constexpr std::array<std::uint32_t, 9> kDrainXids = {46, 48, 62, 79, 95, 109, 155, 156, 158};
    return std::find(kDrainXids.begin(), kDrainXids.end(), xid) != kDrainXids.end();
}

}  // namespace watchfloor::server::control
