#include "Hostlist.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>

namespace watchfloor::server {

namespace {

constexpr std::size_t kMostNames = 1'000'000;  // a typo such as [1-999999999] must not eat memory

// One range of a bracket group: "07" or "01-18"; width is the low end's digits ("01" keeps 2).
struct Range {
    unsigned long first = 0, last = 0;
    std::size_t width = 0;
    std::size_t count() const { return last - first + 1; }
};

// nullopt when it is not a range of numbers, runs backwards or spans kMostNames or more.
std::optional<Range> parseRange(std::string_view range) {
    const auto dash = range.find('-');
    const std::string_view low = range.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : range.substr(dash + 1);
    Range out{0, 0, low.size()};
    const auto parsedLow = std::from_chars(low.data(), low.data() + low.size(), out.first);
    const auto parsedHigh = std::from_chars(high.data(), high.data() + high.size(), out.last);
    if (low.empty() || high.empty() || parsedLow.ec != std::errc() || parsedLow.ptr != low.data() + low.size() ||
        parsedHigh.ec != std::errc() || parsedHigh.ptr != high.data() + high.size() || out.last < out.first ||
        out.last - out.first >= kMostNames)
        return std::nullopt;
    return out;
}

// Calls visit(range text) for each comma-separated range of a group's inside ("01-03,07").
template <typename Visit>
bool forEachRange(std::string_view ranges, Visit visit) {
    while (!ranges.empty()) {
        const auto comma = ranges.find(',');
        if (!visit(ranges.substr(0, comma))) return false;
        ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
    }
    return true;
}

// How many names an item's bracket groups multiply out to, saturated above kMostNames; a range
// that does not parse counts 1 (expanding it refuses the item). Counted before anything is
// expanded: several groups multiply ("[0-99][0-99][0-9999]" is 10^8 names), and building names
// up to the limit first took over 25 s under ASan (found by the slurm_text fuzz target).
std::size_t namesIn(std::string_view item) {
    std::size_t total = 1;
    for (auto open = item.find('['); open != std::string_view::npos; open = item.find('[', open + 1)) {
        const auto close = item.find(']', open);
        if (close == std::string_view::npos) break;
        std::size_t group = 0;
        forEachRange(item.substr(open + 1, close - open - 1), [&](std::string_view text) {
            const auto range = parseRange(text);
            group += range ? range->count() : 1;
            return group <= kMostNames;
        });
        total = std::min(total * std::max<std::size_t>(group, 1), kMostNames + 1);
    }
    return total;
}

// One hostlist item ("r01-n[01-03]-x[1-2]"): the first bracket group expanded, the rest recursively.
bool expandHostlistItem(std::string_view item, std::vector<std::string>& names) {
    const auto open = item.find('[');
    if (open == std::string_view::npos) {
        if (!isPlainHostName(item) || names.size() >= kMostNames) return false;
        names.emplace_back(item);
        return true;
    }
    const auto close = item.find(']', open);
    if (close == std::string_view::npos) return false;
    const std::string_view prefix = item.substr(0, open), rest = item.substr(close + 1);
    return forEachRange(item.substr(open + 1, close - open - 1), [&](std::string_view text) {
        const auto range = parseRange(text);
        if (!range) return false;
        for (unsigned long n = range->first; n <= range->last; ++n) {
            std::string digits = std::to_string(n);
            if (digits.size() < range->width)
                digits.insert(0, range->width - digits.size(), '0');  // "01-18" keeps width
            if (!expandHostlistItem(std::string(prefix) + digits + std::string(rest), names)) return false;
        }
        return true;
    });
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
            const std::string_view item = hostlist.substr(itemStart, i - itemStart);
            if (!item.empty() && names.size() + namesIn(item) > kMostNames) return std::nullopt;
            if (!item.empty() && !expandHostlistItem(item, names)) return std::nullopt;
            itemStart = i + 1;
        }
    }
    if (inBrackets) return std::nullopt;
    return names;
}

}  // namespace watchfloor::server
