#include "LemonDetector.h"

#include "CountPerWindow.h"

#include <algorithm>

namespace watchfloor::server::control {

std::optional<LemonConfig> parseLemon(std::string_view text, std::string* problem) {
    const auto parsed = parseCountPerWindow(text);
    if (!parsed) {
        *problem = "--lemon: expected K/WINDOW such as 3/7d (a tray failing K times within WINDOW is a lemon), got '" +
                   std::string(text) + "'";
        return std::nullopt;
    }
    return LemonConfig{static_cast<std::uint32_t>(std::min<std::size_t>(parsed->count, 1000)), parsed->window};
}

std::int64_t LemonDetector::windowStart(std::int64_t nowMs) const {
    return nowMs - static_cast<std::int64_t>(config_.window.count()) * 1000;
}

bool LemonDetector::failure(const std::string& node, std::int64_t timeMs) {
    const bool was = lemon(node, timeMs);
    std::deque<std::int64_t>& times = failures_[node];
    times.push_back(timeMs);
    ++revision_;
    while (!times.empty() && times.front() <= windowStart(timeMs)) times.pop_front();
    return !was && times.size() >= config_.failures;
}

void LemonDetector::restore(const std::string& node, std::int64_t timeMs) {
    std::deque<std::int64_t>& times = failures_[node];
    times.insert(std::upper_bound(times.begin(), times.end(), timeMs), timeMs);
    ++revision_;
}

std::uint32_t LemonDetector::recentFailures(const std::string& node, std::int64_t nowMs) const {
    const auto found = failures_.find(node);
    if (found == failures_.end()) return 0;
    const std::int64_t start = windowStart(nowMs);
    return static_cast<std::uint32_t>(
        std::count_if(found->second.begin(), found->second.end(), [start](std::int64_t t) { return t > start; }));
}

bool LemonDetector::lemon(const std::string& node, std::int64_t nowMs) const {
    return recentFailures(node, nowMs) >= config_.failures;
}

std::vector<std::string> LemonDetector::expire(std::int64_t nowMs) {
    std::vector<std::string> cleared;
    const std::int64_t start = windowStart(nowMs);
    for (auto it = failures_.begin(); it != failures_.end();) {
        std::deque<std::int64_t>& times = it->second;
        const bool was = times.size() >= config_.failures;
        while (!times.empty() && times.front() <= start) {
            times.pop_front();
            ++revision_;
        }
        if (was && times.size() < config_.failures) cleared.push_back(it->first);
        if (times.empty())
            it = failures_.erase(it);
        else
            ++it;
    }
    return cleared;
}

std::size_t LemonDetector::lemons(std::int64_t nowMs) const {
    return static_cast<std::size_t>(std::count_if(failures_.begin(), failures_.end(),
                                                  [&](const auto& entry) { return lemon(entry.first, nowMs); }));
}

}  // namespace watchfloor::server::control
