#include "EventJournal.h"

#include <algorithm>

namespace watchfloor::server::service {

void EventJournal::append(const watchfloor::v1::Event& event) {
    std::lock_guard lock(mu_);
    events_.push_back(event);
    while (events_.size() > capacity_) events_.pop_front();
}

std::vector<watchfloor::v1::Event> EventJournal::newestFirst(std::uint64_t beforeId, std::size_t limit,
                                                             const Predicate& matches, bool* moreAfter) const {
    std::vector<watchfloor::v1::Event> page;
    *moreAfter = false;
    std::lock_guard lock(mu_);
    auto end = events_.end();
    if (beforeId != 0)
        end = std::lower_bound(events_.begin(), events_.end(), beforeId,
                               [](const watchfloor::v1::Event& e, std::uint64_t id) { return e.id() < id; });
    for (auto it = end; it != events_.begin();) {
        --it;
        if (!matches(*it)) continue;
        if (page.size() == limit) {
            *moreAfter = true;
            break;
        }
        page.push_back(*it);
    }
    return page;
}

std::vector<watchfloor::v1::Event> EventJournal::recent(std::size_t limit, const Predicate& matches) const {
    std::vector<watchfloor::v1::Event> out;
    std::lock_guard lock(mu_);
    for (auto it = events_.rbegin(); it != events_.rend() && out.size() < limit; ++it)
        if (matches(*it)) out.push_back(*it);
    std::reverse(out.begin(), out.end());
    return out;
}

std::uint64_t EventJournal::lastId() const {
    std::lock_guard lock(mu_);
    return events_.empty() ? 0 : events_.back().id();
}

std::uint64_t EventJournal::lastIdAtOrBefore(std::int64_t timeMs) const {
    std::lock_guard lock(mu_);
    auto after = std::upper_bound(events_.begin(), events_.end(), timeMs,
                                  [](std::int64_t t, const watchfloor::v1::Event& e) { return t < e.time_unix_ms(); });
    return after == events_.begin() ? 0 : std::prev(after)->id();
}

}  // namespace watchfloor::server::service
