#include "RackMapWidget.h"

#include "PaintHelpers.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPixmap>
#include <QStaticText>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::widgets {
namespace {

constexpr int kMargin = 12;
constexpr double kMaxFitPixelsPerTile = 72.0;  // 7 racks must not become billboard-sized tiles
constexpr double kMinPixelsPerTile = 2.0;
constexpr double kMaxPixelsPerTile = 240.0;
constexpr double kZoomStep = 1.25;
constexpr int kDragThresholdPx = 4;
constexpr int kLabelMinTilePx = 34;  // room for a rack label inside the tile
constexpr int kValueMinTilePx = 52;  // room for label + value
constexpr int kBadgeMinTilePx = 10;
constexpr double kWallMaxTileAspect = 1.8;  // a rack is a tall box; taller tiles fill a wide wall page

}  // namespace

RackMapWidget::RackMapWidget(QWidget* parent)
    : QWidget(parent),
      m_colorScale(ColorScale::forLens(Lens::Health, Theme::builtin(ThemeVariant::Dark))),
      m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(160, 120);
    m_tileFontSmall = m_theme.font(7);
    m_tileFontLarge = m_theme.font(8);
}

void RackMapWidget::setRacks(std::vector<RackPlacement> racks) {
    const QString selectedId = selectedRackId();
    m_racks = std::move(racks);
    m_statuses.resize(m_racks.size());
    m_hovered = -1;
    m_selected = indexOfRack(selectedId);
    m_fitted = true;
    relayout();
}

void RackMapWidget::setStatuses(std::vector<RackStatus> statuses) {
    statuses.resize(m_racks.size());
    m_statuses = std::move(statuses);
    update();
}

void RackMapWidget::setColorScale(const ColorScale& scale) {
    m_colorScale = scale;
    invalidateStaticLayer();
}

void RackMapWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    updateTileFonts();
    if (m_fitted) fitToView();
    invalidateStaticLayer();
}

void RackMapWidget::setTooltipProvider(std::function<QString(int)> provider) {
    m_tooltipProvider = std::move(provider);
}

void RackMapWidget::setLegendVisible(bool visible) {
    m_legendVisible = visible;
    if (m_fitted) fitToView();
    invalidateStaticLayer();
}

void RackMapWidget::setWallDisplay(bool wall) {
    m_wall = wall;
    updateTileFonts();
    if (m_fitted) fitToView();
    invalidateStaticLayer();
}

// On a desk the tile fonts are fixed; on the wall they grow with the tile (never below the
// theme's wall type), so a map of seven racks reads from across the room.
void RackMapWidget::updateTileFonts() {
    m_tileFontSmall = m_theme.font(7);
    m_tileFontLarge = m_theme.font(8);
    if (m_wall) {
        const int grown = static_cast<int>(std::min(m_scale * 0.24, m_scaleY * 0.2));
        if (grown > m_tileFontLarge.pixelSize()) m_tileFontLarge.setPixelSize(grown);
        m_tileFontSmall = m_tileFontLarge;
    }
    m_textCache.clear();
    m_textCacheFont = nullptr;
}

void RackMapWidget::setMaxTilesPerLine(int tiles) {
    m_maxTilesPerLine = std::max(1, tiles);
    relayout();
}

int RackMapWidget::indexOfRack(const QString& id) const {
    if (id.isEmpty()) return -1;
    auto it = std::find_if(m_racks.begin(), m_racks.end(), [&](const RackPlacement& r) { return r.id == id; });
    return it == m_racks.end() ? -1 : static_cast<int>(it - m_racks.begin());
}

void RackMapWidget::relayout() {
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const double aspect = area.height() > 0 ? double(area.width()) / area.height() : 16.0 / 9.0;
    m_layout.build(m_racks, m_maxTilesPerLine, aspect);
    if (m_fitted) fitToView();
    invalidateStaticLayer();
}

QRect RackMapWidget::legendRect() const {
    if (!m_legendVisible) return {};
    const QSize hint = legendSizeHint(m_colorScale, m_theme, true);
    return QRect(kMargin, height() - kMargin - hint.height(), std::min(hint.width(), width() - 2 * kMargin),
                 hint.height());
}

