// Prometheus HTTP API answers (server/prom): the same bytes decoded as an instant query's answer,
// a range query's answer, and as the store's error envelope, as PromClient meets them.
#include "FuzzSupport.h"

#include "OneLine.h"
#include "PromClient.h"
#include "PromDecoder.h"

#include <string>

namespace prom = watchfloor::server::prom;

namespace {

// What every answer promises fleetd's log and the console's Sources dock: one bounded line.
void checkOneLine(const std::string& text, std::size_t most) {
    FUZZ_CHECK(text.find_first_of("\r\n") == std::string::npos, "text spans lines: " + text.substr(0, 200));
    FUZZ_CHECK(text.size() <= most, "text of " + std::to_string(text.size()) + " bytes");
}

void checkResult(const prom::QueryResult& result, std::size_t callbacks) {
    FUZZ_CHECK(result.series == callbacks,
               "series " + std::to_string(result.series) + " but " + std::to_string(callbacks) + " callbacks");
    FUZZ_CHECK(result.ok || !result.error.empty(), "failed without an error");
    // The decoder's own words around the store's (bounded) text.
    checkOneLine(result.error, 4 * prom::kMaxMessageChars);
    FUZZ_CHECK(result.warnings.size() <= prom::kMaxWarnings + 2, std::to_string(result.warnings.size()) + " warnings");
    for (const auto& warning : result.warnings) checkOneLine(warning, 4 * prom::kMaxMessageChars);
}

// Labels are views into the decoder's buffers, valid during the callback: reading every byte
// lets AddressSanitizer see a view that points past its buffer or into a freed one.
std::size_t touch(std::span<const prom::Label> labels) {
    std::size_t sum = 0;
    for (const auto& label : labels) {
        for (const char c : label.name) sum += static_cast<unsigned char>(c);
        for (const char c : label.value) sum += static_cast<unsigned char>(c);
    }
    return sum;
}
volatile std::size_t sink;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view json(reinterpret_cast<const char*>(data), size);

    std::size_t samples = 0;
    const auto instant = prom::decodeInstant(json, [&](std::span<const prom::Label> labels, prom::Point) {
        sink = touch(labels);
        ++samples;
    });
    checkResult(instant, samples);
    watchfloor::fuzz::explain("instant: " + (instant.ok ? std::to_string(samples) + " samples" : instant.error));

    std::size_t series = 0;
    const auto range =
        prom::decodeRange(json, [&](std::span<const prom::Label> labels, std::span<const prom::Point> points) {
            sink = touch(labels);
            for (const auto& point : points) sink = sink + std::size_t(point.timeMs);
            ++series;
        });
    checkResult(range, series);
    watchfloor::fuzz::explain("range: " + (range.ok ? std::to_string(series) + " series" : range.error));

    // The error envelope is read from the client's own buffer, padded as simdjson needs.
    std::string padded(json);
    padded.append(prom::kJsonPadding, '\0');
    static prom::detail::Decoder decoder;
    if (const auto error = decoder.storeError(std::string_view(padded.data(), size)))
        checkOneLine(*error, 4 * prom::kMaxMessageChars);
    return 0;
}
