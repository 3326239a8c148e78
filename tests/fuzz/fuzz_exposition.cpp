// Exporter pages (server/prom Exposition, what fleetd's scraper reads): the input as a page in
// the Prometheus text format and in OpenMetrics; then a round trip through the twin's exporter
// writer (server/exporters ExpositionFormat): a label value, HELP text and a value written as
// dcgm-exporter and node_exporter write them must read back as the same bytes and number.
#include "FuzzSupport.h"

#include "Exposition.h"
#include "ExpositionFormat.h"
#include "OneLine.h"

#include <cmath>
#include <cstring>

namespace prom = watchfloor::server::prom;
namespace exporters = watchfloor::server::exporters;

namespace {

volatile std::size_t sink;

// The same rule the format names for label values (RFC 3629), kept apart from the parser's own
// so that the round trip checks it rather than trusts it.
bool validUtf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned c = *p;
        const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (length == 0 || std::size_t(end - p) < length) return false;
        unsigned long point = length == 1 ? c : c & (0x7F >> length);
        for (std::size_t k = 1; k < length; ++k) {
            if ((p[k] & 0xC0) != 0x80) return false;
            point = (point << 6) | (p[k] & 0x3F);
        }
        static constexpr unsigned long kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if ((length > 1 && point < kLeast[length]) || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF))
            return false;
        p += length;
    }
    return true;
}

prom::ExpositionStats parseChecked(prom::ExpositionParser& parser, std::string_view page, prom::ExpositionFormat format,
                                   std::vector<std::pair<std::string, double>>* seen = nullptr) {
    std::size_t callbacks = 0;
    const auto stats = parser.parse(page, format, [&](const prom::ExpositionSample& sample) {
        ++callbacks;
        FUZZ_CHECK(!sample.name.empty(), "a sample without a name");
        FUZZ_CHECK(sample.labels.size() <= prom::ExpositionParser::kMaxLabels,
                   "labels " + std::to_string(sample.labels.size()));
        std::size_t sum = sample.name.size();
        for (const auto& label : sample.labels) {
            FUZZ_CHECK(!label.name.empty(), "a label without a name");
            FUZZ_CHECK(validUtf8(label.value), "a label value that is not UTF-8");
            // Views into the page or the parser's scratch: every byte must be readable now.
            for (const char c : label.name) sum += static_cast<unsigned char>(c);
            for (const char c : label.value) sum += static_cast<unsigned char>(c);
        }
        sink = sum;
        if (seen)
            seen->emplace_back(sample.labels.empty() ? std::string() : std::string(sample.labels[0].value),
                               sample.value);
    });
    FUZZ_CHECK(stats.samples == callbacks,
               std::to_string(stats.samples) + " samples, " + std::to_string(callbacks) + " callbacks");
    FUZZ_CHECK(stats.samples + stats.rejectedLines <= stats.lines + 1, "more samples and rejections than lines");
    FUZZ_CHECK(stats.rejectedLines == 0 || !stats.firstError.empty(), "lines rejected without an error");
    FUZZ_CHECK(
        stats.firstError.find('\n') == std::string::npos && stats.firstError.size() <= 4 * prom::kMaxMessageChars,
        "error is not one bounded line");
    return stats;
}

// The twin's writer to fleetd's reader: one family with the input as HELP text and label value.
void roundTrip(prom::ExpositionParser& parser, std::string_view text, double value) {
    std::string page;
    exporters::appendFamilyHeader(page, "DCGM_FI_DEV_GPU_TEMP", text, watchfloor::server::telemetry::PromType::Gauge);
    page += "DCGM_FI_DEV_GPU_TEMP{Hostname=\"";
    exporters::appendLabelValue(page, text);
    page += "\"} ";
    exporters::appendGoShortest(page, value);
    page += '\n';
    std::vector<std::pair<std::string, double>> seen;
    const auto stats = parseChecked(parser, page, prom::ExpositionFormat::PrometheusText, &seen);
    watchfloor::fuzz::explain(page + " -> " + std::to_string(stats.samples) + " samples, " + stats.firstError);
    if (!validUtf8(text)) return;  // the format refuses such a label value; a real exporter never has one
    FUZZ_CHECK(stats.rejectedLines == 0 && seen.size() == 1, "a page the twin writes is refused: " + stats.firstError);
    FUZZ_CHECK(seen[0].first == text, "label value read back differs");
    FUZZ_CHECK(std::isnan(value) ? std::isnan(seen[0].second) : seen[0].second == value,
               "value read back differs: wrote " + page.substr(page.rfind(' ') + 1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static prom::ExpositionParser parser;  // reused, as a scraper reuses its parser between pages
    const std::string_view page(reinterpret_cast<const char*>(data), size);
    const auto text = parseChecked(parser, page, prom::ExpositionFormat::PrometheusText);
    const auto open = parseChecked(parser, page, prom::ExpositionFormat::OpenMetrics);
    watchfloor::fuzz::explain("text: " + std::to_string(text.samples) + " samples, " +
                              std::to_string(text.rejectedLines) +
                              " rejected; OpenMetrics: " + std::to_string(open.samples) + " samples, " +
                              std::to_string(open.rejectedLines) + " rejected");

    double value = 0;
    std::memcpy(&value, data, std::min(size, sizeof value));
    roundTrip(parser, page.substr(0, 256), value);
    return 0;
}