void RackMapWidget::fitToView() {
    QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (m_legendVisible) area.setBottom(legendRect().top() - kMargin / 2);
    const QRectF b = m_layout.bounds();
    if (b.isEmpty() || area.width() <= 0 || area.height() <= 0) return;
    const double across = area.width() / b.width();
    const double down = area.height() / b.height();
    m_scale = std::clamp(std::min(across, down), kMinPixelsPerTile, m_wall ? kMaxPixelsPerTile : kMaxFitPixelsPerTile);
    m_scaleY = m_wall ? std::clamp(down, m_scale, m_scale * kWallMaxTileAspect) : m_scale;
    m_offset = QPointF(area.left() + (area.width() - b.width() * m_scale) / 2 - b.left() * m_scale,
                       area.top() + (area.height() - b.height() * m_scaleY) / 2 - b.top() * m_scaleY);
    m_fitted = true;
    if (m_wall) updateTileFonts();
    invalidateStaticLayer();
}

void RackMapWidget::zoomBy(double factor, const QPointF& anchor) {
    const double newScale = std::clamp(m_scale * factor, kMinPixelsPerTile, kMaxPixelsPerTile);
    const QPointF world = toWorld(anchor);
    m_scaleY *= newScale / m_scale;
    m_scale = newScale;
    m_offset = anchor - QPointF(world.x() * m_scale, world.y() * m_scaleY);
    m_fitted = false;
    invalidateStaticLayer();
}

void RackMapWidget::zoomIn() { zoomBy(kZoomStep, QRectF(rect()).center()); }

void RackMapWidget::zoomOut() { zoomBy(1.0 / kZoomStep, QRectF(rect()).center()); }

void RackMapWidget::panBy(const QPointF& deltaPixels) {
    m_offset += deltaPixels;
    m_fitted = false;
    invalidateStaticLayer();
}

QPointF RackMapWidget::toWorld(const QPointF& pos) const {
    return {(pos.x() - m_offset.x()) / m_scale, (pos.y() - m_offset.y()) / m_scaleY};
}

QRect RackMapWidget::toScreen(const QRectF& world) const {
    // Snap both edges to whole pixels so neighbouring tiles keep an even gap (crisp at any DPR).
    const int left = static_cast<int>(std::lround(world.left() * m_scale + m_offset.x()));
    const int top = static_cast<int>(std::lround(world.top() * m_scaleY + m_offset.y()));
    const int right = static_cast<int>(std::lround(world.right() * m_scale + m_offset.x()));
    const int bottom = static_cast<int>(std::lround(world.bottom() * m_scaleY + m_offset.y()));
    return QRect(left, top, std::max(1, right - left), std::max(1, bottom - top));
}

int RackMapWidget::rackAt(const QPoint& pos) const {
    if (legendRect().contains(pos)) return -1;
    return m_layout.rackAt(toWorld(QPointF(pos) + QPointF(0.5, 0.5)));
}

QString RackMapWidget::rackIdAt(const QPoint& pos) const {
    const int i = rackAt(pos);
    return i < 0 ? QString() : m_racks[static_cast<std::size_t>(i)].id;
}

QRect RackMapWidget::tileRect(int rackIndex) const {
    const QRectF w = m_layout.tileRect(rackIndex);
    return w.isEmpty() ? QRect() : toScreen(w);
}

QString RackMapWidget::toolTipText(int rackIndex) const {
    if (rackIndex < 0 || rackIndex >= rackCount()) return {};
    if (m_tooltipProvider) {
        QString custom = m_tooltipProvider(rackIndex);
        if (!custom.isEmpty()) return custom;
    }
    const RackPlacement& r = m_racks[static_cast<std::size_t>(rackIndex)];
    const RackStatus& s = m_statuses[static_cast<std::size_t>(rackIndex)];
    QStringList lines;
    lines << QStringLiteral("%1 — %2 / %3 / %4").arg(r.label.isEmpty() ? r.id : r.label, r.region, r.hall, r.row);
    lines << QStringLiteral("%1: %2").arg(m_colorScale.title(), m_colorScale.formatReading(s.value));
    if (s.alertCount > 0)
        lines << QStringLiteral("%1 open alert%2").arg(s.alertCount).arg(s.alertCount == 1 ? "" : "s");
    if (s.isolated) lines << QStringLiteral("Isolated (valve closed, trays powered down)");
    if (s.silentTrays > 0)
        lines << QStringLiteral("%1 tray%2 with silent telemetry (values are the last read)")
                     .arg(s.silentTrays)
                     .arg(s.silentTrays == 1 ? "" : "s");
    if (!s.maintenanceNote.isEmpty()) lines << s.maintenanceNote;
    if (!s.linkNote.isEmpty()) lines << s.linkNote;
    return lines.join(QLatin1Char('\n'));
}

