#pragma once
// What an exporter's /metrics page says, read line by line: the Prometheus text format 0.0.4
// (what dcgm-exporter and node_exporter serve) and OpenMetrics 1.0 text (what a scraper that asks
// for it may get instead). Real pages are trusted no further than one line: a line that breaks
// the grammar is skipped and counted, and the rest of the page still counts. A page cut short
// ends in a line without its line feed (or, in OpenMetrics, without "# EOF"), and that is counted
// too, never read as a shorter number.
//
// Grammar followed (Prometheus "Exposition formats", OpenMetrics 1.0 ABNF):
//   # HELP name text        (\\ and \n escaped)     # TYPE name counter|gauge|histogram|summary|untyped
//   # UNIT name unit        (OpenMetrics)           # EOF (OpenMetrics: the end; nothing may follow)
//   name[{label="value",...}] value [timestamp] [# {label="value",...} value [timestamp]]
// Values as Go's strconv.ParseFloat reads them (NaN, +Inf, -Inf, hex floats); timestamps are
// integer milliseconds in the text format and float seconds in OpenMetrics; the trailing
// "# {...} v [t]" is an exemplar (checked, then dropped). Label values unescape \\, \" and \n;
// they must be UTF-8. Blanks and tabs may separate tokens; a CR before the line feed is a blank.

#include "PromClient.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace watchfloor::server::prom {

enum class ExpositionFormat { PrometheusText, OpenMetrics };

// The format a Content-Type header names: text/plain (any or no version) is the text format,
// application/openmetrics-text is OpenMetrics; an empty header is read as the text format, which is
// what a scraper falls back to. Anything else (HTML, JSON, protobuf) is not a metrics page: nullopt.
std::optional<ExpositionFormat> expositionFormatOf(std::string_view contentType);

// What a scraper offers in Accept: OpenMetrics first, then the text format (Prometheus's order).
inline constexpr const char* kExpositionAccept =
    "application/openmetrics-text;version=1.0.0;q=0.9,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

inline constexpr std::int64_t kNoTimestamp = std::numeric_limits<std::int64_t>::min();

// Views into the page (or the parser's scratch, for unescaped label values): valid only during
// the callback.
struct ExpositionSample {
    std::string_view name;
    std::span<const Label> labels;
    double value;
    std::int64_t timeMs;  // kNoTimestamp when the line has none
};

struct ExpositionStats {
    std::size_t lines = 0;          // non-empty lines
    std::size_t samples = 0;        // handed to the callback
    std::size_t rejectedLines = 0;  // skipped: broke the grammar
    std::size_t exemplars = 0;      // read and dropped
    bool eof = false;               // OpenMetrics "# EOF" seen
    std::string firstError;         // "line N: what: start of the line" (one bounded line); empty when none
};

class ExpositionParser {
public:
    using Callback = std::function<void(const ExpositionSample&)>;

    // More labels than this on one series is not a real exporter's page; the line is refused so
    // that one line cannot grow the parser's buffers without bound.
    static constexpr std::size_t kMaxLabels = 64;

    ExpositionStats parse(std::string_view page, ExpositionFormat format, const Callback& onSample);

private:
    std::vector<Label> labels_;
    std::vector<Label> exemplarLabels_;
    std::string scratch_;
    std::unordered_set<std::string_view> typed_, helped_, unitised_;  // names with a TYPE/HELP/UNIT line in this page
};

}  // namespace watchfloor::server::prom
