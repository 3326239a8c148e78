#include "AlertmanagerJson.h"

#include "JsonWriter.h"

#include <simdjson.h>

#include <cstdio>
#include <ctime>

namespace watchfloor::server::paging {

namespace {

void labelObject(JsonWriter& json, std::string_view name, const LabelSet& set) {
    json.key(name).beginObject();
    for (const auto& [label, value] : set) json.key(label).string(value);
    json.endObject();
}

}  // namespace

std::string rfc3339(std::int64_t unixMs) {
    const std::int64_t seconds = unixMs >= 0 ? unixMs / 1000 : (unixMs - 999) / 1000;
    const auto millis = static_cast<int>(unixMs - seconds * 1000);
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[96];  // room for any int the compiler cannot rule out
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
    return text;
}

std::string postableAlerts(std::span<const PagedAlert> alerts) {
    JsonWriter json;
    json.beginArray();
    for (const auto& alert : alerts) {
        json.beginObject();
        labelObject(json, "labels", alert.labels);
        labelObject(json, "annotations", alert.annotations);
        json.key("startsAt").string(rfc3339(alert.startsAtMs));
        json.key("endsAt").string(rfc3339(alert.endsAtMs));
        json.endObject();
    }
    json.endArray();
    return json.take();
}

std::string postableSilence(const LabelSet& matchers, std::int64_t startsAtMs, std::int64_t endsAtMs,
                            std::string_view createdBy, std::string_view comment) {
    JsonWriter json;
    json.beginObject().key("matchers").beginArray();
    for (const auto& [label, value] : matchers)
        json.beginObject()
            .key("name")
            .string(label)
            .key("value")
            .string(value)
            .key("isRegex")
            .boolean(false)
            .key("isEqual")
            .boolean(true)
            .endObject();
    json.endArray();
    json.key("startsAt").string(rfc3339(startsAtMs));
    json.key("endsAt").string(rfc3339(endsAtMs));
    json.key("createdBy").string(createdBy);
    json.key("comment").string(comment);
    json.endObject();
    return json.take();
}

std::optional<std::string> silenceIdOf(std::string_view answer, std::string& error) {
    simdjson::dom::parser parser;
    simdjson::dom::element document;
    if (const auto code = parser.parse(answer.data(), answer.size()).get(document)) {
        error = std::string("silence answer is not JSON: ") + simdjson::error_message(code);
        return std::nullopt;
    }
    std::string_view id;
    if (document["silenceID"].get(id) || id.empty()) {
        error = "silence answer carries no silenceID";
        return std::nullopt;
    }
    return std::string(id);
}

}  // namespace watchfloor::server::paging
