#include "DurationParse.h"

#include <cctype>
#include <cstdint>
#include <limits>

namespace watchfloor::server {

std::optional<std::chrono::milliseconds> parseDuration(std::string_view text) {
    if (text.empty()) return std::nullopt;
    std::int64_t totalMs = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
        std::int64_t number = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
            if (number > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
            number = number * 10 + (text[i] - '0');
            ++i;
        }
        std::size_t unitStart = i;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
        const std::string_view unit = text.substr(unitStart, i - unitStart);
        std::int64_t msPerUnit = 0;
        if (unit == "ms")
            msPerUnit = 1;
        else if (unit == "s")
            msPerUnit = 1000;
        else if (unit == "m")
            msPerUnit = 60'000;
        else if (unit == "h")
            msPerUnit = 3'600'000;
        else if (unit == "d")
            msPerUnit = 86'400'000;
        else
            return std::nullopt;
        if (number > (std::numeric_limits<std::int64_t>::max() - totalMs) / msPerUnit) return std::nullopt;
        totalMs += number * msPerUnit;
    }
    return std::chrono::milliseconds(totalMs);
}

}  // namespace watchfloor::server
