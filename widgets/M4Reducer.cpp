#include "M4Reducer.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace watchfloor::widgets {
namespace {

struct Column {
    int firstIdx = -1;
    int minIdx = -1;
    int maxIdx = -1;
    int lastIdx = -1;
};

void flush(const Column& c, std::span<const QPointF> points, QList<QPointF>& out) {
    if (c.firstIdx < 0) return;
    std::array<int, 4> idx{c.firstIdx, c.minIdx, c.maxIdx, c.lastIdx};
    std::sort(idx.begin(), idx.end());
    int previous = -1;
    for (int i : idx) {
        if (i != previous) out.append(points[static_cast<std::size_t>(i)]);
        previous = i;
    }
}

}  // namespace

QList<QPointF> m4Reduce(std::span<const QPointF> points, double xMin, double xMax, int columns) {
    QList<QPointF> out;
    if (columns <= 0 || !(xMax > xMin) || points.empty()) return out;
    out.reserve(std::min<qsizetype>(static_cast<qsizetype>(points.size()), qsizetype(columns) * 4));

    const double columnsPerX = columns / (xMax - xMin);
    Column current;
    long currentColumn = -1;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const QPointF& p = points[i];
        if (p.x() < xMin || p.x() > xMax || std::isnan(p.y())) continue;
        // xMax itself belongs to the last column rather than opening one past the end.
        const long column = std::min<long>(static_cast<long>((p.x() - xMin) * columnsPerX), columns - 1);
        const int index = static_cast<int>(i);
        if (column != currentColumn) {
            flush(current, points, out);
            current = Column{index, index, index, index};
            currentColumn = column;
            continue;
        }
        if (p.y() < points[static_cast<std::size_t>(current.minIdx)].y()) current.minIdx = index;
        if (p.y() > points[static_cast<std::size_t>(current.maxIdx)].y()) current.maxIdx = index;
        current.lastIdx = index;
    }
    flush(current, points, out);
    return out;
}

std::vector<std::span<const QPointF>> splitAtGaps(std::span<const QPointF> points, double maxGapX) {
    std::vector<std::span<const QPointF>> runs;
    std::size_t start = 0;
    auto close = [&](std::size_t end) {
        if (end > start) runs.push_back(points.subspan(start, end - start));
    };
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (std::isnan(points[i].y())) {
            close(i);
            start = i + 1;
        } else if (i > start && maxGapX > 0 && points[i].x() - points[i - 1].x() > maxGapX) {
            close(i);
            start = i;
        }
    }
    close(points.size());
    return runs;
}

}  // namespace watchfloor::widgets
