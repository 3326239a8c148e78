#include "MetricColumns.h"

namespace watchfloor::client {

MetricColumn& MetricColumns::obtain(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric,
                                    std::size_t slotCount) {
    auto& column = m_columns[key(kind, metric)];
    if (!column) {
        column = std::make_unique<MetricColumn>();
        column->kind = kind;
        column->metric = metric;
    }
    if (column->values.size() < slotCount) {
        column->resize(slotCount);
    }
    return *column;
}

const MetricColumn* MetricColumns::find(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric) const {
    const auto it = m_columns.find(key(kind, metric));
    return it == m_columns.end() ? nullptr : it->second.get();
}

void MetricColumns::clearValues() {
    // Stamps are relative to the epoch; all of them are zero now, so it may move freely.
    m_epochMs = 0;
    for (auto& [k, column] : m_columns) {
        column->clearValues();
    }
}

void MetricColumns::rebase(std::int64_t newEpochMs) {
    const std::int64_t shift = newEpochMs - m_epochMs;
    for (auto& [k, column] : m_columns) {
        for (std::uint32_t& stamp : column->stamps) {
            // Older than the new epoch: keep it reported (1 = oldest representable time).
            if (stamp != 0) stamp = std::uint32_t(std::max<std::int64_t>(1, std::int64_t(stamp) - shift));
        }
    }
    m_epochMs = newEpochMs;
}

void MetricColumns::forEach(const std::function<void(const MetricColumn&)>& fn) const {
    for (const auto& [k, column] : m_columns) {
        fn(*column);
    }
}

std::size_t MetricColumns::bytes() const {
    std::size_t total = 0;
    for (const auto& [k, column] : m_columns) {
        total += column->values.capacity() * sizeof(float) + column->stamps.capacity() * sizeof(std::uint32_t);
    }
    return total;
}

}  // namespace watchfloor::client
