#pragma once
// Text from a store (error messages, warnings, non-JSON bodies) goes into one log line and one
// status field: bounded, with control characters replaced, never split.

#include <cstddef>
#include <string>
#include <string_view>

namespace watchfloor::server::prom {

inline std::string oneLine(std::string_view text, std::size_t maxChars) {
    std::string out;
    out.reserve(std::min(text.size(), maxChars) + 3);
    for (const char c : text) {
        if (out.size() >= maxChars) {
            out += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        out += (u < 0x20 || u == 0x7f) ? ' ' : c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

inline constexpr std::size_t kMaxMessageChars = 400;
inline constexpr std::size_t kMaxWarnings = 16;

}  // namespace watchfloor::server::prom
