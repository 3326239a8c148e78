#pragma once
// Link health for a whole fleet's rail links, fed one poll at a time on fleetd's tick thread:
// each link's two ends through a PortTracker, its history, the step check on every poll, the
// forecast on a staggered schedule (every link once per `forecastEveryPolls`, sooner when its
// errors move), and a ranked list of the links at risk. Holds all its memory from construction:
// a poll allocates nothing.

#include "LinkForecaster.h"
#include "LinkHistory.h"
#include "PortCounterSample.h"
#include "PortTracker.h"
#include "SymbolBerEstimate.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace watchfloor::server {

// One link's ends at one poll; an end without a sample this poll is simply not present.
struct LinkPollSample {
    PortCounterSample host;
    PortCounterSample switchEnd;
    bool hostPresent = false;
    bool switchPresent = false;
};

struct LinkWatchConfig {
    std::int64_t maxGapMs = PortTracker::kDefaultMaxGapMs;
    int forecastEveryPolls = 20;   // 5 min at a 15 s poll
    int downCoincidencePolls = 2;  // both ends' link_downed rises must meet within this
    ForecastConfig forecast;
};

// What the watch keeps per link between forecasts: enough to rank and to list.
struct LinkRisk {
    float errorOrDown[3] = {0, 0, 0};
    float hoursToError = -1;  // < 0: no crossing in view
    bool atRisk = false;
    bool confirmedError = false;
};

// Counts over the watch's life, for the bad-input rules and the benchmark.
struct LinkWatchStats {
    std::uint64_t intervals = 0;
    std::uint64_t clears = 0;
    std::uint64_t saturatedIntervals = 0;
    std::uint64_t rejected = 0;
    std::uint64_t missing = 0;
    std::uint64_t noBits = 0;
    std::uint64_t negativeRates = 0;  // a delta below zero reaching the history: must stay 0
    std::uint64_t oneEndedDowns = 0;  // a link_downed rise at one end the other never matched
    std::uint64_t confirmedDowns = 0;
    std::uint64_t forecasts = 0;
};

// The symbol BER of one end over its window (the newest buckets of `history` until they carry
// kJudgingWindowBits), judged at the rate and saturation `tracker` last saw. LinkWatch judges each
// rail link's ends with it, NvlinkHealthKeeper each NVLink5 GPU.
SymbolBerEstimate windowEstimate(const LinkHistory& history, LinkEnd end, std::int64_t nowMs,
                                 const PortTracker& tracker, const SymbolBerLines& lines);

class LinkWatch {
public:
    explicit LinkWatch(std::size_t links, LinkWatchConfig config = {});

    // One poll: samples[i] is link i's (samples.size() must equal links()).
    void poll(std::int64_t nowMs, std::span<const LinkPollSample> samples);

    std::size_t links() const { return states_.size(); }
    std::size_t isolationBudget() const { return watchfloor::server::isolationBudget(states_.size()); }

    // The BER of one end over its current window, and of the cable.
    SymbolBerEstimate estimate(std::size_t link, LinkEnd end) const;
    CableJudgement cable(std::size_t link) const;
    // The same from the two ends' estimates already in hand.
    CableJudgement cable(std::size_t link, const SymbolBerEstimate& host, const SymbolBerEstimate& switchEnd) const;
    // Packet errors over packets received, both ends, over the last 8 hours (PDR's packet drop
    // rate against 1e-12): shown beside the BER, not part of the at-risk rule [A].
    PacketErrorEstimate packetErrors(std::size_t link) const;
    // The full forecast, computed now (for a link someone looks at).
    LinkForecast forecast(std::size_t link) const;
    const LinkRisk& risk(std::size_t link) const { return states_[link].risk; }
    // The link's buckets and baseline (the console's BER chart is drawn from its buckets).
    const LinkHistory& history(std::size_t link) const { return states_[link].history; }
    // Links at risk, most probable first (confirmed Error ahead of everything).
    std::span<const std::uint32_t> atRisk() const { return ranked_; }

    // After a treatment the link's window and trend start again.
    void restartWindow(std::size_t link);
    // link_downed rises at either end since the window last started (saturates at 65,535).
    std::uint32_t downsSinceRestart(std::size_t link) const { return states_[link].downsSinceRestart; }

    const LinkWatchStats& stats() const { return stats_; }
    const LinkForecaster& forecaster() const { return forecaster_; }
    static std::size_t bytesPerLink();

private:
    struct State {
        PortTracker ends[2];
        LinkHistory history;
        LinkRisk risk;
        float lastBits[2] = {0, 0};
        std::uint16_t lastErrors[2] = {0, 0};
        std::uint8_t pendingDown[2] = {0, 0};  // polls since an unmatched link_downed rise, 0 = none
        std::uint16_t downsSinceRestart = 0;
    };

    bool takeEnd(State& s, int end, const PortCounterSample& sample, bool* stepError, std::uint32_t* downRises);
    // `screened`: this poll's screen of s.history (the forecast reuses it).
    void refresh(State& s, std::int64_t nowMs, const LinkForecaster::Screen& screened);
    void rank();

    LinkWatchConfig config_;
    LinkForecaster forecaster_;
    std::vector<State> states_;
    std::vector<std::uint32_t> ranked_;
    LinkWatchStats stats_;
    std::uint64_t polls_ = 0;
    std::int64_t nowMs_ = 0;
};

}  // namespace watchfloor::server
