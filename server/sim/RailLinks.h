#pragma once
// The twin's InfiniBand rail links (one per NIC port, the far end the leaf switch port) on the
// seeded trajectories of docs/domain/link-forecast.md (server/links LinkTrajectories): what both
// ends' counters read, when a link's drift ends in a failure and when a flapping link flaps. The
// port's state stays the LinkFabric's: a failure or flap here goes through its link-down and flap
// path, and what the fabric adds (scenario bursts, noise, scripted downs) lands on the counters
// too, until a clear zeroes them. A scenario can put one link on a drift of a chosen length
// (`link-drift`), on top of its trajectory.

#include "FleetChanges.h"
#include "FleetModel.h"
#include "LinkFabric.h"
#include "LinkTrajectories.h"
#include "Rng.h"
#include "TwinScheduler.h"

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace watchfloor::server::sim {

// What the rail links need from the rest of the twin.
class RailLinkHost {
public:
    virtual ~RailLinkHost() = default;
    virtual bool trayPowered(std::uint32_t t) const = 0;
    // NIC port `nic`'s link failed for good: down, its job interrupted, its tray repaired.
    virtual void railLinkFailed(std::uint32_t nic) = 0;
    // It went down and came back (a flap).
    virtual void railLinkFlapped(std::uint32_t nic) = 0;
};

class RailLinks {
public:
    // `rng` is the twin's rail link stream: the trajectories' seed and the failures' draws.
    RailLinks(Rng rng, const FleetModel& model, TwinScheduler& clock, LinkFabric& fabric, RailLinkHost& host);

    // Failures and flap episodes the trajectories place over the twin's first kSpanDays.
    void schedule();
    static constexpr double kSpanDays = 365;

    // From now, port `nic`'s BER drifts up at both ends from its healthy level and crosses the
    // Error line (1e-14) after `toErrorS`; the link goes down `downAfterS` later.
    void drift(std::uint32_t nic, double toErrorS, double downAfterS);

    // A person treated port `nic` (reseat, clean, replace): a scripted drift or a trajectory's
    // drift or step that has not failed the link yet ends, and the link no longer fails. False
    // when there was nothing to mend.
    bool mend(std::uint32_t nic);

    // Both ends' counters of port `nic` as its host's node_exporter and the switch report them now:
    // the IB_* metrics (symbol, recovery, downed, receive errors, module temperature) and the
    // IB_FAR_* ones. The host end is missing while its exporter restarts (false then). `busy` warms
    // the module; `noise` in [-1, 1] is the tray's.
    bool emitCounters(std::uint32_t nic, bool busy, float noise, std::vector<Sample>& samples);

    // The drawn repair time of a failed link (hours: reseat or replace, on the rail stream).
    double repairSeconds() { return rng_.uniform(3600, 6 * 3600); }

    const LinkTrajectories& trajectories() const { return trajectories_; }
    double bitErrorRatio(std::uint32_t nic, LinkEnd end) const;  // the truth now, scripted drift included

private:
    static constexpr int kCounters = 4;  // symbol, recovery, downed, receive errors
    using Counters = std::array<std::uint32_t, kCounters>;

    struct Drift {
        std::int64_t startMs = 0, crossMs = 0, failMs = 0;
        std::array<double, 2> k{};  // per end, per ms: ln(Error / healthy) / (cross - start)
        Rng rng;
        std::array<double, 2> nextArrival{};
        std::array<double, 2> healthyBer{};
        std::array<std::uint32_t, 2> symbols{}, recoveries{};
        std::array<std::int64_t, 2> lastMs{};
        bool mended = false;  // treated before it failed: failMs moved to the treatment
    };
    // Per port: the trajectory's counters last read (a fall is a clear) and when.
    struct Seen {
        std::array<std::array<std::uint16_t, kCounters>, 2> counters{};
        std::array<std::int64_t, 2> lastMs = {-1, -1};
    };

    void watchFlap(std::uint32_t nic, bool wasActive);
    void advanceDrift(Drift& d, int end, std::int64_t tMs);
    double driftExtraBer(const Drift& d, int end, std::int64_t tMs) const;
    // What the twin has added to `end`'s counters of port `nic` since it started (the fabric's
    // bursts, downs and flaps; a scripted drift's errors and recoveries).
    Counters twinCounts(std::uint32_t nic, int end);

    Rng rng_;
    const FleetModel& model_;
    TwinScheduler& clock_;
    LinkFabric& fabric_;
    RailLinkHost& host_;
    LinkTrajectories trajectories_;
    std::vector<Seen> seen_;                                 // by NIC ordinal
    std::map<std::uint32_t, std::array<Counters, 2>> base_;  // the twin's additions at each end's last clear
    std::map<std::uint32_t, Drift> drifts_;                  // scripted
};

}  // namespace watchfloor::server::sim
