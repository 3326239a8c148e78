#pragma once
// Bounded history for charts: one point per server second for every metric of the entity kinds
// worth charting fleet-wide (fleet, region, rack, cooling loop, job). Per-GPU history is NOT kept
// here — at 129,600 GPUs it would not fit the console's memory budget; charts of one GPU ask
// fleetd (EndpointConnection::getHistory).
//
// Layout: a shared ring of capture times, and per (kind, metric) a [tick][slot] float matrix, so a
// capture is one memcpy of the latest-value column. NaN = no reading (blank or never reported).

#include "MetricColumns.h"

#include <QList>
#include <QPointF>

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace watchfloor::client {

struct HistoryPoint {
    std::int64_t timeUnixMs;
    float value;
};

class HistoryRing {
public:
    explicit HistoryRing(int capacity = 900) : m_capacity(capacity), m_times(std::size_t(capacity), 0) {}

    static bool keepsHistoryFor(watchfloor::v1::EntityKind kind);

    // Records the current latest values as the point at `timeUnixMs`.
    void capture(std::int64_t timeUnixMs, const MetricColumns& columns);
    // The next capture starts a new run (fleetd restarted): charts break their lines there
    // instead of joining the old run's last point to the new run's first.
    void breakBeforeNextCapture() { m_breakPending = m_size > 0; }
    // Times of the first capture after each break still in the ring, oldest first.
    const std::deque<std::int64_t>& breaks() const { return m_breaks; }
    // Drops every point but keeps the allocated matrices (clear() frees them: tens of MB to
    // allocate again, on the GUI thread).
    void forget();
    // Oldest first; clears `out` first.
    void series(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric, std::uint32_t slot,
                std::vector<HistoryPoint>& out) const;
    void clear();
    int size() const { return m_size; }
    int capacity() const { return m_capacity; }
    std::int64_t lastCaptureMs() const { return m_size ? m_times[std::size_t(prevHead())] : 0; }
    std::size_t bytes() const;

private:
    struct Matrix {
        std::size_t width = 0;
        std::vector<float> data;  // capacity × width
    };
    int prevHead() const { return (m_head + m_capacity - 1) % m_capacity; }

    int m_capacity;
    int m_head = 0;  // next row to write
    int m_size = 0;
    std::vector<std::int64_t> m_times;
    std::deque<std::int64_t> m_breaks;
    bool m_breakPending = false;
    std::unordered_map<std::uint32_t, Matrix> m_matrices;
};

// A series (oldest first, as series() gives it) as chart points: x = time in ms since the epoch,
// NaN values skipped, and where a break lies between two points (`breaks`: fleetd restarted), a
// point with y = NaN just before the first point after it, which charts draw as a gap.
QList<QPointF> chartPoints(const std::vector<HistoryPoint>& points, const std::deque<std::int64_t>& breaks);

}  // namespace watchfloor::client
