#include "SlurmScheduler.h"

#include "Hostlist.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

std::string joined(const std::vector<std::string>& items, const char* separator = ",") {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
    return text;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);)
        if (!line.empty()) result.push_back(line);
    return result;
}

}  // namespace

std::vector<std::string> SlurmScheduler::toSlurm(const std::vector<std::string>& nodes) const {
    std::vector<std::string> names;
    for (const auto& node : nodes) names.push_back(config_.toSlurm(node));
    return names;
}

std::optional<std::vector<std::string>> SlurmScheduler::expandHostlist(std::string_view hostlist) {
    return watchfloor::server::expandHostlist(hostlist);
}

bool SlurmScheduler::isPlainNodeName(std::string_view name) { return isPlainHostName(name); }

v1::NodeState SlurmScheduler::parseNodeState(std::string_view state) {
    // sinfo appends one flag character: '*' not responding, '~' powered off, '#' powering up,
    // '!' pending power down, '%' powering down, '$' maintenance, '@' pending reboot, '^' reboot
    // issued, '-' planned.
    while (!state.empty() && std::string_view("*~#!%$@^-").find(state.back()) != std::string_view::npos)
        state.remove_suffix(1);
    if (state == "idle" || state == "reserved" || state == "maint" || state == "planned") return v1::NODE_STATE_IDLE;
    if (state == "allocated" || state == "mixed" || state == "completing") return v1::NODE_STATE_ALLOCATED;
    if (state == "draining" || state == "failing") return v1::NODE_STATE_DRAINING;
    if (state == "drained") return v1::NODE_STATE_DRAINED;
    if (state == "down" || state == "fail" || state == "inval" || state.starts_with("power") ||
        state.starts_with("reboot"))
        return v1::NODE_STATE_DOWN;
    return v1::NODE_STATE_UNSPECIFIED;  // unknown, future, or a state this mapping does not know
}

CommandResult SlurmScheduler::run(const std::string& program, std::vector<std::string> args) const {
    return runSlurmCommand(config_, program, std::move(args));
}

ActionOutcome SlurmScheduler::updateNodes(const std::vector<std::string>& entityNodes, const std::string& state,
                                          const std::string& reason) const {
    if (entityNodes.empty()) return ActionOutcome::failure("no nodes given");
    const std::vector<std::string> nodes = toSlurm(entityNodes);
    for (const auto& node : nodes)
        if (!isPlainNodeName(node)) return ActionOutcome::failure("'" + node + "' is not a single Slurm node name");
    std::vector<std::string> args = {"update", "nodename=" + joined(nodes), "state=" + state};
    if (!reason.empty()) args.push_back("reason=" + reason);
    const CommandResult result = run("scontrol", args);
    if (!result.succeeded()) return ActionOutcome::failure(result.failureText("scontrol", config_.commandTimeout));
    return ActionOutcome::success("Slurm: " + joined(nodes) + " state=" + state);
}

ActionOutcome SlurmScheduler::drainNode(const std::string& node, const std::string& reason) {
    // Only scontrol refuses a drain without a reason; the controller itself accepts one.
    if (reason.empty()) return ActionOutcome::failure("a drain needs a reason");
    return updateNodes({node}, "drain", reason);
}

ActionOutcome SlurmScheduler::resumeNode(const std::string& node) { return updateNodes({node}, "resume", ""); }

std::vector<std::string> SlurmScheduler::jobIdsOn(const std::vector<std::string>& nodes, std::string& error) const {
    const CommandResult result = run("squeue", {"-h", "-w", joined(toSlurm(nodes)), "-o", "%i"});
    if (!result.succeeded()) {
        error = result.failureText("squeue", config_.commandTimeout);
        return {};
    }
    return lines(result.out);
}

ActionOutcome SlurmScheduler::requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) {
    if (job.empty() || job.find(',') != std::string::npos)
        return ActionOutcome::failure("'" + job + "' is not a single Slurm job name");
    for (const auto& node : excludeNodes)
        if (!isPlainNodeName(node)) return ActionOutcome::failure("'" + node + "' is not a single Slurm node name");
    const CommandResult found = run("squeue", {"-h", "-n", job, "-o", "%i"});
    if (!found.succeeded()) return ActionOutcome::failure(found.failureText("squeue", config_.commandTimeout));
    const std::vector<std::string> ids = lines(found.out);
    if (ids.empty()) return ActionOutcome::failure("Slurm has no job named " + job);
    const std::string idList = joined(ids);
    if (excludeNodes.empty()) {
        const CommandResult requeued = run("scontrol", {"requeue", idList});
        if (!requeued.succeeded())
            return ActionOutcome::failure(requeued.failureText("scontrol", config_.commandTimeout));
        return ActionOutcome::success("Slurm: requeued " + job + " (job " + idList + ")");
    }
    // Hold it while pending so it cannot start again on an excluded node before the update.
    const CommandResult held = run("scontrol", {"requeuehold", idList});
    if (!held.succeeded()) return ActionOutcome::failure(held.failureText("scontrol", config_.commandTimeout));
    for (const auto& id : ids) {
        const CommandResult excluded =
            run("scontrol", {"update", "jobid=" + id, "ExcNodeList=" + joined(toSlurm(excludeNodes))});
        if (!excluded.succeeded())
            return ActionOutcome::failure(excluded.failureText("scontrol", config_.commandTimeout) + " (job " + id +
                                          " is requeued and held; release it with: scontrol release " + id + ")");
    }
    const CommandResult released = run("scontrol", {"release", idList});
    if (!released.succeeded())
        return ActionOutcome::failure(released.failureText("scontrol", config_.commandTimeout) + " (job " + idList +
                                      " is requeued and held)");
    return ActionOutcome::success("Slurm: requeued " + job + " (job " + idList + ") excluding " + joined(excludeNodes));
}

