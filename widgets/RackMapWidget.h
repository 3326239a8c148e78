#pragma once
// The fleet rack map: every rack (7 to 1,800) on one painted canvas, grouped region → hall → row,
// each tile coloured through a ColorScale (the lens). One widget, arithmetic hit testing, no
// per-tile QObjects (docs/domain/streaming-patterns.md: 2.5–3× faster than QGraphicsScene).
//
// Usage from ui/:
//   map->setRacks(placements);              // topology, when it changes
//   map->setColorScale(ColorScale::forLens(Lens::GpuTemperature, theme));
//   map->setStatuses(statuses);             // every frame (≤ 30 Hz), same order as placements
//   connect(map, &RackMapWidget::rackActivated, page, &Page::openRack);
//
// Interaction: wheel or Ctrl +/- zooms (around the cursor / centre), drag pans, Ctrl+0 or
// double-click on empty space fits, arrows move the selection, Enter/click activates, hover shows
// a tooltip (setTooltipProvider, else a default built from the status).

#include "ColorScale.h"
#include "RackMapLayout.h"
#include "Reading.h"
#include "Theme.h"

#include <QHash>
#include <QPixmap>
#include <QStaticText>
#include <QWidget>

#include <functional>
#include <vector>

namespace watchfloor::widgets {

struct RackStatus {
    Reading value;          // the lens value (a category index for categorical lenses)
    int alertCount = 0;     // unacknowledged alerts: drawn as a badge
    bool isolated = false;  // valve closed / trays powered down: drawn with a ✕
    // Trays whose telemetry source is silent: a silent-coloured frame, and "N silent" along the
    // bottom (a corner flag on small tiles). Not a health: the rack may be fine (when all of them
    // are, the caller makes `value` Silent: its colour is then cross-hatched).
    int silentTrays = 0;
    // Inside an active maintenance window (its events raise no incident): a tint and a wide
    // diagonal hatch in the theme's info colour over the tile, "maint." when there is room.
    bool maintenance = false;
    QString maintenanceNote;     // tooltip line, e.g. "Maintenance until 16:00 UTC (alice: pump swap)"
    int traysInMaintenance = 0;  // trays in node windows (the rack itself is not)
    // Rail links of the rack forecast at risk (or their isolation proposed), and links out of
    // service on the isolate -> treat -> return ladder (isolating, isolated, treated): a mark in
    // the tile's right edge halfway down (clear of the label, the alerts' badge, the value and the
    // silent strip), a triangle in the critical colour and a barred disc in the
    // warning colour, outlined in the tile's ink (shapes that read without colour, on any lens).
    // `linkNote` names them in the default tooltip.
    int linksAtRisk = 0;
    int linksIsolated = 0;
    QString linkNote;  // "Rail links: r05-n03-ib1 at risk · r06-n10-ib1 isolated"
};

class RackMapWidget : public QWidget {
    Q_OBJECT
public:
    explicit RackMapWidget(QWidget* parent = nullptr);

    // Topology. Keeps the selection when its rack id survives; refits the view.
    void setRacks(std::vector<RackPlacement> racks);
    // One status per rack, in setRacks() order. A size mismatch is a caller bug: extra entries are
    // ignored and racks without one are drawn as missing.
    void setStatuses(std::vector<RackStatus> statuses);
    const std::vector<RackStatus>& statuses() const { return m_statuses; }
    void setColorScale(const ColorScale& scale);
    void setTheme(const Theme& theme);
    // Tooltip text for a rack index; return an empty string for the default text.
    void setTooltipProvider(std::function<QString(int rackIndex)> provider);
    void setLegendVisible(bool visible);
    // Racks per line before a row wraps.
    void setMaxTilesPerLine(int tiles);
    // The war-room wall: fitting fills the widget (no 72 px cap, tiles up to kWallMaxTileAspect
    // times as tall as wide, as racks are), tile text and badges in the theme's wall type, a value
    // that does not fit whole is left out rather than elided, and a degraded or failed rack in the
    // health lens carries a mark ("!", "✕") as well as its colour.
    void setWallDisplay(bool wall);

