#pragma once
// fleetd's link watch on the stream: reads every rail link's InfiniBand counters (host end:
// IB_SYMBOL_ERROR_COUNTER ..., and the rate the host reports, IB_LINK_RATE_GBPS, over the
// topology's where present; far end: IB_FAR_*) and the jobs from each tick's FleetChanges, feeds
// a LinkWatch once per poll of fleet time, and adds to the same FleetChanges the LinkHealth of
// every link worth listing (at risk, above the Normal line, saturated) that changed, a `retired`
// record for a link no longer listed, and the LinkHealthSummary when it changed. With a ladder
// book, every link on the ladder is listed with its stage, a treated link's window starts again
// and its clean window is judged at each poll. Runs on the tick thread; a tick between polls only
// records counter values.

#include "FleetChanges.h"
#include "LinkLadderBook.h"
#include "LinkWatch.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server {

struct LinkHealthOptions {
    std::int64_t pollMs = 15'000;   // fleet time between polls: fleetd's default source poll
    std::int64_t sweepMs = 60'000;  // every link's verdict is looked at this often (the at-risk ones every poll)
    // A tray DOWN (powered off, rebooting, failed) takes its links down with it: a link_downed
    // rise while it is DOWN, or this long after it came back, is the host's event, not the cable's.
    std::int64_t hostEventGraceMs = 10 * 60'000;
    double restartSeconds = 300;    // a job's restart after an unplanned failure (the blast radius's default)
    std::size_t listedMax = 1'000;  // the most links listed at once, worst first
    // The source sends a counter only when it moves (the twin: FleetSource::countersPeriodic()
    // false): a value not sent again still holds at each poll. Otherwise (a store, a scrape) a
    // value without a newer scrape time is no new sample.
    bool countersOnChange = false;
    LinkWatchConfig watch;
};

class LinkHealthKeeper {
public:
    LinkHealthKeeper(const watchfloor::v1::Topology& topology, LinkHealthOptions options = {});
    // The control plane's ladder (fleetd with --tokens); must outlive the keeper. Null: every
    // listed link is WATCH.
    void setLadder(LinkLadderBook* ladder) { ladder_ = ladder; }
    // The clean window after a treatment is passed: each end seen carried kJudgingWindowBits at
    // or under the Normal line since, and neither end went down.
    static constexpr std::int64_t kReturnedListedMs = 3'600'000;  // fleet time a returned link stays listed

    // The tick's counters and jobs in; at a poll, the links that changed out (into `changes`).
    void observe(FleetChanges& changes);

    std::size_t links() const { return links_.size(); }
    const LinkWatch& watch() const { return watch_; }
    const watchfloor::v1::LinkHealthSummary& summary() const { return summary_; }
    // The link health as last sent, by NIC port entity index.
    const std::map<std::uint32_t, watchfloor::v1::LinkHealth>& listed() const { return listed_; }
    std::uint64_t polls() const { return polls_; }

private:
    struct Link {
        std::uint32_t entity = 0;  // the NicPort's entity index
        std::uint32_t node = 0;
        std::string name;
        double bytesPerSecond = 0;  // the port's line rate in the topology
    };
    struct Counters {               // the newest value of each counter at one end, NaN = never or blank
        float value[6];             // symbol, recovery, downed, receive errors, module temperature, rate (Gb/s)
        std::int64_t timeMs = 0;    // of the newest symbol error value
        std::int64_t takenMs = -1;  // the time the watch last took
        bool active = true;
        float downedSeen = std::numeric_limits<float>::quiet_NaN();  // the link_downed value last taken
        float downedByHost = 0;  // rises during its tray's host events, taken off what the watch sees
    };

    void record(const FleetChanges& changes);
    void recordJobs(const FleetChanges& changes);
    // Trays going DOWN and coming back: the windows in which a link-down is the host's.
    void recordTrays(const FleetChanges& changes, std::int64_t nowMs);
    bool hostEvent(std::uint32_t node, std::int64_t nowMs) const;
    // The downed counter as the watch takes it: without the rises of the tray's host events.
    float cableDowns(Counters& c, bool hostEventNow);
    void poll(std::int64_t nowMs, FleetChanges& changes);
    void fillSamples(std::int64_t nowMs);
    std::vector<std::uint32_t> linksToList();
    // The ladder's links: a treated link's window restarts once, its clean window is judged; the
    // links it holds, by link index.
    std::map<std::uint32_t, LinkLadderEntry> followLadder(std::int64_t nowMs);
    // A treated link: its window restarted once after the treatment, its clean window judged (into
    // the book and `entry`), and when the window ends at the ends' pace.
    void judgeCleanWindow(std::uint32_t link, const std::string& name, LinkLadderEntry& entry, std::int64_t nowMs);
    static void applyStage(const LinkLadderEntry& entry, watchfloor::v1::LinkHealth& health);
    watchfloor::v1::LinkHealth healthOf(std::uint32_t link, std::int64_t nowMs) const;
    void atStake(std::uint32_t node, std::int64_t nowMs, watchfloor::v1::LinkAtStake* out) const;

    LinkHealthOptions options_;
    std::vector<Link> links_;
    std::unordered_map<std::uint32_t, std::uint32_t> linkOfEntity_;
    std::unordered_map<std::string, std::uint32_t> linkOfName_;
    std::unordered_map<std::uint32_t, std::int64_t> trayDownUntilMs_;  // by node: DOWN (max) or its grace end
    LinkLadderBook* ladder_ = nullptr;
    std::map<std::uint32_t, std::int64_t> returnedSeenMs_;  // fleet time a link was first listed RETURNED or PROPOSED
    std::map<std::uint32_t, std::int64_t> passedMs_;        // fleet time a treated link's clean window passed
    std::vector<Counters> ends_[2];                         // per link: host end, far end
    std::vector<LinkPollSample> samples_;
    LinkWatch watch_;
    std::unordered_map<std::uint32_t, watchfloor::v1::Job> jobs_;  // running ones, by job index
    std::int64_t nextPollMs_ = 0;
    std::int64_t nextSweepMs_ = 0;
    std::vector<std::uint32_t> noteworthy_;  // from the last sweep: links above Normal or saturated
    std::map<std::uint32_t, watchfloor::v1::LinkHealth> listed_;
    std::map<std::uint32_t, std::int64_t> sentMs_;
    watchfloor::v1::LinkHealthSummary summary_;
    std::uint64_t polls_ = 0;
};

}  // namespace watchfloor::server
