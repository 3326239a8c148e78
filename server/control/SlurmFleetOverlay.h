#pragma once
// How Slurm's view and the fleet source's (the digital twin's) combine under
// `fleetd --scheduler slurm`:
//
//  - Slurm is authoritative for scheduler state: every compute tray's node_state is what Slurm
//    says (IDLE, ALLOCATED, DRAINING, DRAINED, DOWN), its reason is Slurm's reason, and the jobs
//    holding a node are Slurm's. A tray Slurm does not know, or a state Slurm has not been read
//    for yet, is NODE_STATE_UNSPECIFIED: never guessed, never "drained".
//  - The source still owns health, telemetry, events, jobs and racks. Where Slurm gives no reason,
//    an unhealthy tray keeps the source's fault text as its reason.
//  - When Slurm stops answering, the last states read stay, and each tray's reason says they are
//    the last known ones and since when Slurm has been unreachable.
//
// SlurmFleetSource applies this to the state stream (a FleetSource around the twin),
// SlurmFleetView to what previews and the stale-state check read (a FleetView around the twin's);
// SlurmReadBack holds the poller and the source overlay for fleetd main.

#include "FleetSource.h"
#include "FleetView.h"
#include "SlurmNodeStates.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::control {

struct ShownNodeState {
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    std::string reason;

    bool operator==(const ShownNodeState&) const = default;
};

// The rule above for one tray. `sourceHealth`/`sourceReason`: the fleet source's state of it.
ShownNodeState combineNodeState(const SlurmClusterView& view, const std::string& node,
                                watchfloor::v1::HealthState sourceHealth, const std::string& sourceReason);

// Rewrites node_state and reason of every compute tray the inner source reports, and reports a
// tray again (with the source's last health) when only Slurm's view of it changed. A change of
// Slurm state also becomes an EVENT_TYPE_NODE_STATE event on the tray, and Slurm becoming
// unreachable or reachable again an event on the fleet entity.
class SlurmFleetSource final : public FleetSource {
public:
    SlurmFleetSource(FleetSource& inner, const SlurmNodeStatePoller& poller);

    const watchfloor::v1::Topology& topology() const override { return inner_.topology(); }
    UnixTime now() const override { return inner_.now(); }
    void advanceTo(UnixTime until, FleetChanges& out) override;
    std::chrono::milliseconds telemetryPeriod() const override { return inner_.telemetryPeriod(); }
    bool countersPeriodic() const override { return inner_.countersPeriodic(); }

private:
    struct Tray {
        std::string name;
        std::uint32_t entity = 0;
        watchfloor::v1::EntityState fromSource;  // the source's last state of it
        bool sourceReported = false;
        ShownNodeState shown;
        bool slurmKnown = false;  // `shown` came from a Slurm reading of this node
    };

    void overlay(Tray& tray, const SlurmClusterView& view, watchfloor::v1::EntityState& state, UnixTime now,
                 FleetChanges& out);
    void reportReachability(const SlurmClusterView& view, UnixTime now, FleetChanges& out);

    FleetSource& inner_;
    const SlurmNodeStatePoller& poller_;
    std::vector<Tray> trays_;
    std::unordered_map<std::uint32_t, std::size_t> trayByEntity_;
    std::unordered_map<std::string, std::size_t> trayByName_;
    std::uint64_t appliedGeneration_ = 0;
    std::optional<bool> reachable_;  // as last reported in an event
};

// The inner view with Slurm's node state, node jobs and (from its trays) rack isolation.
// State versions change when either side changes, so a preview made before a drain typed into
// scontrol is refused as stale.
class SlurmFleetView final : public FleetView {
public:
    SlurmFleetView(const FleetView& inner, const SlurmNodeStatePoller& poller) : inner_(inner), poller_(poller) {}

    std::optional<NodeFacts> node(const std::string& name) const override;
    // The inner view's job, else a job only Slurm runs: its nodes and GPUs from Slurm, its
    // checkpoint age unknown (so a restart can still be previewed and done, its cost flagged).
    std::optional<JobFacts> job(const std::string& name) const override;
    // isolated: the source says so, or Slurm has every tray of the rack out of service (Slurm's
    // share of an isolation), so that restore-rack can resume them.
    std::optional<RackFacts> rack(const std::string& name) const override;
    std::optional<EventFacts> event(std::uint64_t id) const override { return inner_.event(id); }

private:
    const FleetView& inner_;
    const SlurmNodeStatePoller& poller_;
};

// What `--scheduler slurm` adds to fleetd's state stream: the poller (sinfo + squeue through
// SLURM_CONF every `period`, each command bounded by the config's timeout) and the source
// overlay. Whoever holds the control plane's FleetView wraps it in a SlurmFleetView over poller().
class SlurmReadBack {
public:
    static constexpr std::chrono::milliseconds kDefaultPeriod{2000};

    SlurmReadBack(const SlurmConfig& config, FleetSource& source, std::chrono::milliseconds period = kDefaultPeriod,
                  SlurmNodeStatePoller::Log log = {});

    FleetSource& source() { return source_; }
    SlurmNodeStatePoller& poller() { return poller_; }
    // First reading on the calling thread (fleetd's first snapshot has Slurm's view), then polling
    // in the background until stop().
    void start() { poller_.start(); }
    void stop() { poller_.stop(); }

private:
    SlurmScheduler reader_;
    SlurmNodeStatePoller poller_;
    SlurmFleetSource source_;
};

}  // namespace watchfloor::server::control
