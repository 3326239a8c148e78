#include "RackMapLayout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace watchfloor::widgets {
namespace {

// Groups in first-appearance order, so the caller's ordering (e.g. by region name) is kept.
struct RowGroup {
    QString name;
    std::vector<int> racks;
};
struct HallGroup {
    QString name;
    std::vector<RowGroup> rows;
    int perLine = 1;
    double width = 0;
    double height = 0;
};
struct RegionGroup {
    QString name;
    std::vector<HallGroup> halls;
};

template <typename T>
T& findOrAdd(std::vector<T>& v, const QString& name) {
    auto it = std::find_if(v.begin(), v.end(), [&](const T& g) { return g.name == name; });
    if (it != v.end()) return *it;
    v.push_back(T{});
    v.back().name = name;
    return v.back();
}

constexpr double kRowSpacing = 0.35;
constexpr double kHallPadding = 0.6;
constexpr double kHallSpacing = 1.0;
constexpr double kRegionSpacing = 0.8;

struct PlacedRegion {
    std::vector<RackMapLayout::Row> rows;
    std::vector<std::vector<int>> racksOfRow;
    std::vector<RackMapLayout::Header> headers;
    QSizeF size;
};

// Halls flow left to right inside the region and wrap at wrapWidth; coordinates are local.
PlacedRegion placeRegion(const RegionGroup& region, double wrapWidth) {
    using Row = RackMapLayout::Row;
    using Header = RackMapLayout::Header;
    PlacedRegion out;
    double y = RackMapLayout::kRegionHeaderHeight;
    double x = 0;
    double lineHeight = 0;
    double right = 0;
    for (const auto& hall : region.halls) {
        if (x > 0 && x + hall.width > wrapWidth + 1e-9) {
            x = 0;
            y += lineHeight + kHallSpacing;
            lineHeight = 0;
        }
        const QRectF hallRect(x, y, hall.width, hall.height);
        out.headers.push_back(
            {Header::Level::Hall, hall.name,
             QRectF(x + kHallPadding, y, hall.width - 2 * kHallPadding, RackMapLayout::kHallHeaderHeight), hallRect});
        double rowY = y + RackMapLayout::kHallHeaderHeight;
        for (const auto& rowGroup : hall.rows) {
            Row row;
            row.label = rowGroup.name;
            row.count = static_cast<int>(rowGroup.racks.size());
            row.perLine = std::max(1, std::min(row.count, hall.perLine));
            const int lines = (row.count + row.perLine - 1) / row.perLine;
            row.origin = QPointF(x + kHallPadding + RackMapLayout::kRowLabelWidth, rowY);
            row.labelRect = QRectF(x + kHallPadding, rowY, RackMapLayout::kRowLabelWidth - RackMapLayout::kGap,
                                   RackMapLayout::kTile);
            row.tilesRect = QRectF(row.origin, QSizeF(row.perLine * RackMapLayout::kPitch - RackMapLayout::kGap,
                                                      lines * RackMapLayout::kPitch - RackMapLayout::kGap));
            out.rows.push_back(row);
            out.racksOfRow.push_back(rowGroup.racks);
            rowY += lines * RackMapLayout::kPitch + kRowSpacing;
        }
        x += hall.width + kHallSpacing;
        right = std::max(right, x - kHallSpacing);
        lineHeight = std::max(lineHeight, hall.height);
    }
    out.size = QSizeF(right, y + lineHeight);
    out.headers.push_back({Header::Level::Region, region.name, QRectF(0, 0, right, RackMapLayout::kRegionHeaderHeight),
                           QRectF(QPointF(0, 0), out.size)});
    return out;
}

QSizeF flowSize(const std::vector<PlacedRegion>& regions, std::size_t perLine) {
    double width = 0;
    double height = 0;
    for (std::size_t start = 0; start < regions.size(); start += perLine) {
        double lineWidth = 0;
        double lineHeight = 0;
        for (std::size_t i = start; i < std::min(regions.size(), start + perLine); ++i) {
            lineWidth += regions[i].size.width() + (i > start ? kRegionSpacing * 2 : 0);
            lineHeight = std::max(lineHeight, regions[i].size.height());
        }
        width = std::max(width, lineWidth);
        height += lineHeight + (start > 0 ? kRegionSpacing : 0);
    }
    return {std::max(width, 1.0), std::max(height, 1.0)};
}

}  // namespace

