#include "NvlinkHealthKeeper.h"

#include "LinkStreamValues.h"
#include "LinkWatch.h"
#include "TickClock.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server {
namespace v1 = watchfloor::v1;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A counter as the keeper takes it: blank, negative or past 2^53 (a broken exporter) is no reading.
bool reading(float value) { return std::isfinite(value) && value >= 0 && value <= 9.007199254740992e15F; }

int plrCounterOf(v1::Metric metric) {
    switch (metric) {
    case v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL: return 0;
    case v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL: return 1;
    case v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL: return 2;
    default: return -1;
    }
}

}  // namespace

NvlinkHealthKeeper::NvlinkHealthKeeper(const v1::Topology& topology, NvlinkHealthOptions options) : options_(options) {
    for (const auto& gpu : topology.gpus()) {
        gpuPosition_.emplace(gpu.index(), std::uint32_t(gpuLinks_.size()));
        gpuLinks_.emplace_back();
    }
    for (const auto& link : topology.nvlinks()) {
        const auto position = std::uint32_t(linkPosition_.size());
        linkPosition_.emplace(link.index(), position);
        if (const auto gpu = gpuPosition_.find(link.gpu_index()); gpu != gpuPosition_.end())
            gpuLinks_[gpu->second].push_back(position);
    }
    linkDown_.assign(linkPosition_.size(), 0);
}

void NvlinkHealthKeeper::observe(FleetChanges& changes) {
    if (gpuLinks_.empty()) return;
    const std::int64_t nowMs = toUnixMs(changes.time);
    record(changes);
    if (nowMs < nextPollMs_) return;
    nextPollMs_ = nowMs + options_.pollMs;
    poll(nowMs, changes);
}

void NvlinkHealthKeeper::record(const FleetChanges& changes) {
    for (std::size_t i = 0; i < changes.samples.size(); ++i) {
        const Sample& s = changes.samples[i];
        if (s.metric == v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL) {
            const auto position = gpuPosition_.find(s.entityIndex);
            if (position == gpuPosition_.end()) continue;
            GpuState& gpu = gpus_[s.entityIndex];
            if (gpu.takenMs < 0) {
                gpu.position = position->second;
                std::fill(std::begin(gpu.sent), std::end(gpu.sent), kNaN);
            }
            gpu.symbol = {s.value, changes.sampleTimeMs(i)};
            continue;
        }
        if (s.metric == v1::DCGM_FI_DEV_NVLINK_GET_STATE) {
            // 0 down, 1 up; blank: unknown, taken as up (as an IB port's blank state is).
            if (const auto link = linkPosition_.find(s.entityIndex); link != linkPosition_.end())
                linkDown_[link->second] = s.value == 0 ? 1 : 0;
            continue;
        }
        const int counter = plrCounterOf(s.metric);
        if (counter < 0 || !linkPosition_.count(s.entityIndex)) continue;
        auto [it, first] = links_.try_emplace(s.entityIndex);
        if (first) std::fill(std::begin(it->second.sent), std::end(it->second.sent), kNaN);
        it->second.counters[counter] = {s.value, changes.sampleTimeMs(i)};
    }
}

void NvlinkHealthKeeper::poll(std::int64_t nowMs, FleetChanges& changes) {
    ++polls_;
    for (auto& [entity, gpu] : gpus_) pollGpu(entity, gpu, nowMs, changes);
    for (auto& [entity, link] : links_) pollLink(entity, link, nowMs, changes);
}

void NvlinkHealthKeeper::pollGpu(std::uint32_t entity, GpuState& gpu, std::int64_t nowMs, FleetChanges& changes) {
    gpu.history.advanceTo(nowMs);
    // As the rail links' keeper takes a sample: a polled source's value needs a newer sample time;
    // one that sends on change still holds.
    const bool fresh = gpu.symbol.timeMs > gpu.takenMs;
    if (reading(gpu.symbol.value) && (fresh || options_.countersOnChange)) {
        const std::int64_t at = fresh ? gpu.symbol.timeMs : std::max(nowMs, gpu.takenMs + 1);
        gpu.takenMs = at;
        const std::uint32_t up = upAt(gpu.position);
        PortCounterSample sample;
        sample.clear(at);
        sample.setSymbolErrors(std::uint64_t(gpu.symbol.value));
        sample.setActive(up > 0);
        if (up > 0) sample.setRate(up * kNvlink5BytesPerSecond);
        const PortInterval in = gpu.tracker.advance(sample, options_.maxGapMs, kNvlink5GpuLimits);
        if (!(in.events & kPortFirstSample)) ++stats_.gpuIntervals;
        if (in.events & kPortCleared) ++stats_.clears;
        if (in.events & kPortMissing) ++stats_.missing;
        if (in.events & kPortRejected) ++stats_.rejected;
        if (in.hasSymbolErrors) gpu.history.addSymbol(LinkEnd::Host, in.bits, in.symbolErrors);
    } else if (!reading(gpu.symbol.value) && gpu.symbol.timeMs > gpu.takenMs) {
        // A blank or absurd value: no sample, and the next good one starts over.
        gpu.takenMs = gpu.symbol.timeMs;
        gpu.tracker = PortTracker();
        ++stats_.rejected;
    }
    const SymbolBerEstimate e = windowEstimate(gpu.history, LinkEnd::Host, nowMs, gpu.tracker, options_.lines);
    if (e.bits <= 0 && std::isnan(gpu.sent[0])) return;  // no bits carried yet: nothing to say
    send(changes, entity, v1::NVLINK5_SYMBOL_BER_VERDICT, double(linkVerdictOf(e.verdict)), gpu.sent[0], nowMs);
    send(changes, entity, v1::NVLINK5_SYMBOL_BER_POINT, e.point, gpu.sent[1], nowMs);
    send(changes, entity, v1::NVLINK5_SYMBOL_BER_LOWER, e.lower, gpu.sent[2], nowMs);
    send(changes, entity, v1::NVLINK5_SYMBOL_BER_UPPER, e.upper, gpu.sent[3], nowMs);
}

