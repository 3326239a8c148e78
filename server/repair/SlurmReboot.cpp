#include "SlurmReboot.h"

namespace watchfloor::server::repair {

std::vector<std::string> scontrolRebootArguments(const SlurmRebootRequest& request) {
    std::vector<std::string> args = {"reboot"};
    if (request.asap) args.emplace_back("ASAP");
    // No next state leaves a drain that was there before the reboot (and lifts ASAP's own).
    if (request.after == AfterReboot::Resume) args.emplace_back("nextstate=RESUME");
    if (request.after == AfterReboot::Down) args.emplace_back("nextstate=DOWN");
    args.push_back("reason=" + request.reason);
    args.push_back(request.node);
    return args;
}

namespace {

// sinfo's flag characters after the state word: '*' not responding, '@' reboot requested,
// '^' reboot issued, and the power and maintenance ones.
std::string_view baseWord(std::string_view state) {
    while (!state.empty() && std::string_view("*~#!%$@^-").find(state.back()) != std::string_view::npos)
        state.remove_suffix(1);
    return state;
}

bool endsWithStep(std::string_view reason, std::string_view step) {
    // slurmctld appends its steps with " : "; the newest is last.
    return reason.ends_with(step);
}

}  // namespace

RebootProgress readRebootProgress(std::string_view node, std::string_view state, std::string_view reason) {
    const std::string name(node);
    const std::string_view base = baseWord(state);
    const bool responding = state.find('*') == std::string_view::npos;
    if (endsWithStep(reason, "reboot timed out"))
        return {RebootStage::TimedOut, name +
                                           " did not come back from its reboot within Slurm's ResumeTimeout: DOWN (" +
                                           std::string(reason) + ")"};
    if (state.find('^') != std::string_view::npos)
        return {RebootStage::Issued, "rebooting: waiting for " + name + " to register with Slurm again"};
    if (base == "reboot" || base == "boot")
        return {RebootStage::Requested, responding ? "reboot requested: Slurm issues it now that " + name + " is idle"
                                                   : "reboot requested: " + name + " does not answer Slurm"};
    if (state.find('@') != std::string_view::npos)
        return {RebootStage::WaitingForJobs, "reboot requested: waiting for the jobs on " + name + " to leave"};
    if (base == "down" && endsWithStep(reason, "reboot complete"))
        return {RebootStage::BackDown, name + " rebooted and is held DOWN as asked"};
    if (base == "down")
        return {RebootStage::Down,
                name + " is DOWN after its reboot" + (reason.empty() ? std::string() : ": " + std::string(reason))};
    if (base == "idle" || base == "mixed" || base == "allocated" || base == "drained" || base == "draining" ||
        base == "completing" || base == "planned" || base == "reserved")
        return {RebootStage::Back, name + " rebooted and registered with Slurm (" + std::string(state) + ")"};
    return {RebootStage::Unknown,
            "waiting for " + name + ": Slurm shows it " +
                (state.empty() ? std::string("without a state") : "'" + std::string(state) + "'")};
}

}  // namespace watchfloor::server::repair
