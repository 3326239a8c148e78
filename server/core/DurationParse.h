#pragma once
// Durations as operators type them on a command line or in a scenario file: "90s", "90m",
// "6h", "54d", "1h30m", "250ms".

#include <chrono>
#include <optional>
#include <string_view>

namespace watchfloor::server {

// Returns nothing when `text` is not a duration (empty, unknown unit, overflow, negative).
std::optional<std::chrono::milliseconds> parseDuration(std::string_view text);

}  // namespace watchfloor::server
