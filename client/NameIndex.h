#pragma once
// Name → entity lookup for the whole fleet, and the ranked search behind the Ctrl+K jump box:
// exact match first, then prefix, then substring, then subsequence ("r1n7g2" finds
// "r01-n07-g2"); shorter names first within a rank. Case-insensitive.

#include "client/EntityId.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::client {

class NameIndex {
public:
    struct Entry {
        std::string folded;  // lower-case searchable name (raw, or "label/raw" when qualified)
        EntityId id;
    };

    void rebuild(std::vector<Entry> entries);
    void clear() { m_entries.clear(); }
    std::size_t size() const { return m_entries.size(); }

    EntityId find(std::string_view name) const;
    std::vector<EntityId> search(std::string_view query, std::size_t limit) const;

    static std::string fold(std::string_view s);

private:
    std::vector<Entry> m_entries;  // sorted by folded
};

}  // namespace watchfloor::client
