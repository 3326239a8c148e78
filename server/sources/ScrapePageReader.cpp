#include "ScrapePageReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <span>

namespace watchfloor::server::sources {

namespace {

// node_exporter's time collector (enabled by default): the host's clock at each scrape.
constexpr std::string_view kNodeTime = "node_time_seconds";

std::uint64_t mix(std::uint64_t h) {  // splitmix64's finaliser: every input bit moves every output bit
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

std::uint64_t bitsOf(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

std::optional<std::uint32_t> gpuIndex(std::span<const prom::Label> labels) {
    for (const auto& l : labels) {
        if (l.name != "gpu") continue;
        std::uint32_t index = 0;
        const auto [end, ec] = std::from_chars(l.value.data(), l.value.data() + l.value.size(), index);
        if (ec != std::errc() || end != l.value.data() + l.value.size() || l.value.empty()) return std::nullopt;
        return index;
    }
    return std::nullopt;
}

}  // namespace

ScrapePageReader::ScrapePageReader() : queries_(pollQueries()) {
    for (const PollQuery& q : queries_) {
        if (q.kind == PollQuery::Kind::DcgmField || q.kind == PollQuery::Kind::IbFamily)
            byName_[q.promql] = &q;
        else if (q.kind == PollQuery::Kind::HostTemperature)
            hostTemperature_ = &q;
    }
}

void ScrapePageReader::read(std::string_view page, prom::ExpositionFormat format, std::string_view host,
                            std::size_t pageIndex, StoreTelemetry& telemetry, Read& out) {
    out.fingerprint = 0;
    out.exporterTimeS = std::numeric_limits<double>::quiet_NaN();
    out.gpus.clear();
    out.mapped = 0;
    const std::hash<std::string_view> hash;
    std::string_view lastName;
    const PollQuery* query = nullptr;
    bool hwmon = false, anyHwmon = false;
    double hottest = std::numeric_limits<double>::quiet_NaN();
    std::int64_t hottestTimeMs = prom::kNoTimestamp;

    out.stats = parser_.parse(page, format, [&](const prom::ExpositionSample& s) {
        // The lines of one family come together: one lookup per family, not per line.
        if (s.name.data() != lastName.data() || s.name != lastName) {
            lastName = s.name;
            const auto it = byName_.find(s.name);
            query = it == byName_.end() ? nullptr : it->second;
            hwmon = s.name == telemetry::kHwmonTempFamily;
        }
        // Every value counts, not only those fleetd reads: an idle host's InfiniBand counters and
        // sensors may not move for hours, while a live exporter's page always does somewhere
        // (node_exporter's node_time_seconds, its collectors' durations; a GPU's power and energy).
        std::uint64_t h = hash(s.name);
        for (const auto& l : s.labels) h = mix(h ^ hash(l.value)) + hash(l.name);
        h = mix(h ^ bitsOf(s.value));
        out.fingerprint += h;  // a sum: the same values in another order are the same page
        if (const auto gpu = gpuIndex(s.labels)) {
            auto it = std::find_if(out.gpus.begin(), out.gpus.end(), [&](const auto& g) { return g.first == *gpu; });
            if (it == out.gpus.end()) it = out.gpus.insert(out.gpus.end(), {*gpu, 0});
            it->second += h;
        }
        if (!query && !hwmon) {
            if (s.name == kNodeTime) out.exporterTimeS = s.value;
            return;
        }
        ++out.mapped;
        if (hwmon) {
            anyHwmon = true;
            // max() as PromQL has it: NaN only when every sensor is.
            if (std::isfinite(s.value) && !(s.value <= hottest)) {
                hottest = s.value;
                hottestTimeMs = s.timeMs;
            }
            return;
        }
        telemetry.addFromHost(pageIndex, *query, host, s.labels, s.value, s.timeMs);
    });
    if (anyHwmon && hostTemperature_)
        telemetry.addFromHost(pageIndex, *hostTemperature_, host, {}, hottest, hottestTimeMs);
}

}  // namespace watchfloor::server::sources
