#pragma once
// Capped, jittered exponential backoff for re-dialling a fleetd endpoint (the schedule of gRPC's
// doc/connection-backoff.md, with a shorter cap so a restarted fleetd is found again quickly).
//
// Attempt n (from 0) waits nominal(n) = min(cap, initial × multiplier^n), scaled by a uniform
// factor in [1 - jitter, 1 + jitter] so that many consoles do not re-dial in lockstep.
// reset() — called once data flows again — starts the schedule over.

#include <chrono>
#include <cstdint>
#include <random>

namespace watchfloor::client {

struct ReconnectPolicy {
    std::chrono::milliseconds initial{1000};
    double multiplier = 1.6;
    double jitter = 0.2;  // ± fraction
    std::chrono::milliseconds cap{30000};
};

class ReconnectBackoff {
public:
    using Policy = ReconnectPolicy;

    explicit ReconnectBackoff(Policy policy = Policy{}, std::uint32_t seed = std::random_device{}());

    // The delay before the next attempt; advances the schedule.
    std::chrono::milliseconds nextDelay();
    // The un-jittered delay the next call to nextDelay() is centred on.
    std::chrono::milliseconds nominalDelay() const;
    void reset() { m_attempt = 0; }
    int attempt() const { return m_attempt; }
    const Policy& policy() const { return m_policy; }

private:
    Policy m_policy;
    int m_attempt = 0;
    std::mt19937 m_rng;
};

}  // namespace watchfloor::client
