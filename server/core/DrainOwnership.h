#pragma once
// Who holds a compute tray out of service (fleet.proto DrainOwner). The control plane stores
// every action's reason as "<principal>: <text>" (control.proto ActionRequest.reason) and
// automation acts as the principal "auto", so a drain's stored reason names its owner.

#include "watchfloor/v1/fleet.pb.h"

#include <string>
#include <string_view>

namespace watchfloor::server {

inline constexpr std::string_view kAutomationPrincipal = "auto";

// The principal of a reason stored as "<principal>: <text>"; empty when it has no such prefix
// (a drain made outside fleetd, a health check's own reason). A principal is one word: no blank.
std::string principalOfReason(std::string_view reason);

// The owner of a drain in force with this stored reason: AUTOMATION for "auto: …", else a
// person (OPERATOR), with the principal when the reason names one.
watchfloor::v1::DrainOwner drainOwnerFromReason(std::string_view reason);

// The health check holds the tray (a fault, a repair, an isolation), no drain by anyone.
watchfloor::v1::DrainOwner healthCheckOwner();

// True for a drain a person made (OPERATOR): automation must never undo it.
bool ownedByPerson(const watchfloor::v1::DrainOwner& owner);

}  // namespace watchfloor::server
