#pragma once
// A tray reboot through Slurm: the `scontrol reboot` command line, and where the reboot stands as
// `sinfo -N -o %N|%T|%E` shows it. slurmctld issues the reboot once the node is idle, runs the
// site's RebootProgram, and clears the reboot flag only when slurmd registers with a newer boot
// time; a node that does not come back within ResumeTimeout is set DOWN with "reboot timed out"
// (the states and reasons: docs/domain/break-fix.md, "Slurm: scontrol reboot").

#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::repair {

// What the tray does once it is back.
enum class AfterReboot {
    Resume,       // nextstate=RESUME: back in service
    StayDrained,  // no nextstate: the drain the node had before stays (only for a drained node:
                  // ASAP on a busy one lifts its own drain with the reboot)
    Down,         // nextstate=DOWN: held DOWN with "reboot complete"
};

struct SlurmRebootRequest {
    std::string node;   // Slurm's node name (one plain host name)
    bool asap = false;  // drain now and reboot once no job holds the node
    AfterReboot after = AfterReboot::Resume;
    std::string reason;  // "<principal>: <text>", one argument, never parsed by a shell
};

// scontrol's arguments after the program name: {"reboot", ["ASAP",] ["nextstate=…",] "reason=…", node}.
std::vector<std::string> scontrolRebootArguments(const SlurmRebootRequest& request);

enum class RebootStage {
    WaitingForJobs,  // requested; jobs still hold the node ("mixed@", "draining@")
    Requested,       // requested; the node is idle and slurmctld will issue it ("reboot")
    Issued,          // RebootProgram ran; waiting for slurmd to register ("reboot^")
    Back,            // the reboot flag is gone and the node is not DOWN: done
    BackDown,        // done with nextstate=DOWN ("down", reason "… : reboot complete")
    TimedOut,        // not back within ResumeTimeout: DOWN with "… : reboot timed out"
    Down,            // back without the reboot flag but DOWN for another reason (a health check)
    Unknown,         // a word this reader does not know: keep waiting, say what Slurm printed
};

struct RebootProgress {
    RebootStage stage = RebootStage::Unknown;
    std::string message;  // for the operation's progress or result line
    bool finished() const {
        return stage == RebootStage::Back || stage == RebootStage::BackDown || stage == RebootStage::TimedOut ||
               stage == RebootStage::Down;
    }
    bool succeeded() const { return stage == RebootStage::Back || stage == RebootStage::BackDown; }
};

// The stage from one node's sinfo line: `state` as %T prints it ("reboot^", "draining@", "idle"),
// `reason` as %E does. `node` names the tray in the message.
RebootProgress readRebootProgress(std::string_view node, std::string_view state, std::string_view reason);

}  // namespace watchfloor::server::repair