QRect RackMapWidget::linkMarkRect(int rackIndex) const {
    if (rackIndex < 0 || rackIndex >= rackCount()) return {};
    return linkMarkRect(m_statuses[static_cast<std::size_t>(rackIndex)], tileRect(rackIndex));
}

// Right, halfway down: the rack's label and the alerts' badge take the top, the value and a silent
// strip the bottom. One square per shape, a fifth of the tile wide (wall: at least the theme's cap
// height, to be seen across the room).
QRect RackMapWidget::linkMarkRect(const RackStatus& s, const QRect& r) const {
    const int shapes = (s.linksAtRisk > 0 ? 1 : 0) + (s.linksIsolated > 0 ? 1 : 0);
    if (shapes == 0 || r.width() < kBadgeMinTilePx) return {};
    int side = std::clamp(r.width() / 5, 6, 18);
    if (m_wall) side = std::max(side, static_cast<int>(std::ceil(m_theme.minCapHeightPx() * 1.2)));
    side = std::min({side, std::max(4, (r.width() - 4) / shapes - 2), r.height() - 4});
    const int width = shapes * side + (shapes - 1) * 2;
    return {r.right() - 2 - width + 1, r.center().y() - side / 2, width, side};
}

QString RackMapWidget::selectedRackId() const {
    return m_selected < 0 || m_selected >= rackCount() ? QString() : m_racks[static_cast<std::size_t>(m_selected)].id;
}

void RackMapWidget::setSelectedRack(const QString& id) { setSelectedIndex(indexOfRack(id)); }

void RackMapWidget::setSelectedIndex(int rackIndex) {
    select(rackIndex >= 0 && rackIndex < rackCount() ? rackIndex : -1, true);
}

void RackMapWidget::select(int rackIndex, bool visible) {
    if (rackIndex == m_selected) return;
    m_selected = rackIndex;
    if (visible && rackIndex >= 0) ensureVisible(rackIndex);
    update();
    emit selectionChanged(selectedRackId());
}

void RackMapWidget::ensureVisible(int rackIndex) {
    const QRect r = tileRect(rackIndex).adjusted(-kMargin, -kMargin, kMargin, kMargin);
    QPointF delta;
    if (r.left() < 0)
        delta.setX(-r.left());
    else if (r.right() > width())
        delta.setX(width() - r.right());
    if (r.top() < 0)
        delta.setY(-r.top());
    else if (r.bottom() > height())
        delta.setY(height() - r.bottom());
    if (!delta.isNull()) panBy(delta);
}

int RackMapWidget::neighbour(int rackIndex, int key) const {
    if (rackCount() == 0) return -1;
    if (rackIndex < 0) return m_layout.displayOrder().front();
    const int slot = m_layout.slotOfRack(rackIndex);
    const auto& order = m_layout.displayOrder();
    if (key == Qt::Key_Left) return slot > 0 ? order[static_cast<std::size_t>(slot - 1)] : rackIndex;
    if (key == Qt::Key_Right) return slot + 1 < rackCount() ? order[static_cast<std::size_t>(slot + 1)] : rackIndex;
    // Up/Down: the nearest tile in that direction, preferring the same column.
    const QPointF from = m_layout.tileRect(rackIndex).center();
    const double sign = key == Qt::Key_Up ? -1.0 : 1.0;
    int best = rackIndex;
    double bestScore = std::numeric_limits<double>::max();
    for (int i = 0; i < rackCount(); ++i) {
        const QPointF c = m_layout.tileRect(i).center();
        const double dy = (c.y() - from.y()) * sign;
        if (dy < RackMapLayout::kTile * 0.5) continue;
        const double score = dy * 3.0 + std::abs(c.x() - from.x());
        if (score < bestScore) {
            bestScore = score;
            best = i;
        }
    }
    return best;
}

void RackMapWidget::setHovered(int rackIndex) {
    if (rackIndex == m_hovered) return;
    const int old = m_hovered;
    m_hovered = rackIndex;
    if (old >= 0) update(tileRect(old).adjusted(-3, -3, 3, 3));
    if (rackIndex >= 0) update(tileRect(rackIndex).adjusted(-3, -3, 3, 3));
    emit rackHovered(rackIndex < 0 ? QString() : m_racks[static_cast<std::size_t>(rackIndex)].id);
}

