#pragma once
// Which of this run's events an operator has acknowledged, with owner and note. fleetd's event
// record, not the fleet's: the engine acknowledges through it, and previews read it back, so a
// second acknowledgement of the same event fails with who acknowledged it first.
//
// Event ids are consecutive within one fleetd run (the state store assigns them), so an event
// exists when the run's first id <= id <= the last id journaled. fleetd starts each run's ids
// past every event id an acknowledgement in the audit log names (firstEventIdAfter), so a
// recovered acknowledgement never speaks for a new run's event. Acknowledgements themselves live
// as long as the run.

#include "Actuator.h"
#include "FleetView.h"
#include "OperationsEngine.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace watchfloor::server::fleetd {

class EventAcknowledgementBook final : public control::EventAcknowledger {
public:
    explicit EventAcknowledgementBook(std::uint64_t firstEventId = 1) : firstEventId_(firstEventId) {}

    // The first event id for a run whose recovered operations are `engine`'s: one past the
    // highest event id any ACKNOWLEDGE_EVENT operation names (1 when there is none).
    static std::uint64_t firstEventIdAfter(const control::OperationsEngine& engine);

    std::uint64_t firstEventId() const { return firstEventId_; }
    void setFirstEventId(std::uint64_t id) { firstEventId_ = id; }  // before serving

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

    bool journaled(std::uint64_t eventId) const;

    std::uint64_t firstEventId_;
    std::atomic<std::uint64_t> lastJournaled_{0};
    mutable std::mutex mutex_;
    std::unordered_map<std::uint64_t, Acknowledgement> acknowledged_;
};

}  // namespace watchfloor::server::fleetd
