#include "LinkTrajectories.h"

#include "LinkThresholds.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server {

namespace {

constexpr double kDayMs = 86'400'000.0;
constexpr double kHourMs = 3'600'000.0;
constexpr double kErrorLine = 1e-14;
constexpr double kMaxBer = 1e-8;                   // a drift past failure stops rising here
constexpr std::uint32_t kPerfMgrClearAt = 49'152;  // 75 % of the 16-bit width (osm_perfmgr.c)
constexpr std::int64_t kExporterGapMs = 60'000;
constexpr double kFlapDownsPerHour = 2.0;               // [A]
constexpr std::int64_t kFlapDownMs = 30'000;            // [A]
constexpr double kDriftRecoveriesPerHourAtError = 1.0;  // [A] recoveries grow with the BER
constexpr double kPacketBytes = 4096;                   // [A] for the packet counter

double logUniform(Rng& rng, double low, double high) { return std::exp(rng.uniform(std::log(low), std::log(high))); }

std::int64_t msAt(double days) { return static_cast<std::int64_t>(days * kDayMs); }

}  // namespace

const char* trajectoryKindName(TrajectoryKind kind) {
    switch (kind) {
    case TrajectoryKind::Healthy: return "healthy";
    case TrajectoryKind::Drift: return "drift";
    case TrajectoryKind::Step: return "step";
    case TrajectoryKind::Flap: return "flap";
    }
    return "?";
}

