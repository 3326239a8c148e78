#include "HandoffBook.h"

#include "UtcTime.h"

namespace watchfloor::server::incidents {
namespace v1 = watchfloor::v1;

namespace {

HandoffBook::Result refuse(HandoffBook::Code code, std::string message) { return {code, std::move(message), 0}; }

std::uint64_t versionOf(const v1::ShiftHandoff& handoff) { return handoff.acknowledged_by().empty() ? 1 : 2; }

}  // namespace

HandoffBook::Result HandoffBook::checkPost(std::int64_t periodStartMs, std::int64_t periodEndMs) const {
    if (periodStartMs <= 0 || periodEndMs <= 0)
        return refuse(Code::InvalidArgument,
                      "a handoff needs the period it covers: handoff_period_start_unix_ms and "
                      "handoff_period_end_unix_ms (Unix ms)");
    if (periodEndMs <= periodStartMs)
        return refuse(Code::InvalidArgument, "the handoff period ends at " + utcTime(periodEndMs) +
                                                 ", not after its start " + utcTime(periodStartMs));
    const auto length = std::chrono::milliseconds(periodEndMs - periodStartMs);
    if (length > kMaxPeriod)
        return refuse(Code::InvalidArgument, "the handoff period is " + std::to_string(length.count() / 3'600'000) +
                                                 " h; at most " + std::to_string(kMaxPeriod.count()) + " h");
    return {Code::Ok,
            "post a handoff note for " + utcTime(periodStartMs) + " to " + utcTime(periodEndMs) +
                "; the next shift acknowledges it",
            0};
}

HandoffBook::Result HandoffBook::post(const v1::ShiftHandoff& handoff) {
    Result checked = checkPost(handoff.period_start_unix_ms(), handoff.period_end_unix_ms());
    if (!checked.ok()) return checked;
    std::lock_guard lock(mu_);
    if (byId_.count(handoff.id())) return {Code::Ok, "handoff " + handoff.id() + " is already posted", 1};
    byId_[handoff.id()] = handoff;
    byPosted_.emplace(handoff.posted_unix_ms(), handoff.id());
    changedLocked(handoff);
    // Bounded: the oldest go first; a console has long since shown them.
    while (byId_.size() > kHeld) {
        byId_.erase(byPosted_.begin()->second);
        byPosted_.erase(byPosted_.begin());
    }
    return {Code::Ok, "handoff " + handoff.id() + " posted by " + handoff.author() + " for the next shift", 1};
}

HandoffBook::Result HandoffBook::checkAcknowledgeLocked(const std::string& id, const std::string& principal) const {
    const auto found = byId_.find(id);
    if (found == byId_.end())
        return refuse(Code::NotFound, "no handoff " + id + " (fleetd holds the newest " + std::to_string(kHeld) + ")");
    const v1::ShiftHandoff& handoff = found->second;
    if (!handoff.acknowledged_by().empty())
        return {Code::Refused,
                "handoff " + id + " was already acknowledged by " + handoff.acknowledged_by() + " at " +
                    utcTime(handoff.acknowledged_unix_ms()),
                2};
    if (handoff.author() == principal)
        return {Code::Refused,
                "a handoff is acknowledged by the next shift; " + principal + " posted " + id +
                    " and cannot acknowledge it",
                1};
    return {Code::Ok,
            "acknowledge handoff " + id + " from " + handoff.author() + " (posted " +
                utcTime(handoff.posted_unix_ms()) + ")",
            1};
}

HandoffBook::Result HandoffBook::checkAcknowledge(const std::string& id, const std::string& principal) const {
    std::lock_guard lock(mu_);
    return checkAcknowledgeLocked(id, principal);
}

HandoffBook::Result HandoffBook::acknowledge(const std::string& id, const std::string& principal,
                                             const std::string& note, std::int64_t atUnixMs) {
    std::lock_guard lock(mu_);
    Result checked = checkAcknowledgeLocked(id, principal);
    if (!checked.ok()) return checked;
    v1::ShiftHandoff& handoff = byId_[id];
    handoff.set_acknowledged_by(principal);
    handoff.set_acknowledged_unix_ms(atUnixMs);
    handoff.set_acknowledge_note(note);
    changedLocked(handoff);
    return {Code::Ok, "handoff " + id + " from " + handoff.author() + " acknowledged by " + principal,
            versionOf(handoff)};
}

void HandoffBook::changedLocked(const v1::ShiftHandoff& handoff) { changed_[handoff.id()] = handoff; }

std::vector<v1::ShiftHandoff> HandoffBook::takeChanges() {
    std::lock_guard lock(mu_);
    std::vector<v1::ShiftHandoff> changes;
    for (auto& [id, handoff] : changed_) changes.push_back(std::move(handoff));
    changed_.clear();
    return changes;
}

}  // namespace watchfloor::server::incidents
