#pragma once
// Shift handoff notes (fleet.proto ShiftHandoff): the outgoing shift posts one, someone of the
// incoming shift acknowledges it. fleetd's own record, fed by ControlService (POST_HANDOFF,
// ACKNOWLEDGE_HANDOFF through control::IncidentActions) and rebuilt from the audit log at start.
//
// Threads: every method from any thread (ControlService calls, the tick thread's takeChanges).
// Times are fleetd's wall clock (Unix ms), the clock of operations.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace watchfloor::server::incidents {

class HandoffBook {
public:
    // Why a request was refused; Refused is a state that forbids it (FAILED_PRECONDITION).
    enum class Code { Ok, InvalidArgument, NotFound, Refused };
    struct Result {
        Code code = Code::Ok;
        std::string message;             // the refusal, or one line saying what was (or will be) done
        std::uint64_t stateVersion = 0;  // 1 unacknowledged, 2 acknowledged; 0 for a post
        bool ok() const { return code == Code::Ok; }
    };
    // Handoffs held for acknowledgement by id, oldest dropped first. Not the stream's bound: a
    // snapshot and a console hold the newest fleetstate::ShiftHandoffs::kRetiredKept.
    static constexpr std::size_t kHeld = 100;
    static constexpr std::chrono::hours kMaxPeriod{24 * 7};

    // The preview of a post: the period's bounds.
    Result checkPost(std::int64_t periodStartMs, std::int64_t periodEndMs) const;
    // Holds `handoff` (id, author, note, period, posted time, operation) as checkPost decides; a
    // second post of an id already held changes nothing (a restored one).
    Result post(const watchfloor::v1::ShiftHandoff& handoff);
    // The preview of an acknowledgement by `principal`.
    Result checkAcknowledge(const std::string& id, const std::string& principal) const;
    Result acknowledge(const std::string& id, const std::string& principal, const std::string& note,
                       std::int64_t atUnixMs);

    // What changed since the last call (whole messages), for the tick's Delta; the store and a
    // console hold them as FleetStateKinds.h says.
    std::vector<watchfloor::v1::ShiftHandoff> takeChanges();

private:
    Result checkAcknowledgeLocked(const std::string& id, const std::string& principal) const;
    void changedLocked(const watchfloor::v1::ShiftHandoff& handoff);

    mutable std::mutex mu_;
    std::map<std::string, watchfloor::v1::ShiftHandoff> byId_;
    std::multimap<std::int64_t, std::string> byPosted_;  // posted time -> id, to drop the oldest
    std::map<std::string, watchfloor::v1::ShiftHandoff> changed_;
};

}  // namespace watchfloor::server::incidents