LinkTrajectories::LinkTrajectories(const TrajectoryConfig& config)
    : config_(config), truth_(config.links), state_(config.links) {
    const double span = std::max(0.0, config.days - config.warmupDays);
    for (std::size_t i = 0; i < config.links; ++i) {
        Rng rng(config.seed, 0x11A5 + 4 * i);
        LinkTruth& t = truth_[i];
        for (int e = 0; e < 2; ++e) t.healthyBer[e] = static_cast<float>(logUniform(rng, 1e-16, 1e-15));
        // One fault at most per link: the rates are small enough that two on one link are noise.
        const double drift = config.driftPerLinkDay * config.faultScale * span;
        const double step = config.stepPerLinkDay * config.faultScale * span;
        const double flap = config.flapPerLinkDay * config.faultScale * span;
        const double u = rng.uniform();
        const double faultEnds = rng.uniform();
        t.faultyEnds = faultEnds < 0.4 ? 1 : faultEnds < 0.8 ? 2 : 3;  // [A] host rx, switch rx, both
        const double placed = rng.uniform(config.warmupDays, config.days);
        if (u < drift) {
            t.kind = TrajectoryKind::Drift;
            const double hours = logUniform(rng, 6, 72);  // issue 31's 6-72 h [A]
            t.crossErrorMs = msAt(std::max(placed, config.warmupDays + 2.0 / 24));
            t.onsetMs = t.crossErrorMs - static_cast<std::int64_t>(hours * kHourMs);
            t.failMs = t.crossErrorMs + static_cast<std::int64_t>(rng.uniform(0.25, 2.0) * kHourMs);
        } else if (u < drift + step) {
            t.kind = TrajectoryKind::Step;
            t.onsetMs = t.crossErrorMs = msAt(placed);
            t.stepBer = static_cast<float>(logUniform(rng, 1e-12, 1e-10));  // [A]
        } else if (u < drift + step + flap) {
            t.kind = TrajectoryKind::Flap;
            t.faultyEnds = 3;
            t.onsetMs = msAt(placed);
            t.flapEndMs = t.onsetMs + static_cast<std::int64_t>(rng.uniform(1.0, 6.0) * kHourMs);
        }
        auto maybe = [&](double perDay, std::int64_t* at) {
            const double when = rng.uniform(0, config.days);
            if (rng.chance(perDay * config.days)) *at = msAt(when);
        };
        maybe(config.clearPerLinkDay, &t.clearMs);
        maybe(config.exporterRestartPerLinkDay, &t.exporterRestartMs);
        maybe(config.oneEndedDownPerLinkDay, &t.oneEndedDownMs);
        t.oneEndedDownEnd = rng.chance(0.5) ? LinkEnd::Host : LinkEnd::Switch;
        t.saturatedHost = rng.chance(config.saturatedShare);

        LinkState& s = state_[i];
        s.packetBase = rng.next() >> 24;
        s.temperatureBase = static_cast<float>(rng.uniform(46, 54));
        if (t.kind == TrajectoryKind::Flap) s.nextFlapMs = t.onsetMs;
        for (int e = 0; e < 2; ++e) {
            EndState& end = s.ends[e];
            end.rng = Rng(config.seed, 0x11A5 + 4 * i + 1 + e);
            end.symbol = static_cast<std::uint32_t>(rng.below(30'000));  // since the last clear
            end.downed = rng.below(3);
            end.recoveries = rng.below(20);
            end.nextArrival = expectedErrors(t, e, 0) + end.rng.exponential(1.0);
        }
        if (t.saturatedHost) s.ends[0].symbol = static_cast<std::uint32_t>(kSymbolErrorMax);
    }
}

double LinkTrajectories::trueBer(std::size_t link, LinkEnd end, std::int64_t tMs) const {
    const LinkTruth& t = truth_[link];
    const int e = static_cast<int>(end);
    const double healthy = t.healthyBer[e];
    if (!(t.faultyEnds & (1 << e)) || tMs < t.onsetMs || tMs >= t.mendedMs) return healthy;
    switch (t.kind) {
    case TrajectoryKind::Drift: {
        const double k = std::log(kErrorLine / healthy) / double(t.crossErrorMs - t.onsetMs);
        return std::min(kMaxBer, healthy * std::exp(k * double(tMs - t.onsetMs)));
    }
    case TrajectoryKind::Step: return t.stepBer;
    default: return healthy;
    }
}

double LinkTrajectories::expectedErrors(const LinkTruth& t, int e, std::int64_t tMs) const {
    const double bitsPerMs = 8.0 * config_.rateBytesPerSecond / 1000.0;
    if (tMs > t.mendedMs) {
        // Healthy since the treatment, on top of what the fault had counted until then.
        LinkTruth before = t;
        before.mendedMs = LinkTruth::kNever;
        return expectedErrors(before, e, t.mendedMs) + t.healthyBer[e] * bitsPerMs * double(tMs - t.mendedMs);
    }
    tMs = std::min(tMs, t.failMs);  // a failed link carries nothing
    const double healthy = t.healthyBer[e];
    const bool faulty = (t.faultyEnds & (1 << e)) && tMs > t.onsetMs;
    if (!faulty || t.kind == TrajectoryKind::Flap || t.kind == TrajectoryKind::Healthy)
        return healthy * bitsPerMs * double(tMs);
    const double before = healthy * bitsPerMs * double(t.onsetMs);
    const double since = double(tMs - t.onsetMs);
    if (t.kind == TrajectoryKind::Step) return before + double(t.stepBer) * bitsPerMs * since;
    // Drift: ∫ b0·e^{k s} ds, the BER held at kMaxBer once it gets there.
    const double k = std::log(kErrorLine / healthy) / double(t.crossErrorMs - t.onsetMs);
    const double capAt = std::log(kMaxBer / healthy) / k;
    const double rising = std::min(since, capAt);
    double sum = before + healthy * bitsPerMs * std::expm1(k * rising) / k;
    if (since > capAt) sum += kMaxBer * bitsPerMs * (since - capAt);
    return sum;
}

bool LinkTrajectories::mend(std::size_t link, std::int64_t tMs) {
    LinkTruth& t = truth_[link];
    const bool faulty = t.kind == TrajectoryKind::Drift || t.kind == TrajectoryKind::Step;
    if (!faulty || tMs < t.onsetMs || tMs >= t.failMs || t.mendedMs != LinkTruth::kNever) return false;
    t.mendedMs = tMs;
    t.failMs = LinkTruth::kNever;
    return true;
}

void LinkTrajectories::clearEnd(EndState& end) const {
    end.symbol = 0;
    end.receiveErrors = 0;
    end.downed = 0;
    end.recoveries = 0;
}

void LinkTrajectories::applyLinkEvents(std::size_t link, std::int64_t tMs) {
    const LinkTruth& t = truth_[link];
    LinkState& s = state_[link];
    if (tMs <= s.eventsMs) return;
    auto due = [&](std::int64_t at) { return at > s.eventsMs && at <= tMs; };
    if (due(t.clearMs)) clearEnd(s.ends[0]), clearEnd(s.ends[1]);
    if (due(t.exporterRestartMs)) clearEnd(s.ends[0]);
    if (due(t.oneEndedDownMs)) ++s.ends[static_cast<int>(t.oneEndedDownEnd)].downed;
    if (due(t.failMs)) {
        for (auto& end : s.ends) ++end.downed, end.recoveries += 3;
    }
    Rng& rng = s.ends[0].rng;
    while (s.nextFlapMs <= tMs && s.nextFlapMs <= t.flapEndMs) {
        for (auto& end : s.ends) ++end.downed, end.recoveries += 2;
        s.downUntilMs = s.nextFlapMs + kFlapDownMs;
        s.nextFlapMs += static_cast<std::int64_t>(rng.exponential(kHourMs / kFlapDownsPerHour));
    }
    s.eventsMs = tMs;
}

bool LinkTrajectories::sample(std::size_t link, LinkEnd which, std::int64_t tMs, PortCounterSample& out) {
    const LinkTruth& t = truth_[link];
    LinkState& s = state_[link];
    const int e = static_cast<int>(which);
    EndState& end = s.ends[e];
    applyLinkEvents(link, tMs);
    tMs = std::max(tMs, end.lastMs);

    const double expected = expectedErrors(t, e, tMs);
    const bool perfMgr = config_.perfMgrClears && !(which == LinkEnd::Host && t.saturatedHost);
    const double ber = trueBer(link, which, tMs);
    const double leak = std::min(1.0, ber / 1e-12);  // a corrupted packet past PLR [A]
    if (expected - end.nextArrival > 1e6) {
        // A saturated or stepped counter far behind: its exact count no longer matters.
        end.symbol = static_cast<std::uint32_t>(kSymbolErrorMax);
        end.nextArrival = expected + end.rng.exponential(1.0);
    }
    while (end.nextArrival <= expected) {
        if (end.symbol < kSymbolErrorMax) ++end.symbol;
        if (leak > 0 && end.rng.chance(leak) && end.receiveErrors < kReceiveErrorMax) ++end.receiveErrors;
        if (perfMgr && end.symbol >= kPerfMgrClearAt) clearEnd(end);
        end.nextArrival += end.rng.exponential(1.0);
    }
    if (t.kind == TrajectoryKind::Drift && (t.faultyEnds & (1 << e)) && tMs > t.onsetMs && tMs < t.failMs &&
        tMs < t.mendedMs) {
        const double hours = double(tMs - end.lastMs) / kHourMs;
        if (end.rng.chance(std::min(1.0, kDriftRecoveriesPerHourAtError * ber / kErrorLine * hours))) ++end.recoveries;
    }
    end.lastMs = tMs;

    if (which == LinkEnd::Host && tMs >= t.exporterRestartMs && tMs < t.exporterRestartMs + kExporterGapMs)
        return false;
    const bool active = tMs < t.failMs && tMs >= s.downUntilMs;
    out = PortCounterSample{};
    out.timeMs = tMs;
    out.setSymbolErrors(end.symbol)
        .setLinkDowned(std::min<std::uint32_t>(end.downed, kLinkDownedMax))
        .setLinkErrorRecovery(std::min<std::uint32_t>(end.recoveries, kLinkErrorRecoveryMax))
        .setReceiveErrors(end.receiveErrors)
        .setRemotePhysicalErrors(0)
        .setPacketsReceived(s.packetBase + static_cast<std::uint64_t>(config_.utilisation * config_.rateBytesPerSecond /
                                                                      kPacketBytes * double(tMs) / 1000.0))
        .setActive(active)
        .setRate(config_.rateBytesPerSecond);
    if (config_.temperature && which == LinkEnd::Host) {
        double c = s.temperatureBase;
        if (t.kind == TrajectoryKind::Drift && tMs > t.onsetMs)
            c += 8.0 * std::min(1.0, double(tMs - t.onsetMs) / double(t.crossErrorMs - t.onsetMs));  // [A]
        out.setModuleTemperature(static_cast<float>(c));
    }
    return true;
}

}  // namespace watchfloor::server
