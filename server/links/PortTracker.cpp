#include "PortTracker.h"

#include "LinkThresholds.h"

#include <cmath>

namespace watchfloor::server {

namespace {

constexpr std::uint16_t bit(PortField field) { return static_cast<std::uint16_t>(field); }

bool rateUsable(double bytesPerSecond, const PortLimits& limits) {
    return std::isfinite(bytesPerSecond) && bytesPerSecond > 0 && bytesPerSecond <= limits.maxRateBytesPerSecond;
}

// One counter's step: the delta when it is trustworthy, else why not.
enum class Step { Counted, Unknown, Cleared, Absurd };

struct CounterStep {
    Step step = Step::Unknown;
    std::uint64_t delta = 0;
};

CounterStep stepOf(bool hadReference, std::uint64_t reference, const PortCounterSample& sample, PortField field,
                   std::uint64_t value, std::uint64_t max) {
    if (!sample.has(field)) return {};
    if (value > max) return {Step::Absurd, 0};
    if (!hadReference) return {};
    if (value < reference) return {Step::Cleared, 0};
    return {Step::Counted, value - reference};
}

}  // namespace

void PortTracker::takeReferences(const PortCounterSample& sample, const PortLimits& limits) {
    valid_ = 0;
    auto keep = [&](PortField field, std::uint64_t value, std::uint64_t max, auto& slot) {
        if (!sample.has(field) || value > max) return;
        slot = static_cast<std::remove_reference_t<decltype(slot)>>(value);
        valid_ |= bit(field);
    };
    keep(PortField::SymbolErrors, sample.symbolErrors, limits.symbolErrorMax, symbol_);
    keep(PortField::ReceiveErrors, sample.receiveErrors, kReceiveErrorMax, receiveErrors_);
    keep(PortField::RemotePhysicalErrors, sample.remotePhysicalErrors, kRemotePhysicalErrorMax, remotePhysical_);
    keep(PortField::LinkDowned, sample.linkDowned, kLinkDownedMax, downed_);
    keep(PortField::LinkErrorRecovery, sample.linkErrorRecovery, kLinkErrorRecoveryMax, recoveries_);
    if (sample.has(PortField::PacketsReceived)) {
        packets_ = sample.packetsReceived;
        valid_ |= bit(PortField::PacketsReceived);
    }
    flags_ = static_cast<std::uint8_t>(kSeen | (flags_ & kSaturated));
    if (sample.has(PortField::State)) flags_ |= kStateKnown | (sample.active ? kActive : 0);
    if (sample.has(PortField::Rate) && rateUsable(sample.rateBytesPerSecond, limits)) {
        rate_ = sample.rateBytesPerSecond;
        flags_ |= kRateKnown;
    }
    if (sample.has(PortField::SymbolErrors) && sample.symbolErrors == limits.symbolErrorMax) flags_ |= kSaturated;
    lastMs_ = sample.timeMs;
}

PortInterval PortTracker::advance(const PortCounterSample& sample, std::int64_t maxGapMs, const PortLimits& limits) {
    PortInterval out;
    const bool atMax = sample.has(PortField::SymbolErrors) && sample.symbolErrors == limits.symbolErrorMax;
    if (!seen()) {
        out.events = kPortFirstSample;
        if (atMax) out.events |= kPortSaturated;
        takeReferences(sample, limits);
        return out;
    }
    const std::int64_t dtMs = sample.timeMs - lastMs_;
    if (dtMs <= 0) {
        out.events = kPortRejected;
        return out;
    }
    if (dtMs > maxGapMs) {
        out.events = kPortMissing;
        takeReferences(sample, limits);
        return out;
    }
    out.seconds = double(dtMs) / 1000.0;

    const bool activeBoth =
        (flags_ & kStateKnown) && (flags_ & kActive) && sample.has(PortField::State) && sample.active;
    const bool rateNow = sample.has(PortField::Rate) && rateUsable(sample.rateBytesPerSecond, limits);
    if (sample.has(PortField::Rate) && !rateNow && sample.rateBytesPerSecond != 0) out.events |= kPortRejected;
    if (activeBoth && rateNow && (flags_ & kRateKnown)) {
        const double rate = std::min(rate_, sample.rateBytesPerSecond);
        out.bits = 8.0 * rate * out.seconds;
    } else {
        out.events |= kPortNoBits;
    }

    auto note = [&](const CounterStep& s) {
        if (s.step == Step::Cleared) out.events |= kPortCleared;
        if (s.step == Step::Absurd) out.events |= kPortRejected;
    };
    auto had = [&](PortField field) { return (valid_ & bit(field)) != 0; };

    // Symbol errors: counted only below saturation, over bits.
    const CounterStep symbol = stepOf(had(PortField::SymbolErrors), symbol_, sample, PortField::SymbolErrors,
                                      sample.symbolErrors, limits.symbolErrorMax);
    note(symbol);
    bool saturatedNow = saturated();
    if (symbol.step == Step::Cleared) saturatedNow = false;
    if (atMax) saturatedNow = true;
    if (saturatedNow) out.events |= kPortSaturated;
    if (symbol.step == Step::Counted && !saturatedNow && out.bits > 0) {
        if (double(symbol.delta) > kMaxSymbolBer * out.bits || symbol.delta > UINT32_MAX) {
            out.events |= kPortRejected;
        } else {
            out.symbolErrors = static_cast<std::uint32_t>(symbol.delta);
            out.hasSymbolErrors = true;
        }
    }

    const CounterStep downed =
        stepOf(had(PortField::LinkDowned), downed_, sample, PortField::LinkDowned, sample.linkDowned, kLinkDownedMax);
    note(downed);
    if (downed.step == Step::Counted) out.linkDowned = static_cast<std::uint32_t>(downed.delta);
    const CounterStep recovery = stepOf(had(PortField::LinkErrorRecovery), recoveries_, sample,
                                        PortField::LinkErrorRecovery, sample.linkErrorRecovery, kLinkErrorRecoveryMax);
    note(recovery);
    if (recovery.step == Step::Counted) out.recoveries = static_cast<std::uint32_t>(recovery.delta);

    // Packet errors over packets received (PDR's packet drop rate).
    const CounterStep receive = stepOf(had(PortField::ReceiveErrors), receiveErrors_, sample, PortField::ReceiveErrors,
                                       sample.receiveErrors, kReceiveErrorMax);
    const CounterStep remote =
        stepOf(had(PortField::RemotePhysicalErrors), remotePhysical_, sample, PortField::RemotePhysicalErrors,
               sample.remotePhysicalErrors, kRemotePhysicalErrorMax);
    note(receive);
    note(remote);
    if (sample.has(PortField::PacketsReceived) && had(PortField::PacketsReceived)) {
        if (sample.packetsReceived < packets_) {
            out.events |= kPortCleared;
        } else {
            const std::uint64_t packets = sample.packetsReceived - packets_;
            const double ceiling = rateNow ? sample.rateBytesPerSecond * out.seconds / kMinPacketBytes : 0.0;
            if (double(packets) > ceiling && packets > 0) {
                out.events |= kPortRejected;
            } else if (receive.step == Step::Counted && remote.step == Step::Counted && packets > 0) {
                out.packets = packets;
                out.packetErrors = static_cast<std::uint32_t>(receive.delta + remote.delta);
                out.hasPackets = true;
            }
        }
    }

    const bool vanished = (valid_ & ~sample.fields & ~bit(PortField::ModuleTemperature)) != 0;
    if (vanished) out.events |= kPortMissing;
    takeReferences(sample, limits);
    if (saturatedNow)
        flags_ |= kSaturated;
    else
        flags_ &= static_cast<std::uint8_t>(~kSaturated);
    return out;
}

}  // namespace watchfloor::server
