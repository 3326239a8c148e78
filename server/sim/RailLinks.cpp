#include "RailLinks.h"

#include "LinkThresholds.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kErrorLine = 1e-14;
constexpr double kMaxBer = 1e-8;              // a drift past failure stops rising here, as the trajectories'
constexpr double kBitsPerMs = 4e11 / 1000.0;  // 400 Gb/s NDR, LinkFabric's line rate
constexpr double kHourMs = 3'600'000.0;
constexpr std::int64_t kFlapWatchMs = 15'000;  // a trajectory's flap holds the link down 30 s
constexpr double kDriftWarmingC = 8.0;         // the module warms as the trajectories' drifts do [A]

TrajectoryConfig railConfig(Rng& rng, std::uint32_t links) {
    TrajectoryConfig config;
    config.seed = rng.next();
    config.links = links;
    config.days = RailLinks::kSpanDays;
    config.warmupDays = 0;  // the fleet has been running: links may be drifting when the twin starts
    config.rateBytesPerSecond = kBitsPerMs * 1000.0 / 8.0;
    config.temperature = true;
    return config;
}

std::uint32_t clampTo(std::uint64_t value, std::uint64_t max) {
    return static_cast<std::uint32_t>(std::min(value, max));
}

}  // namespace

RailLinks::RailLinks(Rng rng, const FleetModel& model, TwinScheduler& clock, LinkFabric& fabric, RailLinkHost& host)
    : rng_(rng),
      model_(model),
      clock_(clock),
      fabric_(fabric),
      host_(host),
      trajectories_(railConfig(rng_, model.nics())),
      seen_(model.nics()) {}

void RailLinks::schedule() {
    for (std::uint32_t nic = 0; nic < trajectories_.links(); ++nic) {
        const LinkTruth& t = trajectories_.truth(nic);
        if (t.failMs != LinkTruth::kNever)
            clock_.at(static_cast<double>(t.failMs) / 1000.0, [this, nic] {
                // A treatment before the failure mended the trajectory (its failMs is never then).
                if (clock_.nowMs() < trajectories_.truth(nic).failMs) return;
                if (fabric_.port(false, nic).state != LINK_STATE_DOWN) host_.railLinkFailed(nic);
            });
        if (t.kind == TrajectoryKind::Flap)
            clock_.at(static_cast<double>(t.onsetMs) / 1000.0, [this, nic] { watchFlap(nic, true); });
    }
}

// The trajectory holds a flapping link down 30 s at a time; looking every 15 s sees each flap.
void RailLinks::watchFlap(std::uint32_t nic, bool wasActive) {
    const LinkTruth& t = trajectories_.truth(nic);
    PortCounterSample far;
    trajectories_.sample(nic, LinkEnd::Switch, clock_.nowMs(), far);
    if (wasActive && !far.active && host_.trayPowered(model_.trayOfGpu(nic))) host_.railLinkFlapped(nic);
    if (clock_.nowMs() <= t.flapEndMs + 2 * kFlapWatchMs)
        clock_.after(static_cast<double>(kFlapWatchMs) / 1000.0,
                     [this, nic, active = far.active] { watchFlap(nic, active); });
}

void RailLinks::drift(std::uint32_t nic, double toErrorS, double downAfterS) {
    Drift d;
    d.startMs = clock_.nowMs();
    d.crossMs = d.startMs + std::max<std::int64_t>(1, std::llround(toErrorS * 1000.0));
    d.failMs = d.crossMs + std::llround(downAfterS * 1000.0);
    d.rng = Rng(rng_.next(), nic);
    for (int e = 0; e < 2; ++e) {
        d.healthyBer[e] = trajectories_.truth(nic).healthyBer[e];
        d.k[e] = std::log(kErrorLine / d.healthyBer[e]) / double(d.crossMs - d.startMs);
        d.nextArrival[e] = d.rng.exponential(1.0);
        d.lastMs[e] = d.startMs;
    }
    drifts_.insert_or_assign(nic, d);
    clock_.at(static_cast<double>(d.failMs) / 1000.0, [this, nic, failMs = d.failMs] {
        const auto it = drifts_.find(nic);
        if (it == drifts_.end() || it->second.mended || it->second.failMs != failMs) return;
        if (fabric_.port(false, nic).state != LINK_STATE_DOWN) host_.railLinkFailed(nic);
    });
}

