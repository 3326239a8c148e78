#include "Hostlist.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace watchfloor::server {

namespace {

// One hostlist item ("r01-n[01-03]-x[1-2]"): the first bracket group expanded, the rest recursively.
bool expandHostlistItem(std::string_view item, std::vector<std::string>& names) {
    constexpr std::size_t kMostNames = 1'000'000;  // a typo such as [1-999999999] must not eat memory
    const auto open = item.find('[');
    if (open == std::string_view::npos) {
        if (!isPlainHostName(item) || names.size() >= kMostNames) return false;
        names.emplace_back(item);
        return true;
    }
    const auto close = item.find(']', open);
    if (close == std::string_view::npos) return false;
    const std::string_view prefix = item.substr(0, open), rest = item.substr(close + 1);
    std::string_view ranges = item.substr(open + 1, close - open - 1);
    while (!ranges.empty()) {
        const auto comma = ranges.find(',');
        const std::string_view range = ranges.substr(0, comma);
        ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
        const auto dash = range.find('-');
        const std::string_view low = range.substr(0, dash);
        const std::string_view high = dash == std::string_view::npos ? low : range.substr(dash + 1);
        unsigned long first = 0, last = 0;
        const auto parsedLow = std::from_chars(low.data(), low.data() + low.size(), first);
        const auto parsedHigh = std::from_chars(high.data(), high.data() + high.size(), last);
        if (low.empty() || high.empty() || parsedLow.ec != std::errc() || parsedLow.ptr != low.data() + low.size() ||
            parsedHigh.ec != std::errc() || parsedHigh.ptr != high.data() + high.size() || last < first ||
            last - first >= kMostNames)
            return false;
        for (unsigned long n = first; n <= last; ++n) {
            std::string digits = std::to_string(n);
            if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');  // "01-18" keeps width
            if (!expandHostlistItem(std::string(prefix) + digits + std::string(rest), names)) return false;
        }
    }
    return true;
}

}  // namespace

bool isPlainHostName(std::string_view name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '_' || c == '-';
    });
}

std::optional<std::vector<std::string>> expandHostlist(std::string_view hostlist) {
    std::vector<std::string> names;
    std::size_t itemStart = 0;
    bool inBrackets = false;
    for (std::size_t i = 0; i <= hostlist.size(); ++i) {
        const char c = i < hostlist.size() ? hostlist[i] : ',';
        if (c == '[' || c == ']') {
            if (inBrackets == (c == '[')) return std::nullopt;  // nested or unbalanced
            inBrackets = c == '[';
        } else if (c == ',' && !inBrackets) {
            if (i > itemStart && !expandHostlistItem(hostlist.substr(itemStart, i - itemStart), names)) return std::nullopt;
            itemStart = i + 1;
        }
    }
    if (inBrackets) return std::nullopt;
    return names;
}

}  // namespace watchfloor::server
