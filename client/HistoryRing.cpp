#include "HistoryRing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

bool HistoryRing::keepsHistoryFor(v1::EntityKind kind) {
    switch (kind) {
    case v1::ENTITY_KIND_FLEET:
    case v1::ENTITY_KIND_REGION:
    case v1::ENTITY_KIND_RACK:
    case v1::ENTITY_KIND_COOLING_LOOP:
    case v1::ENTITY_KIND_JOB: return true;
    default: return false;
    }
}

void HistoryRing::capture(std::int64_t timeUnixMs, const MetricColumns& columns) {
    const std::size_t row = std::size_t(m_head);
    m_times[row] = timeUnixMs;
    columns.forEach([&](const MetricColumn& column) {
        if (!keepsHistoryFor(column.kind)) {
            return;
        }
        Matrix& m = m_matrices[MetricColumns::key(column.kind, column.metric)];
        const std::size_t width = column.values.size();
        if (m.width < width) {
            // Jobs appear over time: widen, keeping old rows (new slots read as "no reading").
            Matrix wider;
            wider.width = width;
            wider.data.assign(std::size_t(m_capacity) * width, std::numeric_limits<float>::quiet_NaN());
            for (std::size_t r = 0; m.width > 0 && r < std::size_t(m_capacity); ++r) {
                std::memcpy(&wider.data[r * width], &m.data[r * m.width], m.width * sizeof(float));
            }
            m = std::move(wider);
        }
        std::memcpy(&m.data[row * m.width], column.values.data(), width * sizeof(float));
    });
    m_head = (m_head + 1) % m_capacity;
    m_size = std::min(m_size + 1, m_capacity);
    if (m_breakPending) {
        m_breaks.push_back(timeUnixMs);
        m_breakPending = false;
    }
    const std::int64_t oldest = m_times[std::size_t((m_head - m_size + m_capacity) % m_capacity)];
    while (!m_breaks.empty() && m_breaks.front() <= oldest) {
        m_breaks.pop_front();  // its run's earlier points have left the ring: nothing to break from
    }
}

void HistoryRing::forget() {
    m_head = 0;
    m_size = 0;
    m_breaks.clear();
    m_breakPending = false;
}

void HistoryRing::series(v1::EntityKind kind, v1::Metric metric, std::uint32_t slot,
                         std::vector<HistoryPoint>& out) const {
    out.clear();
    const auto it = m_matrices.find(MetricColumns::key(kind, metric));
    if (it == m_matrices.end() || slot >= it->second.width) {
        return;
    }
    const Matrix& m = it->second;
    out.reserve(std::size_t(m_size));
    const int oldest = (m_head - m_size + m_capacity) % m_capacity;
    for (int i = 0; i < m_size; ++i) {
        const std::size_t row = std::size_t((oldest + i) % m_capacity);
        out.push_back(HistoryPoint{m_times[row], m.data[row * m.width + slot]});
    }
}

void HistoryRing::clear() {
    forget();
    m_matrices.clear();
}

std::size_t HistoryRing::bytes() const {
    std::size_t total = m_times.capacity() * sizeof(std::int64_t);
    for (const auto& [k, m] : m_matrices) {
        total += m.data.capacity() * sizeof(float);
    }
    return total;
}

QList<QPointF> chartPoints(const std::vector<HistoryPoint>& points, const std::deque<std::int64_t>& breaks) {
    QList<QPointF> out;
    out.reserve(qsizetype(points.size()));
    auto nextBreak = breaks.begin();
    for (const HistoryPoint& p : points) {
        bool crossed = false;
        for (; nextBreak != breaks.end() && *nextBreak <= p.timeUnixMs; ++nextBreak) crossed = true;
        if (crossed && !out.isEmpty() && !std::isnan(out.last().y())) {
            out.append(QPointF(double(p.timeUnixMs) - 0.5, std::numeric_limits<double>::quiet_NaN()));
        }
        if (!std::isnan(p.value)) out.append(QPointF(double(p.timeUnixMs), double(p.value)));
    }
    return out;
}

}  // namespace watchfloor::client
