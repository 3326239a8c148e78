#pragma once
// Stops automation from draining the fleet when something upstream is wrong (a bad health check,
// a flapping sensor, a detection bug): past N distinct automated targets within a sliding window
// (or past a share of the fleet's trays, whichever is lower) it trips, raises an alert and
// refuses every further automated action until an admin resets it. It never resets itself
// (NVSentinel's circuit breaker, docs/domain/automation-limits.md).

#include "Actuator.h"

#include "watchfloor/v1/fleet.pb.h"

#include <grpcpp/support/status.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

namespace watchfloor::server::control {

struct CircuitBreakerConfig {
    std::size_t maxActionsPerWindow = 5;
    std::chrono::seconds window{std::chrono::minutes(10)};
    double maxFleetRatio = 0;    // ",max=0.5%" -> 0.005; 0 = no share limit
    std::size_t fleetTrays = 0;  // compute trays the share is of (fleetd sets it from the topology)

    // The limit that binds: the lower of maxActionsPerWindow and max(1, floor(ratio x trays)) —
    // at least 1, so a share smaller than one tray still lets a single drain through.
    std::size_t effectiveLimit() const;
};

class AutomationCircuitBreaker {
public:
    using Clock = std::chrono::system_clock;
    using AlertSink = std::function<void(const std::string& message)>;

    AutomationCircuitBreaker(CircuitBreakerConfig config, AlertSink alert);

    // Asks to act automatically on target. OK records it; FAILED_PRECONDITION when tripped (this
    // call may be the one that trips it). A target already acted on in the window counts once.
    [[nodiscard]] grpc::Status admit(const std::string& target, Clock::time_point now);

    // Re-enables automation; the caller (the operations engine) has checked the admin role and
    // written the audit record.
    ActionOutcome reset(const std::string& principal);

    // Puts the breaker back in the tripped state a previous run of fleetd left it in.
    void restoreTripped(std::string reason);

    bool tripped() const;
    std::string tripReason() const;
    const CircuitBreakerConfig& config() const { return config_; }
    // What consoles show (fleet.proto AutomationStatus); `now` ages the window.
    watchfloor::v1::AutomationStatus status(Clock::time_point now) const;

private:
    struct Admitted {
        std::string target;
        Clock::time_point time;
    };

    const CircuitBreakerConfig config_;
    const AlertSink alert_;
    mutable std::mutex mutex_;
    void dropExpiredLocked(Clock::time_point now) const;

    mutable std::deque<Admitted> recent_;
    bool tripped_ = false;
    std::string tripReason_;
    Clock::time_point trippedAt_{};
    std::string lastResetBy_;
    Clock::time_point lastResetAt_{};
};

// The Xids whose fleet policy (docs/domain/xid-catalogue.md) starts with draining the node: 46, 48, 62,
// 79, 95, 109, 155, 156, 158. Application faults (13, 31, 94) and sympathetic ones (43, 45) do not.
bool xidCallsForDrain(std::uint32_t xid);

}  // namespace watchfloor::server::control
