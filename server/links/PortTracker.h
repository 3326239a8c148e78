#pragma once
// Successive samples of one port turned into intervals whose counts and bits can be trusted
// (docs/domain/link-health.md sections 1, 2 and 6; docs/domain/link-forecast.md "Bad input").
// The rules, counter by counter:
//   - the first sample, or the first after a gap longer than `maxGapMs`, only sets references:
//     a gap is missing data, never zero errors;
//   - a sample not newer than the last one is rejected (stale or out of order); references stay;
//   - a counter that decreased was cleared (PerfMgr, ibclearerrors, a driver reload, a host or
//     exporter restart): the interval across the clear is dropped, the new value is the reference;
//   - the symbol-error counter at its width's maximum (65,535 on IB) is saturated: it no longer counts,
//     its rate is unknown until a decrease shows it was cleared;
//   - a counter series absent from a sample invalidates its reference (it vanished);
//   - absurd values are rejected: a counter above its width, a rate that is not finite, negative
//     or above the limit (2e11 bytes/s on IB, twice 4X XDR's 1e11), more packets than the rate could carry at
//     32 bytes each, or symbol errors above 1e-4 of the bits (a link that bad does not stay up) [A];
//   - bits are 8 × rate × Δt only when the port was active at both samples with a known rate:
//     a port that was down, or trained to no rate, carried no bits, and its symbol errors for
//     that interval are not counted (no bits, no BER).
// Link-down and recovery deltas count whatever the state: they are how a port says it went down.

#include "LinkThresholds.h"
#include "PortCounterSample.h"

#include <cstdint>

namespace watchfloor::server {

enum PortEvent : std::uint8_t {
    kPortFirstSample = 1 << 0,
    kPortMissing = 1 << 1,    // gap longer than maxGapMs, or a series vanished
    kPortCleared = 1 << 2,    // a counter went back
    kPortSaturated = 1 << 3,  // symbol errors stuck at 65,535
    kPortRejected = 1 << 4,   // an absurd value or a stale sample
    kPortNoBits = 1 << 5,     // not active at both samples, or no usable rate
};

// The widths and ceilings a port's counters are judged against: an InfiniBand port's (the
// default: the 16-bit SymbolErrorCounter, at most 2e11 bytes/s), or one NVLink5 GPU's, whose
// DCGM symbol-error total is 64-bit and whose rate is its links up x 400 Gb/s (kNvlink5Limits).
struct PortLimits {
    std::uint64_t symbolErrorMax = kSymbolErrorMax;  // the counter saturates here
    double maxRateBytesPerSecond = 2e11;             // twice 4X XDR's 1e11
};

struct PortInterval {
    double seconds = 0;
    double bits = 0;
    std::uint32_t symbolErrors = 0;  // meaningful when hasSymbolErrors
    std::uint32_t linkDowned = 0;
    std::uint32_t recoveries = 0;
    std::uint32_t packetErrors = 0;  // receive errors + EBP-marked packets
    std::uint64_t packets = 0;       // meaningful when hasPackets
    bool hasSymbolErrors = false;    // known errors over known bits > 0
    bool hasPackets = false;
    std::uint8_t events = 0;  // PortEvent bits
};

class PortTracker {
public:
    static constexpr std::int64_t kDefaultMaxGapMs = 120'000;  // eight missed 15 s polls [A]
    static constexpr double kMaxRateBytesPerSecond = 2e11;
    static constexpr double kMinPacketBytes = 32;
    static constexpr double kMaxSymbolBer = 1e-4;

    PortInterval advance(const PortCounterSample& sample, std::int64_t maxGapMs = kDefaultMaxGapMs,
                         const PortLimits& limits = {});

    bool seen() const { return flags_ & kSeen; }
    bool saturated() const { return flags_ & kSaturated; }
    bool active() const { return flags_ & kActive; }
    // The last usable rate in bits per second, 0 when none.
    double bitsPerSecond() const { return 8.0 * rate_; }
    std::int64_t lastMs() const { return lastMs_; }

private:
    enum : std::uint8_t { kSeen = 1, kActive = 2, kStateKnown = 4, kSaturated = 8, kRateKnown = 16 };
    void takeReferences(const PortCounterSample& sample, const PortLimits& limits);

    std::int64_t lastMs_ = 0;
    std::uint64_t packets_ = 0;
    double rate_ = 0;  // bytes per second
    std::uint64_t symbol_ = 0;
    std::uint16_t receiveErrors_ = 0;
    std::uint16_t remotePhysical_ = 0;
    std::uint8_t downed_ = 0;
    std::uint8_t recoveries_ = 0;
    std::uint16_t valid_ = 0;  // PortField bits whose reference is usable
    std::uint8_t flags_ = 0;
};

}  // namespace watchfloor::server
