#include "NameIndex.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_set>

namespace watchfloor::client {

namespace {

// Lower is better: gaps between matched characters, then length.
bool subsequenceScore(std::string_view name, std::string_view query, std::size_t* gaps) {
    std::size_t pos = 0;
    std::size_t total = 0;
    std::size_t last = std::string_view::npos;
    for (char c : query) {
        const std::size_t found = name.find(c, pos);
        if (found == std::string_view::npos) return false;
        if (last != std::string_view::npos) total += found - last - 1;
        last = found;
        pos = found + 1;
    }
    *gaps = total;
    return true;
}

}  // namespace

std::string NameIndex::fold(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

void NameIndex::rebuild(std::vector<Entry> entries) {
    m_entries = std::move(entries);
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry& a, const Entry& b) {
        const int c = a.folded.compare(b.folded);
        return c != 0 ? c < 0 : a.id < b.id;
    });
}

EntityId NameIndex::find(std::string_view name) const {
    const std::string key = fold(name);
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), key,
                                     [](const Entry& e, const std::string& k) { return e.folded < k; });
    if (it == m_entries.end() || it->folded != key) return {};
    // A clashing raw name matches several endpoints: ambiguous, the caller must qualify it.
    if (std::next(it) != m_entries.end() && std::next(it)->folded == key) return {};
    return it->id;
}

std::size_t NameIndex::bytes() const {
    std::size_t total = m_entries.capacity() * sizeof(Entry);
    for (const Entry& e : m_entries) {
        if (e.folded.capacity() > 15) total += e.folded.capacity() + 1;  // beyond the small-string buffer
    }
    return total;
}

bool NameIndex::better(const Hit& a, const Hit& b) {
    return std::tie(a.rank, a.score, a.length, a.folded, a.id) < std::tie(b.rank, b.score, b.length, b.folded, b.id);
}

std::vector<EntityId> NameIndex::search(std::string_view query, std::size_t limit) const {
    std::vector<Hit> hits;
    collect(fold(query), limit, hits);
    std::vector<EntityId> out;
    std::unordered_set<std::uint64_t> seen;
    for (const Hit& hit : hits) {
        if (seen.insert(hit.id.key()).second) out.push_back(hit.id);
    }
    return out;
}

void NameIndex::collect(std::string_view q, std::size_t limit, std::vector<Hit>& out) const {
    if (q.empty() || limit == 0) return;
    const std::size_t before = out.size();

    // Ranks 0-1: exact and prefix, from the sorted order.
    auto first = std::lower_bound(m_entries.begin(), m_entries.end(), q,
                                  [](const Entry& e, std::string_view k) { return std::string_view(e.folded) < k; });
    std::vector<Hit> prefixed;
    for (auto it = first; it != m_entries.end() && it->folded.compare(0, q.size(), q) == 0; ++it) {
        prefixed.push_back({it->folded.size() == q.size() ? 0 : 1, 0, it->folded.size(), it->folded, it->id});
    }
    const std::size_t keepPrefixed = std::min(prefixed.size(), limit);
    std::partial_sort(prefixed.begin(), prefixed.begin() + std::ptrdiff_t(keepPrefixed), prefixed.end(), better);
    out.insert(out.end(), prefixed.begin(), prefixed.begin() + std::ptrdiff_t(keepPrefixed));
    if (out.size() - before >= limit) return;

    // Ranks 2-3: substring, then subsequence, over everything (a few ms at 250k names).
    std::vector<Hit> scored;
    for (const Entry& e : m_entries) {
        if (e.folded.compare(0, q.size(), q) == 0) continue;
        const std::size_t at = e.folded.find(q);
        std::size_t gaps = 0;
        if (at != std::string::npos) {
            scored.push_back({2, at, e.folded.size(), e.folded, e.id});
        } else if (subsequenceScore(e.folded, q, &gaps)) {
            scored.push_back({3, gaps, e.folded.size(), e.folded, e.id});
        }
    }
    const std::size_t keep = std::min(scored.size(), limit - (out.size() - before));
    std::partial_sort(scored.begin(), scored.begin() + std::ptrdiff_t(keep), scored.end(), better);
    out.insert(out.end(), scored.begin(), scored.begin() + std::ptrdiff_t(keep));
}

}  // namespace watchfloor::client