void NvlinkHealthKeeper::pollLink(std::uint32_t entity, LinkState& link, std::int64_t nowMs, FleetChanges& changes) {
    std::int64_t newest = 0;
    bool complete = true;
    for (const Newest& c : link.counters) {
        newest = std::max(newest, c.timeMs);
        complete = complete && reading(c.value);
    }
    const bool fresh = newest > link.takenMs;
    if (fresh || (options_.countersOnChange && complete)) {
        const std::int64_t at = fresh ? newest : std::max(nowMs, link.takenMs + 1);
        link.takenMs = at;
        double now[kPlrCounters];
        for (int k = 0; k < kPlrCounters; ++k) now[k] = link.counters[k].value;
        if (!complete) {
            // A series vanished or went blank: missing, and the next complete sample starts over.
            if (link.referenceMs) ++stats_.missing;
            link.referenceMs = 0;
        } else if (link.referenceMs == 0 || at - link.referenceMs > options_.maxGapMs) {
            if (link.referenceMs) ++stats_.missing;
            std::copy(std::begin(now), std::end(now), link.reference);
            link.referenceMs = at;
        } else {
            double delta[kPlrCounters];
            bool back = false;
            for (int k = 0; k < kPlrCounters; ++k) {
                delta[k] = now[k] - link.reference[k];
                back = back || delta[k] < 0;
            }
            std::copy(std::begin(now), std::end(now), link.reference);
            link.referenceMs = at;
            if (back) {
                ++stats_.clears;
            } else if (delta[kCodeErrors] > delta[kCodes] || delta[kUncorrectable] > delta[kCodes]) {
                ++stats_.rejected;  // more codewords in error than received: not a reading
            } else {
                ++stats_.plrIntervals;
                if (link.halfStartMs == 0) link.halfStartMs = at;
                if (at - link.halfStartMs >= options_.plrHalfWindowMs) {
                    std::copy(std::begin(link.window[0]), std::end(link.window[0]), link.window[1]);
                    std::fill(std::begin(link.window[0]), std::end(link.window[0]), 0.0);
                    link.halfStartMs = at;
                }
                for (int k = 0; k < kPlrCounters; ++k) link.window[0][k] += delta[k];
            }
        }
    }
    const Plr ratios = plr(entity);
    if (!ratios.known()) return;  // no codewords counted: no ratio, never 0
    send(changes, entity, v1::NVLINK5_PLR_CODE_ERROR_RATIO, ratios.errors / ratios.codes, link.sent[0], nowMs);
    send(changes, entity, v1::NVLINK5_PLR_UNCORRECTABLE_RATIO, ratios.uncorrectable / ratios.codes, link.sent[1],
         nowMs);
}

void NvlinkHealthKeeper::send(FleetChanges& changes, std::uint32_t entity, v1::Metric metric, double value, float& sent,
                              std::int64_t nowMs) {
    const auto shown = static_cast<float>(shownDigits(value));
    sent = shown;
    // A source without per-sample times (the twin) measured everything at the tick's time.
    const bool timed = !changes.sampleTimesMs.empty() || changes.samples.empty();
    changes.samples.push_back({entity, metric, shown});
    if (timed) changes.sampleTimesMs.push_back(nowMs);
}

std::optional<SymbolBerEstimate> NvlinkHealthKeeper::gpuEstimate(std::uint32_t gpuEntity) const {
    const auto found = gpus_.find(gpuEntity);
    if (found == gpus_.end()) return std::nullopt;
    return windowEstimate(found->second.history, LinkEnd::Host, nextPollMs_ - options_.pollMs, found->second.tracker,
                          options_.lines);
}

std::uint32_t NvlinkHealthKeeper::linksUp(std::uint32_t gpuEntity) const {
    const auto position = gpuPosition_.find(gpuEntity);
    return position == gpuPosition_.end() ? 0 : upAt(position->second);
}

std::uint32_t NvlinkHealthKeeper::upAt(std::uint32_t position) const {
    std::uint32_t up = 0;
    for (const std::uint32_t link : gpuLinks_[position]) up += linkDown_[link] ? 0 : 1;
    return up;
}

NvlinkHealthKeeper::Plr NvlinkHealthKeeper::plr(std::uint32_t linkEntity) const {
    const auto found = links_.find(linkEntity);
    if (found == links_.end()) return {};
    const auto& w = found->second.window;
    return {w[0][kCodes] + w[1][kCodes], w[0][kCodeErrors] + w[1][kCodeErrors],
            w[0][kUncorrectable] + w[1][kUncorrectable]};
}

}  // namespace watchfloor::server
