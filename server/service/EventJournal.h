#pragma once
// The bounded journal of events of this fleetd run, oldest first, for snapshots (recent events)
// and ListEvents (newest first, paged by event id so pages never overlap or skip).

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace watchfloor::server::service {

class EventJournal {
public:
    explicit EventJournal(std::size_t capacity) : capacity_(capacity) {}

    void append(const watchfloor::v1::Event& event);  // ids must increase

    using Predicate = std::function<bool(const watchfloor::v1::Event&)>;
    // Up to `limit` matching events with id < beforeId (0 = no bound), newest first.
    // `moreAfter` tells whether an older matching event remains.
    std::vector<watchfloor::v1::Event> newestFirst(std::uint64_t beforeId, std::size_t limit, const Predicate& matches,
                                                   bool* moreAfter) const;
    // The newest `limit` matching events, oldest first (for snapshots).
    std::vector<watchfloor::v1::Event> recent(std::size_t limit, const Predicate& matches) const;
    std::uint64_t lastId() const;
    // The id of the newest event at or before `timeMs` (events are journaled in time order); 0 = none kept.
    std::uint64_t lastIdAtOrBefore(std::int64_t timeMs) const;

private:
    std::size_t capacity_;
    mutable std::mutex mu_;
    std::deque<watchfloor::v1::Event> events_;
};

}  // namespace watchfloor::server::service
