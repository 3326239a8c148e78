#include "ReconnectBackoff.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::client {

ReconnectBackoff::ReconnectBackoff(Policy policy, std::uint32_t seed) : m_policy(policy), m_rng(seed) {}

std::chrono::milliseconds ReconnectBackoff::nominalDelay() const {
    const double initialMs = double(m_policy.initial.count());
    const double capMs = double(m_policy.cap.count());
    // Clamp the exponent so the power cannot overflow after many hours of retrying.
    const double grown = initialMs * std::pow(m_policy.multiplier, std::min(m_attempt, 64));
    return std::chrono::milliseconds(std::llround(std::min(capMs, grown)));
}

std::chrono::milliseconds ReconnectBackoff::nextDelay() {
    const double nominalMs = double(nominalDelay().count());
    std::uniform_real_distribution<double> factor(1.0 - m_policy.jitter, 1.0 + m_policy.jitter);
    ++m_attempt;
    return std::chrono::milliseconds(std::llround(nominalMs * factor(m_rng)));
}

}  // namespace watchfloor::client
