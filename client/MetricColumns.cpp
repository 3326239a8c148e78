#include "client/MetricColumns.h"

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
    for (auto& [k, column] : m_columns) {
        column->clearValues();
    }
}

void MetricColumns::forEach(const std::function<void(const MetricColumn&)>& fn) const {
    for (const auto& [k, column] : m_columns) {
        fn(*column);
    }
}

std::size_t MetricColumns::bytes() const {
    std::size_t total = 0;
    for (const auto& [k, column] : m_columns) {
        total += column->values.capacity() * sizeof(float) + column->timesMs.capacity() * sizeof(std::int64_t);
    }
    return total;
}

}  // namespace watchfloor::client
