#include "SlurmFleetOverlay.h"

#include "DrainOwnership.h"

#include <algorithm>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

bool outOfService(v1::NodeState state) {
    return state == v1::NODE_STATE_DRAINING || state == v1::NODE_STATE_DRAINED || state == v1::NODE_STATE_DOWN;
}

// "DRAINED" rather than "NODE_STATE_DRAINED": the words operators know from sinfo.
std::string stateWord(v1::NodeState state) {
    if (state == v1::NODE_STATE_UNSPECIFIED) return "UNKNOWN";
    std::string name = v1::NodeState_Name(state);
    constexpr std::string_view kPrefix = "NODE_STATE_";
    return name.starts_with(kPrefix) ? name.substr(kPrefix.size()) : name;
}

// Node versions live in the high half so that a change on either side gives a new version.
std::uint64_t combinedVersion(std::uint64_t sourceVersion, std::uint64_t slurmVersion) {
    return (slurmVersion << 32) + sourceVersion;
}

}  // namespace

ShownNodeState combineNodeState(const SlurmClusterView& view, const std::string& node, v1::HealthState sourceHealth,
                                const std::string& sourceReason) {
    if (!view.everRead)
        return {v1::NODE_STATE_UNSPECIFIED,
                view.error.empty() ? "Slurm not read yet" : "Slurm unreachable, state unknown: " + view.error};
    const SlurmNodeView* slurm = view.node(node);
    if (!slurm) return {v1::NODE_STATE_UNSPECIFIED, "not a node in Slurm's configuration"};
    ShownNodeState shown{slurm->state, slurm->reason};
    const bool unhealthy = sourceHealth != v1::HEALTH_STATE_HEALTHY && sourceHealth != v1::HEALTH_STATE_UNSPECIFIED;
    if (shown.reason.empty() && slurm->slurmState.find('*') != std::string::npos)
        shown.reason = "Slurm: slurmd not responding";
    if (shown.reason.empty() && unhealthy) shown.reason = sourceReason;
    if (!view.reachable)
        shown.reason += (shown.reason.empty() ? "" : "; ") + std::string("last known state, Slurm unreachable since ") +
                        utcClockText(view.unreachableSince);
    return shown;
}

// ---- SlurmFleetSource ----

SlurmFleetSource::SlurmFleetSource(FleetSource& inner, const SlurmNodeStatePoller& poller)
    : inner_(inner), poller_(poller) {
    const v1::Topology& topology = inner_.topology();
    trays_.reserve(static_cast<std::size_t>(topology.nodes_size()));
    for (const v1::Node& node : topology.nodes()) {
        Tray& tray = trays_.emplace_back();
        tray.name = node.name();
        tray.entity = node.index();
        trayByEntity_.emplace(node.index(), trays_.size() - 1);
        trayByName_.emplace(node.name(), trays_.size() - 1);
    }
}

void SlurmFleetSource::advanceTo(UnixTime until, FleetChanges& out) {
    const std::size_t firstState = out.states.size();
    inner_.advanceTo(until, out);
    const std::shared_ptr<const SlurmClusterView> view = poller_.view();
    const UnixTime now = out.time == UnixTime{} ? until : out.time;

    std::vector<bool> reportedBySource(trays_.size(), false);
    const std::size_t sourceStates = out.states.size();
    for (std::size_t i = firstState; i < sourceStates; ++i) {
        const auto found = trayByEntity_.find(out.states[i].entity_index());
        if (found == trayByEntity_.end()) continue;
        Tray& tray = trays_[found->second];
        tray.fromSource = out.states[i];
        tray.sourceReported = true;
        reportedBySource[found->second] = true;
        overlay(tray, *view, out.states[i], now, out);
    }
    if (view->generation == appliedGeneration_) return;
    for (std::size_t t = 0; t < trays_.size(); ++t) {
        Tray& tray = trays_[t];
        if (reportedBySource[t] || !tray.sourceReported) continue;  // never reported: no health to restate
        v1::EntityState state = tray.fromSource;
        const ShownNodeState before = tray.shown;
        overlay(tray, *view, state, now, out);
        if (tray.shown != before) out.states.push_back(std::move(state));
    }
    reportReachability(*view, now, out);
    appliedGeneration_ = view->generation;
}

