#pragma once
// Where each rail link stands on the link ladder (fleet.proto LinkStage): watch -> proposed ->
// isolating -> isolated -> treated -> returned. The control plane moves a link by its operations
// (ISOLATE_LINK, TREAT_LINK, RETURN_LINK) and its automation's proposals; fleetd's link keeper
// reads the stages into each LinkHealth, restarts a treated link's window once and says whether
// its clean window has passed. Keyed by the NicPort's name. Thread-safe: the control thread
// writes, the tick thread reads.

#include "watchfloor/v1/fleet.pb.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server {

// A link's place on the ladder. A link never on it has no entry.
struct LinkLadderEntry {
    std::string tray;  // the compute tray the link serves (its drain isolates the link)
    watchfloor::v1::LinkStage stage = watchfloor::v1::LINK_STAGE_UNSPECIFIED;
    std::string reason;  // LinkHealth.stage_reason
    std::int64_t sinceUnixMs = 0;
    std::string operationId;  // the newest ladder operation on the link
    bool automated = false;   // the newest isolation was fleetd's automation's
    watchfloor::v1::LinkTreatment treatment = watchfloor::v1::LINK_TREATMENT_UNSPECIFIED;
    watchfloor::v1::LinkEnd treatedEnd = watchfloor::v1::LINK_END_UNSPECIFIED;
    std::string treatedBy;
    std::vector<std::int64_t> isolationsUnixMs;  // wall clock, as the ladder's operations are
    bool windowRestartPending = false;           // treated: the keeper restarts the watch's window once
    bool cleanWindowPassed = false;              // treated: 3e15 clean bits at each end seen, no link-down
    std::string cleanWindowText;                 // "clean window: 40 of 125 min at the host end"
    std::int64_t returnAfterMs = 0;  // treated: when the clean window ends at this pace (the keeper's clock)

    // Isolations in the 30 days before `nowUnixMs` (wall clock), the one under way included.
    std::size_t isolationsWithin30Days(std::int64_t nowUnixMs) const;
};

class LinkLadderBook {
public:
    static constexpr std::int64_t kIsolationMemoryMs = 30LL * 24 * 3'600'000;  // "the third within 30 days"
    static constexpr std::size_t kReplaceAfterIsolations = 3;

    // `links` the rail links a fleet has (the budget is max(10, 0.5 % of them)); `trayOfLink` maps
    // each link's name to the tray it serves.
    LinkLadderBook(std::size_t links, std::map<std::string, std::string> trayOfLink);

    std::size_t budget() const { return budget_; }
    std::size_t links() const { return links_; }
    // Links isolated now: ISOLATING, ISOLATED or TREATED.
    std::size_t isolatedNow() const;
    // The tray a link serves; nullopt for a name that is no rail link.
    std::optional<std::string> trayOf(const std::string& link) const;
    std::optional<LinkLadderEntry> get(const std::string& link) const;
    // Isolations of `link` in the 30 days before `nowUnixMs`, the one under way included.
    std::size_t isolationsWithin30Days(const std::string& link, std::int64_t nowUnixMs) const;

    // The steps. Each bumps version().
    void propose(const std::string& link, const std::string& reason, std::int64_t nowUnixMs);
    void isolating(const std::string& link, const std::string& operationId, const std::string& reason, bool automated,
                   std::int64_t nowUnixMs);
    void isolated(const std::string& link, const std::string& operationId, const std::string& reason, bool automated,
                  std::int64_t nowUnixMs);
    // An isolation that did not happen (its operation failed or was cancelled): back to WATCH.
    void isolationAbandoned(const std::string& link, const std::string& operationId, const std::string& why,
                            std::int64_t nowUnixMs);
    void treated(const std::string& link, const std::string& operationId, watchfloor::v1::LinkTreatment treatment,
                 watchfloor::v1::LinkEnd end, const std::string& by, std::int64_t nowUnixMs);
    void returned(const std::string& link, const std::string& operationId, std::int64_t nowUnixMs);
    // A RETURNED or PROPOSED link the keeper no longer lists leaves the ladder.
    void forget(const std::string& link);

    // The keeper's side: true once after a treatment (the watch's window starts again then).
    bool takeWindowRestart(const std::string& link);
    void setCleanWindow(const std::string& link, bool passed, const std::string& text);

    // What a listed link puts at stake (LinkAtStake, from the keeper's poll): an unplanned
    // failure's cost in GPU-seconds and the tray's jobs' next checkpoint (fleet clock; 0 unknown).
    struct AtStake {
        double unplannedGpuSeconds = 0;
        std::int64_t nextCheckpointUnixMs = 0;
        bool atRisk = false;
        bool confirmedError = false;  // the errors prove it over the Error line now
        double errorOrDown6h = 0;     // P(Error or down within 6 h)
    };
    void setAtStake(std::map<std::string, AtStake> listed);
    std::optional<AtStake> atStake(const std::string& link) const;
    std::map<std::string, AtStake> listed() const;

    // fleetd --auto-isolate-links, for the summary every console shows.
    void setAutomation(bool on, bool dryRun);
    bool automationOn() const { return automationOn_; }
    bool automationDryRun() const { return automationDryRun_; }

    // Every link on the ladder, by name.
    std::map<std::string, LinkLadderEntry> entries() const;
    std::uint64_t version() const;

private:
    LinkLadderEntry& entryLocked(const std::string& link);
    void moveLocked(LinkLadderEntry& entry, watchfloor::v1::LinkStage stage, std::string reason,
                    std::int64_t nowUnixMs);

    const std::size_t links_;
    const std::size_t budget_;
    const std::map<std::string, std::string> trayOfLink_;
    mutable std::mutex mutex_;
    std::map<std::string, LinkLadderEntry> entries_;
    std::map<std::string, AtStake> atStake_;
    bool automationOn_ = false;  // set before the threads start
    bool automationDryRun_ = false;
    std::uint64_t version_ = 0;
};

}  // namespace watchfloor::server
