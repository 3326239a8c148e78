#pragma once
// fleetd's NVLink5 link health on the stream, from the DCGM fields a site exports
// (docs/domain/link-health.md "NVLink5: DCGM and dcgm-exporter" and section 6), judged the way the
// InfiniBand rail links are, with the same PortTracker, window and lines:
//   - per GPU, the symbol BER from DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL (1214, summed over
//     its links): bits = links up x 400 Gb/s per direction [A] x seconds active at both samples
//     (a link is up unless its DCGM_FI_DEV_NVLINK_GET_STATE says 0; no link up, no bits), over
//     the newest window carrying 3e15 bits; a quiet GPU is an upper bound, never 0. Out as
//     NVLINK5_SYMBOL_BER_VERDICT / _POINT / _LOWER / _UPPER on the GPU entity;
//   - per link, the PLR ratios delta 587 / delta 586 (codewords in error) and delta 588 / delta 586
//     (uncorrectable) over the last 4-8 h: self-normalising, no rate assumed. Out as
//     NVLINK5_PLR_CODE_ERROR_RATIO / _UNCORRECTABLE_RATIO on the NVLINK entity.
// Counters that go back were cleared (nvidia-smi nvlink -re, a GPU reset): that interval is
// dropped. A gap longer than maxGapMs, or a series that vanished, is missing data, never zero.
// Every value is sent at each poll of fleet time (15 s, the source's poll: the console ages them
// as it ages the source's values), at three significant digits, once there is one to send.
// A GPU or link that never reports these fields costs nothing and gets no value: "no data",
// never "healthy". Runs on the tick thread.

#include "FleetChanges.h"
#include "LinkHistory.h"
#include "LinkThresholds.h"
#include "PortTracker.h"
#include "SymbolBerEstimate.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

namespace watchfloor::server {

// One NVLink5 link's rate per direction: 1.8 TB/s per GPU over 18 links, both directions [A].
inline constexpr double kNvlink5BytesPerSecond = 400e9 / 8;
// A GPU's 1214 is a 64-bit DCGM total (a stream value is exact to 2^53); its rate at most 18 links'.
inline constexpr PortLimits kNvlink5GpuLimits{9'007'199'254'740'992ULL, 18 * kNvlink5BytesPerSecond};

struct NvlinkHealthOptions {
    std::int64_t pollMs = 15'000;  // fleet time between polls: fleetd's default source poll
    std::int64_t maxGapMs = PortTracker::kDefaultMaxGapMs;
    std::int64_t plrHalfWindowMs = 4 * 3'600'000;  // the PLR ratios cover the last 4-8 h
    // The source sends a counter only when it moves (the twin): a value not sent again still holds.
    bool countersOnChange = false;
    SymbolBerLines lines;
};

struct NvlinkHealthStats {
    std::uint64_t gpuIntervals = 0;
    std::uint64_t plrIntervals = 0;
    std::uint64_t clears = 0;    // a counter went back: the interval dropped
    std::uint64_t missing = 0;   // a gap or a vanished series: references taken again
    std::uint64_t rejected = 0;  // absurd values, stale samples
};

class NvlinkHealthKeeper {
public:
    explicit NvlinkHealthKeeper(const watchfloor::v1::Topology& topology, NvlinkHealthOptions options = {});

    void observe(FleetChanges& changes);

    // A GPU's symbol BER over its window; nothing when it never reported 1214.
    std::optional<SymbolBerEstimate> gpuEstimate(std::uint32_t gpuEntity) const;
    // The links of that GPU up now (a link is up unless its state says down).
    std::uint32_t linksUp(std::uint32_t gpuEntity) const;
    struct Plr {
        double codes = 0, errors = 0, uncorrectable = 0;  // over the window
        bool known() const { return codes > 0; }
    };
    Plr plr(std::uint32_t linkEntity) const;
    const NvlinkHealthStats& stats() const { return stats_; }
    std::uint64_t polls() const { return polls_; }

private:
    enum PlrCounter { kCodes, kCodeErrors, kUncorrectable, kPlrCounters };
    struct Newest {  // a counter's newest value from the stream and when it was measured
        float value = std::numeric_limits<float>::quiet_NaN();
        std::int64_t timeMs = 0;
    };
    struct GpuState {
        std::uint32_t position = 0;  // in gpuLinks_
        Newest symbol;
        std::int64_t takenMs = -1;
        PortTracker tracker;
        LinkHistory history;
        float sent[4];  // verdict, point, lower, upper as last sent; NaN = never
    };
    struct LinkState {
        Newest counters[kPlrCounters];
        std::int64_t takenMs = -1;
        std::int64_t referenceMs = 0;  // 0: no references
        double reference[kPlrCounters] = {};
        double window[2][kPlrCounters] = {};  // this half-window and the one before
        std::int64_t halfStartMs = 0;
        float sent[2];  // code-error and uncorrectable ratios as last sent; NaN = never
    };

    void record(const FleetChanges& changes);
    std::uint32_t upAt(std::uint32_t position) const;  // links up of the GPU at gpuLinks_[position]
    void poll(std::int64_t nowMs, FleetChanges& changes);
    void pollGpu(std::uint32_t entity, GpuState& gpu, std::int64_t nowMs, FleetChanges& changes);
    void pollLink(std::uint32_t entity, LinkState& link, std::int64_t nowMs, FleetChanges& changes);
    // A value at three significant digits into `changes`, remembered as sent.
    static void send(FleetChanges& changes, std::uint32_t entity, watchfloor::v1::Metric metric, double value,
                     float& sent, std::int64_t nowMs);

    NvlinkHealthOptions options_;
    std::unordered_map<std::uint32_t, std::uint32_t> gpuPosition_;   // GPU entity → position
    std::unordered_map<std::uint32_t, std::uint32_t> linkPosition_;  // NVLINK entity → position
    std::vector<std::vector<std::uint32_t>> gpuLinks_;               // by GPU position: link positions
    std::vector<std::uint8_t> linkDown_;                             // by link position
    // Only GPUs and links that report the fields have state.
    std::unordered_map<std::uint32_t, GpuState> gpus_;
    std::unordered_map<std::uint32_t, LinkState> links_;
    NvlinkHealthStats stats_;
    std::int64_t nextPollMs_ = 0;
    std::uint64_t polls_ = 0;
};

}  // namespace watchfloor::server
