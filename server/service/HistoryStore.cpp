#include "HistoryStore.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <sstream>

#include <sys/mman.h>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
constexpr std::size_t kMinBuckets = 4;
// Series beyond those of the first batch that are still kept (jobs start, links come up).
constexpr double kRowHeadroom = 1.25;
constexpr std::size_t kExtraRows = 1024;

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string durationText(std::int64_t ms) {
    const std::int64_t s = ms / 1000;
    if (s % 86400 == 0 && s >= 86400) return std::to_string(s / 86400) + "d";
    if (s % 3600 == 0 && s >= 3600) return std::to_string(s / 3600) + "h";
    if (s % 60 == 0 && s >= 60) return std::to_string(s / 60) + "min";
    return std::to_string(s) + "s";
}
}  // namespace

HistoryStore::SeriesClass HistoryStore::classOf(v1::EntityKind kind) {
    switch (kind) {
    case v1::ENTITY_KIND_NODE:
    case v1::ENTITY_KIND_GPU:
    case v1::ENTITY_KIND_CPU: return SeriesClass::Device;
    case v1::ENTITY_KIND_NVLINK:
    case v1::ENTITY_KIND_NIC_PORT: return SeriesClass::NotKept;
    default: return SeriesClass::Aggregate;  // fleet, region, rack, loop, shelf, switch tray, job
    }
}

HistoryStore::HistoryStore(const TopologyLookup& index, HistoryPlan plan) : index_(index), plan_(std::move(plan)) {}

void HistoryStore::planFor(std::span<const Sample> firstSamples) {
    std::size_t aggregateRows = 0, deviceRows = 0;
    for (const Sample& s : firstSamples) {
        const SeriesClass cls = classOf(index_.kind(s.entityIndex));
        aggregateRows += cls == SeriesClass::Aggregate;
        deviceRows += cls == SeriesClass::Device;
    }
    const auto aggregateBudget = static_cast<std::size_t>(double(plan_.budgetBytes) * plan_.aggregateShare);
    plan(aggregate_, plan_.aggregateTiers, aggregateRows, aggregateBudget);
    plan(device_, plan_.deviceTiers, deviceRows, plan_.budgetBytes - aggregateBudget);
    planned_ = true;
}

HistoryStore::~HistoryStore() {
    for (auto* store : {&aggregate_, &device_})
        for (auto& tier : store->tiers) ::munmap(tier.rows, tier.bytes);
}

