#include "TwinControlAdapter.h"

#include "DrainOwnership.h"

namespace watchfloor::server::sim {

TwinControlAdapter::TwinControlAdapter(DigitalTwin& twin, std::chrono::milliseconds timeout, EventLookup events)
    : twin_(twin), actuator_(twin, timeout), events_(std::move(events)) {}

control::ActionOutcome TwinControlAdapter::outcome(const TwinActionResult& result) {
    return result.succeeded ? control::ActionOutcome::success(result.message)
                            : control::ActionOutcome::failure(result.message);
}

control::ActionOutcome TwinControlAdapter::drainNode(const std::string& node, const std::string& reason) {
    return outcome(actuator_.drainNode(node, reason));
}

control::ActionOutcome TwinControlAdapter::resumeNode(const std::string& node) {
    return outcome(actuator_.resumeNode(node));
}

control::ActionOutcome TwinControlAdapter::requeueJob(const std::string& job,
                                                      const std::vector<std::string>& excludeNodes) {
    return outcome(actuator_.requeueJob(job, excludeNodes));
}

control::ActionOutcome TwinControlAdapter::isolateRack(const std::string& rack, const std::vector<std::string>&,
                                                       const std::string& reason) {
    return outcome(actuator_.isolateRack(rack, reason));
}

control::ActionOutcome TwinControlAdapter::restoreRack(const std::string& rack, const std::vector<std::string>&) {
    return outcome(actuator_.restoreRack(rack));
}

std::optional<control::NodeFacts> TwinControlAdapter::node(const std::string& name) const {
    auto view = twin_.nodeView(name);
    if (!view) return std::nullopt;
    control::NodeFacts facts;
    facts.name = std::move(view->name);
    facts.rack = std::move(view->rack);
    facts.gpus = view->gpus;
    facts.state = view->state;
    facts.jobs = std::move(view->jobs);
    facts.stateVersion = view->stateVersion;
    facts.operatorDrain = view->drainRequested;
    if (view->drainRequested) facts.drainOwner = drainOwnerFromReason(view->drainReason);
    facts.reason = std::move(view->reason);
    return facts;
}

std::optional<control::JobFacts> TwinControlAdapter::job(const std::string& name) const {
    auto view = twin_.jobView(name);
    if (!view) return std::nullopt;
    control::JobFacts facts;
    facts.name = std::move(view->name);
    facts.gpus = view->gpus;
    facts.checkpointAgeSeconds = view->unsavedProgressS;
    facts.nodes = std::move(view->nodes);
    facts.stateVersion = view->stateVersion;
    return facts;
}

std::optional<control::RackFacts> TwinControlAdapter::rack(const std::string& name) const {
    auto view = twin_.rackView(name);
    if (!view) return std::nullopt;
    control::RackFacts facts;
    facts.name = std::move(view->name);
    for (auto& tray : view->trays) facts.nodes.push_back(std::move(tray.name));
    facts.leakActive = view->leakActive;
    facts.isolated = view->isolated;
    facts.stateVersion = view->stateVersion;
    return facts;
}

std::optional<control::EventFacts> TwinControlAdapter::event(std::uint64_t id) const {
    return events_ ? events_(id) : std::nullopt;
}

}  // namespace watchfloor::server::sim