// ---- painting -------------------------------------------------------------------------------

void RackMapWidget::invalidateStaticLayer() {
    m_staticLayer = QPixmap();
    update();
}

// Everything except the tiles (background, group bands, header and row text; the legend in a
// layer of its own) changes only with geometry, theme or lens, so it is drawn once into pixmaps;
// a frame is then one blit plus ~1,800 fillRects. Text shaping dominated the frame before this.
void RackMapWidget::ensureStaticLayer() {
    const qreal dpr = devicePixelRatioF();
    if (!m_staticLayer.isNull() && m_staticLayer.size() == size() * dpr) return;
    m_staticLayer = QPixmap(size() * dpr);
    m_staticLayer.setDevicePixelRatio(dpr);
    m_staticLayer.fill(m_theme.colors().window);
    QPainter p(&m_staticLayer);
    const QRectF visibleWorld(toWorld(QPointF(0, 0)), toWorld(QPointF(width(), height())));
    paintHeaders(p, visibleWorld);
    // The legend floats above the tiles (they pan under it), so it is a layer of its own.
    m_legendLayer = QPixmap();
    if (m_legendVisible) {
        const QRect lr = legendRect();
        m_legendLayer = QPixmap(lr.size() * dpr);
        m_legendLayer.setDevicePixelRatio(dpr);
        QColor band = m_theme.colors().window;
        band.setAlphaF(0.88f);
        m_legendLayer.fill(band);
        QPainter lp(&m_legendLayer);
        paintLegend(lp, QRect(QPoint(0, 0), lr.size()), m_colorScale, m_theme, true);
    }
    if (m_racks.empty()) {
        p.setPen(m_theme.colors().textDim);
        p.setFont(m_theme.headerFont());
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("No racks in the fleet topology yet"));
    }
}

void RackMapWidget::paintEvent(QPaintEvent* event) {
    ensureStaticLayer();
    QPainter p(this);
    const QRect dirty = event->rect();
    const qreal dpr = m_staticLayer.devicePixelRatio();
    p.drawPixmap(dirty, m_staticLayer, QRectF(QPointF(dirty.topLeft()) * dpr, QSizeF(dirty.size()) * dpr));
    const QRectF visibleWorld(toWorld(dirty.topLeft()), toWorld(dirty.bottomRight() + QPoint(1, 1)));
    paintTiles(p, visibleWorld);
    if (!m_legendLayer.isNull()) {
        const QRect lr = legendRect();
        if (lr.intersects(dirty)) p.drawPixmap(lr.topLeft(), m_legendLayer);
    }
}

void RackMapWidget::paintHeaders(QPainter& p, const QRectF& visibleWorld) {
    const ThemeColors& c = m_theme.colors();
    for (const auto& h : m_layout.headers()) {
        if (!h.groupRect.intersects(visibleWorld)) continue;
        const QRect group = toScreen(h.groupRect);
        const QRect band = toScreen(h.rect);
        const bool region = h.level == RackMapLayout::Header::Level::Region;
        if (!region) p.fillRect(group, c.panel);
        QFont f = region ? m_theme.font(11, true) : m_theme.labelFont();
        const QFontMetrics fm(f);
        if (band.height() < fm.height() * 0.7) continue;  // level of detail: no text when it cannot be read
        p.setFont(f);
        p.setPen(region ? c.text : c.textDim);
        const QRect textRect = band.adjusted(region ? 0 : 2, 0, 0, 0);
        p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(h.text, Qt::ElideRight, textRect.width()));
        if (region) p.fillRect(QRect(band.left(), band.bottom(), group.width(), 1), c.grid);
    }
    QFont rowFont = m_theme.font(8);
    const QFontMetrics rfm(rowFont);
    p.setFont(rowFont);
    p.setPen(c.textDim);
    // Decided once from the zoom, not per row: pixel rounding must not make labels flicker in and out.
    const double labelHeightPx = RackMapLayout::kTile * m_scaleY;
    const double labelWidthPx = (RackMapLayout::kRowLabelWidth - RackMapLayout::kGap) * m_scale;
    if (labelHeightPx < rfm.height() * 0.75) return;
    for (const auto& row : m_layout.rows()) {
        if (!row.labelRect.intersects(visibleWorld)) continue;
        const QRect r = toScreen(row.labelRect);
        // Row names are short ("R07"); when a label is wider than its slot it may run into the hall
        // padding on its left rather than be elided into something unreadable.
        if (rfm.horizontalAdvance(row.label) > labelWidthPx * 1.6) continue;
        p.drawText(r.adjusted(-r.width(), 0, 0, 0), Qt::AlignVCenter | Qt::AlignRight, row.label);
    }
}

