#include "EventAcknowledgements.h"

namespace watchfloor::server::fleetd {

void EventAcknowledgements::noteJournaled(std::uint64_t eventId) {
    if (eventId > lastJournaled_.load(std::memory_order_relaxed)) lastJournaled_.store(eventId, std::memory_order_release);
}

control::ActionOutcome EventAcknowledgements::acknowledge(std::uint64_t eventId, const std::string& principal,
                                                          const std::string& note) {
    const std::string event = "event " + std::to_string(eventId);
    if (eventId == 0 || eventId > lastJournaled_.load(std::memory_order_acquire))
        return control::ActionOutcome::failure(event + " is not one of this fleetd run's events");
    std::lock_guard lock(mutex_);
    const auto [found, inserted] = acknowledged_.try_emplace(eventId, Acknowledgement{principal, note});
    if (!inserted)
        return control::ActionOutcome::failure(event + " was already acknowledged by " + found->second.principal +
                                               (found->second.note.empty() ? "" : " (" + found->second.note + ")"));
    return control::ActionOutcome::success(event + " acknowledged by " + principal + (note.empty() ? "" : ": " + note));
}

std::optional<control::EventFacts> EventAcknowledgements::facts(std::uint64_t eventId) const {
    if (eventId == 0 || eventId > lastJournaled_.load(std::memory_order_acquire)) return std::nullopt;
    control::EventFacts facts;
    facts.id = eventId;
    std::lock_guard lock(mutex_);
    facts.acknowledged = acknowledged_.count(eventId) > 0;
    facts.stateVersion = facts.acknowledged ? 2 : 1;
    return facts;
}

}  // namespace watchfloor::server::fleetd
