#pragma once
// Counts and lists in status lines, warnings and incident summaries: "1 series", "3 values",
// "2 racks", "r01-n03, r01-n04".

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server {

// English adds an "s" except to words that do not change ("series").
inline std::string plural(std::uint64_t n, const std::string& what) {
    const bool invariant = what.ends_with("series");
    return std::to_string(n) + " " + what + (n == 1 || invariant ? "" : "s");
}

// Names one after another, as a sentence lists them: "llm-405b, llm-70b".
inline std::string commaJoined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

}  // namespace watchfloor::server