bool RailLinks::mend(std::uint32_t nic) {
    const std::int64_t now = clock_.nowMs();
    bool mended = trajectories_.mend(nic, now);
    if (const auto it = drifts_.find(nic); it != drifts_.end() && !it->second.mended && now < it->second.failMs) {
        Drift& d = it->second;
        for (int e = 0; e < 2; ++e) advanceDrift(d, e, now);  // the errors it made until now stay counted
        d.failMs = now;                                       // no extra BER from here (driftExtraBer), no failure
        d.mended = true;
        mended = true;
    }
    return mended;
}

double RailLinks::driftExtraBer(const Drift& d, int e, std::int64_t tMs) const {
    if (tMs < d.startMs || tMs >= d.failMs) return 0;
    const double h = d.healthyBer[e];
    return std::min(kMaxBer, h * std::exp(d.k[e] * double(tMs - d.startMs))) - h;
}

// Poisson arrivals in the integrated extra BER × bits (what the trajectory's own healthy errors do
// not already count), so the count at a time does not depend on how often it is asked.
void RailLinks::advanceDrift(Drift& d, int e, std::int64_t tMs) {
    if (tMs <= d.lastMs[e]) return;
    const double h = d.healthyBer[e];
    const double k = d.k[e];
    const double s = double(std::min(tMs, d.failMs) - d.startMs);
    const double capAt = std::log(kMaxBer / h) / k;
    const double rising = std::min(s, capAt);
    double expected = h * kBitsPerMs * (std::expm1(k * rising) / k - rising);
    if (s > capAt) expected += (kMaxBer - h) * kBitsPerMs * (s - capAt);
    if (expected - d.nextArrival[e] > 1e6) {
        d.symbols[e] = clampTo(std::uint64_t(d.symbols[e]) + 1'000'000, 1u << 30);  // saturates anyway
        d.nextArrival[e] = expected;
    }
    for (; d.nextArrival[e] <= expected; d.nextArrival[e] += d.rng.exponential(1.0))
        if (d.symbols[e] < (1u << 30)) ++d.symbols[e];
    // Link error recoveries grow with the BER, one an hour at the Error line, as the trajectories'.
    const double ber = h + driftExtraBer(d, e, tMs);
    const double hours = double(tMs - d.lastMs[e]) / kHourMs;
    if (tMs < d.failMs && d.rng.chance(std::min(1.0, ber / kErrorLine * hours))) ++d.recoveries[e];
    d.lastMs[e] = tMs;
}

double RailLinks::bitErrorRatio(std::uint32_t nic, LinkEnd end) const {
    const std::int64_t now = clock_.nowMs();
    double ber = trajectories_.trueBer(nic, end, now);
    if (const auto it = drifts_.find(nic); it != drifts_.end())
        ber += driftExtraBer(it->second, static_cast<int>(end), now);
    return ber;
}

RailLinks::Counters RailLinks::twinCounts(std::uint32_t nic, int e) {
    const PortState& p = fabric_.port(false, nic);
    // Scenario bursts and noise are errors the host receives; downs and flaps both ends see.
    Counters c = {e == 0 ? p.crcOrSymbol : 0, p.replayOrRecovery, p.recoveryOrDowned, e == 0 ? p.rcvErrors : 0};
    if (const auto it = drifts_.find(nic); it != drifts_.end()) {
        advanceDrift(it->second, e, clock_.nowMs());
        c[0] += it->second.symbols[e];
        c[1] += it->second.recoveries[e];
    }
    return c;
}

