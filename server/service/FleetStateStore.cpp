#include "FleetStateStore.h"

#include <algorithm>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
// Wire cost of one sample in a packed SampleBlock: a varint entity index (< 2^28: 4 bytes) and
// a 4-byte float.
constexpr std::size_t kBytesPerSample = 8;
}  // namespace

FleetStateStore::FleetStateStore(const v1::Topology& topology, StoreLimits limits)
    : index_(topology),
      limits_(limits),
      journal_(limits.journalEvents),
      rewind_(limits.rewind),
      lastEventId_(limits.firstEventId > 0 ? limits.firstEventId - 1 : 0) {}

std::vector<std::shared_ptr<v1::Delta>> FleetStateStore::buildDeltas(const FleetChanges& changes) const {
    std::vector<std::shared_ptr<v1::Delta>> deltas;
    auto first = std::make_shared<v1::Delta>();
    first->set_server_time_unix_ms(toUnixMs(changes.time));
    for (const auto& s : changes.states) *first->add_states() = s;
    for (const auto& e : changes.events) *first->add_events() = e;
    for (const auto& j : changes.jobs) *first->add_jobs() = j;
    if (changes.hasFleet) *first->mutable_fleet() = changes.fleet;
    if (changes.hasAutomation) *first->mutable_automation() = changes.automation;
    if (changes.hasLinkSummary) *first->mutable_link_summary() = changes.linkSummary;
    if (changes.hasPaging) *first->mutable_paging() = changes.paging;
    for (const auto& source : changes.sources) *first->add_sources() = source;
    for (const auto& incident : changes.incidents) *first->add_incidents() = incident;
    for (const auto& window : changes.maintenance) *first->add_maintenance() = window;
    for (const auto& handoff : changes.handoffs) *first->add_handoffs() = handoff;
    for (const auto& repairCase : changes.repairCases) *first->add_repair_cases() = repairCase;
    for (const auto& link : changes.linkHealth) *first->add_link_health() = link;
    deltas.push_back(first);
    if (changes.samples.empty()) return deltas;

    // Group by (metric, sample time), in first-seen order: one block per group.
    std::vector<std::uint64_t> order;
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> positions;
    for (std::uint32_t i = 0; i < changes.samples.size(); ++i) {
        const std::uint64_t key = blockKey(changes.samples[i].metric, changes.sampleTimeMs(i));
        auto& list = positions[key];
        if (list.empty()) order.push_back(key);
        list.push_back(i);
    }
    const std::size_t budget = std::max<std::size_t>(limits_.maxDeltaBytes / kBytesPerSample, 256);
    std::size_t used = first->ByteSizeLong() / kBytesPerSample;
    v1::Delta* delta = first.get();
    for (std::uint64_t key : order) {
        v1::SampleBlock* block = nullptr;
        const auto& members = positions[key];
        for (std::uint32_t i : members) {
            if (used >= budget) {
                deltas.push_back(std::make_shared<v1::Delta>());
                delta = deltas.back().get();
                delta->set_server_time_unix_ms(toUnixMs(changes.time));
                used = 0;
                block = nullptr;
            }
            if (!block) {
                block = delta->add_samples();
                block->set_metric(changes.samples[i].metric);
                block->set_sample_time_unix_ms(changes.sampleTimeMs(i));
            }
            block->add_entity_indexes(changes.samples[i].entityIndex);
            block->add_values(changes.samples[i].value);
            ++used;
        }
    }
    return deltas;
}

