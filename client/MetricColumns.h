#pragma once
// Latest value and sample time per (entity, metric), stored column-wise: one flat float array and
// one time array per (entity kind, metric), indexed by the entity's slot within its kind. This is
// the ingest hot path: applying a SampleBlock is a tight loop of array stores, no allocation.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

namespace watchfloor::client {

struct MetricColumn {
    watchfloor::v1::EntityKind kind = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
    watchfloor::v1::Metric metric = watchfloor::v1::METRIC_UNSPECIFIED;
    std::vector<float> values;          // NaN until reported (and NaN when reported blank)
    std::vector<std::int64_t> timesMs;  // sample time, server clock; 0 = never reported

    void resize(std::size_t slotCount) {
        values.resize(slotCount, std::numeric_limits<float>::quiet_NaN());
        timesMs.resize(slotCount, 0);
    }
    void clearValues() {
        std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
        std::fill(timesMs.begin(), timesMs.end(), 0);
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
    void clearValues();
    void clear() { m_columns.clear(); }
    void forEach(const std::function<void(const MetricColumn&)>& fn) const;
    std::size_t bytes() const;

private:
    std::unordered_map<std::uint32_t, std::unique_ptr<MetricColumn>> m_columns;
};

}  // namespace watchfloor::client
