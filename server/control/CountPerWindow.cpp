#include "CountPerWindow.h"

#include "DurationParse.h"

#include <charconv>

namespace watchfloor::server::control {

std::optional<CountPerWindow> parseCountPerWindow(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::size_t count = 0;
    const std::string_view countText = text.substr(0, slash);
    const auto [end, error] = std::from_chars(countText.data(), countText.data() + countText.size(), count);
    const auto window = parseDuration(text.substr(slash + 1));
    if (countText.empty() || error != std::errc() || end != countText.data() + countText.size() || count == 0 ||
        !window || *window < std::chrono::seconds(1))
        return std::nullopt;
    return CountPerWindow{count, std::chrono::duration_cast<std::chrono::seconds>(*window)};
}

std::string windowText(std::chrono::seconds window) {
    const auto s = window.count();
    if (s > 0 && s % 86400 == 0) return std::to_string(s / 86400) + "d";
    if (s > 0 && s % 3600 == 0) return std::to_string(s / 3600) + "h";
    if (s > 0 && s % 60 == 0) return std::to_string(s / 60) + "m";
    return std::to_string(s) + "s";
}

}  // namespace watchfloor::server::control
