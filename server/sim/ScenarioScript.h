#pragma once
// Scripted faults at simulated offsets from the start (grammar in scenarios/README.md), e.g.
//   at 10m leak rack=r03
//   at 5m xid 79 gpu=r01-n04-g2
//   at 2m link-flap link=r02-n01-g0-l03 count=5

#include "ConfigError.h"
#include "FleetModel.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

enum class ScriptVerb {
    Xid,                // xid CODE gpu=G
    Fail,               // fail CAUSE gpu=G | node=N | job=J   (a cause from the failure table)
    Leak,               // leak rack=R
    PumpFail,           // pump-fail rack=R   (the rack's row CDU loses a pump)
    FilterClog,         // filter-clog rack=R
    SensorFault,        // sensor-fault rack=R [for=D]
    FacilityExcursion,  // facility-excursion region=X [delta_c=C] [for=D]
    ValveClose,         // valve-close rack=R [for=D]   (stuck valve, no isolation)
    Isolate,            // isolate rack=R
    Restore,            // restore rack=R
    LinkFlap,           // link-flap link=L|nic=P [count=N]
    LinkDown,           // link-down link=L|nic=P [for=D]
    Ber,                // ber link=L|nic=P [value=BER]
    LinkDrift,          // link-drift nic=P hours=H [down_after=D]
    Straggler,          // straggler node=N [factor=F] [for=D]
    Drain,              // drain node=N [reason=TEXT]     (operator actions, as fleetd would send them)
    Resume,             // resume node=N [reason=TEXT]
    Requeue,            // requeue job=J [exclude=N,N] [reason=TEXT]
};

struct ScriptedFault {
    std::chrono::milliseconds at{};
    ScriptVerb verb{};
    EntityRef target;
    std::uint32_t code = 0;  // xid number or failure cause id
    double value = 0;        // factor, delta_c, BER, hours to the Error line
    std::uint32_t count = 1;
    std::chrono::milliseconds duration{};     // 0 = the twin's own (sampled) duration; link-drift: down_after
    std::string reason;                       // operator actions: stored as given
    std::vector<std::uint32_t> excludeTrays;  // requeue: tray ordinals
    int line = 0;
};

// Resolves entity names (fleet model plus job names).
using EntityResolver = std::function<std::optional<EntityRef>(const std::string&)>;

std::optional<std::vector<ScriptedFault>> readScenarioFile(const std::string& path, const EntityResolver& resolve,
                                                           ConfigError* error);

}  // namespace watchfloor::server::sim
