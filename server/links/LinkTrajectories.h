#pragma once
// Seeded ground truth for rail links that degrade and fail the ways docs/domain/link-forecast.md
// describes: healthy links with Poisson symbol errors, slow drifts toward the Error line that end
// in a link-down, step degradations, flapping links that recover, counter clears (PerfMgr at 75 %
// of the 16-bit width, operators), saturated counters, and one-ended events (an exporter restart
// that starts the host's counters again, a link_downed rise at one end only). For a link, an end
// and a time it gives the counters that end's node_exporter would publish, so the benchmark and
// the twin's exporter pages read the same trajectories.
//
// Errors are a Poisson process in the link's integrated BER × bits, so the counts a time shows do
// not depend on how often it is asked. Times asked per link and end must not go back.

#include "CableJudgement.h"
#include "PortCounterSample.h"
#include "Rng.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace watchfloor::server {

enum class TrajectoryKind : std::uint8_t { Healthy, Drift, Step, Flap };
const char* trajectoryKindName(TrajectoryKind kind);

struct TrajectoryConfig {
    std::uint64_t seed = 1;
    std::size_t links = 0;
    double days = 4;                   // the span faults are placed in, from time 0
    double warmupDays = 1;             // no fault crosses a line before this
    double rateBytesPerSecond = 5e10;  // 4X NDR, 400 Gb/s
    double utilisation = 0.5;          // for the packet counter only: BER is rate × time [A]
    // Per link-day [A]: drift + step = 1.9e-5, HPN's NIC-ToR link failures (0.057 % a month);
    // flaps are commoner than failures (HPN: 5K-60K flapping cases a day).
    double driftPerLinkDay = 1.3e-5;
    double stepPerLinkDay = 0.6e-5;
    double flapPerLinkDay = 4e-5;
    double faultScale = 1;  // multiplies the three above: a benchmark needs events to count
    // Counter events per link-day [A], not scaled.
    double clearPerLinkDay = 2e-3;            // ibclearerrors: both ends to 0
    double exporterRestartPerLinkDay = 2e-3;  // host end: 60 s without samples, counters from 0
    double oneEndedDownPerLinkDay = 1e-3;     // link_downed +1 at one end only
    double saturatedShare = 1e-3;             // host symbol counter found at 65,535, no PerfMgr there
    bool perfMgrClears = true;                // OpenSM PerfMgr clears a counter past 75 % of its width
    bool temperature = false;                 // a module temperature (not in node_exporter)
};

struct LinkTruth {
    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
    TrajectoryKind kind = TrajectoryKind::Healthy;
    std::uint8_t faultyEnds = 0;  // bit per LinkEnd: the ends receiving the degraded direction
    float healthyBer[2] = {0, 0};
    float stepBer = 0;
    std::int64_t onsetMs = kNever;       // drift start, step, flap episode start
    std::int64_t crossErrorMs = kNever;  // the true BER crosses the Error line (a step: at once)
    std::int64_t failMs = kNever;        // the link goes down for good (drifts)
    std::int64_t mendedMs = kNever;      // treated (reseated, replaced) before it failed: healthy from then
    std::int64_t flapEndMs = kNever;
    std::int64_t clearMs = kNever;
    std::int64_t exporterRestartMs = kNever;
    std::int64_t oneEndedDownMs = kNever;
    LinkEnd oneEndedDownEnd = LinkEnd::Host;
    bool saturatedHost = false;
};

class LinkTrajectories {
public:
    explicit LinkTrajectories(const TrajectoryConfig& config);

    std::size_t links() const { return truth_.size(); }
    const LinkTruth& truth(std::size_t link) const { return truth_[link]; }
    const TrajectoryConfig& config() const { return config_; }
    double trueBer(std::size_t link, LinkEnd end, std::int64_t tMs) const;

    // The counters `end` of `link` reports at tMs; false when it publishes nothing then.
    bool sample(std::size_t link, LinkEnd end, std::int64_t tMs, PortCounterSample& out);

    // A person treated the link at tMs: a drift or step that has not failed it yet ends, its BER
    // back at the healthy level, and it no longer fails. False when there is nothing to mend
    // (healthy, flapping, or already down for good).
    bool mend(std::size_t link, std::int64_t tMs);

private:
    struct EndState {
        Rng rng;
        double nextArrival = 0;  // in units of expected errors
        std::uint32_t symbol = 0;
        std::uint32_t receiveErrors = 0;
        std::uint32_t downed = 0;
        std::uint32_t recoveries = 0;
        std::int64_t lastMs = 0;
    };
    struct LinkState {
        EndState ends[2];
        std::int64_t eventsMs = 0;  // link events applied up to here
        std::int64_t nextFlapMs = LinkTruth::kNever;
        std::int64_t downUntilMs = -1;
        std::uint64_t packetBase = 0;
        float temperatureBase = 0;
    };

    double expectedErrors(const LinkTruth& t, int end, std::int64_t tMs) const;
    void applyLinkEvents(std::size_t link, std::int64_t tMs);
    void clearEnd(EndState& end) const;

    TrajectoryConfig config_;
    std::vector<LinkTruth> truth_;
    std::vector<LinkState> state_;
};

}  // namespace watchfloor::server
