#include "EventAcknowledgementBook.h"

#include <algorithm>

namespace watchfloor::server::fleetd {

std::uint64_t EventAcknowledgementBook::firstEventIdAfter(const control::OperationsEngine& engine) {
    std::uint64_t highest = 0;
    watchfloor::v1::ListOperationsRequest request;
    request.set_page_size(1000);
    for (;;) {
        const auto page = engine.list(request);
        for (const auto& op : page.response.operations())
            if (op.request().type() == watchfloor::v1::ACTION_TYPE_ACKNOWLEDGE_EVENT)
                highest = std::max(highest, op.request().event_id());
        if (!page.status.ok() || page.response.next_page_token().empty()) break;
        request.set_page_token(page.response.next_page_token());
    }
    return highest + 1;
}

bool EventAcknowledgementBook::journaled(std::uint64_t eventId) const {
    return eventId >= firstEventId_ && eventId <= lastJournaled_.load(std::memory_order_acquire);
}

void EventAcknowledgementBook::noteJournaled(std::uint64_t eventId) {
    if (eventId > lastJournaled_.load(std::memory_order_relaxed))
        lastJournaled_.store(eventId, std::memory_order_release);
}

control::ActionOutcome EventAcknowledgementBook::acknowledge(std::uint64_t eventId, const std::string& principal,
                                                             const std::string& note) {
    const std::string event = "event " + std::to_string(eventId);
    if (!journaled(eventId)) return control::ActionOutcome::failure(event + " is not one of this fleetd run's events");
    std::lock_guard lock(mutex_);
    const auto [found, inserted] = acknowledged_.try_emplace(eventId, Acknowledgement{principal, note});
    if (!inserted)
        return control::ActionOutcome::failure(event + " was already acknowledged by " + found->second.principal +
                                               (found->second.note.empty() ? "" : " (" + found->second.note + ")"));
    return control::ActionOutcome::success(event + " acknowledged by " + principal + (note.empty() ? "" : ": " + note));
}

std::optional<control::EventFacts> EventAcknowledgementBook::facts(std::uint64_t eventId) const {
    if (!journaled(eventId)) return std::nullopt;
    control::EventFacts facts;
    facts.id = eventId;
    std::lock_guard lock(mutex_);
    facts.acknowledged = acknowledged_.count(eventId) > 0;
    facts.stateVersion = facts.acknowledged ? 2 : 1;
    return facts;
}

}  // namespace watchfloor::server::fleetd
