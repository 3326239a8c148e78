#include "DeltaCoalescer.h"

#include "FleetStateKinds.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
// Appends (entity, value) to the block of (metric, time), creating it on first use.
class BlockWriter {
public:
    explicit BlockWriter(v1::Delta* delta) : delta_(delta) {}
    void add(v1::Metric metric, std::int64_t timeMs, std::uint32_t entity, float value) {
        auto& block = blocks_[blockKey(metric, timeMs)];
        if (!block) {
            block = delta_->add_samples();
            block->set_metric(metric);
            block->set_sample_time_unix_ms(timeMs);
        }
        block->add_entity_indexes(entity);
        block->add_values(value);
    }

private:
    v1::Delta* delta_;
    std::unordered_map<std::uint64_t, v1::SampleBlock*> blocks_;
};

constexpr std::size_t kBytesPerSample = 8;

// A repeated field's elements, last first: within one delta a later record of a key is newer.
// (Not std::views::reverse: clang 14 cannot check libstdc++ 12's range concepts for it.)
template <class Field>
struct NewestFirst {
    const Field& field;
    auto begin() const { return field.rbegin(); }
    auto end() const { return field.rend(); }
};
template <class Field>
NewestFirst<Field> newestFirst(const Field& field) {
    return {field};
}

struct NewestValue {
    std::uint32_t entry;
    v1::Metric metric;
    std::uint32_t entity;
    std::int64_t timeMs;
    float value;
};

// The keys of one fleet-wide kind already seen walking newest to oldest.
template <class Kind>
struct SeenKeys {
    std::set<typename Kind::Key> keys;
};

// The newest copy of each record of `Kind` within pending[0..last], by key. Every one: a delta
// is never bounded (FleetStateKinds.h), the receiver holds them by the kind's rule.
template <class Kind>
void newestByKey(const std::vector<LogEntryPtr>& pending, std::size_t last, v1::Delta* out) {
    std::map<typename Kind::Key, const typename Kind::Record*> newest;
    for (std::size_t k = 0; k <= last; ++k)
        for (const auto& record : Kind::of(pending[k]->delta())) newest[Kind::key(record)] = &record;
    for (const auto& [key, record] : newest) *Kind::mutableOf(out)->Add() = *record;
}
}  // namespace

v1::Delta filterDelta(const v1::Delta& delta, const SubscriptionFilter& filter, const TopologyLookup& index) {
    v1::Delta out;
    out.set_sequence(delta.sequence());
    out.set_first_sequence(delta.first_sequence());
    out.set_server_time_unix_ms(delta.server_time_unix_ms());
    for (const auto& block : delta.samples()) {
        v1::SampleBlock* kept = nullptr;
        for (int i = 0; i < block.entity_indexes_size(); ++i) {
            if (!filter.wantsValuesOf(index, block.entity_indexes(i))) continue;
            if (!kept) {
                kept = out.add_samples();
                kept->set_metric(block.metric());
                kept->set_sample_time_unix_ms(block.sample_time_unix_ms());
            }
            kept->add_entity_indexes(block.entity_indexes(i));
            kept->add_values(block.values(i));
        }
    }
    for (const auto& s : delta.states())
        if (filter.selectsEntity(index, s.entity_index())) *out.add_states() = s;
    for (const auto& e : delta.events())
        if (filter.wantsEvent(index, e)) *out.add_events() = e;
    *out.mutable_jobs() = delta.jobs();
    fleetstate::StreamedKinds::forEach([&](auto kind) {  // fleet-wide, like jobs
        *decltype(kind)::mutableOf(&out) = decltype(kind)::of(delta);
    });
    if (delta.has_fleet()) *out.mutable_fleet() = delta.fleet();
    if (delta.has_automation()) *out.mutable_automation() = delta.automation();        // fleet-wide
    if (delta.has_link_summary()) *out.mutable_link_summary() = delta.link_summary();  // fleet-wide
    if (delta.has_paging()) *out.mutable_paging() = delta.paging();                    // fleet-wide
    // Source statuses are fleet-wide: every subscriber gets them (a console's Sources view and
    // banner follow them; without this they only changed with a snapshot).
    *out.mutable_sources() = delta.sources();
    return out;
}

