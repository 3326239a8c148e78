#pragma once
// Counts in status lines, warnings and incident summaries: "1 series", "3 values", "2 racks".

#include <cstdint>
#include <string>

namespace watchfloor::server {

// English adds an "s" except to words that do not change ("series").
inline std::string plural(std::uint64_t n, const std::string& what) {
    const bool invariant = what.ends_with("series");
    return std::to_string(n) + " " + what + (n == 1 || invariant ? "" : "s");
}

}  // namespace watchfloor::server
