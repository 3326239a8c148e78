#include "widgets/RackMapLayout.h"

#include <algorithm>
#include <cmath>
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
    double width = 0;
    double height = 0;
};
struct RegionGroup {
    QString name;
    std::vector<HallGroup> halls;
};

template<typename T>
T& findOrAdd(std::vector<T>& v, const QString& name)
{
    auto it = std::find_if(v.begin(), v.end(), [&](const T& g) { return g.name == name; });
    if (it != v.end())
        return *it;
    v.push_back(T{});
    v.back().name = name;
    return v.back();
}

constexpr double kRowSpacing = 0.35;
constexpr double kHallPadding = 0.6;
constexpr double kHallSpacing = 1.0;
constexpr double kRegionSpacing = 0.8;

} // namespace

void RackMapLayout::build(const std::vector<RackPlacement>& racks, int maxTilesPerLine, double targetAspect)
{
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
        findOrAdd(findOrAdd(findOrAdd(regions, r.region).halls, r.hall).rows, r.row).racks.push_back(static_cast<int>(i));
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

    double y = 0;
    for (const auto& region : regions) {
        const double regionTop = y;
        Header regionHeader{Header::Level::Region, region.name, QRectF(0, y, wrapWidth, kRegionHeaderHeight), {}};
        y += kRegionHeaderHeight;
        double x = 0;
        double lineHeight = 0;
        double regionRight = 0;
        for (const auto& hall : region.halls) {
            if (x > 0 && x + hall.width > wrapWidth + 1e-9) {
                x = 0;
                y += lineHeight + kHallSpacing;
                lineHeight = 0;
            }
            const QRectF hallRect(x, y, hall.width, hall.height);
            m_headers.push_back({Header::Level::Hall, hall.name,
                                 QRectF(x + kHallPadding, y, hall.width - 2 * kHallPadding, kHallHeaderHeight), hallRect});
            double rowY = y + kHallHeaderHeight;
            for (const auto& rowGroup : hall.rows) {
                Row row;
                row.label = rowGroup.name;
                row.count = static_cast<int>(rowGroup.racks.size());
                row.perLine = std::max(1, std::min(row.count, maxTilesPerLine));
                const int lines = (row.count + row.perLine - 1) / row.perLine;
                row.origin = QPointF(x + kHallPadding + kRowLabelWidth, rowY);
                row.labelRect = QRectF(x + kHallPadding, rowY, kRowLabelWidth - kGap, kTile);
                row.tilesRect = QRectF(row.origin, QSizeF(row.perLine * kPitch - kGap, lines * kPitch - kGap));
                row.firstSlot = static_cast<int>(m_order.size());
                for (int rack : rowGroup.racks) {
                    m_slotOfRack[static_cast<std::size_t>(rack)] = static_cast<int>(m_order.size());
                    m_order.push_back(rack);
                    m_rowOfSlot.push_back(static_cast<int>(m_rows.size()));
                }
                m_rows.push_back(row);
                rowY += lines * kPitch + kRowSpacing;
            }
            x += hall.width + kHallSpacing;
            regionRight = std::max(regionRight, x - kHallSpacing);
            lineHeight = std::max(lineHeight, hall.height);
        }
        y += lineHeight;
        regionHeader.groupRect = QRectF(0, regionTop, std::max(regionRight, wrapWidth), y - regionTop);
        m_headers.push_back(regionHeader);
        m_bounds = m_bounds.united(regionHeader.groupRect);
        y += kRegionSpacing;
    }
    // Regions first so they paint beneath their halls.
    std::stable_partition(m_headers.begin(), m_headers.end(),
                          [](const Header& h) { return h.level == Header::Level::Region; });
}

QRectF RackMapLayout::tileRect(int rackIndex) const
{
    if (rackIndex < 0 || rackIndex >= rackCount())
        return {};
    const int slot = m_slotOfRack[static_cast<std::size_t>(rackIndex)];
    const Row& row = m_rows[static_cast<std::size_t>(m_rowOfSlot[static_cast<std::size_t>(slot)])];
    const int k = slot - row.firstSlot;
    return QRectF(row.origin.x() + (k % row.perLine) * kPitch, row.origin.y() + (k / row.perLine) * kPitch, kTile, kTile);
}

int RackMapLayout::rackAt(const QPointF& world) const
{
    for (const Row& row : m_rows) {
        if (!row.tilesRect.contains(world))
            continue;
        const double dx = world.x() - row.origin.x();
        const double dy = world.y() - row.origin.y();
        const int col = static_cast<int>(dx / kPitch);
        const int line = static_cast<int>(dy / kPitch);
        if (dx - col * kPitch >= kTile || dy - line * kPitch >= kTile)
            return -1;  // in the gap between tiles
        const int k = line * row.perLine + col;
        if (col >= row.perLine || k >= row.count)
            return -1;
        return m_order[static_cast<std::size_t>(row.firstSlot + k)];
    }
    return -1;
}

} // namespace watchfloor::widgets
