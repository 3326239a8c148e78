#include "ControlTestFleet.h"

#include "DrainOwnership.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace control_test {
namespace v1 = watchfloor::v1;

TestFleet::TestFleet(int racks) {
    for (int r = 1; r <= racks; ++r) {
        char rackName[16];
        std::snprintf(rackName, sizeof rackName, "r%02d", r);
        // Field by field: aggregate initialisation would leave the optional fields to a warning.
        RackFacts rack;
        rack.name = rackName;
        rack.stateVersion = 1;
        for (int n = 1; n <= 18; ++n) {
            char nodeName[32];
            std::snprintf(nodeName, sizeof nodeName, "%s-n%02d", rackName, n);
            NodeFacts& node = nodes_[nodeName];
            node.name = nodeName;
            node.rack = rackName;
            node.gpus = 4;
            node.state = v1::NODE_STATE_IDLE;
            node.stateVersion = 1;
            rack.nodes.push_back(nodeName);
        }
        racks_[rackName] = rack;
    }
}

std::optional<NodeFacts> TestFleet::node(const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto it = nodes_.find(name);
    return it == nodes_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<JobFacts> TestFleet::job(const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto it = jobs_.find(name);
    return it == jobs_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<RackFacts> TestFleet::rack(const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto it = racks_.find(name);
    return it == racks_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<EventFacts> TestFleet::event(std::uint64_t id) const {
    std::lock_guard lock(mutex_);
    const auto it = events_.find(id);
    return it == events_.end() ? std::nullopt : std::optional(it->second);
}

void TestFleet::setCheckpointAge(const std::string& job, double checkpointAge_s) {
    std::lock_guard lock(mutex_);
    jobs_.at(job).checkpointAgeSeconds = checkpointAge_s;
}

void TestFleet::placeJob(const std::string& name, const std::vector<std::string>& nodes, double checkpointAge_s) {
    std::lock_guard lock(mutex_);
    JobFacts job;
    job.name = name;
    job.checkpointAgeSeconds = checkpointAge_s;
    job.nodes = nodes;
    job.stateVersion = 1;
    for (const std::string& n : nodes) {
        NodeFacts& node = nodes_.at(n);
        node.jobs.push_back(name);
        node.state = v1::NODE_STATE_ALLOCATED;
        ++node.stateVersion;
        job.gpus += node.gpus;
    }
    jobs_[name] = job;
}

void TestFleet::setNodeState(const std::string& name, v1::NodeState state) {
    std::lock_guard lock(mutex_);
    NodeFacts& node = nodes_.at(name);
    node.state = state;
    ++node.stateVersion;
    ++racks_.at(node.rack).stateVersion;
}

void TestFleet::takeOutByHealthCheck(const std::string& name, const std::string& reason) {
    std::lock_guard lock(mutex_);
    NodeFacts& node = nodes_.at(name);
    node.state = v1::NODE_STATE_DRAINED;
    node.operatorDrain = false;
    node.reason = reason;
    ++node.stateVersion;
    ++racks_.at(node.rack).stateVersion;
}

void TestFleet::drainWithReason(const std::string& name, const std::string& storedReason) {
    std::lock_guard lock(mutex_);
    NodeFacts& node = nodes_.at(name);
    node.state = v1::NODE_STATE_DRAINED;
    node.operatorDrain = true;
    node.reason = storedReason;
    node.drainOwner = watchfloor::server::drainOwnerFromReason(storedReason);
    ++node.stateVersion;
    ++racks_.at(node.rack).stateVersion;
}

void TestFleet::clearJobsOn(const std::string& name) {
    std::lock_guard lock(mutex_);
    NodeFacts& node = nodes_.at(name);
    node.jobs.clear();
    ++node.stateVersion;
}

void TestFleet::setLeak(const std::string& rack, bool active) {
    std::lock_guard lock(mutex_);
    racks_.at(rack).leakActive = active;
    ++racks_.at(rack).stateVersion;
}

void TestFleet::setIsolated(const std::string& rack, bool isolated) {
    std::lock_guard lock(mutex_);
    racks_.at(rack).isolated = isolated;
    ++racks_.at(rack).stateVersion;
}

void TestFleet::addEvent(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    events_[id] = EventFacts{id, false, 1};
}

void TestFleet::bumpRack(const std::string& rack) {
    std::lock_guard lock(mutex_);
    ++racks_.at(rack).stateVersion;
}

ActionOutcome RecordingActuator::record(const std::string& call, const std::string& auditedText) {
    std::ifstream audit(auditPath_);
    std::stringstream text;
    text << audit.rdbuf();
    if (text.str().find(auditedText) == std::string::npos) ++unaudited_;
    if (const auto wait = delay.load(); wait.count() > 0) std::this_thread::sleep_for(wait);
    {
        std::lock_guard lock(mutex_);
        calls_.push_back(call);
    }
    if (!failWith.empty()) return ActionOutcome::failure(failWith);
    return ActionOutcome::success("done: " + call);
}

ActionOutcome RecordingActuator::drainNode(const std::string& node, const std::string& reason) {
    return record("drain " + node + " reason=" + reason, reason);
}
ActionOutcome RecordingActuator::resumeNode(const std::string& node) { return record("resume " + node, node); }
ActionOutcome RecordingActuator::requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) {
    std::string call = "requeue " + job;
    for (const auto& node : excludeNodes) call += " exclude=" + node;
    return record(call, job);
}
ActionOutcome RecordingActuator::isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                                             const std::string& reason) {
    return record("isolate " + rack + " trays=" + std::to_string(nodes.size()) + " reason=" + reason, reason);
}
ActionOutcome RecordingActuator::linkTreated(const std::string& link, v1::LinkTreatment treatment, v1::LinkEnd end) {
    return record("treat " + link + " " + v1::LinkTreatment_Name(treatment) + " " + v1::LinkEnd_Name(end), link);
}
ActionOutcome RecordingActuator::restoreRack(const std::string& rack, const std::vector<std::string>& nodes) {
    return record("restore " + rack + " trays=" + std::to_string(nodes.size()), "rack " + rack);
}

std::vector<std::string> RecordingActuator::calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
}

}  // namespace control_test