std::vector<DeltaPtr> FleetStateStore::apply(FleetChanges& changes, SampleSink* sink) {
    auto deltas = buildDeltas(changes);
    const std::int64_t timeMs = toUnixMs(changes.time);
    {
        std::unique_lock lock(mu_);
        // A real source's first poll creates millions of series at once: grow the index once,
        // not by rehash after rehash.
        if (seriesOf_.empty()) seriesOf_.reserve(changes.samples.size());
        order_.begin(changes.samples.size());
        for (std::size_t i = 0; i < changes.samples.size(); ++i) {
            const Sample& s = changes.samples[i];
            const std::uint32_t id = order_.next(seriesKey(s.entityIndex, s.metric), [&](std::uint64_t key) {
                auto [it, inserted] = seriesOf_.try_emplace(key, static_cast<std::uint32_t>(series_.size()));
                if (inserted) {
                    series_.push_back({s.entityIndex, s.metric});
                    value_.push_back(s.value);
                    sampleTimeMs_.push_back(0);
                }
                return it->second;
            });
            value_[id] = s.value;
            sampleTimeMs_[id] = changes.sampleTimesMs.empty() ? timeMs : changes.sampleTimesMs[i];
        }
        order_.end();
        if (sink) sink->onSamples(changes.time, changes.samples, order_.ids());
        for (const auto& s : changes.states) states_[s.entity_index()] = s;
        for (const auto& j : changes.jobs) {
            jobs_[j.index()] = j;
            if (!j.name().empty()) jobByName_[j.name()] = j.index();
        }
        if (changes.hasFleet) {
            fleet_ = changes.fleet;
            hasFleet_ = true;
        }
        if (changes.hasAutomation) {
            automation_ = changes.automation;
            hasAutomation_ = true;
        }
        if (changes.hasLinkSummary) {
            linkSummary_ = changes.linkSummary;
            hasLinkSummary_ = true;
        }
        if (changes.hasPaging) {
            paging_ = changes.paging;
            hasPaging_ = true;
        }
        for (const auto& source : changes.sources) sources_[source.name()] = source;
        for (auto& e : *deltas.front()->mutable_events()) {
            if (e.id() == 0) e.set_id(++lastEventId_);
            journal_.append(e);
        }
        // What the tick publishes is what a snapshot will carry: the Delta's records, as a console holds them.
        fleetstate::StreamedKinds::forEach([&](auto kind) {
            using Kind = decltype(kind);
            for (const auto& record : Kind::of(*deltas.front())) held_.of<Kind>().upsert(record);
        });
        rewind_.record(timeMs, changes.states, changes.incidents);
        for (auto& d : deltas) {
            d->set_sequence(++sequence_);
            d->set_first_sequence(d->sequence());
        }
        lastTime_ = changes.time;
    }
    return {deltas.begin(), deltas.end()};
}

void FleetStateStore::numberEvents(FleetChanges& changes) {
    std::unique_lock lock(mu_);
    for (auto& e : changes.events)
        if (e.id() == 0) e.set_id(++lastEventId_);
}

std::uint32_t FleetStateStore::openIncidents() const {
    std::shared_lock lock(mu_);
    return static_cast<std::uint32_t>(held_.of<fleetstate::Incidents>().live());
}

std::optional<v1::RepairStats> FleetStateStore::repairs() const {
    std::shared_lock lock(mu_);
    if (!hasFleet_ || !fleet_.has_repairs()) return std::nullopt;
    return fleet_.repairs();
}

std::optional<v1::LinkHealthSummary> FleetStateStore::linkSummary() const {
    std::shared_lock lock(mu_);
    if (!hasLinkSummary_) return std::nullopt;
    return linkSummary_;
}

v1::Snapshot FleetStateStore::snapshot(const SubscriptionFilter& filter) const {
    v1::Snapshot snap;
    std::shared_lock lock(mu_);
    snap.set_sequence(sequence_);
    snap.set_server_time_unix_ms(toUnixMs(lastTime_));
    std::unordered_map<std::uint64_t, v1::SampleBlock*> blocks;
    for (std::uint32_t id = 0; id < series_.size(); ++id) {
        if (!filter.wantsValuesOf(index_, series_[id].entity)) continue;
        auto& block = blocks[blockKey(series_[id].metric, sampleTimeMs_[id])];
        if (!block) {
            block = snap.add_samples();
            block->set_metric(series_[id].metric);
            block->set_sample_time_unix_ms(sampleTimeMs_[id]);
        }
        block->add_entity_indexes(series_[id].entity);
        block->add_values(value_[id]);
    }
    for (const auto& [entity, state] : states_)
        if (filter.selectsEntity(index_, entity)) *snap.add_states() = state;
    for (const auto& [jobIndex, job] : jobs_) *snap.add_jobs() = job;
    if (hasFleet_) *snap.mutable_fleet() = fleet_;
    if (hasAutomation_) *snap.mutable_automation() = automation_;
    if (hasLinkSummary_) *snap.mutable_link_summary() = linkSummary_;
    if (hasPaging_) *snap.mutable_paging() = paging_;
    for (const auto& [name, source] : sources_) *snap.add_sources() = source;
    // Fleet-wide, like jobs (a rack filter does not narrow them): everything held.
    fleetstate::StreamedKinds::forEach(
        [&](auto kind) { held_.of<decltype(kind)>().appendTo(decltype(kind)::mutableOf(&snap)); });
    for (auto& e :
         journal_.recent(limits_.snapshotEvents, [&](const v1::Event& e) { return filter.wantsEvent(index_, e); }))
        *snap.add_recent_events() = std::move(e);
    return snap;
}

