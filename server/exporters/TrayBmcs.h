#pragma once
// Every compute tray's BMC as the twin's Redfish service (`--serve-redfish`) answers it, laid out
// as OpenBMC's bmcweb and NVIDIA's GB200 BMC lay theirs: /redfish/v1/Systems (one ComputerSystem
// per tray, Id = the tray's name), its #ComputerSystem.Reset action with the reset types behind
// @Redfish.ActionInfo, Chassis/<tray>, TaskService and its Tasks. A POST of Reset runs the twin's
// own break/fix step on the tray (the twin's control::RepairBackend: its modelled times and fix
// probabilities) and answers 202 with a Task that runs until the twin's step ends; PowerState
// reads Off for the first half of the step, PoweringOn for the second, On otherwise. The twin
// runs GracefulRestart and ForceRestart as its reboot, PowerCycle as its power cycle, and offers
// no other type. With credentials, everything but the service root needs Basic auth (401 else).

#include "RedfishTree.h"
#include "RepairBackend.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::exporters {

struct TrayBmcOptions {
    control::RepairBackend* repairs = nullptr;  // the twin's; null: no tray BMCs are served
    std::string user, password;                 // empty user: no authentication
};

class TrayBmcs {
public:
    TrayBmcs(const watchfloor::v1::Topology& topology, TrayBmcOptions options);

    // A GET under /redfish/v1 (`s`: the path's segments after it) the BMCs answer; nullopt when
    // the path is not theirs.
    std::optional<RedfishAnswer> get(const std::vector<std::string_view>& s, std::string_view path);
    struct Posted {
        RedfishAnswer answer;
        std::string location;  // a 202's task monitor
    };
    Posted post(std::string_view path, std::string_view body);
    // Whether `authorization` (the request's header) lets a request in.
    bool authorised(std::string_view authorization) const;
    const std::vector<std::string>& trays() const { return trays_; }

private:
    struct Task {
        std::string id, tray, resetType, handle;
        control::RepairStep step;
        std::string startTime;
        bool finished = false, succeeded = false;
        double ratio = 0;
        std::string message, endTime;
    };
    bool isTray(std::string_view name) const;
    void refresh(Task& task);  // asks the twin where its step stands
    std::string system(const std::string& tray);
    std::string chassis(const std::string& tray) const;
    std::string powerState(const std::string& tray);
    std::string task(const Task& task) const;
    std::string actionInfo(const std::string& tray) const;
    std::string taskService() const;
    std::string tasks() const;

    std::vector<std::string> trays_;  // sorted
    TrayBmcOptions options_;
    std::string expectedAuthorization_;
    std::mutex mutex_;  // the tasks; the server's threads answer at once
    std::map<std::uint64_t, Task> tasks_;
    std::map<std::string, std::uint64_t> runningOn_;  // tray -> its task while the twin's step runs
    std::uint64_t nextTask_ = 1;
};

// The ResetType values the twin's BMCs run.
inline constexpr std::string_view kTwinResetTypes[] = {"GracefulRestart", "ForceRestart", "PowerCycle"};

}  // namespace watchfloor::server::exporters