ActionOutcome SlurmScheduler::isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                                          const std::string& reason) {
    if (reason.empty()) return ActionOutcome::failure("an isolation needs a reason");
    if (auto drained = updateNodes(nodes, "drain", reason); !drained.succeeded) return drained;
    std::string error;
    const auto ids = jobIdsOn(nodes, error);
    if (!error.empty())
        return ActionOutcome::failure("trays of rack " + rack + " drained, but listing their jobs failed: " + error);
    if (!ids.empty()) {
        const CommandResult requeued = run("scontrol", {"requeue", joined(ids)});
        if (!requeued.succeeded())
            return ActionOutcome::failure("trays of rack " + rack + " drained, but requeueing jobs " + joined(ids) +
                                          " failed: " + requeued.failureText("scontrol", config_.commandTimeout));
    }
    // The operation's result says what Slurm did not do, so nobody assumes the loop is closed.
    return ActionOutcome::success("Slurm: drained " + std::to_string(nodes.size()) + " trays of rack " + rack +
                                  (ids.empty() ? std::string(", no jobs to move") : ", requeued jobs " + joined(ids)) +
                                  ". Valve and tray power are not Slurm's: close the valve and power the trays "
                                  "down with the facility controls");
}

ActionOutcome SlurmScheduler::restoreRack(const std::string& rack, const std::vector<std::string>& nodes) {
    const SlurmNodeReading states = readNodeStates(nodes);
    if (!states.error.empty()) return ActionOutcome::failure(states.error);
    std::vector<std::string> out;
    for (const auto& node : states.nodes)
        if (node.state == v1::NODE_STATE_DRAINED || node.state == v1::NODE_STATE_DRAINING ||
            node.state == v1::NODE_STATE_DOWN)
            out.push_back(node.name);
    // Slurm refuses to resume a node that is not drained or down, so resume only those.
    if (out.empty()) return ActionOutcome::success("Slurm: no tray of rack " + rack + " was out of service");
    if (auto resumed = updateNodes(out, "resume", ""); !resumed.succeeded) return resumed;
    return ActionOutcome::success("Slurm: resumed " + std::to_string(out.size()) + " trays of rack " + rack);
}

SlurmJobReading SlurmScheduler::readJobPlacements() const {
    SlurmJobReading reading;
    // Node list first: it never contains '|', a job name may.
    const CommandResult result =
        run("squeue", {"-h", "-a", "-t", "RUNNING,COMPLETING,CONFIGURING,SUSPENDED", "-o", "%N|%j"});
    if (!result.succeeded()) {
        reading.error = result.failureText("squeue", config_.commandTimeout);
        return reading;
    }
    for (const std::string& line : lines(result.out)) {
        const auto bar = line.find('|');
        if (bar == std::string::npos) continue;
        const auto nodes = expandHostlist(std::string_view(line).substr(0, bar));
        if (!nodes) continue;  // not a node list (a future squeue format); better no placement than a wrong one
        for (const auto& node : *nodes) reading.jobsByNode[config_.fromSlurm(node)].push_back(line.substr(bar + 1));
    }
    return reading;
}

SlurmNodeReading SlurmScheduler::readNodeStates(const std::vector<std::string>& names) const {
    SlurmNodeReading states;
    for (const auto& name : names)
        if (!isPlainNodeName(name)) {
            states.error = "'" + name + "' is not a single Slurm node name";
            return states;
        }
    std::vector<std::string> args = {"-N", "-h", "-o", "%N|%T|%E"};
    if (!names.empty()) {
        args.push_back("-n");
        args.push_back(joined(toSlurm(names)));
    }
    const CommandResult result = run("sinfo", args);
    if (!result.succeeded()) {
        states.error = result.failureText("sinfo", config_.commandTimeout);
        return states;
    }
    std::set<std::string> seen;  // sinfo -N lists a node once per partition
    for (const std::string& line : lines(result.out)) {
        const auto first = line.find('|');
        const auto second = first == std::string::npos ? first : line.find('|', first + 1);
        if (second == std::string::npos) continue;
        SlurmNodeStatus node;
        node.name = config_.fromSlurm(line.substr(0, first));
        if (!seen.insert(node.name).second) continue;
        node.slurmState = line.substr(first + 1, second - first - 1);
        node.state = parseNodeState(node.slurmState);
        node.responding = node.slurmState.find('*') == std::string::npos;
        node.reason = line.substr(second + 1);  // a reason may itself contain '|'
        if (node.reason == "none") node.reason.clear();
        states.nodes.push_back(std::move(node));
    }
    return states;
}

}  // namespace watchfloor::server::control
