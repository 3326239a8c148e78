#include "DrainOwnership.h"

namespace watchfloor::server {

std::string principalOfReason(std::string_view reason) {
    const auto colon = reason.find(": ");
    if (colon == std::string_view::npos || colon == 0) return {};
    const std::string_view principal = reason.substr(0, colon);
    if (principal.find_first_of(" \t") != std::string_view::npos) return {};
    return std::string(principal);
}

watchfloor::v1::DrainOwner drainOwnerFromReason(std::string_view reason) {
    watchfloor::v1::DrainOwner owner;
    owner.set_principal(principalOfReason(reason));
    owner.set_kind(owner.principal() == kAutomationPrincipal ? watchfloor::v1::DRAIN_OWNER_KIND_AUTOMATION
                                                             : watchfloor::v1::DRAIN_OWNER_KIND_OPERATOR);
    return owner;
}

watchfloor::v1::DrainOwner healthCheckOwner() {
    watchfloor::v1::DrainOwner owner;
    owner.set_kind(watchfloor::v1::DRAIN_OWNER_KIND_HEALTH_CHECK);
    return owner;
}

bool ownedByPerson(const watchfloor::v1::DrainOwner& owner) {
    return owner.kind() == watchfloor::v1::DRAIN_OWNER_KIND_OPERATOR;
}

}  // namespace watchfloor::server
