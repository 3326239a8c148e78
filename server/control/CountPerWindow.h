#pragma once
// "N/WINDOW" as operators write a rate limit or a threshold on fleetd's command line: "5/10m",
// "3/7d". One reader for --auto-drain and --lemon.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace watchfloor::server::control {

struct CountPerWindow {
    std::size_t count = 0;        // at least 1
    std::chrono::seconds window;  // at least 1 s
};

std::optional<CountPerWindow> parseCountPerWindow(std::string_view text);
// The window as operators write it: "7d", "12h", "30m", "45s".
std::string windowText(std::chrono::seconds window);

}  // namespace watchfloor::server::control