CoalescedDelta coalesce(const std::vector<LogEntryPtr>& pending, const SubscriptionFilter& filter,
                        const TopologyLookup& index, std::size_t maxSamples) {
    CoalescedDelta result;
    if (pending.empty()) return result;
    if (pending.size() == 1) {
        result.delta = filterDelta(pending.front()->delta(), filter, index);
        result.entriesCovered = 1;
        return result;
    }
    // Walk newest to oldest, entries and what is inside each (a tick can carry one node's
    // DRAINING and DRAINED, in that order), so the first sighting of a key is its newest value.
    const std::size_t n = pending.size();
    std::unordered_map<std::uint64_t, NewestValue> values;
    std::unordered_map<std::uint32_t, std::pair<std::uint32_t, const v1::EntityState*>> states;
    std::unordered_map<std::uint32_t, std::pair<std::uint32_t, const v1::Job*>> jobs;
    fleetstate::StreamedKinds::Each<SeenKeys> seen;  // incidents, windows, handoffs: for the cost
    std::vector<std::size_t> cost(n, 0);             // what must be sent if the prefix ends at entry i
    std::size_t totalSamples = 0;
    for (const auto& e : pending) totalSamples += e->sampleCount();
    values.reserve(std::min<std::size_t>(totalSamples, 4 * maxSamples));
    for (std::size_t k = n; k-- > 0;) {
        const v1::Delta& d = pending[k]->delta();
        const auto entry = static_cast<std::uint32_t>(k);
        for (const auto& block : newestFirst(d.samples()))
            for (int i = block.entity_indexes_size(); i-- > 0;) {
                const std::uint32_t entity = block.entity_indexes(i);
                if (!filter.wantsValuesOf(index, entity)) continue;
                const std::uint64_t key = (std::uint64_t(entity) << 32) | std::uint32_t(block.metric());
                if (values
                        .try_emplace(key, NewestValue{entry, block.metric(), entity, block.sample_time_unix_ms(),
                                                      block.values(i)})
                        .second)
                    ++cost[k];
            }
        for (const auto& s : newestFirst(d.states()))
            if (filter.selectsEntity(index, s.entity_index()) && states.try_emplace(s.entity_index(), entry, &s).second)
                cost[k] += s.ByteSizeLong() / kBytesPerSample + 1;
        for (const auto& j : newestFirst(d.jobs()))
            if (jobs.try_emplace(j.index(), entry, &j).second) cost[k] += j.ByteSizeLong() / kBytesPerSample + 1;
        fleetstate::StreamedKinds::forEach([&](auto kind) {
            using Kind = decltype(kind);
            auto& keys = std::get<SeenKeys<Kind>>(seen).keys;
            for (const auto& record : newestFirst(Kind::of(d)))
                if (keys.insert(Kind::key(record)).second) cost[k] += record.ByteSizeLong() / kBytesPerSample + 1;
        });
        for (const auto& e : d.events())
            if (filter.wantsEvent(index, e)) cost[k] += e.ByteSizeLong() / kBytesPerSample + 1;
    }
    std::size_t last = 0, used = cost[0];
    while (last + 1 < n && used + cost[last + 1] <= maxSamples) used += cost[++last];

    v1::Delta& out = result.delta;
    out.set_first_sequence(pending.front()->delta().first_sequence());
    out.set_sequence(pending[last]->delta().sequence());
    out.set_server_time_unix_ms(pending[last]->delta().server_time_unix_ms());
    BlockWriter writer(&out);
    for (const auto& [key, v] : values)
        if (v.entry <= last) writer.add(v.metric, v.timeMs, v.entity, v.value);
    std::vector<std::pair<std::uint32_t, const v1::EntityState*>> keptStates;
    for (const auto& [entity, s] : states)
        if (s.first <= last) keptStates.push_back(s);
    std::sort(keptStates.begin(), keptStates.end(),
              [](const auto& a, const auto& b) { return a.second->entity_index() < b.second->entity_index(); });
    for (const auto& s : keptStates) *out.add_states() = *s.second;
    for (const auto& [jobIndex, j] : jobs)
        if (j.first <= last) *out.add_jobs() = *j.second;
    fleetstate::StreamedKinds::forEach([&](auto kind) { newestByKey<decltype(kind)>(pending, last, &out); });
    for (std::size_t k = 0; k <= last; ++k) {
        const v1::Delta& d = pending[k]->delta();
        for (const auto& e : d.events())
            if (filter.wantsEvent(index, e)) *out.add_events() = e;
        if (d.has_fleet()) *out.mutable_fleet() = d.fleet();  // newest within the prefix
        if (d.has_automation()) *out.mutable_automation() = d.automation();
        if (d.has_link_summary()) *out.mutable_link_summary() = d.link_summary();
        if (d.has_paging()) *out.mutable_paging() = d.paging();
    }
    // Whole statuses keyed by name: the newest of each within the prefix, in first-seen order.
    for (std::size_t k = 0; k <= last; ++k) {
        for (const auto& source : pending[k]->delta().sources()) {
            auto kept = std::find_if(out.mutable_sources()->begin(), out.mutable_sources()->end(),
                                     [&](const v1::SourceStatus& s) { return s.name() == source.name(); });
            if (kept != out.mutable_sources()->end())
                *kept = source;
            else
                *out.add_sources() = source;
        }
    }
    result.entriesCovered = last + 1;
    return result;
}

}  // namespace watchfloor::server::service
