#pragma once
// Who may do what, as fleetd enforces it and the console offers it: the roles are ordered
// (viewer < operator < admin) and a role covers every action whose least role is at most its own.
// One ordering for both sides, so a button the console shows is one fleetd will accept.

#include "watchfloor/v1/control.pb.h"

namespace watchfloor::proto {

// 0 for ROLE_UNSPECIFIED and a number this build does not know: such a role covers nothing.
constexpr int roleRank(watchfloor::v1::Role role) {
    switch (role) {
    case watchfloor::v1::ROLE_VIEWER: return 1;
    case watchfloor::v1::ROLE_OPERATOR: return 2;
    case watchfloor::v1::ROLE_ADMIN: return 3;
    default: return 0;
    }
}

// True when `held` may run an action whose least role is `least` (never when either is unknown).
constexpr bool roleCovers(watchfloor::v1::Role held, watchfloor::v1::Role least) {
    return roleRank(held) > 0 && roleRank(least) > 0 && roleRank(held) >= roleRank(least);
}

}  // namespace watchfloor::proto
