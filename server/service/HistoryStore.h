#pragma once
// Recent history of every series, downsampled server-side, in bounded memory.
//
// Retention (nominal; at the first batch of samples the planner counts the fleet's series and
// shrinks every tier by the same factor when they would not fit the memory budget; fleetd logs
// what it chose at start):
//   fleet, region, rack, cooling loop, power shelf, switch tray, job series ("aggregate"):
//       1 s buckets for 2 h, 1 min buckets for 2 days, 15 min buckets for 31 days
//   node, GPU and CPU series ("device"):
//       1 min buckets for 6 h, 15 min buckets for 7 days
//   NVLink and NIC port series: not kept (2.3 M links at 1,800 racks; the console shows their
//       live values and events).
// A bucket keeps sum, min, max, last and count, so any coarser step is exact for all five.
// Budget 1.5 GiB (a third for aggregate series). At 7 racks nothing shrinks. At 1,800 racks
// (~33 k aggregate and ~1.2 M device series, planned with 25 % headroom) fleetd logged:
//   aggregate 1 s x 6 min, 1 min x 2.3 h, 15 min x 36 h; device 1 min x 12 min, 15 min x 5.75 h.
// Longer history at that scale belongs in Prometheus, which fleetd is meant to sit beside.

#include "FleetStateStore.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::service {

struct HistoryTier {
    std::chrono::milliseconds width;
    std::size_t buckets;
};

struct HistoryPlan {
    std::vector<HistoryTier> aggregateTiers{
        {std::chrono::seconds(1), 7200}, {std::chrono::minutes(1), 2880}, {std::chrono::minutes(15), 2976}};
    std::vector<HistoryTier> deviceTiers{{std::chrono::minutes(1), 360}, {std::chrono::minutes(15), 672}};
    std::size_t budgetBytes = std::size_t(1536) << 20;
    double aggregateShare = 1.0 / 3;  // of the budget
};

struct HistoryPoint {
    std::int64_t startMs;
    float mean, min, max, last;
    std::uint32_t count;
};

struct HistoryResult {
    std::int64_t stepMs = 0;
    std::vector<HistoryPoint> points;
};

// History kept outside fleetd: the site's metrics store, when fleetd reads a real fleet
// (--source prometheus). It reaches back beyond fleetd's start and beyond fleetd's memory.
class ExternalHistory {
public:
    struct Answer {
        std::optional<HistoryResult> result;  // nothing and no error: not kept there, ask fleetd's own
        std::string error;                    // the store failed: the request fails with it
    };
    virtual ~ExternalHistory() = default;
    // Buckets of (entity, metric) from startMs to endMs, stepMs wide (0 = chosen by the backend).
    virtual Answer query(std::uint32_t entity, watchfloor::v1::Metric metric, std::int64_t startMs, std::int64_t endMs,
                         std::int64_t stepMs) const = 0;
};

class HistoryStore final : public SampleSink {
public:
    enum class SeriesClass : std::uint8_t { Aggregate, Device, NotKept };
    static SeriesClass classOf(watchfloor::v1::EntityKind kind);

    HistoryStore(const TopologyLookup& index, HistoryPlan plan = {});
    ~HistoryStore() override;

    void onSamples(UnixTime time, std::span<const Sample> samples, std::span<const std::uint32_t> seriesIds) override;

    bool keeps(std::uint32_t seriesId) const;
    // Buckets of width `stepMs` (0 = chosen here) from startMs, with data only. The step is
    // raised to the width of the finest tier still holding startMs.
    HistoryResult query(std::uint32_t seriesId, std::int64_t startMs, std::int64_t endMs, std::int64_t stepMs) const;
    std::string describeRetention() const;  // one line for the start log

    // A series' value as it was at a moment: the last sample of the bucket of the finest tier that
    // still holds `timeMs` (or of the newest bucket with data within 64 buckets before it).
    struct ValueAt {
        float value;
        std::int64_t sampleTimeMs;  // that bucket's end, at most timeMs
    };
    // out[i] is seriesIds[i]'s value, nothing when no bucket before timeMs has one. One lock.
    std::vector<std::optional<ValueAt>> valuesAt(std::int64_t timeMs, std::span<const std::uint32_t> seriesIds) const;

    // Set once, before serving.
    void setExternal(std::shared_ptr<const ExternalHistory> external) { external_ = std::move(external); }
    const ExternalHistory* external() const { return external_.get(); }

private:
    struct Bucket {
        float sum, min, max, last;
        std::uint32_t count;
    };
    struct Tier {
        std::int64_t widthMs;
        std::size_t buckets;
        std::int64_t head = INT64_MIN;  // newest bucket number written
        // [slot * maxRows + row]: one tick's samples land side by side (rows are assigned in the
        // source's sample order), so ingest writes memory sequentially. Mapped and populated at
        // planning, so the store's memory is resident (and flat) from the first tick.
        Bucket* rows = nullptr;
        std::size_t bytes = 0;
    };
    struct ClassStore {
        std::vector<Tier> tiers;
        std::uint32_t maxRows = 0;
        std::uint32_t usedRows = 0;
    };
    static constexpr std::uint32_t kNoRow = UINT32_MAX;

    void planFor(std::span<const Sample> firstSamples);
    void plan(ClassStore& store, const std::vector<HistoryTier>& tiers, std::size_t expectedRows,
              std::size_t budgetBytes);
    void advance(ClassStore& store, std::int64_t timeMs);
    void record(ClassStore& store, std::uint32_t row, std::int64_t timeMs, float value);

    const TopologyLookup& index_;
    const HistoryPlan plan_;
    mutable std::mutex mu_;
    bool planned_ = false;
    ClassStore aggregate_;
    ClassStore device_;
    std::vector<std::uint32_t> rowOf_;        // by series id
    std::vector<SeriesClass> classOfSeries_;  // by series id
    std::shared_ptr<const ExternalHistory> external_;
};

}  // namespace watchfloor::server::service
