#include "PromDecoder.h"

#include "OneLine.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace watchfloor::server::prom::detail {

namespace ondemand = simdjson::ondemand;
static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

namespace {

// The answer has the wrong shape (as opposed to not being JSON at all).
struct ShapeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An element of an object or array iteration, or the parse error it carries.
template <class T>
T take(simdjson::simdjson_result<T>&& element) {
    if (element.error() != simdjson::SUCCESS) throw simdjson::simdjson_error(element.error());
    return std::move(element).value_unsafe();
}

// Where in the answer a value sits; only formatted when something is wrong with it, so the hot
// path builds no strings.
struct Where {
    std::size_t series;  // kTop: outside data.result
    const char* path;
    static constexpr std::size_t kTop = std::size_t(-1);
    std::string text() const {
        if (series == kTop) return path;
        return "data.result[" + std::to_string(series) + "]" + (*path ? "." : "") + path;
    }
};

const char* typeName(ondemand::json_type type) {
    switch (type) {
    case ondemand::json_type::array: return "array";
    case ondemand::json_type::object: return "object";
    case ondemand::json_type::number: return "number";
    case ondemand::json_type::string: return "string";
    case ondemand::json_type::boolean: return "boolean";
    case ondemand::json_type::null: return "null";
    }
    return "unknown";
}

void expectType(ondemand::value& value, ondemand::json_type want, Where where) {
    const ondemand::json_type got = value.type();
    if (got != want) throw ShapeError(where.text() + ": expected " + typeName(want) + ", got " + typeName(got));
}

// A string's text without unescaping when it has no escapes (almost always): a view into the
// answer. Otherwise simdjson unescapes it into its parser-owned buffer, which also outlives the
// callback's use of it.
std::string_view stringValue(ondemand::value& value, Where where) {
    std::string_view token = value.raw_json_token();
    while (!token.empty() &&
           (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' || token.back() == '\t'))
        token.remove_suffix(1);
    if (token.size() < 2 || token.front() != '"' || token.back() != '"')
        throw ShapeError(where.text() + ": expected string, got " + typeName(value.type()));
    const std::string_view text = token.substr(1, token.size() - 2);
    if (std::memchr(text.data(), '\\', text.size()) == nullptr) return text;
    return value.get_string();
}

std::string_view keyOf(ondemand::field& field) {
    const char* start = field.key().raw();
    const char* end = start;
    // The stage-1 pass has proven every string closed, and the buffer is padded.
    while (*end != '"') {
        if (*end == '\\') return field.unescaped_key();
        ++end;
    }
    return {start, static_cast<std::size_t>(end - start)};
}

// Sample values are strings so that NaN and the infinities survive JSON: "41", "1.5e+09", "NaN",
// "+Inf", "-Inf".
double parseSampleValue(std::string_view text, Where where) {
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (end == digits.data() + digits.size() && !digits.empty()) {
        if (ec == std::errc()) return value;
        if (ec == std::errc::result_out_of_range) {
            // from_chars leaves the value alone here; strtod saturates to +-HUGE_VAL or 0 as the
            // store meant.
            const std::string copy(digits);
            return std::strtod(copy.c_str(), nullptr);
        }
    }
    throw ShapeError(where.text() + ": sample value \"" + oneLine(text, 40) + "\" is not a number");
}

std::int64_t secondsToMs(double seconds, Where where) {
    // Float seconds with millisecond digits: 1712345678.123 is 1712345678.12299990654 as a
    // double, so round rather than truncate.
    const double ms = std::round(seconds * 1000.0);
    constexpr double kLimit = 9.0e15;  // ~285,000 years: far inside int64 and exact in a double
    if (!std::isfinite(ms) || ms > kLimit || ms < -kLimit)
        throw ShapeError(where.text() + ": timestamp " + std::to_string(seconds) + " is out of range");
    return static_cast<std::int64_t>(ms);
}

}  // namespace

class Decoder::Walk {
public:
    enum class Want { Instant, Range, ErrorOnly };
    struct Envelope {
        std::string status, errorType, error;
    };
    QueryResult walk(std::string_view json, Want want, const InstantCallback* onSample, const RangeCallback* onSeries,
                     Envelope* envelope = nullptr);
    bool lastErrorFromStore() const { return lastErrorFromStore_; }

private:
    void readData(ondemand::value data, Want want, const InstantCallback* onSample, const RangeCallback* onSeries,
                  QueryResult& result);
    void readVector(ondemand::array series, const InstantCallback& onSample, QueryResult& result);
    void readMatrix(ondemand::array series, const RangeCallback& onSeries, QueryResult& result);
    void readLabels(ondemand::value metric);
    Point readSample(ondemand::value sample);
    void readPoints(ondemand::value values);
    void readMessages(ondemand::value list, std::string_view prefix, QueryResult& result);

    ondemand::parser parser_;
    std::vector<Label> labels_;
    std::vector<Point> points_;
    std::size_t skippedHistograms_ = 0;
    std::size_t droppedMessages_ = 0;
    std::size_t seriesIndex_ = 0;
    bool lastErrorFromStore_ = false;
};

Decoder::Decoder() : walk_(std::make_unique<Walk>()) {}
Decoder::~Decoder() = default;

QueryResult Decoder::instant(std::string_view json, const InstantCallback& onSample) {
    return walk_->walk(json, Walk::Want::Instant, &onSample, nullptr);
}

QueryResult Decoder::range(std::string_view json, const RangeCallback& onSeries) {
    return walk_->walk(json, Walk::Want::Range, nullptr, &onSeries);
}

std::optional<std::string> Decoder::storeError(std::string_view json) {
    Walk::Envelope envelope;
    const QueryResult result = walk_->walk(json, Walk::Want::ErrorOnly, nullptr, nullptr, &envelope);
    if (envelope.status != "error") return std::nullopt;
    return result.error;
}

bool Decoder::lastErrorFromStore() const { return walk_->lastErrorFromStore(); }

QueryResult Decoder::Walk::walk(std::string_view json, Want want, const InstantCallback* onSample,
                                const RangeCallback* onSeries, Envelope* envelopeOut) {
    QueryResult result;
    Envelope envelope;
    skippedHistograms_ = 0;
    droppedMessages_ = 0;
    seriesIndex_ = 0;
    lastErrorFromStore_ = false;
    ondemand::document doc;
    bool iterating = false;
    try {
        if (const auto first = json.find_first_not_of(" \t\r\n");
            first != std::string_view::npos && json[first] != '{') {
            if (json[first] == '[') throw ShapeError("expected a JSON object, got an array");
            throw ShapeError("not JSON (starts with \"" + oneLine(json.substr(first, 60), 60) + "\")");
        }
        doc = parser_.iterate(simdjson::padded_string_view(json.data(), json.size(), json.size() + kJsonPadding));
        iterating = true;
        ondemand::object top = doc.get_object();
        bool sawData = false;
        for (auto fieldResult : top) {
            ondemand::field field = take(std::move(fieldResult));
            const std::string_view key = keyOf(field);
            ondemand::value value = field.value();
            if (key == "status") {
                envelope.status = stringValue(value, {Where::kTop, "status"});
            } else if (key == "errorType") {
                envelope.errorType = oneLine(stringValue(value, {Where::kTop, "errorType"}), 40);
            } else if (key == "error") {
                envelope.error = oneLine(stringValue(value, {Where::kTop, "error"}), kMaxMessageChars);
            } else if (key == "warnings") {
                readMessages(value, "", result);
            } else if (key == "infos") {
                readMessages(value, "info: ", result);
            } else if (key == "data") {
                sawData = true;
                // An error envelope may carry data too; it is never read as samples.
                const bool mayBeSamples = envelope.status.empty() || envelope.status == "success";
                if (want != Want::ErrorOnly && mayBeSamples && value.type() != ondemand::json_type::null)
                    readData(value, want, onSample, onSeries, result);
            }
        }
        if (const auto location = doc.current_location(); location.error() == simdjson::SUCCESS)
            throw ShapeError("trailing content after the top-level object");
        if (envelope.status == "error") {
            lastErrorFromStore_ = true;
            result.error = (envelope.errorType.empty() ? std::string("error") : envelope.errorType) + ": " +
                           (envelope.error.empty() ? std::string("(no message)") : envelope.error);
        } else if (want == Want::ErrorOnly) {
            result.error = "not an error envelope";
        } else if (envelope.status.empty()) {
            throw ShapeError("missing field \"status\"");
        } else if (envelope.status != "success") {
            throw ShapeError("status is \"" + oneLine(envelope.status, 40) + "\", expected \"success\" or \"error\"");
        } else if (!sawData) {
            throw ShapeError("missing field \"data\"");
        } else {
            result.ok = true;
        }
    } catch (const ShapeError& e) {
        result.ok = false;
        result.error = std::string("unexpected answer: ") + e.what();
    } catch (const simdjson::simdjson_error& e) {
        result.ok = false;
        if (e.error() == simdjson::EMPTY) {
            result.error = "empty answer (no JSON)";
        } else if (e.error() == simdjson::INCORRECT_TYPE) {
            result.error = "unexpected answer: not a JSON object";
        } else {
            std::string at;
            if (const auto location = iterating ? doc.current_location()
                                                : simdjson::simdjson_result<const char*>(simdjson::UNINITIALIZED);
                location.error() == simdjson::SUCCESS)
                at = " at byte " + std::to_string(location.value_unsafe() - json.data());
            else if (e.error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e.error() == simdjson::UNCLOSED_STRING)
                at = " at byte " + std::to_string(json.size()) + " (truncated)";
            result.error = "malformed JSON" + at + ": " + e.what();
        }
    }
    if (skippedHistograms_ > 0)
        result.warnings.push_back(std::to_string(skippedHistograms_) +
                                  " native-histogram series skipped (no float value)");
    if (droppedMessages_ > 0) result.warnings.push_back(std::to_string(droppedMessages_) + " more warnings not kept");
    if (envelopeOut) *envelopeOut = std::move(envelope);
    return result;
}

void Decoder::Walk::readData(ondemand::value data, Want want, const InstantCallback* onSample,
                             const RangeCallback* onSeries, QueryResult& result) {
    expectType(data, ondemand::json_type::object, {Where::kTop, "data"});
    ondemand::object object = data.get_object();
    // Every store writes resultType before result; find_field_unordered still copes with the
    // other order, at the price of skipping the result once.
    ondemand::value typeValue;
    if (object.find_field_unordered("resultType").get(typeValue) != simdjson::SUCCESS)
        throw ShapeError("missing field \"data.resultType\"");
    const std::string resultType(stringValue(typeValue, {Where::kTop, "data.resultType"}));
    ondemand::value resultValue;
    if (object.find_field_unordered("result").get(resultValue) != simdjson::SUCCESS)
        throw ShapeError("missing field \"data.result\"");

    if (want == Want::Instant && resultType == "vector") {
        expectType(resultValue, ondemand::json_type::array, {Where::kTop, "data.result"});
        readVector(resultValue.get_array(), *onSample, result);
    } else if (want == Want::Instant && resultType == "scalar") {
        expectType(resultValue, ondemand::json_type::array, {Where::kTop, "data.result"});
        const Point point = readSample(resultValue);
        labels_.clear();
        (*onSample)(labels_, point);
        result.series = 1;
    } else if (want == Want::Range && resultType == "matrix") {
        expectType(resultValue, ondemand::json_type::array, {Where::kTop, "data.result"});
        readMatrix(resultValue.get_array(), *onSeries, result);
    } else if (want == Want::Instant && resultType == "matrix") {
        throw ShapeError("resultType \"matrix\" for an instant query (a range selector like [5m] in the query?)");
    } else {
        throw ShapeError("resultType \"" + oneLine(resultType, 40) + "\" for " +
                         (want == Want::Instant ? "an instant query (expected vector or scalar)"
                                                : "a range query (expected matrix)"));
    }
}

void Decoder::Walk::readVector(ondemand::array series, const InstantCallback& onSample, QueryResult& result) {
    for (auto itemResult : series) {
        ondemand::value item = take(std::move(itemResult));
        expectType(item, ondemand::json_type::object, Where{seriesIndex_, ""});
        labels_.clear();
        bool sawMetric = false, sawHistogram = false;
        std::optional<Point> point;
        for (auto fieldResult : item.get_object()) {
            ondemand::field field = take(std::move(fieldResult));
            const std::string_view key = keyOf(field);
            if (key == "metric") {
                readLabels(field.value());
                sawMetric = true;
            } else if (key == "value") {
                point = readSample(field.value());
            } else if (key == "histogram") {
                sawHistogram = true;
            }
        }
        if (!sawMetric) throw ShapeError("missing field \"" + Where{seriesIndex_, "metric"}.text() + "\"");
        if (point) {
            onSample(labels_, *point);
            ++result.series;
        } else if (sawHistogram) {
            ++skippedHistograms_;
        } else {
            throw ShapeError("missing field \"" + Where{seriesIndex_, "value"}.text() + "\"");
        }
        ++seriesIndex_;
    }
}

void Decoder::Walk::readMatrix(ondemand::array series, const RangeCallback& onSeries, QueryResult& result) {
    for (auto itemResult : series) {
        ondemand::value item = take(std::move(itemResult));
        expectType(item, ondemand::json_type::object, Where{seriesIndex_, ""});
        labels_.clear();
        points_.clear();
        bool sawMetric = false, sawValues = false, sawHistograms = false;
        for (auto fieldResult : item.get_object()) {
            ondemand::field field = take(std::move(fieldResult));
            const std::string_view key = keyOf(field);
            if (key == "metric") {
                readLabels(field.value());
                sawMetric = true;
            } else if (key == "values") {
                readPoints(field.value());
                sawValues = true;
            } else if (key == "histograms") {
                sawHistograms = true;
            }
        }
        if (!sawMetric) throw ShapeError("missing field \"" + Where{seriesIndex_, "metric"}.text() + "\"");
        if (sawValues) {
            onSeries(labels_, points_);
            ++result.series;
        } else if (sawHistograms) {
            ++skippedHistograms_;
        } else {
            throw ShapeError("missing field \"" + Where{seriesIndex_, "values"}.text() + "\"");
        }
        ++seriesIndex_;
    }
}

void Decoder::Walk::readLabels(ondemand::value metric) {
    expectType(metric, ondemand::json_type::object, Where{seriesIndex_, "metric"});
    for (auto fieldResult : metric.get_object()) {
        ondemand::field field = take(std::move(fieldResult));
        const std::string_view name = keyOf(field);
        ondemand::value value = field.value();
        labels_.push_back({name, stringValue(value, Where{seriesIndex_, "metric"})});
    }
}

Point Decoder::Walk::readSample(ondemand::value sample) {
    // [<unix seconds as a number>, "<value as a string>"]
    const Where where{seriesIndex_, "value"}, timeWhere{seriesIndex_, "value[0]"}, valueWhere{seriesIndex_, "value[1]"};
    expectType(sample, ondemand::json_type::array, where);
    Point point{0, 0};
    int count = 0;
    for (auto elementResult : sample.get_array()) {
        ondemand::value element = take(std::move(elementResult));
        if (count == 0) {
            expectType(element, ondemand::json_type::number, timeWhere);
            point.timeMs = secondsToMs(element.get_double(), timeWhere);
        } else if (count == 1) {
            double fast = 0;
            if (element.get_double_in_string().get(fast) == simdjson::SUCCESS)
                point.value = fast;
            else
                point.value = parseSampleValue(stringValue(element, valueWhere), valueWhere);
        }
        ++count;
    }
    if (count != 2)
        throw ShapeError(where.text() + ": expected [time, \"value\"], got " + std::to_string(count) + " elements");
    return point;
}

void Decoder::Walk::readPoints(ondemand::value values) {
    expectType(values, ondemand::json_type::array, Where{seriesIndex_, "values"});
    for (auto sampleResult : values.get_array()) {
        ondemand::value sample = take(std::move(sampleResult));
        points_.push_back(readSample(sample));
    }
}

void Decoder::Walk::readMessages(ondemand::value list, std::string_view prefix, QueryResult& result) {
    if (list.type() == ondemand::json_type::null) return;
    const Where where{Where::kTop, prefix.empty() ? "warnings" : "infos"};
    expectType(list, ondemand::json_type::array, where);
    for (auto messageResult : list.get_array()) {
        ondemand::value message = take(std::move(messageResult));
        const std::string_view text = stringValue(message, where);
        if (result.warnings.size() < kMaxWarnings)
            result.warnings.push_back(std::string(prefix) + oneLine(text, kMaxMessageChars));
        else
            ++droppedMessages_;
    }
}

}  // namespace watchfloor::server::prom::detail

namespace watchfloor::server::prom {

QueryResult decodeInstantPadded(std::string_view json, const InstantCallback& onSample) {
    detail::Decoder decoder;
    return decoder.instant(json, onSample);
}

QueryResult decodeRangePadded(std::string_view json, const RangeCallback& onSeries) {
    detail::Decoder decoder;
    return decoder.range(json, onSeries);
}

QueryResult decodeInstant(std::string_view json, const InstantCallback& onSample) {
    const simdjson::padded_string padded(json);
    return decodeInstantPadded(padded, onSample);
}

QueryResult decodeRange(std::string_view json, const RangeCallback& onSeries) {
    const simdjson::padded_string padded(json);
    return decodeRangePadded(padded, onSeries);
}

}  // namespace watchfloor::server::prom
