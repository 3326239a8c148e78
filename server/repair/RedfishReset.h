#pragma once
// A tray reboot or power cycle through its BMC's Redfish ComputerSystem.Reset action, followed by
// polling (docs/domain/break-fix.md, "Redfish"). start() reads the system (named, or the only
// member of /redfish/v1/Systems), finds the #ComputerSystem.Reset target and the reset types the
// BMC allows (inline ResetType@Redfish.AllowableValues, or the @Redfish.ActionInfo resource),
// chooses one for the step and POSTs it, once. poll() makes at most one short request: the Task
// monitor while a 202's task runs, then the system's PowerState.
//
// The step is done when the BMC says the reset is over and the host is powered again: a Task that
// reached Completed (Exception, Killed, Cancelled: failed with the task's messages), then
// PowerState On. Without a Task (200 / 204), PowerState must be seen away from On and back, or
// read On once `settle` has passed since the POST: a warm restart may never drop the power the
// BMC reports. PowerState not On by `powerOnTimeout` after the POST, or a Task not ended by
// `taskTimeout`, fails the step. Nothing is POSTed again for a handle: after a fleetd restart the
// handle alone (system, task monitor, reset type, POST time) lets poll() carry on.

#include "BmcSession.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::repair {

enum class ResetKind { Reboot, PowerCycle };

struct RedfishResetSettings {
    std::string systemId;  // empty: the only member of /redfish/v1/Systems
    // GracefulRestart not offered: ForceRestart instead (the OS gets no shutdown). Off by
    // default: a forced restart of a tray whose OS still answers is the operator's call.
    bool allowForceRestart = false;
    std::chrono::seconds taskTimeout{std::chrono::minutes(15)};
    std::chrono::seconds powerOnTimeout{std::chrono::minutes(20)};
    std::chrono::seconds settle{std::chrono::seconds(90)};
};

// The #ComputerSystem.Reset action of a ComputerSystem resource.
struct ResetAction {
    std::string target;                // the POST URI
    std::vector<std::string> allowed;  // inline ResetType@Redfish.AllowableValues
    std::string actionInfo;            // @Redfish.ActionInfo URI, when the values are there
    std::string powerState;
    std::string error;  // not a system with a reset action
};
ResetAction readResetAction(std::string_view systemJson);
// ResetType's AllowableValues from an ActionInfo resource; `error` when it has none.
std::vector<std::string> readActionInfo(std::string_view json, std::string* error);
// Members' @odata.id of a collection.
std::vector<std::string> readMembers(std::string_view json);

struct ResetChoice {
    std::string resetType;  // empty: refused
    std::string refusal;    // names what the BMC allows
};
// Reboot: GracefulRestart (ForceRestart when allowed by the settings); power cycle: PowerCycle
// only. ForceOff then On is not offered in its place: two POSTs, and a tray left off if the second
// one fails.
ResetChoice chooseResetType(ResetKind kind, const std::vector<std::string>& allowed, bool allowForceRestart);

struct TaskReading {
    bool isTask = false;
    std::string state;     // TaskState
    std::string status;    // TaskStatus
    std::string messages;  // Messages[].Message, joined
    int percent = -1;
};
TaskReading readTask(std::string_view json);

struct ResetProgress {
    bool finished = false;
    bool succeeded = false;
    std::string message;     // progress line, or the result in the BMC's words
    std::string handle;      // set once the POST was accepted
    std::string powerState;  // as last read
    std::string resetType;
    double ratio = 0;
};

class RedfishReset {  // one tray's BMC; one thread at a time
public:
    RedfishReset(BmcEndpoint bmc, RedfishResetSettings settings);

    ResetProgress start(ResetKind kind, const std::string& tray);
    ResetProgress poll(const std::string& handle);

private:
    struct Followed {
        bool taskEnded = false;
        bool sawOff = false;
    };
    struct Handle;
    std::string systemPath(std::string* error);
    ResetProgress refused(std::string message) const;
    std::string unreached(const BmcAnswer& answer, const std::string& what) const;

    BmcSession session_;
    RedfishResetSettings settings_;
    std::map<std::string, Followed> followed_;  // by handle; lost with fleetd, rebuilt from the BMC
};

// Wall-clock now in ms: handles carry the POST's time so a restarted fleetd still times out.
std::int64_t redfishNowMs();

}  // namespace watchfloor::server::repair
