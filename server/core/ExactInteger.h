#pragma once
// A JSON number (protobuf's Struct holds them as double) as an integer type, when it is one the
// type can hold. A file or peer fleetd did not write may say anything — 1e42, -5, NaN — and a
// plain static_cast of a double the type cannot represent is undefined behaviour (found by the
// audit_log fuzz target: "time_unix_ms":1.8e42 in a foreign line).

#include <cmath>
#include <limits>
#include <optional>

namespace watchfloor::server {

// nullopt for NaN, infinities and values outside T's range; fractions are truncated toward zero.
template <typename T>
std::optional<T> exactInteger(double value) {
    static_assert(std::numeric_limits<T>::is_integer);
    if (!std::isfinite(value)) return std::nullopt;
    // 2^digits is exact in a double: 2^63 for int64, 2^64 for uint64. T's lowest is -2^digits or 0.
    const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
    const double lowest = std::numeric_limits<T>::is_signed ? -limit : 0.0;
    if (value < lowest || value >= limit) return std::nullopt;
    return static_cast<T>(value);
}

}  // namespace watchfloor::server
