#pragma once
// Which of this run's events an operator has acknowledged, with owner and note. fleetd's event
// record, not the fleet's: the engine acknowledges through it, and previews read it back, so a
// second acknowledgement of the same event fails with who acknowledged it first.
//
// Event ids are consecutive within one fleetd run (the state store assigns them), so an event
// exists when 1 <= id <= the last id journaled. Acknowledgements live as long as the run: after
// a restart the ids start again and name other events.

#include "Actuator.h"
#include "FleetView.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace watchfloor::server::fleetd {

class EventAcknowledgements final : public control::EventAcknowledger {
public:
    // Tick thread, for every event journaled, before any console can see it.
    void noteJournaled(std::uint64_t eventId);

    control::ActionOutcome acknowledge(std::uint64_t eventId, const std::string& principal,
                                       const std::string& note) override;

    // For previews: nullopt for an id this run has not journaled. stateVersion 1 = open,
    // 2 = acknowledged, so a preview taken before someone else's acknowledgement goes stale.
    std::optional<control::EventFacts> facts(std::uint64_t eventId) const;

private:
    struct Acknowledgement {
        std::string principal;
        std::string note;
    };

    std::atomic<std::uint64_t> lastJournaled_{0};
    mutable std::mutex mutex_;
    std::unordered_map<std::uint64_t, Acknowledgement> acknowledged_;
};

}  // namespace watchfloor::server::fleetd
