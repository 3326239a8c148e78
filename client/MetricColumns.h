#pragma once
// Latest value and sample time per (entity, metric), stored column-wise: one flat float array and
// one time array per (entity kind, metric), indexed by the entity's slot within its kind. This is
// the ingest hot path: applying a SampleBlock is a tight loop of array stores, no allocation.

#include "watchfloor/v1/fleet.pb.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

namespace watchfloor::client {

// Sample times are stored as 32-bit "stamps": milliseconds after the owning MetricColumns'
// epoch, 0 = never reported. Half the bytes of an int64 per sample on the hot path; the epoch
// moves forward (rebase) before 49 days of offsets run out.
struct MetricColumn {
    watchfloor::v1::EntityKind kind = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
    watchfloor::v1::Metric metric = watchfloor::v1::METRIC_UNSPECIFIED;
    std::vector<float> values;          // NaN until reported (and NaN when reported blank)
    std::vector<std::uint32_t> stamps;  // sample time as a stamp; 0 = never reported

    void resize(std::size_t slotCount) {
        values.resize(slotCount, std::numeric_limits<float>::quiet_NaN());
        stamps.resize(slotCount, 0);
    }
    void clearValues() {
        std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
        std::fill(stamps.begin(), stamps.end(), 0);
    }
};

class MetricColumns {
public:
    static std::uint32_t key(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric) {
        return (std::uint32_t(metric) << 5) | std::uint32_t(kind);
    }

    // The column, created with `slotCount` rows if new (and grown to `slotCount` if smaller).
    MetricColumn& obtain(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric, std::size_t slotCount);
    const MetricColumn* find(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric) const;

    // The stamp for a sample time (>= 1). Rebases every column first if the offset would overflow.
    std::uint32_t stampFor(std::int64_t timeUnixMs) {
        if (m_epochMs == 0) m_epochMs = timeUnixMs - kEpochLeadMs;
        std::int64_t offset = timeUnixMs - m_epochMs;
        if (offset > std::int64_t(kMaxStamp)) {
            rebase(timeUnixMs - kEpochLeadMs);
            offset = timeUnixMs - m_epochMs;
        }
        return std::uint32_t(std::max<std::int64_t>(1, offset));
    }
    std::int64_t timeOf(std::uint32_t stamp) const { return stamp == 0 ? 0 : m_epochMs + stamp; }
    void clearValues();
    void clear() {
        m_columns.clear();
        m_epochMs = 0;
    }
    void forEach(const std::function<void(const MetricColumn&)>& fn) const;
    std::size_t bytes() const;

private:
    // Samples up to a day older than the first one still get their exact time.
    static constexpr std::int64_t kEpochLeadMs = 24LL * 3600 * 1000;
    static constexpr std::uint32_t kMaxStamp = 0xFFFFFFF0u;
    void rebase(std::int64_t newEpochMs);

    std::int64_t m_epochMs = 0;
    std::unordered_map<std::uint32_t, std::unique_ptr<MetricColumn>> m_columns;
};

}  // namespace watchfloor::client