void HistoryStore::plan(ClassStore& store, const std::vector<HistoryTier>& tiers, std::size_t expectedRows,
                        std::size_t budgetBytes) {
    store.maxRows = static_cast<std::uint32_t>(double(expectedRows) * kRowHeadroom) + kExtraRows;
    std::size_t bucketsPerRow = 0;
    for (const auto& tier : tiers) bucketsPerRow += tier.buckets;
    const double fullBytes = double(store.maxRows) * bucketsPerRow * sizeof(Bucket);
    const double scale = std::min(1.0, double(budgetBytes) / fullBytes);
    for (const auto& spec : tiers) {
        Tier tier;
        tier.widthMs = spec.width.count();
        tier.buckets = std::max(kMinBuckets, static_cast<std::size_t>(spec.buckets * scale));
        // Populated now rather than page by page as buckets are first written: the coarsest tier
        // first wraps after a day and more, and until then RSS would creep up (1.6 -> 2.0 GiB in
        // 5 min at 1,800 racks). This way fleetd's footprint at the first tick is its steady state,
        // and a host that cannot hold it finds out at start, not a day later.
        tier.bytes = std::size_t(store.maxRows) * tier.buckets * sizeof(Bucket);
        void* rows =
            ::mmap(nullptr, tier.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (rows == MAP_FAILED) throw std::bad_alloc();
        tier.rows = static_cast<Bucket*>(rows);  // anonymous pages are zero: every bucket empty
        store.tiers.push_back(tier);
    }
}

void HistoryStore::advance(ClassStore& store, std::int64_t timeMs) {
    for (auto& tier : store.tiers) {
        const std::int64_t bucket = floorDiv(timeMs, tier.widthMs);
        if (tier.head == INT64_MIN) {
            tier.head = bucket;
            continue;  // fresh pages: already empty
        }
        if (bucket <= tier.head) continue;
        // Clear the slots the new buckets reuse; at most one full turn of the ring.
        const std::int64_t from = std::max(tier.head + 1, bucket - std::int64_t(tier.buckets) + 1);
        for (std::int64_t b = from; b <= bucket; ++b) {
            Bucket* column = tier.rows + std::size_t(b % std::int64_t(tier.buckets)) * store.maxRows;
            std::fill(column, column + store.usedRows, Bucket{});
        }
        tier.head = bucket;
    }
}

void HistoryStore::record(ClassStore& store, std::uint32_t row, std::int64_t timeMs, float value) {
    if (std::isnan(value)) return;  // a blank is not a reading: it must not pull means to n/a
    for (auto& tier : store.tiers) {
        const std::int64_t bucket = floorDiv(timeMs, tier.widthMs);
        if (bucket > tier.head || bucket <= tier.head - std::int64_t(tier.buckets)) continue;
        Bucket& b = tier.rows[std::size_t(bucket % std::int64_t(tier.buckets)) * store.maxRows + row];
        if (b.count == 0) {
            b = Bucket{value, value, value, value, 1};
        } else {
            b.sum += value;
            b.min = std::min(b.min, value);
            b.max = std::max(b.max, value);
            b.last = value;
            ++b.count;
        }
    }
}

void HistoryStore::onSamples(UnixTime time, std::span<const Sample> samples, std::span<const std::uint32_t> seriesIds) {
    const std::int64_t timeMs = toUnixMs(time);
    std::lock_guard lock(mu_);
    if (!planned_) {
        if (samples.empty()) return;
        planFor(samples);
    }
    advance(aggregate_, timeMs);
    advance(device_, timeMs);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const std::uint32_t id = seriesIds[i];
        if (id >= rowOf_.size()) {
            rowOf_.resize(std::size_t(id) + 1, kNoRow);
            classOfSeries_.resize(std::size_t(id) + 1, SeriesClass::NotKept);
        }
        if (rowOf_[id] == kNoRow) {
            const SeriesClass cls = classOf(index_.kind(samples[i].entityIndex));
            ClassStore* store = cls == SeriesClass::Aggregate ? &aggregate_
                                : cls == SeriesClass::Device  ? &device_
                                                              : nullptr;
            if (!store || store->usedRows == store->maxRows) continue;  // not kept, or budget full
            classOfSeries_[id] = cls;
            rowOf_[id] = store->usedRows++;
        }
        record(classOfSeries_[id] == SeriesClass::Aggregate ? aggregate_ : device_, rowOf_[id], timeMs,
               samples[i].value);
    }
}

bool HistoryStore::keeps(std::uint32_t seriesId) const {
    std::lock_guard lock(mu_);
    return seriesId < rowOf_.size() && rowOf_[seriesId] != kNoRow;
}

