#include "Exposition.h"

#include "OneLine.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace watchfloor::server::prom {

namespace {

constexpr std::size_t kErrorLineChars = 120;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isMetricStart(char c) { return isAlpha(c) || c == '_' || c == ':'; }
bool isMetricChar(char c) { return isMetricStart(c) || isDigit(c); }
bool isLabelStart(char c) { return isAlpha(c) || c == '_'; }
bool isLabelChar(char c) { return isLabelStart(c) || isDigit(c); }

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back())) text.remove_suffix(1);
    return text;
}

bool equalsIgnoringCase(std::string_view text, std::string_view lower) {
    if (text.size() != lower.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

// RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
bool validUtf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        if (*p < 0x80) {
            ++p;
            continue;
        }
        std::size_t length;
        unsigned lowest, highest = 0xBF;
        const unsigned lead = *p;
        if (lead >= 0xC2 && lead <= 0xDF)
            length = 2, lowest = 0x80;
        else if (lead == 0xE0)
            length = 3, lowest = 0xA0;
        else if (lead == 0xED)
            length = 3, lowest = 0x80, highest = 0x9F;
        else if (lead >= 0xE1 && lead <= 0xEF)
            length = 3, lowest = 0x80;
        else if (lead == 0xF0)
            length = 4, lowest = 0x90;
        else if (lead >= 0xF1 && lead <= 0xF3)
            length = 4, lowest = 0x80;
        else if (lead == 0xF4)
            length = 4, lowest = 0x80, highest = 0x8F;
        else
            return false;
        if (static_cast<std::size_t>(end - p) < length) return false;
        if (p[1] < lowest || p[1] > highest) return false;
        for (std::size_t k = 2; k < length; ++k)
            if (p[k] < 0x80 || p[k] > 0xBF) return false;
        p += length;
    }
    return true;
}

// Go's strconv.ParseFloat(s, 64), which both formats name: an optional sign, decimal or 0x-hex
// digits with an optional exponent, or inf/infinity/nan in any case. Out of range is an error.
std::optional<double> parseFloat(std::string_view token) {
    if (token.empty()) return std::nullopt;
    if (equalsIgnoringCase(token, "nan")) return std::nan("");
    bool negative = false;
    std::string_view digits = token;
    if (digits.front() == '+' || digits.front() == '-') {
        negative = digits.front() == '-';
        digits.remove_prefix(1);
    }
    if (equalsIgnoringCase(digits, "inf") || equalsIgnoringCase(digits, "infinity"))
        return negative ? -HUGE_VAL : HUGE_VAL;
    if (digits.empty() || !(isDigit(digits.front()) || digits.front() == '.')) return std::nullopt;
    auto format = std::chars_format::general;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        format = std::chars_format::hex;
        digits.remove_prefix(2);
        if (digits.empty() || digits.front() == '+' || digits.front() == '-') return std::nullopt;
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, format);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return negative ? -value : value;
}

std::optional<std::int64_t> parseInt(std::string_view token) {
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    if (token.empty() || token.front() == '+') return std::nullopt;
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
    return value;
}

// Text format: integer milliseconds. OpenMetrics: seconds, possibly fractional.
std::optional<std::int64_t> parseTimestamp(std::string_view token, ExpositionFormat format) {
    if (format == ExpositionFormat::PrometheusText) {
        const auto ms = parseInt(token);
        if (!ms || *ms == kNoTimestamp) return std::nullopt;
        return ms;
    }
    const auto seconds = parseFloat(token);
    if (!seconds || !std::isfinite(*seconds) || std::fabs(*seconds) > 9.0e15) return std::nullopt;
    return std::llround(*seconds * 1000.0);
}

bool isTextType(std::string_view type) {
    return type == "counter" || type == "gauge" || type == "histogram" || type == "summary" || type == "untyped";
}

bool isOpenMetricsType(std::string_view type) {
    return type == "counter" || type == "gauge" || type == "histogram" || type == "gaugehistogram" ||
           type == "stateset" || type == "info" || type == "summary" || type == "unknown";
}

}  // namespace

std::optional<ExpositionFormat> expositionFormatOf(std::string_view contentType) {
    const std::string_view mediaType = trimmed(contentType.substr(0, contentType.find(';')));
    if (mediaType.empty() || equalsIgnoringCase(mediaType, "text/plain")) return ExpositionFormat::PrometheusText;
    if (equalsIgnoringCase(mediaType, "application/openmetrics-text")) return ExpositionFormat::OpenMetrics;
    return std::nullopt;
}