void RackMapWidget::paintTiles(QPainter& p, const QRectF& visibleWorld) {
    const ThemeColors& c = m_theme.colors();
    const QBrush staleHatch(c.window, Qt::BDiagPattern);
    for (const auto& row : m_layout.rows()) {
        if (!row.tilesRect.intersects(visibleWorld)) continue;
        for (int k = 0; k < row.count; ++k) {
            const int rack = m_layout.displayOrder()[static_cast<std::size_t>(row.firstSlot + k)];
            const QRectF world(row.origin.x() + (k % row.perLine) * RackMapLayout::kPitch,
                               row.origin.y() + (k / row.perLine) * RackMapLayout::kPitch, RackMapLayout::kTile,
                               RackMapLayout::kTile);
            if (!world.intersects(visibleWorld)) continue;
            const QRect r = toScreen(world);
            const RackStatus& s = m_statuses[static_cast<std::size_t>(rack)];
            const QColor fill = readingFill(m_colorScale, s.value, m_theme);
            if (!fill.isValid()) {
                paintMissingCell(p, r, m_theme, r.width() >= kLabelMinTilePx);
            } else {
                p.fillRect(r, fill);
                if (s.value.isSilent())
                    paintSilentHatch(p, r, m_theme);
                else if (s.value.isStale())
                    p.fillRect(r, staleHatch);
            }
            if (s.maintenance) paintMaintenanceHatch(p, r, m_theme);
            if (r.width() >= kBadgeMinTilePx) paintTileDetails(p, rack, r);
        }
    }
    if (m_selected >= 0) {
        p.setPen(QPen(c.selection, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(tileRect(m_selected).adjusted(-2, -2, 1, 1));
    }
    if (m_hovered >= 0 && m_hovered != m_selected) {
        p.setPen(QPen(c.hover, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(tileRect(m_hovered).adjusted(-2, -2, 1, 1));
    }
}

void RackMapWidget::paintTileDetails(QPainter& p, int rackIndex, const QRect& r) {
    const ThemeColors& c = m_theme.colors();
    const RackStatus& s = m_statuses[static_cast<std::size_t>(rackIndex)];
    const RackPlacement& placement = m_racks[static_cast<std::size_t>(rackIndex)];
    const QColor fill = readingFill(m_colorScale, s.value, m_theme);
    const QColor ink = fill.isValid() ? textColorOn(fill) : c.text;
    if (s.isolated) paintCross(p, r, ink, std::max(1.5, r.width() / 14.0));
    const bool silentStrip = s.silentTrays > 0 && r.width() >= kLabelMinTilePx;
    if (m_wall) {
        // Wall type or nothing: a value cut to "H…" reads as noise from across the room.
        const QFontMetrics fm(m_tileFontLarge);
        const QRect inner = r.adjusted(6, 4, -6, -4);
        p.setPen(ink);
        if (fm.horizontalAdvance(placement.label) <= inner.width() && fm.height() <= inner.height())
            drawTileText(p, m_tileFontLarge, placement.label, inner, false);
        const QString value = s.value.isMissing() ? QString() : m_colorScale.formatValue(s.value.value);
        const bool valueFits = !value.isEmpty() && !silentStrip && fm.horizontalAdvance(value) <= inner.width() &&
                               2 * fm.height() <= inner.height();
        if (valueFits) drawTileText(p, m_tileFontLarge, value, inner, true);
        paintHealthMark(p, s, r, ink);
    } else if (r.width() >= kLabelMinTilePx) {
        const QFont& f = r.width() >= kValueMinTilePx ? m_tileFontLarge : m_tileFontSmall;
        p.setPen(ink);
        const QRect inner = r.adjusted(3, 2, -3, -2);
        drawTileText(p, f, placement.label, inner, false);
        if (r.width() >= kValueMinTilePx && !s.value.isMissing() && !silentStrip)
            drawTileText(p, f, m_colorScale.formatValue(s.value.value), inner, true);
    }
    if (s.silentTrays > 0) paintSilentMark(p, s.silentTrays, r, silentStrip);
    paintLinkMark(p, s, r, ink);
    if (s.alertCount > 0) {
        if (m_wall && r.width() >= 24) {
            // The count in wall type: a glyph as tall as the theme's smallest capitals.
            const qreal radius = std::max(std::clamp(r.width() / 6.0, 4.0, 9.0), m_theme.minCapHeightPx() * 1.1);
            paintCountBadge(p, QPointF(r.right() - radius + 1, r.top() + radius), radius, s.alertCount, c.crit);
        } else if (r.width() >= 24) {
            const qreal radius = std::clamp(r.width() / 6.0, 4.0, 9.0);
            paintCountBadge(p, QPointF(r.right() - radius + 1, r.top() + radius), radius, s.alertCount, c.crit);
        } else {
            // Too small for a number: a corner flag still says "something is open here".
            const int t = std::max(4, r.width() / 2);
            const QPoint tri[3] = {QPoint(r.right() - t + 1, r.top()), QPoint(r.right() + 1, r.top()),
                                   QPoint(r.right() + 1, r.top() + t)};
            p.setPen(Qt::NoPen);
            p.setBrush(c.crit);
            p.drawPolygon(tri, 3);
        }
    }
}

// Colour alone does not carry a state across a room (nor to a colour-blind operator): on the wall
// a degraded rack shows "!" and a failed one "✕", centred, in the tile's ink.
void RackMapWidget::paintHealthMark(QPainter& p, const RackStatus& s, const QRect& r, const QColor& ink) {
    if (m_colorScale.title() != lensName(Lens::Health) || s.value.isMissing() || s.isolated) return;
    const auto category = static_cast<HealthCategory>(static_cast<int>(s.value.value));
    if (category != HealthCategory::Degraded && category != HealthCategory::Failed) return;
    QFont f = m_tileFontLarge;
    f.setBold(true);
    f.setPixelSize(std::max(f.pixelSize(), static_cast<int>(std::min(r.width(), r.height()) * 0.45)));
    p.save();
    p.setFont(f);
    p.setPen(ink);
    p.drawText(r, Qt::AlignCenter, category == HealthCategory::Failed ? QStringLiteral("✕") : QStringLiteral("!"));
    p.restore();
}

// A barred disc (out of service: isolating, isolated, treated) left of a triangle (at risk), so
// the fabric's worst news sits nearest the edge.
void RackMapWidget::paintLinkMark(QPainter& p, const RackStatus& s, const QRect& r, const QColor& ink) {
    const QRect area = linkMarkRect(s, r);
    if (area.isEmpty()) return;
    const ThemeColors& c = m_theme.colors();
    const qreal side = area.height();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    QPen outline(ink, std::max(1.0, side / 10.0));
    qreal x = area.left();
    if (s.linksIsolated > 0) {
        const QRectF disc(x + 0.5, area.top() + 0.5, side - 1, side - 1);
        p.setPen(outline);
        p.setBrush(c.warn);
        p.drawEllipse(disc);
        p.setPen(QPen(textColorOn(c.warn), std::max(1.5, side / 6.0), Qt::SolidLine, Qt::FlatCap));
        const qreal inset = side * 0.27;
        p.drawLine(QPointF(disc.left() + inset, disc.bottom() - inset),
                   QPointF(disc.right() - inset, disc.top() + inset));
        x += side + 2;
    }
    if (s.linksAtRisk > 0) {
        const QPointF tri[3] = {QPointF(x + side / 2.0, area.top() + 0.5), QPointF(x + side - 0.5, area.bottom() + 0.5),
                                QPointF(x + 0.5, area.bottom() + 0.5)};
        p.setPen(outline);
        p.setBrush(c.crit);
        p.drawPolygon(tri, 3);
    }
    p.restore();
}

// A rack with silent trays: a frame in the silent colour and, when the tile has room, a solid strip
// along its bottom saying how many ("3 silent"); too small for words, a corner flag bottom left
// (alerts flag the top right).
void RackMapWidget::paintSilentMark(QPainter& p, int silentTrays, const QRect& r, bool strip) {
    const ThemeColors& c = m_theme.colors();
    if (!strip) {
        const int t = std::max(4, r.width() / 2);
        const QPoint tri[3] = {QPoint(r.left(), r.bottom() + 1), QPoint(r.left(), r.bottom() - t + 1),
                               QPoint(r.left() + t, r.bottom() + 1)};
        p.setPen(Qt::NoPen);
        p.setBrush(c.silent);
        p.drawPolygon(tri, 3);
        return;
    }
    paintSilentFrame(p, r, m_theme, std::max(2, r.width() / 20));
    const QFont& f = r.width() >= kValueMinTilePx ? m_tileFontLarge : m_tileFontSmall;
    const int h = std::min(r.height() / 3, QFontMetrics(f).height() + 4);
    const QRect band(r.left(), r.bottom() - h + 1, r.width(), h);
    p.fillRect(band, c.silent);
    p.setPen(textColorOn(c.silent));
    drawTileText(p, f, QStringLiteral("%1 silent").arg(silentTrays), band.adjusted(3, 1, -3, -1), true);
}

// Tile text repeats every frame (labels) or takes few distinct values (formatted readings), so
// its shaped layout is cached; shaping per tile per frame dominated the zoomed-in paint time.
void RackMapWidget::drawTileText(QPainter& p, const QFont& font, const QString& text, const QRect& inner, bool bottom) {
    if (&font != m_textCacheFont || m_textCache.size() > 8192) {
        m_textCache.clear();
        m_textCacheFont = &font;
    }
    auto it = m_textCache.find(text);
    if (it == m_textCache.end()) {
        QStaticText st(text);
        st.setTextFormat(Qt::PlainText);
        st.prepare(QTransform(), font);
        it = m_textCache.insert(text, st);
    }
    if (p.font() != font) p.setFont(font);
    const QSizeF size = it->size();
    if (size.width() > inner.width()) {
        const QFontMetrics fm(font);
        p.drawText(inner, Qt::AlignLeft | (bottom ? Qt::AlignBottom : Qt::AlignTop),
                   fm.elidedText(text, Qt::ElideRight, inner.width()));
        return;
    }
    p.drawStaticText(QPointF(inner.left(), bottom ? inner.bottom() + 1 - size.height() : inner.top()), *it);
}

// ---- interaction ----------------------------------------------------------------------------

void RackMapWidget::resizeEvent(QResizeEvent*) { relayout(); }

void RackMapWidget::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0.0) zoomBy(std::pow(kZoomStep, steps), event->position());
    event->accept();
}

void RackMapWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_lastDragPos = event->position();
}

void RackMapWidget::mouseMoveEvent(QMouseEvent* event) {
    if (m_pressed) {
        if (!m_dragging && (event->position().toPoint() - m_pressPos).manhattanLength() > kDragThresholdPx) {
            m_dragging = true;
            setCursor(Qt::ClosedHandCursor);
        }
        if (m_dragging) {
            panBy(event->position() - m_lastDragPos);
            m_lastDragPos = event->position();
            return;
        }
    }
    setHovered(rackAt(event->position().toPoint()));
}

void RackMapWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_pressed) return QWidget::mouseReleaseEvent(event);
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        return;
    }
    const int rack = rackAt(event->position().toPoint());
    select(rack, false);
    if (rack >= 0) emit rackActivated(m_racks[static_cast<std::size_t>(rack)].id);
}

void RackMapWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    if (rackAt(event->position().toPoint()) < 0) fitToView();
}

void RackMapWidget::keyPressEvent(QKeyEvent* event) {
    const bool ctrl = event->modifiers().testFlag(Qt::ControlModifier);
    switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down: select(neighbour(m_selected, event->key()), true); return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (m_selected >= 0) emit rackActivated(selectedRackId());
        return;
    case Qt::Key_Escape: select(-1, false); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        if (ctrl) return zoomIn();
        break;
    case Qt::Key_Minus:
        if (ctrl) return zoomOut();
        break;
    case Qt::Key_0:
        if (ctrl) return fitToView();
        break;
    default: break;
    }
    QWidget::keyPressEvent(event);
}

void RackMapWidget::leaveEvent(QEvent* event) {
    setHovered(-1);
    QWidget::leaveEvent(event);
}

bool RackMapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int rack = rackAt(help->pos());
        if (rack < 0) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), toolTipText(rack), this, tileRect(rack));
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace watchfloor::widgets