void SlurmFleetSource::overlay(Tray& tray, const SlurmClusterView& view, v1::EntityState& state, UnixTime now,
                               FleetChanges& out) {
    ShownNodeState next = combineNodeState(view, tray.name, tray.fromSource.health(), tray.fromSource.reason());
    const bool slurmKnows = view.everRead && view.node(tray.name) != nullptr;
    if (next.state != tray.shown.state) {
        // Only a change Slurm reported is news; the first reading and an unknown state are not.
        if (tray.slurmKnown && slurmKnows && view.reachable) {
            v1::Event& event = out.events.emplace_back();
            event.set_time_unix_ms(toUnixMs(now));
            event.set_severity(outOfService(next.state) ? v1::SEVERITY_WARNING : v1::SEVERITY_INFO);
            event.set_type(v1::EVENT_TYPE_NODE_STATE);
            event.set_entity_index(tray.entity);
            event.set_message("Slurm: " + tray.name + " is " + stateWord(next.state) + " (was " +
                              stateWord(tray.shown.state) + ")" + (next.reason.empty() ? "" : ": " + next.reason));
        }
        state.set_since_unix_ms(toUnixMs(now));
    }
    state.set_node_state(next.state);
    state.set_reason(next.reason);
    state.clear_drain_owner();
    if (next.state == v1::NODE_STATE_DRAINING || next.state == v1::NODE_STATE_DRAINED)
        *state.mutable_drain_owner() = drainOwnerFromReason(next.reason);  // fleetd wrote "<principal>: …"
    else if (next.state == v1::NODE_STATE_DOWN)
        *state.mutable_drain_owner() = healthCheckOwner();
    tray.shown = std::move(next);
    tray.slurmKnown = slurmKnows;
}

void SlurmFleetSource::reportReachability(const SlurmClusterView& view, UnixTime now, FleetChanges& out) {
    if (view.generation == 0 || reachable_ == view.reachable) return;
    const bool first = !reachable_.has_value();
    reachable_ = view.reachable;
    if (first && view.reachable) return;  // answering from the start is not news
    v1::Event& event = out.events.emplace_back();
    event.set_time_unix_ms(toUnixMs(now));
    event.set_type(v1::EVENT_TYPE_NODE_STATE);
    event.set_entity_index(inner_.topology().fleet_index());
    if (view.reachable) {
        event.set_severity(v1::SEVERITY_INFO);
        event.set_message("Slurm answers again; node states are current");
    } else {
        event.set_severity(v1::SEVERITY_WARNING);
        event.set_message("Slurm unreachable: " + view.error +
                          (view.everRead ? "; node states are the last known, read at " + utcClockText(view.readAt)
                                         : "; node states are unknown"));
    }
}

// ---- SlurmFleetView ----

std::optional<NodeFacts> SlurmFleetView::node(const std::string& name) const {
    std::optional<NodeFacts> facts = inner_.node(name);
    if (!facts) return facts;
    const auto view = poller_.view();
    const SlurmNodeView* slurm = view->everRead ? view->node(name) : nullptr;
    facts->state = slurm ? slurm->state : v1::NODE_STATE_UNSPECIFIED;
    facts->jobs = slurm ? slurm->jobs : std::vector<std::string>{};
    facts->operatorDrain.reset();  // Slurm resumes any drained node, whoever drained it
    facts->reason.clear();
    facts->drainOwner.Clear();
    if (slurm && (slurm->state == v1::NODE_STATE_DRAINING || slurm->state == v1::NODE_STATE_DRAINED))
        facts->drainOwner = drainOwnerFromReason(slurm->reason);
    facts->stateVersion = combinedVersion(facts->stateVersion, slurm ? slurm->version : 0);
    return facts;
}

std::optional<JobFacts> SlurmFleetView::job(const std::string& name) const {
    if (std::optional<JobFacts> known = inner_.job(name)) return known;
    const auto view = poller_.view();
    if (!view->everRead) return std::nullopt;
    JobFacts facts;
    facts.name = name;
    facts.checkpointAgeKnown = false;
    std::uint64_t versions = 0;
    for (const auto& [node, slurm] : view->nodes) {
        if (std::find(slurm.jobs.begin(), slurm.jobs.end(), name) == slurm.jobs.end()) continue;
        facts.nodes.push_back(node);
        versions += slurm.version;
        if (const auto inner = inner_.node(node)) facts.gpus += inner->gpus;
    }
    if (facts.nodes.empty()) return std::nullopt;
    std::sort(facts.nodes.begin(), facts.nodes.end());  // the map's order is not stable
    facts.stateVersion = combinedVersion(0, versions);
    return facts;
}

std::optional<RackFacts> SlurmFleetView::rack(const std::string& name) const {
    std::optional<RackFacts> facts = inner_.rack(name);
    if (!facts) return facts;
    const auto view = poller_.view();
    std::uint64_t slurmVersions = 0;
    bool allOut = view->everRead && !facts->nodes.empty();
    for (const std::string& node : facts->nodes) {
        const SlurmNodeView* slurm = view->everRead ? view->node(node) : nullptr;
        slurmVersions += slurm ? slurm->version : 0;
        allOut = allOut && slurm && outOfService(slurm->state);
    }
    facts->isolated = facts->isolated || allOut;
    facts->stateVersion = combinedVersion(facts->stateVersion, slurmVersions);
    return facts;
}

// ---- SlurmReadBack ----

SlurmReadBack::SlurmReadBack(const SlurmConfig& config, FleetSource& source, std::chrono::milliseconds period,
                             SlurmNodeStatePoller::Log log)
    : reader_(config),
      poller_([this] { return readCluster(reader_); }, period, std::move(log)),
      source_(source, poller_) {}

}  // namespace watchfloor::server::control
