#pragma once
// Name → entity lookup for the whole fleet, and the ranked search behind the Ctrl+K jump box:
// exact match first, then prefix, then substring, then subsequence ("r1n7g2" finds
// "r01-n07-g2"); shorter names first within a rank. Case-insensitive.

#include "EntityId.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::client {

class NameIndex {
public:
    struct Entry {
        std::string folded;  // lower-case searchable name
        EntityId id;
    };
    // One search match. Lower ranks are better: 0 exact, 1 prefix, 2 substring, 3 subsequence;
    // within a rank a lower score (substring position, subsequence gaps), then a shorter name.
    struct Hit {
        int rank = 0;
        std::size_t score = 0;
        std::size_t length = 0;
        std::string_view folded;  // into the index; valid while it is
        EntityId id;
    };
    static bool better(const Hit& a, const Hit& b);

    void rebuild(std::vector<Entry> entries);
    void clear() { m_entries.clear(); }
    std::size_t size() const { return m_entries.size(); }
    std::size_t bytes() const;  // heap, an estimate

    EntityId find(std::string_view name) const;
    std::vector<EntityId> search(std::string_view query, std::size_t limit) const;
    // The `limit` best hits for a query that is already folded, appended to `out` best first.
    // Several indexes (one per endpoint) are searched as one by merging their hits with better().
    void collect(std::string_view foldedQuery, std::size_t limit, std::vector<Hit>& out) const;

    static std::string fold(std::string_view s);

private:
    std::vector<Entry> m_entries;  // sorted by folded
};

}  // namespace watchfloor::client