    int rackCount() const { return static_cast<int>(m_racks.size()); }
    const RackPlacement& rack(int index) const { return m_racks[static_cast<std::size_t>(index)]; }
    int indexOfRack(const QString& id) const;

    // Hit testing in widget coordinates: the rack index under pos, or -1.
    int rackAt(const QPoint& pos) const;
    QString rackIdAt(const QPoint& pos) const;
    // Where a tile is drawn, in widget coordinates (empty for a bad index).
    QRect tileRect(int rackIndex) const;
    QString toolTipText(int rackIndex) const;
    // Where a tile's link mark is drawn (both shapes), in widget coordinates; empty without one
    // or on a tile too small for marks.
    QRect linkMarkRect(int rackIndex) const;

    QString selectedRackId() const;
    int selectedIndex() const { return m_selected; }
    void setSelectedRack(const QString& id);
    // By index, as placed by setRacks(); out of range clears the selection.
    void setSelectedIndex(int rackIndex);

    // Pixels per world unit (one tile is one unit) across; tiles are pixelsPerTileDown() tall.
    double pixelsPerTile() const { return m_scale; }
    double pixelsPerTileDown() const { return m_scaleY; }
    void zoomBy(double factor, const QPointF& anchor);
    void zoomIn();
    void zoomOut();
    void fitToView();
    void panBy(const QPointF& deltaPixels);

    QSize sizeHint() const override { return {960, 600}; }

signals:
    void rackActivated(const QString& id);
    void rackHovered(const QString& id);  // empty when the cursor leaves all tiles
    void selectionChanged(const QString& id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    QPointF toWorld(const QPointF& pos) const;
    QRect toScreen(const QRectF& world) const;
    QRect legendRect() const;
    void relayout();
    void select(int rackIndex, bool ensureVisible);
    void ensureVisible(int rackIndex);
    int neighbour(int rackIndex, int key) const;
    void setHovered(int rackIndex);
    void invalidateStaticLayer();
    void ensureStaticLayer();
    void paintHeaders(QPainter& p, const QRectF& visibleWorld);
    void paintTiles(QPainter& p, const QRectF& visibleWorld);
    void paintTileDetails(QPainter& p, int rackIndex, const QRect& r);
    void paintSilentMark(QPainter& p, int silentTrays, const QRect& r, bool strip);
    void drawTileText(QPainter& p, const QFont& font, const QString& text, const QRect& inner, bool bottom);
    void updateTileFonts();
    void paintHealthMark(QPainter& p, const RackStatus& s, const QRect& r, const QColor& ink);
    void paintLinkMark(QPainter& p, const RackStatus& s, const QRect& r, const QColor& ink);
    QRect linkMarkRect(const RackStatus& s, const QRect& tile) const;

    std::vector<RackPlacement> m_racks;
    std::vector<RackStatus> m_statuses;
    RackMapLayout m_layout;
    QHash<QString, QStaticText> m_textCache;
    const QFont* m_textCacheFont = nullptr;  // which of the two tile fonts the cache was shaped with
    QFont m_tileFontSmall;
    QFont m_tileFontLarge;
    QPixmap m_staticLayer;  // background, headers, labels: see ensureStaticLayer()
    QPixmap m_legendLayer;  // drawn over the tiles
    ColorScale m_colorScale;
    Theme m_theme;
    std::function<QString(int)> m_tooltipProvider;
    int m_maxTilesPerLine = 24;
    bool m_legendVisible = true;
    bool m_fitted = true;    // follow resizes until the user zooms or pans
    double m_scale = 20.0;   // pixels per world unit, across
    double m_scaleY = 20.0;  // down: equal to m_scale except on the wall
    bool m_wall = false;
    QPointF m_offset;  // widget position of world (0,0)
    int m_selected = -1;
    int m_hovered = -1;
    QPoint m_pressPos;
    QPointF m_lastDragPos;
    bool m_dragging = false;
    bool m_pressed = false;
};

}  // namespace watchfloor::widgets