bool RailLinks::emitCounters(std::uint32_t nic, bool busy, float noise, std::vector<Sample>& samples) {
    const std::int64_t now = clock_.nowMs();
    const LinkTruth& truth = trajectories_.truth(nic);
    const std::uint32_t entity = model_.nicIndex(nic);
    Seen& seen = seen_[nic];
    bool hostReported = false;
    for (int e = 0; e < 2; ++e) {
        const LinkEnd end = static_cast<LinkEnd>(e);
        PortCounterSample s;
        if (!trajectories_.sample(nic, end, now, s)) continue;
        hostReported |= end == LinkEnd::Host;
        const std::array<std::uint16_t, kCounters> read = {
            static_cast<std::uint16_t>(std::min<std::uint64_t>(s.symbolErrors, 0xFFFF)),
            static_cast<std::uint16_t>(std::min<std::uint64_t>(s.linkErrorRecovery, 0xFFFF)),
            static_cast<std::uint16_t>(std::min<std::uint64_t>(s.linkDowned, 0xFFFF)),
            static_cast<std::uint16_t>(std::min<std::uint64_t>(s.receiveErrors, 0xFFFF))};
        // A clear (ibclearerrors, PerfMgr past 75 %, an exporter restart) zeroes what the twin
        // added too: the counter is one register.
        const std::int64_t last = seen.lastMs[e];
        auto due = [&](std::int64_t at) { return last >= 0 && at > last && at <= now; };
        bool cleared = due(truth.clearMs) || (end == LinkEnd::Host && due(truth.exporterRestartMs));
        for (int k = 0; k < kCounters; ++k) cleared |= last >= 0 && read[k] < seen.counters[e][k];
        seen.counters[e] = read;
        seen.lastMs[e] = now;
        const Counters twin = twinCounts(nic, e);
        if (cleared && twin != Counters{}) base_[nic][e] = twin;
        Counters added = twin;
        if (const auto it = base_.find(nic); it != base_.end())
            for (int k = 0; k < kCounters; ++k) added[k] -= it->second[e][k];
        const float symbols = float(clampTo(std::uint64_t(read[0]) + added[0], kSymbolErrorMax));
        const float recoveries = float(clampTo(std::uint64_t(read[1]) + added[1], kLinkErrorRecoveryMax));
        const float downed = float(clampTo(std::uint64_t(read[2]) + added[2], kLinkDownedMax));
        const float received = float(clampTo(std::uint64_t(read[3]) + added[3], kReceiveErrorMax));
        if (end == LinkEnd::Host) {
            samples.push_back({entity, IB_SYMBOL_ERROR_COUNTER, symbols});
            samples.push_back({entity, IB_LINK_ERROR_RECOVERY_COUNTER, recoveries});
            samples.push_back({entity, IB_LINK_DOWNED_COUNTER, downed});
            samples.push_back({entity, IB_PORT_RCV_ERRORS, received});
            float warming = 0;
            if (const auto it = drifts_.find(nic);
                it != drifts_.end() && now > it->second.startMs && !it->second.mended)
                warming = static_cast<float>(
                    kDriftWarmingC *
                    std::min(1.0, double(now - it->second.startMs) / double(it->second.crossMs - it->second.startMs)));
            samples.push_back({entity, IB_MODULE_TEMPERATURE_C,
                               s.moduleTemperatureC + warming + (busy ? 8.0f : 0.0f) + 2.0f * noise});
        } else {
            samples.push_back({entity, IB_FAR_SYMBOL_ERROR_COUNTER, symbols});
            samples.push_back({entity, IB_FAR_LINK_ERROR_RECOVERY_COUNTER, recoveries});
            samples.push_back({entity, IB_FAR_LINK_DOWNED_COUNTER, downed});
            samples.push_back({entity, IB_FAR_PORT_RCV_ERRORS, received});
        }
    }
    return hostReported;
}

}  // namespace watchfloor::server::sim
