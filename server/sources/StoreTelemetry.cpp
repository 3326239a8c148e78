#include "StoreTelemetry.h"

#include "Exposition.h"
#include "XidCatalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;
using telemetry::isDcgmBlank;

namespace {

constexpr std::int64_t kFutureToleranceMs = 5'000;  // clocks a few seconds apart are not "skew"

std::optional<std::uint32_t> parseIndex(std::string_view text) {
    std::uint32_t value = 0;
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::int64_t secondsToMs(double seconds) { return std::llround(seconds * 1000.0); }

// The raw octet counters are carried as this pseudo-value until finish() turns them into rates.
bool isOctetCounter(v1::Metric metric) {
    return metric == v1::IB_PORT_XMIT_DATA_GBPS || metric == v1::IB_PORT_RCV_DATA_GBPS;
}

}  // namespace

std::vector<PollQuery> pollQueries() {
    std::vector<PollQuery> queries;
    for (const auto& field : telemetry::dcgmDefaultFields())
        queries.push_back({std::string(field.name), PollQuery::Kind::DcgmField, &field, nullptr});
    // NVLink5 link health, under both names: a site that added them to its CSV has one of each.
    for (const auto& field : telemetry::dcgmNvlinkFields())
        queries.push_back({std::string(field.name), PollQuery::Kind::DcgmField, &field, nullptr});
    queries.push_back({"timestamp(DCGM_FI_DEV_GPU_TEMP)", PollQuery::Kind::GpuAnchor});
    for (const auto& family : telemetry::nodeInfinibandFamilies())
        if (family.metric != v1::METRIC_UNSPECIFIED)
            queries.push_back({std::string(family.name), PollQuery::Kind::IbFamily, nullptr, &family});
    queries.push_back({"timestamp(node_infiniband_state_id)", PollQuery::Kind::IbAnchor});
    queries.push_back({"max by (instance, Hostname, hostname) (" + std::string(telemetry::kHwmonTempFamily) + ")",
                       PollQuery::Kind::HostTemperature});
    queries.push_back(
        {"max by (instance, Hostname, hostname) (timestamp(" + std::string(telemetry::kHwmonTempFamily) + "))",
         PollQuery::Kind::HostAnchor});
    queries.push_back({"training_step", PollQuery::Kind::TrainingStep});
    queries.push_back({"checkpoint_step", PollQuery::Kind::CheckpointStep});
    return queries;
}

StoreTelemetry::StoreTelemetry(const v1::Topology& topology, std::chrono::milliseconds lookback, Log log)
    : topology_(topology), inventory_(topology), lookbackMs_(lookback.count()), log_(std::move(log)) {
    if (log_)
        for (const std::string& line : inventory_.ambiguities())
            log_("short name " + line + ": series naming it are not mapped onto either tray");
    std::uint32_t last = 0;
    for (const auto& node : topology.nodes()) last = std::max(last, node.index());
    for (const auto& gpu : topology.gpus()) last = std::max(last, gpu.index());
    for (const auto& nic : topology.nic_ports()) last = std::max(last, nic.index());
    for (const auto& link : topology.nvlinks()) last = std::max(last, link.index());
    entitySlots_ = std::size_t(last) + 1;
    anchorMs_.assign(entitySlots_, 0);
    anchorPoll_.assign(entitySlots_, 0);
    previousAnchorMs_.assign(entitySlots_, 0);

    std::unordered_map<std::uint32_t, std::uint32_t> rackOfNode;
    for (const auto& node : topology.nodes()) rackOfNode[node.index()] = node.rack_index();
    std::unordered_map<std::uint32_t, std::uint32_t> rackPosition;
    for (const auto& rack : topology.racks()) {
        rackPosition[rack.index()] = std::uint32_t(racks_.size());
        racks_.push_back({rack.index(), {}});
    }
    gpuSlot_.assign(entitySlots_, 0);
    gpuLatest_.resize(std::size_t(topology.gpus_size()));
    rackOfGpuSlot_.resize(std::size_t(topology.gpus_size()));
    for (const auto& gpu : topology.gpus()) {
        const auto position = std::uint32_t(gpuPosition_.size());
        gpuPosition_[gpu.index()] = static_cast<int>(position);
        gpuSlot_[gpu.index()] = position + 1;
        const std::uint32_t rack = rackPosition.at(rackOfNode.at(gpu.node_index()));
        rackOfGpuSlot_[position] = rack;
        racks_[rack].gpus.push_back(position);
    }
}

std::string_view StoreTelemetry::label(std::span<const prom::Label> labels, std::string_view name) {
    for (const auto& l : labels)
        if (l.name == name) return l.value;
    return {};
}

StoreTelemetry::Picked::Picked(std::span<const prom::Label> labels) {
    for (const auto& l : labels) {
        const prom::Label** slot = nullptr;
        switch (l.name.size()) {
        case 3: slot = l.name == "gpu" ? &gpu : nullptr; break;
        case 4: slot = l.name == "UUID" ? &uuid : l.name == "port" ? &port : nullptr; break;
        case 6: slot = l.name == "device" ? &device : l.name == "nvlink" ? &nvlink : nullptr; break;
        case 8:
            slot = l.name == "Hostname"   ? &Hostname
                   : l.name == "hostname" ? &hostname
                   : l.name == "instance" ? &instance
                   : l.name == "err_code" ? &errCode
                   : l.name == "gpu_uuid" ? &gpuUuid
                                          : nullptr;
            break;
        default: break;
        }
        if (slot && !*slot) *slot = &l;  // the first of a name, as label() finds it
    }
}

// dcgm-exporter writes Hostname (hostname since 4.8); node_exporter has no host label, so its
// host is the scrape target's instance without the port.
std::string_view StoreTelemetry::Picked::host() const {
    for (const prom::Label* name : {Hostname, hostname})
        if (auto host = value(name); !host.empty()) return host;
    return InventoryIndex::hostOfInstance(value(instance));
}

void StoreTelemetry::noteUnknownHost(std::string_view host) {
    ++notes_.unmapped;
    if (host.empty() || unknownHosts_.count(std::string(host))) return;
    if (unknownHosts_.size() >= 10'000) return;  // a misconfigured store must not grow this without bound
    unknownHosts_.insert(std::string(host));
    notes_.newUnknownHosts.emplace_back(host);
}

void StoreTelemetry::begin(std::int64_t pollTimeMs) {
    pollTimeMs_ = pollTimeMs;
    raw_.clear();
    ranges_.clear();
    ++poll_;  // anchors stamped with an older poll are gone, without clearing them
    explicitMs_.clear();
    freshAnchors_.clear();
    notes_ = {};
}

void StoreTelemetry::add(std::size_t queryIndex, const PollQuery& query, std::span<const prom::Label> labels,
                         prom::Point point) {
    const Picked picked(labels);
    addSeries(queryIndex, {query, picked, picked.host(), point, kNoAnchor}, labels);
}

void StoreTelemetry::addFromHost(std::size_t queryIndex, const PollQuery& query, std::string_view host,
                                 std::span<const prom::Label> labels, double value, std::int64_t timeMs) {
    std::uint32_t anchorKey = kNoAnchor;
    if (timeMs != prom::kNoTimestamp) {
        anchorKey = std::uint32_t(entitySlots_ + explicitMs_.size());
        explicitMs_.push_back(timeMs);
    }
    const Picked picked(labels);
    addSeries(queryIndex, {query, picked, host, {timeMs, value}, anchorKey}, labels);
}

void StoreTelemetry::addSeries(std::size_t queryIndex, const Series& series, std::span<const prom::Label> labels) {
    currentQuery_ = queryIndex;
    if (ranges_.empty() || ranges_.back().query != queryIndex)
        ranges_.push_back({queryIndex, raw_.size(), raw_.size()});
    ++notes_.series;
    switch (series.query.kind) {
    case PollQuery::Kind::DcgmField:
    case PollQuery::Kind::GpuAnchor: addGpuSeries(series); break;
    case PollQuery::Kind::IbFamily:
    case PollQuery::Kind::IbAnchor: addPortSeries(series); break;
    case PollQuery::Kind::HostTemperature:
    case PollQuery::Kind::HostAnchor: addHostSeries(series); break;
    case PollQuery::Kind::TrainingStep:
    case PollQuery::Kind::CheckpointStep: addProgress(series.query, labels, series.point); break;
    }
    ranges_.back().end = raw_.size();
}

void StoreTelemetry::discard(std::size_t queryIndex) {
    // Answers are decoded one after another, so each answer's values are one run of raw_.
    for (auto it = ranges_.rbegin(); it != ranges_.rend(); ++it) {
        if (it->query != queryIndex) continue;
        const std::size_t removed = it->end - it->begin;
        raw_.erase(raw_.begin() + std::ptrdiff_t(it->begin), raw_.begin() + std::ptrdiff_t(it->end));
        for (auto later = ranges_.rbegin(); later != it; ++later) {
            later->begin -= removed;
            later->end -= removed;
        }
        it->end = it->begin;
    }
    std::erase_if(freshAnchors_, [&](const FreshAnchor& a) { return a.queryIndex == queryIndex; });
}

void StoreTelemetry::discardEntities(std::size_t queryIndex, std::span<const std::uint32_t> entities) {
    if (entities.empty()) return;
    for (auto it = ranges_.rbegin(); it != ranges_.rend(); ++it) {
        if (it->query != queryIndex) continue;
        const auto first = raw_.begin() + std::ptrdiff_t(it->begin), last = raw_.begin() + std::ptrdiff_t(it->end);
        const auto kept = std::remove_if(first, last, [&](const Raw& r) {
            return std::find(entities.begin(), entities.end(), r.entity) != entities.end();
        });
        const std::size_t removed = std::size_t(last - kept);
        raw_.erase(kept, last);
        for (auto later = ranges_.rbegin(); later != it; ++later) {
            later->begin -= removed;
            later->end -= removed;
        }
        it->end -= removed;
    }
}

void StoreTelemetry::addGpuSeries(const Series& series) {
    const auto& [query, picked, host, point, anchorKey] = series;
    const auto index = parseIndex(Picked::value(picked.gpu));
    // GPU series say UUID, link-entity series gpu_uuid (dcgm-exporter's render_metrics.go).
    const std::string_view uuid = Picked::value(picked.uuid ? picked.uuid : picked.gpuUuid);
    std::optional<std::uint32_t> gpu = index ? inventory_.gpuReporting(host, *index, uuid) : std::nullopt;
    if (!gpu) {
        // A GPU the inventory has under another index: its UUID, learned earlier, still names it.
        if (!uuid.empty()) gpu = inventory_.gpuByUuid(uuid);
        if (!gpu) {
            if (!inventory_.node(host))
                noteUnknownHost(host);
            else
                ++notes_.unmapped;
            return;
        }
    }
    if (query.kind == PollQuery::Kind::GpuAnchor) {
        if (std::isfinite(point.value)) setAnchor(*gpu, secondsToMs(point.value));
        return;
    }
    double value = point.value;
    if (std::isinf(value)) {
        ++notes_.notFinite;
        value = std::numeric_limits<double>::quiet_NaN();
    } else if (!std::isnan(value)) {
        value = isDcgmBlank(value) ? std::numeric_limits<double>::quiet_NaN() : value * query.dcgm->toProto;
    }
    // Newer exporters also put the Xid in err_code; the gauge's value is the authority when set.
    if (query.dcgm->metric == v1::DCGM_FI_DEV_XID_ERRORS && (std::isnan(value) || value == 0))
        if (auto code = parseIndex(Picked::value(picked.errCode)); code && *code) value = *code;
    std::uint32_t entity = *gpu;
    if (query.dcgm->perLink) {
        // Link i of that GPU; its sample time is its GPU's (one exporter page, one scrape).
        const auto linkId = parseIndex(Picked::value(picked.nvlink));
        const auto link = linkId ? inventory_.nvlink(*gpu, *linkId) : std::nullopt;
        if (!link) {
            ++notes_.unmapped;
            return;
        }
        entity = *link;
    }
    raw_.push_back({entity, query.dcgm->metric, value, anchorKey == kNoAnchor ? *gpu : anchorKey});
}

void StoreTelemetry::addPortSeries(const Series& series) {
    const auto& [query, picked, host, point, anchorKey] = series;
    const auto port = parseIndex(Picked::value(picked.port));
    const auto nic = port ? inventory_.nicPort(host, Picked::value(picked.device), *port) : std::nullopt;
    if (!nic) {
        if (!inventory_.node(host))
            noteUnknownHost(host);
        else
            ++notes_.unmapped;  // a port the inventory does not list (e.g. a storage NIC)
        return;
    }
    if (query.kind == PollQuery::Kind::IbAnchor) {
        if (std::isfinite(point.value)) setAnchor(*nic, secondsToMs(point.value));
        return;
    }
    double value = point.value;
    if (std::isinf(value)) {
        ++notes_.notFinite;
        value = std::numeric_limits<double>::quiet_NaN();
    } else if (!isOctetCounter(query.ib->metric)) {
        value *= query.ib->toProto;  // the link rate's bytes/s to Gb/s; octets become rates in finish()
    }
    raw_.push_back({*nic, query.ib->metric, value, anchorKey == kNoAnchor ? *nic : anchorKey});
}

void StoreTelemetry::addHostSeries(const Series& series) {
    const auto& [query, picked, host, point, anchorKey] = series;
    const auto node = inventory_.node(host);
    if (!node) {
        noteUnknownHost(host);
        return;
    }
    if (query.kind == PollQuery::Kind::HostAnchor) {
        if (std::isfinite(point.value)) setAnchor(*node, secondsToMs(point.value));
        return;
    }
    const double value = std::isfinite(point.value) ? point.value : std::numeric_limits<double>::quiet_NaN();
    raw_.push_back({*node, v1::NODE_HWMON_TEMP_MAX_C, value, anchorKey == kNoAnchor ? *node : anchorKey});
}

void StoreTelemetry::addProgress(const PollQuery& query, std::span<const prom::Label> labels, prom::Point point) {
    const std::string_view job = label(labels, "slurm_job_id");
    if (job.empty() || !std::isfinite(point.value) || point.value < 0) {
        ++notes_.unmapped;
        return;
    }
    JobProgress& progress = progress_[std::string(job)];
    (query.kind == PollQuery::Kind::TrainingStep ? progress.step : progress.checkpointStep) = point.value;
    progress.sampleTimeMs = point.timeMs;
}

void StoreTelemetry::setAnchor(std::uint32_t anchorKey, std::int64_t timeMs) {
    if (anchorKey >= entitySlots_) return;  // every anchor is an inventory entity's
    // The first anchor of this poll moves the earlier poll's aside; a second (another shard's)
    // compares with the same earlier one.
    if (anchorPoll_[anchorKey] != poll_)
        previousAnchorMs_[anchorKey] = anchorPoll_[anchorKey] ? anchorMs_[anchorKey] : 0;
    anchorMs_[anchorKey] = timeMs;
    anchorPoll_[anchorKey] = poll_;
    const std::int64_t previous = previousAnchorMs_[anchorKey];
    if (previous > 0 && timeMs > previous)
        freshAnchors_.push_back({currentQuery_, std::max<std::int64_t>(0, pollTimeMs_ - timeMs)});
}

std::chrono::milliseconds DeliveryLag::ceilingFor(std::chrono::milliseconds poll, std::chrono::milliseconds scrape,
                                                  std::chrono::milliseconds lookback) {
    return std::max(std::chrono::milliseconds(0), lookback - 3 * (poll + scrape) - poll);
}

void DeliveryLag::addPoll(std::vector<std::int64_t>& agesMs) {
    if (agesMs.empty()) return;
    const auto middle = agesMs.begin() + std::ptrdiff_t(agesMs.size() / 2);
    std::nth_element(agesMs.begin(), middle, agesMs.end());
    lastMedianMs_ = *middle;
    capped_ = lastMedianMs_ > ceilingMs_;
    const double median = double(std::min(lastMedianMs_, ceilingMs_));
    if (smoothedMs_ < 0)
        smoothedMs_ = median;
    else
        smoothedMs_ += (median > smoothedMs_ ? 0.2 : 0.5) * (median - smoothedMs_);
}

std::optional<std::chrono::milliseconds> DeliveryLag::lag() const {
    if (smoothedMs_ < 0) return std::nullopt;
    return std::chrono::milliseconds(std::llround(smoothedMs_));
}

std::int64_t StoreTelemetry::sampleTimeOf(std::uint32_t anchorKey) {
    std::optional<std::int64_t> anchor;
    if (anchorKey < entitySlots_) {
        if (anchorPoll_[anchorKey] == poll_) anchor = anchorMs_[anchorKey];
    } else if (anchorKey - entitySlots_ < explicitMs_.size()) {
        anchor = explicitMs_[anchorKey - entitySlots_];
    }
    if (!anchor) {
        ++notes_.withoutAnchor;
        return pollTimeMs_ - lookbackMs_;
    }
    if (*anchor > pollTimeMs_ + kFutureToleranceMs) {
        ++notes_.fromTheFuture;
        return pollTimeMs_;
    }
    return *anchor;
}

void StoreTelemetry::emitXid(std::uint32_t gpu, double xid, std::int64_t timeMs, FleetChanges& out) {
    auto [it, first] = lastXid_.try_emplace(gpu, xid);
    const double previous = it->second;
    it->second = xid;
    // The gauge holds the last Xid for good: a value already there when fleetd first looks may be
    // days old, so only a change is news.
    if (first || std::isnan(xid) || xid == previous || xid <= 0) return;
    const auto code = static_cast<std::uint32_t>(xid);
    const server::XidInfo* info = server::findXid(code);
    const auto position = gpuPosition_.find(gpu);
    const std::string gpuName =
        position == gpuPosition_.end() ? std::to_string(gpu) : topology_.gpus(position->second).name();
    v1::Event e;
    e.set_time_unix_ms(timeMs);
    e.set_type(v1::EVENT_TYPE_XID);
    e.set_entity_index(gpu);
    e.set_value(xid);
    e.set_cause("xid");
    if (info) {
        e.set_severity(server::xidSeverity(*info));
        e.set_message(gpuName + ": Xid " + std::to_string(code) + " " + info->mnemonic + " (reported by DCGM)");
        server::fillXidDetail(*info, *e.mutable_xid());
    } else {
        e.set_severity(v1::SEVERITY_WARNING);
        e.set_message(gpuName + ": Xid " + std::to_string(code) +
                      " (reported by DCGM; not in the fleet's Xid table: look it up in NVIDIA's Xid catalog)");
        e.mutable_xid()->set_xid(code);
    }
    out.events.push_back(std::move(e));
}

// raw_ with sample times, ordered by entity, metric and newest first. The entities are the
// inventory's, dense and bounded: a counting sort by entity, then each entity's few values
// (a GPU's fields, a port's counters) in place, instead of comparison-sorting millions of indexes
// that each read two records elsewhere in memory. Equal keys keep the order they arrived in.
std::vector<StoreTelemetry::Timed> StoreTelemetry::sortedRaw() {
    std::vector<Timed> sorted(raw_.size());
    const auto before = [](const Timed& a, const Timed& b) {
        if (a.entity != b.entity) return a.entity < b.entity;
        if (a.metric != b.metric) return a.metric < b.metric;
        return a.timeMs > b.timeMs;
    };
    const bool dense = std::all_of(raw_.begin(), raw_.end(), [&](const Raw& r) { return r.entity < entitySlots_; });
    if (!dense) {
        for (std::size_t i = 0; i < raw_.size(); ++i)
            sorted[i] = {raw_[i].entity, raw_[i].metric, sampleTimeOf(raw_[i].anchorKey), raw_[i].value};
        std::stable_sort(sorted.begin(), sorted.end(), before);
        return sorted;
    }
    std::vector<std::uint32_t> next(entitySlots_ + 1, 0);
    for (const Raw& r : raw_) ++next[r.entity + 1];
    for (std::size_t e = 1; e < next.size(); ++e) next[e] += next[e - 1];
    for (const Raw& r : raw_) sorted[next[r.entity]++] = {r.entity, r.metric, sampleTimeOf(r.anchorKey), r.value};
    for (std::size_t begin = 0; begin < sorted.size();) {
        std::size_t end = begin + 1;
        while (end < sorted.size() && sorted[end].entity == sorted[begin].entity) ++end;
        for (std::size_t i = begin + 1; i < end; ++i) {  // insertion sort: stable, and runs are short
            const Timed moving = sorted[i];
            std::size_t j = i;
            for (; j > begin && before(moving, sorted[j - 1]); --j) sorted[j] = sorted[j - 1];
            sorted[j] = moving;
        }
        begin = end;
    }
    return sorted;
}

PollNotes StoreTelemetry::finish(FleetChanges& out) {
    // One value per (entity, metric): a second series (two shards, a relabelling mistake) keeps
    // the newer sample.
    const std::vector<Timed> sorted = sortedRaw();
    const std::size_t firstSample = out.samples.size();
    out.samples.reserve(out.samples.size() + sorted.size());
    out.sampleTimesMs.reserve(out.samples.capacity());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        const Timed& r = sorted[k];
        if (k > 0 && sorted[k - 1].entity == r.entity && sorted[k - 1].metric == r.metric) {
            ++notes_.duplicates;
            continue;
        }
        const std::int64_t timeMs = r.timeMs;
        double value = r.value;
        if (isOctetCounter(r.metric)) {
            // Octets → Gb/s between two scrapes; the first sight of a port, or a counter reset, has no rate yet.
            Octets& last = octets_[(std::uint64_t(r.entity) << 32) | std::uint32_t(r.metric)];
            const Octets previous = last;
            if (std::isnan(value)) continue;
            if (timeMs == previous.timeMs) continue;  // same scrape as last poll: nothing new
            last = {value, timeMs};
            if (previous.timeMs == 0 || value < previous.bytes || timeMs < previous.timeMs) continue;
            value = (value - previous.bytes) * 8e-9 / (double(timeMs - previous.timeMs) / 1000.0);
        }
        if (r.metric == v1::DCGM_FI_DEV_XID_ERRORS) emitXid(r.entity, value, timeMs, out);
        out.samples.push_back({r.entity, r.metric, static_cast<float>(value)});
        out.sampleTimesMs.push_back(timeMs);
    }
    emitAggregates(out, firstSample);
    for (const auto& host : notes_.newUnknownHosts) {
        v1::Event e;
        e.set_time_unix_ms(pollTimeMs_);
        e.set_severity(v1::SEVERITY_WARNING);
        e.set_type(v1::EVENT_TYPE_SOURCE);
        e.set_entity_index(topology_.fleet_index());
        e.set_cause("unknown_host");
        const std::optional<std::string> ambiguity = inventory_.ambiguity(host);
        e.set_message(ambiguity ? "telemetry from host '" + host + "', a short name more than one tray could have (" +
                                      *ambiguity +
                                      "): its series are ignored (qualify the targets' names or set the "
                                      "inventory's domains=)"
                                : "telemetry from host '" + host +
                                      "', which the fleet file's inventory does not list: its series are ignored (add "
                                      "it with hosts= or addresses=)");
        out.events.push_back(std::move(e));
        if (log_)
            log_("telemetry from host '" + host + "' " + (ambiguity ? "is ambiguous" : "not in the inventory") +
                 ": ignored (reported once)");
    }
    return notes_;
}

// A rack's health as its GPUs' telemetry shows it, sent when it changes: the rack map's health
// lens needs a state, and a real source has no other (facility state comes with Redfish). A rack
// of which no GPU was read gets none: its last state ages with the stream, never turns "healthy".
void StoreTelemetry::noteRackHealth(std::uint32_t rack, v1::HealthState health, std::uint32_t reporting,
                                    std::uint32_t degraded, std::uint32_t gpus, std::int64_t timeMs,
                                    FleetChanges& out) {
    std::string reason = std::to_string(reporting) + " of " + std::to_string(gpus) + " GPUs reporting";
    if (degraded) reason += ", " + std::to_string(degraded) + " with failed row remapping";
    auto& last = rackHealth_[rack];
    if (last.first == health && last.second == reason) return;
    last = {health, reason};
    v1::EntityState state;
    state.set_entity_index(rack);
    state.set_health(health);
    state.set_reason(reason);
    state.set_since_unix_ms(timeMs);
    out.states.push_back(std::move(state));
}

// The aggregates the rack map and wall views read at SUMMARY detail, from this poll's GPU
// values (or, with aggregateOverLatest, each GPU's latest within the window): hottest and mean
// GPU temperature per rack; GPUs healthy (reporting, rows remap fine) and degraded (row remapping
// failed: the GPU needs a reset or RMA). A GPU without a current temperature is counted nowhere
// (unknown), never as healthy.
void StoreTelemetry::emitAggregates(FleetChanges& out, std::size_t firstSample) {
    for (std::size_t i = firstSample; i < out.samples.size(); ++i) {
        const Sample& s = out.samples[i];
        if (s.entityIndex >= entitySlots_ || gpuSlot_[s.entityIndex] == 0) continue;  // not a GPU of the inventory
        const std::uint32_t position = gpuSlot_[s.entityIndex] - 1;
        GpuLatest& gpu = gpuLatest_[position];
        if (s.metric == v1::DCGM_FI_DEV_GPU_TEMP) {
            gpu.temp = s.value;
            gpu.tempMs = out.sampleTimesMs[i];
            gpu.tempPoll = poll_;
            racks_[rackOfGpuSlot_[position]].touchedPoll = poll_;
        } else if (s.metric == v1::DCGM_FI_DEV_ROW_REMAP_FAILURE) {
            gpu.remapFailed = s.value >= 1;
            gpu.remapMs = out.sampleTimesMs[i];
            gpu.remapPoll = poll_;
        }
    }
    const bool overLatest = aggregateWindowMs_ > 0;
    const std::int64_t oldest = pollTimeMs_ - aggregateWindowMs_;
    std::uint32_t fleetHealthy = 0, fleetDegraded = 0;
    for (RackGpus& rack : racks_) {
        float max = -std::numeric_limits<float>::infinity();
        double sum = 0;
        std::uint32_t count = 0, degraded = 0;
        std::int64_t newest = 0;
        for (const std::uint32_t position : rack.gpus) {
            const GpuLatest& gpu = gpuLatest_[position];
            const bool current = overLatest ? gpu.tempMs > 0 && gpu.tempMs >= oldest : gpu.tempPoll == poll_;
            if (!current || std::isnan(gpu.temp)) continue;
            max = std::max(max, gpu.temp);
            sum += gpu.temp;
            ++count;
            if (gpu.remapFailed && (overLatest ? gpu.remapMs >= oldest : gpu.remapPoll == poll_)) ++degraded;
            newest = std::max(newest, gpu.tempMs);
        }
        fleetHealthy += count - degraded;
        fleetDegraded += degraded;
        const bool changed = count != rack.lastCount || degraded != rack.lastDegraded;
        rack.lastCount = count;
        rack.lastDegraded = degraded;
        if (count == 0) continue;
        if (overLatest && rack.touchedPoll != poll_ && !changed) continue;
        noteRackHealth(rack.rack, degraded ? v1::HEALTH_STATE_DEGRADED : v1::HEALTH_STATE_HEALTHY, count, degraded,
                       std::uint32_t(rack.gpus.size()), newest, out);
        for (auto [metric, value] :
             {std::pair{v1::RACK_GPU_TEMP_MAX_C, max}, std::pair{v1::RACK_GPU_TEMP_MEAN_C, float(sum / count)},
              std::pair{v1::RACK_GPUS_HEALTHY, float(count - degraded)},
              std::pair{v1::RACK_GPUS_DEGRADED, float(degraded)}}) {
            out.samples.push_back({rack.rack, metric, value});
            out.sampleTimesMs.push_back(newest);
        }
    }
    // A poll that read no GPU at all (the store down, or answering nothing) says nothing about
    // the fleet: no "0 healthy" is invented; the last counts age into stale instead.
    notes_.gpusHealthy = fleetHealthy;
    notes_.gpusDegraded = fleetDegraded;
    if (fleetHealthy + fleetDegraded == 0) return;
    for (auto [metric, value] :
         {std::pair{v1::FLEET_GPUS_HEALTHY, fleetHealthy}, std::pair{v1::FLEET_GPUS_DEGRADED, fleetDegraded}}) {
        out.samples.push_back({topology_.fleet_index(), metric, float(value)});
        out.sampleTimesMs.push_back(pollTimeMs_);
    }
}

}  // namespace watchfloor::server::sources