HistoryResult HistoryStore::query(std::uint32_t seriesId, std::int64_t startMs, std::int64_t endMs,
                                  std::int64_t stepMs) const {
    HistoryResult result;
    std::lock_guard lock(mu_);
    if (seriesId >= rowOf_.size() || rowOf_[seriesId] == kNoRow || endMs <= startMs) return result;
    const ClassStore& store = classOfSeries_[seriesId] == SeriesClass::Aggregate ? aggregate_ : device_;
    const std::uint32_t row = rowOf_[seriesId];
    // The finest tier whose oldest bucket still reaches back to startMs, else the longest one.
    const Tier* tier = &store.tiers.back();
    for (const auto& t : store.tiers)
        if ((t.head - std::int64_t(t.buckets) + 1) * t.widthMs <= startMs) {
            tier = &t;
            break;
        }
    if (stepMs <= 0) stepMs = std::max<std::int64_t>(tier->widthMs, (endMs - startMs + 999) / 1000);
    stepMs = std::max(stepMs, tier->widthMs);
    result.stepMs = stepMs;

    const std::int64_t firstBucket =
        std::max(floorDiv(startMs, tier->widthMs), tier->head - std::int64_t(tier->buckets) + 1);
    const std::int64_t lastBucket = std::min(floorDiv(endMs - 1, tier->widthMs), tier->head);
    struct Acc {
        double sum = 0;
        float min = std::numeric_limits<float>::infinity(), max = -std::numeric_limits<float>::infinity(), last = 0;
        std::uint32_t count = 0;
    };
    std::map<std::int64_t, Acc> out;
    for (std::int64_t b = firstBucket; b <= lastBucket; ++b) {
        const Bucket& bucket = tier->rows[std::size_t(b % std::int64_t(tier->buckets)) * store.maxRows + row];
        if (bucket.count == 0) continue;
        const std::int64_t bucketStartMs = std::max(b * tier->widthMs, startMs);
        Acc& acc = out[startMs + floorDiv(bucketStartMs - startMs, stepMs) * stepMs];
        acc.sum += bucket.sum;
        acc.min = std::min(acc.min, bucket.min);
        acc.max = std::max(acc.max, bucket.max);
        acc.last = bucket.last;
        acc.count += bucket.count;
    }
    for (const auto& [start, acc] : out)
        result.points.push_back({start, float(acc.sum / acc.count), acc.min, acc.max, acc.last, acc.count});
    return result;
}

std::vector<std::optional<HistoryStore::ValueAt>> HistoryStore::valuesAt(
    std::int64_t timeMs, std::span<const std::uint32_t> seriesIds) const {
    constexpr std::int64_t kLookbackBuckets = 64;
    std::vector<std::optional<ValueAt>> out(seriesIds.size());
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < seriesIds.size(); ++i) {
        const std::uint32_t id = seriesIds[i];
        if (id >= rowOf_.size() || rowOf_[id] == kNoRow) continue;
        const ClassStore& store = classOfSeries_[id] == SeriesClass::Aggregate ? aggregate_ : device_;
        const Tier* tier = nullptr;
        for (const auto& t : store.tiers)
            if ((t.head - std::int64_t(t.buckets) + 1) * t.widthMs <= timeMs) {
                tier = &t;
                break;
            }
        if (!tier) continue;  // older than every tier keeps
        const std::int64_t newest = std::min(floorDiv(timeMs, tier->widthMs), tier->head);
        const std::int64_t oldest =
            std::max(newest - kLookbackBuckets + 1, tier->head - std::int64_t(tier->buckets) + 1);
        for (std::int64_t b = newest; b >= oldest; --b) {
            const Bucket& bucket =
                tier->rows[std::size_t(b % std::int64_t(tier->buckets)) * store.maxRows + rowOf_[id]];
            if (bucket.count == 0) continue;
            out[i] = ValueAt{bucket.last, std::min((b + 1) * tier->widthMs - 1, timeMs)};
            break;
        }
    }
    return out;
}

std::string HistoryStore::describeRetention() const {
    std::lock_guard lock(mu_);
    if (!planned_) return "history not planned yet (no samples)";
    std::ostringstream text;
    auto describe = [&](const char* name, const ClassStore& store) {
        text << name << " (" << store.maxRows << " series):";
        for (const auto& t : store.tiers)
            text << " " << durationText(t.widthMs) << "x" << durationText(t.widthMs * std::int64_t(t.buckets));
    };
    describe("history aggregate", aggregate_);
    text << "; ";
    describe("device", device_);
    return text.str();
}

}  // namespace watchfloor::server::service