std::shared_ptr<const v1::Topology> FleetStateStore::topologyFor(const SubscriptionFilter& filter) const {
    std::lock_guard lock(topologyMu_);
    auto& cached = topologyByFilter_[filter.key()];
    if (!cached && filter.passesEverything())  // the source's own: no copy of 2.3 M NVLinks
        cached = index_.sharedTopology();
    if (!cached) cached = buildTopology(filter);
    return cached;
}

std::size_t FleetStateStore::cachedTopologies() const {
    std::lock_guard lock(topologyMu_);
    return topologyByFilter_.size();
}

std::shared_ptr<v1::Topology> FleetStateStore::buildTopology(const SubscriptionFilter& filter) const {
    const v1::Topology& all = index_.topology();
    auto t = std::make_shared<v1::Topology>();
    t->set_fleet_name(all.fleet_name());
    t->set_fleet_index(all.fleet_index());
    auto keep = [&](std::uint32_t entity) { return filter.selectsEntity(index_, entity); };
    auto copyIf = [&](const auto& from, auto* to) {
        for (const auto& item : from)
            if (keep(item.index())) *to->Add() = item;
    };
    copyIf(all.regions(), t->mutable_regions());
    copyIf(all.racks(), t->mutable_racks());
    copyIf(all.nodes(), t->mutable_nodes());
    copyIf(all.gpus(), t->mutable_gpus());
    copyIf(all.cpus(), t->mutable_cpus());
    copyIf(all.nvswitch_trays(), t->mutable_nvswitch_trays());
    copyIf(all.power_shelves(), t->mutable_power_shelves());
    copyIf(all.cooling_loops(), t->mutable_cooling_loops());
    if (filter.tier() == DetailTier::Full) {
        copyIf(all.nvlinks(), t->mutable_nvlinks());
        copyIf(all.nic_ports(), t->mutable_nic_ports());
    }
    if (!filter.allRacks())  // a region lists only the racks this subscriber sees
        for (auto& region : *t->mutable_regions()) {
            auto* racks = region.mutable_rack_indexes();
            racks->erase(std::remove_if(racks->begin(), racks->end(), [&](std::uint32_t r) { return !keep(r); }),
                         racks->end());
        }
    return t;
}

std::uint64_t FleetStateStore::lastSequence() const {
    std::shared_lock lock(mu_);
    return sequence_;
}

UnixTime FleetStateStore::lastSampleTime() const {
    std::shared_lock lock(mu_);
    return lastTime_;
}

std::optional<std::uint32_t> FleetStateStore::findEntity(std::string_view name) const {
    if (auto found = index_.findByName(name)) return found;
    std::shared_lock lock(mu_);
    if (auto it = jobByName_.find(std::string(name)); it != jobByName_.end()) return it->second;
    return std::nullopt;
}

std::string FleetStateStore::entityName(std::uint32_t index) const {
    {
        std::shared_lock lock(mu_);
        if (auto it = jobs_.find(index); it != jobs_.end()) return it->second.name();
    }
    return index_.nameOf(index);
}

bool FleetStateStore::isJob(std::uint32_t index) const {
    std::shared_lock lock(mu_);
    return jobs_.count(index) != 0;
}

std::optional<v1::Job> FleetStateStore::job(std::uint32_t index) const {
    std::shared_lock lock(mu_);
    if (auto it = jobs_.find(index); it != jobs_.end()) return it->second;
    return std::nullopt;
}

std::optional<LatestValue> FleetStateStore::latest(std::uint32_t entity, v1::Metric metric) const {
    std::shared_lock lock(mu_);
    auto it = seriesOf_.find(seriesKey(entity, metric));
    if (it == seriesOf_.end()) return std::nullopt;
    return LatestValue{value_[it->second], sampleTimeMs_[it->second]};
}

std::size_t FleetStateStore::seriesLookedUpLastApply() const {
    std::shared_lock lock(mu_);
    return order_.lookedUp();
}

std::optional<std::uint32_t> FleetStateStore::findSeries(std::uint32_t entity, v1::Metric metric) const {
    std::shared_lock lock(mu_);
    if (auto it = seriesOf_.find(seriesKey(entity, metric)); it != seriesOf_.end()) return it->second;
    return std::nullopt;
}

}  // namespace watchfloor::server::service