namespace {

// A cursor over one line (leading and trailing blanks already gone).
class Line {
public:
    explicit Line(std::string_view text) : text_(text) {}

    bool atEnd() const { return pos_ >= text_.size(); }
    char peek() const { return atEnd() ? '\0' : text_[pos_]; }
    bool consume(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void skipBlanks() {
        while (!atEnd() && isBlank(text_[pos_])) ++pos_;
    }
    // Up to the next blank (or the end).
    std::string_view token() {
        const std::size_t begin = pos_;
        while (!atEnd() && !isBlank(text_[pos_])) ++pos_;
        return text_.substr(begin, pos_ - begin);
    }
    std::string_view rest() const { return text_.substr(std::min(pos_, text_.size())); }
    std::string_view metricName() { return name(isMetricStart, isMetricChar); }
    std::string_view labelName() { return name(isLabelStart, isLabelChar); }

    // After an opening quote: the label value up to the closing one, unescaped into `scratch`
    // when it has escapes (scratch has room for the whole line, so earlier views stay valid).
    // Nullopt with `why` set when it never closes or is not UTF-8.
    std::optional<std::string_view> quoted(std::string& scratch, const char** why) {
        const std::size_t begin = pos_;
        std::size_t end = begin;
        bool escaped = false;
        while (end < text_.size() && text_[end] != '"') {
            if (text_[end] == '\\') {
                escaped = true;
                if (++end == text_.size()) break;
            }
            ++end;
        }
        if (end >= text_.size()) return *why = "label value without its closing quote", std::nullopt;
        const std::string_view raw = text_.substr(begin, end - begin);
        pos_ = end + 1;
        if (!validUtf8(raw)) return *why = "label value is not UTF-8", std::nullopt;
        if (!escaped) return raw;
        const std::size_t start = scratch.size();
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '\\') {
                scratch += raw[i];
                continue;
            }
            const char next = raw[++i];
            // \\, \" and \n are the escapes; any other keeps its backslash (OpenMetrics reads
            // "\a" as backslash + a, and so does Prometheus's text parser).
            if (next == 'n')
                scratch += '\n';
            else if (next == '"' || next == '\\')
                scratch += next;
            else
                (scratch += '\\') += next;
        }
        return std::string_view(scratch.data() + start, scratch.size() - start);
    }

private:
    template <typename Start, typename Char>
    std::string_view name(Start start, Char rest) {
        const std::size_t begin = pos_;
        if (atEnd() || !start(text_[pos_])) return {};
        ++pos_;
        while (!atEnd() && rest(text_[pos_])) ++pos_;
        return text_.substr(begin, pos_ - begin);
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// {name="value",...} after the opening brace, into `out`. A trailing comma is allowed (text
// format); blanks around the punctuation are skipped.
const char* readLabels(Line& line, std::vector<Label>& out, std::string& scratch) {
    line.skipBlanks();
    if (line.consume('}')) return nullptr;
    while (true) {
        const std::string_view name = line.labelName();
        if (name.empty()) return "bad label name";
        line.skipBlanks();
        if (!line.consume('=')) return "no = after a label name";
        line.skipBlanks();
        if (!line.consume('"')) return "label value not in double quotes";
        const char* why = nullptr;
        const auto value = line.quoted(scratch, &why);
        if (!value) return why;
        for (const Label& seen : out)
            if (seen.name == name) return "the same label twice";
        if (out.size() >= ExpositionParser::kMaxLabels) return "more labels than any exporter writes (64)";
        out.push_back({name, *value});
        line.skipBlanks();
        if (line.consume(',')) {
            line.skipBlanks();
            if (line.consume('}')) return nullptr;
            continue;
        }
        if (line.consume('}')) return nullptr;
        return "no , or } after a label";
    }
}

}  // namespace

ExpositionStats ExpositionParser::parse(std::string_view page, ExpositionFormat format, const Callback& onSample) {
    ExpositionStats stats;
    typed_.clear();
    helped_.clear();
    unitised_.clear();
    std::size_t lineNumber = 0;
    std::string_view current;
    const auto reject = [&](std::string_view why) {
        ++stats.rejectedLines;
        if (stats.firstError.empty())
            stats.firstError = "line " + std::to_string(lineNumber) + ": " + std::string(why) + ": " +
                               oneLine(current, kErrorLineChars);
    };
    const bool openMetrics = format == ExpositionFormat::OpenMetrics;

    // One metadata line; nullptr when fine.
    const auto comment = [&](Line& line) -> const char* {
        line.consume('#');
        line.skipBlanks();
        const std::string_view keyword = line.token();
        line.skipBlanks();
        const bool help = keyword == "HELP", type = keyword == "TYPE", unit = openMetrics && keyword == "UNIT";
        if (openMetrics && keyword == "EOF") {
            if (!line.atEnd()) return "text after # EOF";
            stats.eof = true;
            return nullptr;
        }
        if (!help && !type && !unit)
            return openMetrics ? "a comment (OpenMetrics has only HELP, TYPE, UNIT and EOF lines)" : nullptr;
        const std::string_view name = line.metricName();
        if (name.empty() || !(line.atEnd() || isBlank(line.peek()))) return "bad metric name in a metadata line";
        line.skipBlanks();
        if (type) {
            const std::string_view kind = line.token();
            line.skipBlanks();
            if (kind.empty() || !line.atEnd()) return "TYPE needs exactly a name and a type";
            if (!(openMetrics ? isOpenMetricsType(kind) : isTextType(kind))) return "unknown metric type";
            if (!typed_.insert(name).second) return "a second TYPE line for one metric";
        } else if (help) {
            if (!helped_.insert(name).second) return "a second HELP line for one metric";
        } else {
            const std::string_view text = line.token();
            line.skipBlanks();
            if (!line.atEnd()) return "UNIT needs a name and one unit";
            for (const char c : text)
                if (!isMetricChar(c)) return "bad unit";
            if (!unitised_.insert(name).second) return "a second UNIT line for one metric";
        }
        return nullptr;
    };

    const auto sample = [&](Line& line) -> const char* {
        const std::string_view name = line.metricName();
        if (name.empty())
            return line.peek() == '{' ? "no metric name (quoted names are not supported)" : "bad metric name";
        if (!(line.atEnd() || isBlank(line.peek()) || line.peek() == '{')) return "bad character in the metric name";
        line.skipBlanks();
        labels_.clear();
        scratch_.clear();
        scratch_.reserve(current.size());
        if (line.consume('{'))
            if (const char* why = readLabels(line, labels_, scratch_)) return why;
        line.skipBlanks();
        const auto value = parseFloat(line.token());
        if (!value) return line.atEnd() ? "no value" : "value is not a number";
        line.skipBlanks();
        std::int64_t timeMs = kNoTimestamp;
        if (!line.atEnd() && line.peek() != '#') {
            const auto stamp = parseTimestamp(line.token(), format);
            if (!stamp)
                return openMetrics ? "timestamp is not a number of seconds" : "timestamp is not whole milliseconds";
            timeMs = *stamp;
            line.skipBlanks();
        }
        if (line.consume('#')) {
            line.skipBlanks();
            if (!line.consume('{')) return "exemplar without its labels";
            exemplarLabels_.clear();
            if (const char* why = readLabels(line, exemplarLabels_, scratch_)) return why;
            line.skipBlanks();
            if (!parseFloat(line.token())) return "exemplar value is not a number";
            line.skipBlanks();
            if (!line.atEnd() && !parseTimestamp(line.token(), ExpositionFormat::OpenMetrics))
                return "exemplar timestamp is not a number of seconds";
            line.skipBlanks();
            if (!line.atEnd()) return "text after the exemplar";
            ++stats.exemplars;
        }
        if (!line.atEnd()) return "text after the value";
        ++stats.samples;
        onSample({name, labels_, *value, timeMs});
        return nullptr;
    };

    std::size_t pos = 0;
    while (pos < page.size()) {
        const void* newline = std::memchr(page.data() + pos, '\n', page.size() - pos);
        const std::size_t end =
            newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - page.data()) : page.size();
        const std::string_view raw = page.substr(pos, end - pos);
        pos = newline ? end + 1 : page.size();
        ++lineNumber;
        current = trimmed(raw);
        if (current.empty()) continue;
        ++stats.lines;
        if (stats.eof) {
            reject("text after # EOF");
            continue;
        }
        Line line(current);
        if (current.front() == '#') {
            const char* why = comment(line);
            // OpenMetrics may end in "# EOF" without a line feed; nothing else may.
            if (!newline && !stats.eof) why = "no line feed after the last line (page cut short?)";
            if (why) reject(why);
            continue;
        }
        if (!newline) {
            reject("no line feed after the last line (page cut short?)");
            continue;
        }
        if (const char* why = sample(line)) reject(why);
    }
    if (openMetrics && !stats.eof) {
        current = {};
        ++lineNumber;
        reject("no # EOF at the end (page cut short?)");
    }
    return stats;
}

}  // namespace watchfloor::server::prom
