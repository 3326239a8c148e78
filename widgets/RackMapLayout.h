#pragma once
// Where every rack tile sits on the fleet canvas, in world units (one tile = 1.0). Racks are
// grouped region → hall → row in the order groups first appear in the input; halls flow left to
// right inside a region and wrap so the whole fleet has roughly the requested aspect ratio.
// Hit testing is arithmetic over row blocks (no per-tile objects).

#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

namespace watchfloor::widgets {

struct RackPlacement {
    QString id;     // stable identifier emitted in signals
    QString label;  // short name drawn on the tile when there is room, e.g. "r07"
    QString region;
    QString hall;
    QString row;
};

class RackMapLayout {
public:
    static constexpr double kTile = 1.0;
    static constexpr double kGap = 0.2;
    static constexpr double kPitch = kTile + kGap;
    static constexpr double kRowLabelWidth = 2.0;
    static constexpr double kHallHeaderHeight = 1.2;
    static constexpr double kRegionHeaderHeight = 1.6;

    struct Row {
        QString label;
        QRectF labelRect;   // left of the tiles
        QPointF origin;     // top-left of the first tile
        int firstSlot = 0;  // index into displayOrder()
        int count = 0;
        int perLine = 1;
        QRectF tilesRect;  // bounding box of the tiles
    };
    struct Header {
        enum class Level { Region, Hall };
        Level level;
        QString text;
        QRectF rect;       // band the header text sits in
        QRectF groupRect;  // the whole group (for the background band)
    };

    void build(const std::vector<RackPlacement>& racks, int maxTilesPerLine, double targetAspect);

    int rackCount() const { return static_cast<int>(m_slotOfRack.size()); }
    QRectF bounds() const { return m_bounds; }
    const std::vector<Row>& rows() const { return m_rows; }
    const std::vector<Header>& headers() const { return m_headers; }
    // displayOrder()[slot] = index of the rack in the input vector.
    const std::vector<int>& displayOrder() const { return m_order; }
    int slotOfRack(int rackIndex) const { return m_slotOfRack[static_cast<std::size_t>(rackIndex)]; }

    QRectF tileRect(int rackIndex) const;
    // Rack index under a world point, or -1 (gaps, labels and headers are not tiles).
    int rackAt(const QPointF& world) const;

private:
    std::vector<Row> m_rows;
    std::vector<Header> m_headers;
    std::vector<int> m_order;
    std::vector<int> m_slotOfRack;
    std::vector<int> m_rowOfSlot;
    QRectF m_bounds;
};

}  // namespace watchfloor::widgets
