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

control::ActionOutcome TwinControlAdapter::linkTreated(const std::string& link, watchfloor::v1::LinkTreatment treatment,
                                                       watchfloor::v1::LinkEnd) {
    if (treatment == watchfloor::v1::LINK_TREATMENT_RESET)
        return control::ActionOutcome::success(link + ": port reset recorded (a reset mends no cable)");
    return outcome(actuator_.mendLink(link, {}));
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

double TwinControlAdapter::expectedOutOfServiceSeconds(const control::RepairStep& step) const {
    return DigitalTwin::expectedRepairSeconds(step.type, step.diagnosticLevel);
}

control::RepairProgress TwinControlAdapter::start(const control::RepairStep& step) {
    TwinRepairRequest request;
    request.type = step.type;
    request.gpu = step.gpu;
    request.diagnosticLevel = step.diagnosticLevel;
    request.after = step.after;
    request.operationId = step.operationId;
    const TwinActionResult result = actuator_.startRepair(step.node, request, step.reason);
    if (result.succeeded) return poll(step, result.handle);
    control::RepairProgress refused;
    refused.finished = true;
    refused.message = result.message;
    refused.outcome.set_backend(name());
    return refused;
}

control::RepairProgress TwinControlAdapter::poll(const control::RepairStep& step, const std::string& handle) {
    control::RepairProgress progress;
    const auto view = twin_.repairView(handle);
    if (!view) {
        // The twin starts fresh with every fleetd: a step from an earlier run is gone with it.
        progress.finished = true;
        progress.message = "the digital twin has no break/fix step " + handle + " on " + step.node +
                           " (it started afresh since); check the tray before repeating the step";
        progress.outcome.set_backend(name());
        progress.outcome.set_handle(handle);
        return progress;
    }
    progress.finished = view->finished;
    progress.message = view->message;
    progress.ratio = view->ratio;
    progress.outcome = view->outcome;
    return progress;
}

}  // namespace watchfloor::server::sim