void RackMapLayout::build(const std::vector<RackPlacement>& racks, int maxTilesPerLine, double targetAspect) {
    m_rows.clear();
    m_headers.clear();
    m_order.clear();
    m_slotOfRack.assign(racks.size(), -1);
    m_rowOfSlot.clear();
    m_bounds = {};
    maxTilesPerLine = std::max(1, maxTilesPerLine);

    std::vector<RegionGroup> regions;
    for (std::size_t i = 0; i < racks.size(); ++i) {
        const RackPlacement& r = racks[i];
        findOrAdd(findOrAdd(findOrAdd(regions, r.region).halls, r.hall).rows, r.row)
            .racks.push_back(static_cast<int>(i));
    }

    double totalArea = 0;
    double widestHall = 0;
    for (auto& region : regions) {
        for (auto& hall : region.halls) {
            int widest = 1;
            double h = kHallHeaderHeight;
            for (const auto& row : hall.rows) {
                const int count = static_cast<int>(row.racks.size());
                const int perLine = std::min(count, maxTilesPerLine);
                widest = std::max(widest, perLine);
                hall.perLine = std::max(hall.perLine, perLine);
                const int lines = (count + perLine - 1) / perLine;
                h += lines * kPitch + kRowSpacing;
            }
            hall.width = kHallPadding * 2 + kRowLabelWidth + widest * kPitch;
            hall.height = h + kHallPadding;
            totalArea += (hall.width + kHallSpacing) * (hall.height + kHallSpacing);
            widestHall = std::max(widestHall, hall.width);
        }
    }
    const double wrapWidth = std::max(widestHall, std::sqrt(totalArea * std::max(0.2, targetAspect)));

    // Each region is laid out at its own origin, then regions flow left to right as whole blocks
    // with however many per line best matches the target aspect (7 racks: side by side; 1,800:
    // stacked).
    std::vector<PlacedRegion> placed;
    for (const auto& region : regions) placed.push_back(placeRegion(region, wrapWidth));

    std::size_t bestPerLine = 1;
    double bestMismatch = std::numeric_limits<double>::max();
    for (std::size_t perLine = 1; perLine <= placed.size(); ++perLine) {
        const QSizeF size = flowSize(placed, perLine);
        const double mismatch = std::abs(std::log((size.width() / size.height()) / std::max(0.2, targetAspect)));
        if (mismatch < bestMismatch - 1e-9) {
            bestMismatch = mismatch;
            bestPerLine = perLine;
        }
    }

    double x = 0;
    double y = 0;
    double lineHeight = 0;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        if (i > 0 && i % bestPerLine == 0) {
            x = 0;
            y += lineHeight + kRegionSpacing;
            lineHeight = 0;
        }
        const QPointF shift(x, y);
        PlacedRegion& region = placed[i];
        for (Header h : region.headers) {
            h.rect.translate(shift);
            h.groupRect.translate(shift);
            m_headers.push_back(h);
        }
        for (std::size_t r = 0; r < region.rows.size(); ++r) {
            Row row = region.rows[r];
            row.origin += shift;
            row.labelRect.translate(shift);
            row.tilesRect.translate(shift);
            row.firstSlot = static_cast<int>(m_order.size());
            for (int rack : region.racksOfRow[r]) {
                m_slotOfRack[static_cast<std::size_t>(rack)] = static_cast<int>(m_order.size());
                m_order.push_back(rack);
                m_rowOfSlot.push_back(static_cast<int>(m_rows.size()));
            }
            m_rows.push_back(row);
        }
        m_bounds = m_bounds.united(QRectF(shift, region.size));
        x += region.size.width() + kRegionSpacing * 2;
        lineHeight = std::max(lineHeight, region.size.height());
    }
    // Regions first so they paint beneath their halls.
    std::stable_partition(m_headers.begin(), m_headers.end(),
                          [](const Header& h) { return h.level == Header::Level::Region; });
}

QRectF RackMapLayout::tileRect(int rackIndex) const {
    if (rackIndex < 0 || rackIndex >= rackCount()) return {};
    const int slot = m_slotOfRack[static_cast<std::size_t>(rackIndex)];
    const Row& row = m_rows[static_cast<std::size_t>(m_rowOfSlot[static_cast<std::size_t>(slot)])];
    const int k = slot - row.firstSlot;
    return QRectF(row.origin.x() + (k % row.perLine) * kPitch, row.origin.y() + (k / row.perLine) * kPitch, kTile,
                  kTile);
}

int RackMapLayout::rackAt(const QPointF& world) const {
    for (const Row& row : m_rows) {
        if (!row.tilesRect.contains(world)) continue;
        const double dx = world.x() - row.origin.x();
        const double dy = world.y() - row.origin.y();
        const int col = static_cast<int>(dx / kPitch);
        const int line = static_cast<int>(dy / kPitch);
        if (dx - col * kPitch >= kTile || dy - line * kPitch >= kTile) return -1;  // in the gap between tiles
        const int k = line * row.perLine + col;
        if (col >= row.perLine || k >= row.count) return -1;
        return m_order[static_cast<std::size_t>(row.firstSlot + k)];
    }
    return -1;
}

}  // namespace watchfloor::widgets
