#include "RackElevationWidget.h"

#include "PaintHelpers.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace watchfloor::widgets {
namespace {

constexpr int kMargin = 8;
constexpr int kHeaderHeight = 26;
constexpr int kGroupGap = 10;  // between the two superchips of a tray
constexpr int kCellGap = 3;
constexpr double kCpuUnits = 0.55;  // CPU cell width relative to a GPU cell

}  // namespace

QString trayStateName(TrayState state) {
    switch (state) {
    case TrayState::Unknown: return QStringLiteral("unknown");
    case TrayState::Idle: return QStringLiteral("idle");
    case TrayState::Allocated: return QStringLiteral("allocated");
    case TrayState::Draining: return QStringLiteral("draining");
    case TrayState::Drained: return QStringLiteral("drained");
    case TrayState::Down: return QStringLiteral("down");
    }
    return {};
}

QString linkMarkName(LinkMark mark) {
    switch (mark) {
    case LinkMark::None: return {};
    case LinkMark::Returned: return QStringLiteral("returned");
    case LinkMark::Treated: return QStringLiteral("treated");
    case LinkMark::Isolated: return QStringLiteral("isolated");
    case LinkMark::Isolating: return QStringLiteral("isolating");
    case LinkMark::AtRisk: return QStringLiteral("at risk");
    case LinkMark::Proposed: return QStringLiteral("proposed");
    }
    return {};
}

QString linkChipText(LinkMark mark, const QString& port, bool withStage) {
    QString glyph;
    switch (mark) {
    case LinkMark::None: return {};
    case LinkMark::Returned: glyph = QStringLiteral("✓"); break;
    case LinkMark::Treated: glyph = QStringLiteral("↻"); break;
    case LinkMark::Isolated:
    case LinkMark::Isolating: glyph = QStringLiteral("⊘"); break;
    case LinkMark::AtRisk:
    case LinkMark::Proposed: glyph = QStringLiteral("▲"); break;
    }
    return withStage ? QStringLiteral("%1 %2 %3").arg(glyph, port, linkMarkName(mark))
                     : QStringLiteral("%1 %2").arg(glyph, port);
}

RackElevationWidget::RackElevationWidget(QWidget* parent)
    : QWidget(parent),
      m_scale(ColorScale::forLens(Lens::GpuTemperature, Theme::builtin(ThemeVariant::Dark))),
      m_health(ColorScale::forLens(Lens::Health, Theme::builtin(ThemeVariant::Dark))),
      m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setMouseTracking(true);
    rebuildSlots();
}

void RackElevationWidget::setElevation(const RackElevation& elevation) {
    m_rack = elevation;
    rebuildSlots();
    update();
}

void RackElevationWidget::setColorScale(const ColorScale& scale) {
    m_scale = scale;
    update();
}

void RackElevationWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    m_health = ColorScale::forLens(Lens::Health, theme);
    update();
}

void RackElevationWidget::setTooltipProvider(std::function<QString(const Hit&)> provider) {
    m_tooltipProvider = std::move(provider);
}

void RackElevationWidget::rebuildSlots() {
    m_slots.clear();
    const int shelves = static_cast<int>(m_rack.powerShelves.size());
    const int above = (shelves + 1) / 2;
    for (int i = 0; i < above; ++i) m_slots.push_back({SlotKind::PowerShelf, i});
    for (int i = 0; i < RackElevation::kComputeAboveSwitches; ++i) m_slots.push_back({SlotKind::Compute, i});
    for (int i = 0; i < RackElevation::kSwitchTrays; ++i) m_slots.push_back({SlotKind::Switch, i});
    for (int i = RackElevation::kComputeAboveSwitches; i < RackElevation::kComputeTrays; ++i)
        m_slots.push_back({SlotKind::Compute, i});
    for (int i = above; i < shelves; ++i) m_slots.push_back({SlotKind::PowerShelf, i});
}

RackElevationWidget::Geometry RackElevationWidget::geometry() const {
    Geometry g;
    g.frame = rect().adjusted(kMargin, kMargin + kHeaderHeight, -kMargin, -kMargin);
    g.top = g.frame.top() + 2;
    g.slotHeight = std::max(6, (g.frame.height() - 4) / std::max<int>(1, static_cast<int>(m_slots.size())));
    // Up to 270 px: a wide elevation shows a link's chip with its stage beside the whole tray label.
    g.labelWidth = std::clamp(g.frame.width() * 30 / 100, 110, 270);
    g.manifoldWidth = std::clamp(g.frame.width() * 15 / 100, 60, 96);
    g.labelLeft = g.frame.left() + 16;  // room for the alert badge and the shelf status bar
    g.cellsLeft = g.labelLeft + g.labelWidth;
    g.manifoldLeft = g.frame.right() - g.manifoldWidth;
    g.cellsWidth = g.manifoldLeft - 6 - g.cellsLeft;
    return g;
}

int RackElevationWidget::slotAt(int y, const Geometry& g) const {
    if (y < g.top) return -1;
    const int slot = (y - g.top) / g.slotHeight;
    return slot < static_cast<int>(m_slots.size()) ? slot : -1;
}

QRect RackElevationWidget::slotRect(int slot, const Geometry& g) const {
    return QRect(g.frame.left() + 2, g.top + slot * g.slotHeight, g.manifoldLeft - g.frame.left() - 4, g.slotHeight);
}

int RackElevationWidget::slotOf(SlotKind kind, int index) const {
    for (std::size_t i = 0; i < m_slots.size(); ++i)
        if (m_slots[i].kind == kind && m_slots[i].index == index) return static_cast<int>(i);
    return -1;
}

QRect RackElevationWidget::partRect(const QRect& slot, bool cpu, int index, const Geometry& g) const {
    // Per superchip: [CPU][GPU][GPU]; two superchips per tray.
    const double unit = (g.cellsWidth - kGroupGap - 4 * kCellGap) / (2 * (kCpuUnits + 2.0));
    const int group = cpu ? index : index / 2;
    double x = g.cellsLeft + group * (unit * (kCpuUnits + 2) + 2 * kCellGap + kGroupGap);
    double w = unit * kCpuUnits;
    if (!cpu) {
        x += unit * kCpuUnits + kCellGap + (index % 2) * (unit + kCellGap);
        w = unit;
    }
    const int inset = std::max(1, slot.height() / 10);
    return QRect(static_cast<int>(x), slot.top() + inset, std::max(2, static_cast<int>(w)), slot.height() - 2 * inset);
}

QRect RackElevationWidget::gpuRect(int tray, int gpu) const {
    const Geometry g = geometry();
    const int slot = slotOf(SlotKind::Compute, tray);
    if (slot < 0 || gpu < 0 || gpu >= RackElevation::kGpusPerTray) return {};
    return partRect(slotRect(slot, g), false, gpu, g);
}

QRect RackElevationWidget::cpuRect(int tray, int cpu) const {
    const Geometry g = geometry();
    const int slot = slotOf(SlotKind::Compute, tray);
    if (slot < 0 || cpu < 0 || cpu > 1) return {};
    return partRect(slotRect(slot, g), true, cpu, g);
}

QRect RackElevationWidget::trayRect(int tray) const {
    const int slot = slotOf(SlotKind::Compute, tray);
    return slot < 0 ? QRect() : slotRect(slot, geometry());
}

QFont RackElevationWidget::trayFont(const QRect& slot) const { return m_theme.font(slot.height() >= 22 ? 8.5 : 7); }

QRect RackElevationWidget::stateChipRect(const ComputeTray& tray, const QRect& slot, const QFontMetrics& fm,
                                         const Geometry& g) const {
    const int chipW = fm.horizontalAdvance(trayStateName(tray.state)) + 10;
    return {g.cellsLeft - 8 - chipW, slot.center().y() - fm.height() / 2, chipW, fm.height()};
}

RackElevationWidget::LinkChip RackElevationWidget::linkChip(const ComputeTray& tray, const QRect& stateChip,
                                                            const QFontMetrics& fm, const Geometry& g) const {
    if (tray.linkMark == LinkMark::None) return {};
    auto at = [&](const QString& text) {
        const int w = fm.horizontalAdvance(text) + 8;
        return LinkChip{text, QRect(stateChip.left() - 4 - w, stateChip.top(), w, stateChip.height())};
    };
    const LinkChip full = at(linkChipText(tray.linkMark, tray.linkPort, true));
    if (full.rect.left() - 4 >= g.labelLeft + fm.horizontalAdvance(tray.label)) return full;
    const LinkChip brief = at(linkChipText(tray.linkMark, tray.linkPort, false));
    return brief.rect.left() > g.labelLeft + 24 ? brief : LinkChip{};
}

QString RackElevationWidget::linkChipShown(int trayIndex) const {
    if (trayIndex < 0 || trayIndex >= RackElevation::kComputeTrays) return {};
    const Geometry g = geometry();
    const QRect slot = trayRect(trayIndex);
    const QFontMetrics fm(trayFont(slot));
    if (slot.height() < fm.height()) return {};
    const ComputeTray& tray = m_rack.compute[static_cast<std::size_t>(trayIndex)];
    return linkChip(tray, stateChipRect(tray, slot, fm, g), fm, g).text;
}

QRect RackElevationWidget::switchTrayRect(int index) const {
    const int slot = slotOf(SlotKind::Switch, index);
    return slot < 0 ? QRect() : slotRect(slot, geometry());
}

RackElevationWidget::Hit RackElevationWidget::hitTest(const QPoint& pos) const {
    const Geometry g = geometry();
    if (!g.frame.contains(pos)) return {};
    if (pos.x() >= g.manifoldLeft) return {Hit::Kind::Manifold, 0, -1};
    const int slot = slotAt(pos.y(), g);
    if (slot < 0) return {};
    const Slot& s = m_slots[static_cast<std::size_t>(slot)];
    if (s.kind == SlotKind::Switch) return {Hit::Kind::SwitchTray, s.index, -1};
    if (s.kind == SlotKind::PowerShelf) return {Hit::Kind::PowerShelf, s.index, -1};
    const QRect sr = slotRect(slot, g);
    for (int gpu = 0; gpu < RackElevation::kGpusPerTray; ++gpu)
        if (partRect(sr, false, gpu, g).contains(pos)) return {Hit::Kind::Gpu, s.index, gpu};
    for (int cpu = 0; cpu < 2; ++cpu)
        if (partRect(sr, true, cpu, g).contains(pos)) return {Hit::Kind::Cpu, s.index, cpu};
    return {Hit::Kind::ComputeTray, s.index, -1};
}

QString RackElevationWidget::toolTipText(const Hit& hit) const {
    if (m_tooltipProvider) {
        QString custom = m_tooltipProvider(hit);
        if (!custom.isEmpty()) return custom;
    }
    switch (hit.kind) {
    case Hit::Kind::Gpu: {
        const ComputeTray& tray = m_rack.compute[static_cast<std::size_t>(hit.index)];
        const GpuCell& gpu = tray.gpus[static_cast<std::size_t>(hit.part)];
        QStringList lines{gpu.id.isEmpty() ? QStringLiteral("GPU %1").arg(hit.part) : gpu.id,
                          QStringLiteral("%1: %2").arg(m_scale.title(), m_scale.formatReading(gpu.value))};
        if (gpu.down) lines << QStringLiteral("GPU down");
        if (gpu.throttling) lines << QStringLiteral("Throttling (clocks event active)");
        if (tray.silent)
            lines << QStringLiteral("Telemetry silent: %1")
                         .arg(tray.silentDetail.isEmpty() ? tray.silentReason : tray.silentDetail);
        if (!tray.linkDetail.isEmpty()) lines << tray.linkDetail;
        lines << QStringLiteral("%1 — %2").arg(tray.label, trayStateName(tray.state));
        return lines.join(QLatin1Char('\n'));
    }
    case Hit::Kind::Cpu: {
        const ComputeTray& tray = m_rack.compute[static_cast<std::size_t>(hit.index)];
        return QStringLiteral("Grace CPU %1 — %2\n%3: %4")
            .arg(hit.part)
            .arg(tray.label, m_scale.title(), m_scale.formatReading(tray.cpus[static_cast<std::size_t>(hit.part)]));
    }
    case Hit::Kind::ComputeTray: {
        const ComputeTray& tray = m_rack.compute[static_cast<std::size_t>(hit.index)];
        return QStringLiteral("%1 — %2%3%4%5")
            .arg(tray.label, trayStateName(tray.state),
                 tray.alertCount > 0 ? QStringLiteral("\n%1 open alerts").arg(tray.alertCount) : QString(),
                 tray.silent ? QStringLiteral("\nTelemetry silent: %1\nIts values are the last read.")
                                   .arg(tray.silentDetail.isEmpty() ? tray.silentReason : tray.silentDetail)
                             : QString(),
                 tray.linkDetail.isEmpty() ? QString() : QStringLiteral("\n") + tray.linkDetail);
    }
    case Hit::Kind::SwitchTray: {
        const SwitchTray& sw = m_rack.switches[static_cast<std::size_t>(hit.index)];
        return QStringLiteral("%1 (NVLink switch tray)\nHealth: %2").arg(sw.label, m_health.formatReading(sw.health));
    }
    case Hit::Kind::PowerShelf: {
        const PowerShelf& ps = m_rack.powerShelves[static_cast<std::size_t>(hit.index)];
        return QStringLiteral("%1\nPower: %2\nHealth: %3")
            .arg(ps.label,
                 ps.power_kw.isMissing() ? QStringLiteral("n/a")
                                         : QString::number(double(ps.power_kw.value), 'f', 1) + QStringLiteral(" kW"),
                 m_health.formatReading(ps.health));
    }
    case Hit::Kind::Manifold: {
        const ManifoldStatus& m = m_rack.manifold;
        auto fmt = [](const Reading& r, const char* unit, int decimals) {
            if (r.isMissing()) return QStringLiteral("n/a");
            return QString::number(double(r.value), 'f', decimals) + QChar(0x202F) + QString::fromUtf8(unit) +
                   (r.isStale() ? QStringLiteral(" (stale)") : QString());
        };
        return QStringLiteral("Coolant manifold%1\nSupply %2, return %3\nFlow %4%5")
            .arg(m.isolated ? QStringLiteral(" — ISOLATED (valve closed)") : QString(), fmt(m.supply_c, "°C", 1),
                 fmt(m.return_c, "°C", 1), fmt(m.flow_lpm, "L/min", 0),
                 m.leaksDetected > 0 ? QStringLiteral("\nLEAK: %1 sensor(s) wet").arg(m.leaksDetected) : QString());
    }
    case Hit::Kind::None: break;
    }
    return {};
}

// ---- painting -------------------------------------------------------------------------------

void RackElevationWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.window);
    const Geometry g = geometry();

    p.setFont(m_theme.headerFont());
    p.setPen(c.text);
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, kHeaderHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
               m_rack.rackLabel.isEmpty() ? m_rack.rackId : m_rack.rackLabel);
    p.setFont(m_theme.labelFont());
    p.setPen(c.textDim);
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, kHeaderHeight - 4), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("NVL72 · %1").arg(m_scale.title()));

    p.fillRect(g.frame, c.panel);
    p.setPen(c.grid);
    p.drawRect(g.frame.adjusted(0, 0, -1, -1));
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        const QRect sr = slotRect(static_cast<int>(i), g);
        switch (m_slots[i].kind) {
        case SlotKind::Compute:
            paintComputeTray(p, m_rack.compute[static_cast<std::size_t>(m_slots[i].index)], sr, g);
            break;
        case SlotKind::Switch:
            paintSwitchTray(p, m_rack.switches[static_cast<std::size_t>(m_slots[i].index)], sr, g);
            break;
        case SlotKind::PowerShelf:
            paintPowerShelf(p, m_rack.powerShelves[static_cast<std::size_t>(m_slots[i].index)], sr, g);
            break;
        }
    }
    paintManifold(p, g);
    if (m_hover.kind == Hit::Kind::Gpu) {
        p.setPen(QPen(c.hover, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(gpuRect(m_hover.index, m_hover.part).adjusted(-2, -2, 1, 1));
    }
}

void RackElevationWidget::paintComputeTray(QPainter& p, const ComputeTray& tray, const QRect& slot, const Geometry& g) {
    const ThemeColors& c = m_theme.colors();
    p.fillRect(slot.adjusted(0, 1, 0, -1), c.panelRaised);
    if (tray.silent) {
        QColor band = c.silent;
        band.setAlphaF(0.22f);
        p.fillRect(slot.adjusted(0, 1, 0, -1), band);
    }
    // Label and node-state chip.
    const QFont f = trayFont(slot);
    const QFontMetrics fm(f);
    p.setFont(f);
    QColor stateColor = c.textDim;
    switch (tray.state) {
    case TrayState::Allocated: stateColor = c.info; break;
    case TrayState::Draining:
    case TrayState::Drained: stateColor = c.warn; break;
    case TrayState::Down: stateColor = c.crit; break;
    case TrayState::Unknown: stateColor = c.missing; break;
    case TrayState::Idle: break;
    }
    const QRect chip = stateChipRect(tray, slot, fm, g);
    if (slot.height() >= fm.height()) {
        p.setPen(stateColor);
        p.setBrush(Qt::NoBrush);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.drawRoundedRect(QRectF(chip).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
        p.setRenderHint(QPainter::Antialiasing, false);
        p.drawText(chip, Qt::AlignCenter, trayStateName(tray.state));
        int labelRight = chip.left() - 4;
        if (const LinkChip link = linkChip(tray, chip, fm, g); !link.text.isEmpty()) {
            // Forecast at risk or isolation proposed: solid critical; isolating or isolated (the
            // tray drained for it): solid warning; treated or returned: an outline. The glyph
            // (▲ ⊘ ↻ ✓) and the stage word carry it without colour.
            const bool solid = tray.linkMark >= LinkMark::Isolated;
            const QColor tone = tray.linkMark >= LinkMark::AtRisk    ? c.crit
                                : solid                              ? c.warn
                                : tray.linkMark == LinkMark::Treated ? c.info
                                                                     : c.textDim;
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(solid ? QPen(Qt::NoPen) : QPen(tone));
            p.setBrush(solid ? QBrush(tone) : QBrush(Qt::NoBrush));
            p.drawRoundedRect(QRectF(link.rect).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
            p.setBrush(Qt::NoBrush);
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setPen(solid ? textColorOn(tone) : tone);
            p.drawText(link.rect, Qt::AlignCenter, link.text);
            labelRight = link.rect.left() - 4;
        }
        p.setPen(tray.state == TrayState::Down ? c.crit : tray.silent ? c.silent : c.text);
        const QRect labelRect(g.labelLeft, slot.top(), labelRight - g.labelLeft, slot.height());
        p.drawText(labelRect, Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(tray.label, Qt::ElideRight, labelRect.width()));
    }
    if (tray.alertCount > 0)
        paintCountBadge(p, QPointF(g.frame.left() + 9, slot.center().y()), std::min(6.5, slot.height() / 2.5),
                        tray.alertCount, c.crit);

    for (int cpu = 0; cpu < 2; ++cpu)
        paintReadingCell(p, partRect(slot, true, cpu, g), m_scale, tray.cpus[static_cast<std::size_t>(cpu)], m_theme,
                         false);
    for (int i = 0; i < RackElevation::kGpusPerTray; ++i) {
        const GpuCell& gpu = tray.gpus[static_cast<std::size_t>(i)];
        const QRect r = partRect(slot, false, i, g);
        paintReadingCell(p, r, m_scale, gpu.value, m_theme, true);
        const QColor fill = readingFill(m_scale, gpu.value, m_theme);
        const QColor ink = fill.isValid() ? textColorOn(fill) : c.text;
        if (tray.state == TrayState::Draining || tray.state == TrayState::Drained) {
            // Dark stripes read on every lens colour; drained (no work left) is also dimmed.
            QColor stripe = c.window;
            stripe.setAlphaF(0.7f);
            if (tray.state == TrayState::Drained) {
                QColor dim = c.window;
                dim.setAlphaF(0.35f);
                p.fillRect(r, dim);
            }
            paintDrainStripes(p, r, stripe);
        }
        if (gpu.down || tray.state == TrayState::Down)
            paintCross(p, r, gpu.down ? c.crit : ink, std::max(1.5, r.height() / 9.0));
        if (gpu.throttling) {
            const int t = std::max(5, r.height() / 2);
            const QPoint tri[3] = {QPoint(r.right() - t + 1, r.top()), QPoint(r.right() + 1, r.top()),
                                   QPoint(r.right() + 1, r.top() + t)};
            p.setPen(QPen(c.window, 1));
            p.setBrush(c.warn);
            p.drawPolygon(tri, 3);
        }
        if (r.height() >= 16 && r.width() >= 40 && !gpu.value.isMissing() && !gpu.down &&
            tray.state != TrayState::Down && !tray.silent) {
            p.setPen(ink);
            p.setFont(m_theme.font(7.5));
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, m_scale.formatValue(gpu.value.value));
        }
    }
    if (tray.silent) paintSilentTray(p, tray, slot, g);
}

// Over the tray's cells: a frame and a solid chip "SILENT · <reason>" in the silent colour, so a
// wall display reads it from across the room; the cells under it keep their last colour, hatched.
void RackElevationWidget::paintSilentTray(QPainter& p, const ComputeTray& tray, const QRect& slot, const Geometry& g) {
    const ThemeColors& c = m_theme.colors();
    const QRect cells = partRect(slot, true, 0, g).united(partRect(slot, false, RackElevation::kGpusPerTray - 1, g));
    paintSilentFrame(p, cells.adjusted(-2, -1, 2, 1), m_theme, 2);
    const QFont f = m_theme.font(slot.height() >= 22 ? 8 : 6.5, true);
    const QFontMetrics fm(f);
    if (cells.height() < fm.height() - 2) return;
    const QString text = tray.silentReason.isEmpty() ? QStringLiteral("SOURCE SILENT")
                                                     : QStringLiteral("SILENT · %1").arg(tray.silentReason);
    // At most two thirds of the cells: the last colours stay visible on both sides.
    const QString shown = fm.elidedText(text, Qt::ElideRight, cells.width() * 2 / 3 - 12);
    const int w = fm.horizontalAdvance(shown) + 12;
    const QRect chip(cells.center().x() - w / 2, cells.center().y() - (cells.height() - 2) / 2, w, cells.height() - 2);
    p.fillRect(chip, c.silent);
    p.setFont(f);
    p.setPen(textColorOn(c.silent));
    p.drawText(chip, Qt::AlignCenter, shown);
}

void RackElevationWidget::paintSwitchTray(QPainter& p, const SwitchTray& tray, const QRect& slot, const Geometry& g) {
    const ThemeColors& c = m_theme.colors();
    p.fillRect(slot.adjusted(0, 1, 0, -1), c.panel.lighter(115));
    const QFont f = m_theme.font(slot.height() >= 22 ? 8.5 : 7);
    p.setFont(f);
    p.setPen(c.textDim);
    if (slot.height() >= QFontMetrics(f).height())
        p.drawText(QRect(g.labelLeft, slot.top(), g.labelWidth - 8, slot.height()), Qt::AlignVCenter | Qt::AlignLeft,
                   tray.label);
    // Two NVSwitch chips, coloured by health.
    const int inset = std::max(1, slot.height() / 6);
    const int half = (g.cellsWidth - kGroupGap) / 2;
    for (int chip = 0; chip < 2; ++chip) {
        const QRect r(g.cellsLeft + chip * (half + kGroupGap), slot.top() + inset, half, slot.height() - 2 * inset);
        paintReadingCell(p, r, m_health, tray.health, m_theme, false);
        if (r.height() >= 12) {
            const QColor fill = readingFill(m_health, tray.health, m_theme);
            p.setPen(fill.isValid() ? textColorOn(fill) : c.textDim);
            p.setFont(m_theme.font(7));
            p.drawText(r, Qt::AlignCenter, QStringLiteral("NVSwitch"));
        }
    }
}

void RackElevationWidget::paintPowerShelf(QPainter& p, const PowerShelf& shelf, const QRect& slot, const Geometry& g) {
    const ThemeColors& c = m_theme.colors();
    p.fillRect(slot.adjusted(0, 1, 0, -1), c.panel.darker(115));
    const QColor status = readingFill(m_health, shelf.health, m_theme);
    p.fillRect(QRect(slot.left() + 2, slot.top() + 3, 4, slot.height() - 6), status.isValid() ? status : c.missing);
    const QFont f = m_theme.font(slot.height() >= 22 ? 8.5 : 7);
    p.setFont(f);
    if (slot.height() < QFontMetrics(f).height()) return;
    p.setPen(c.textDim);
    p.drawText(QRect(g.labelLeft, slot.top(), g.labelWidth, slot.height()), Qt::AlignVCenter | Qt::AlignLeft,
               shelf.label);
    p.setPen(shelf.power_kw.isStale() ? c.stale : c.text);
    p.drawText(QRect(g.cellsLeft, slot.top(), g.cellsWidth, slot.height()), Qt::AlignVCenter | Qt::AlignLeft,
               shelf.power_kw.isMissing()
                   ? QStringLiteral("power n/a")
                   : QStringLiteral("%1 kW%2")
                         .arg(double(shelf.power_kw.value), 0, 'f', 1)
                         .arg(shelf.power_kw.isStale() ? QStringLiteral(" (stale)") : QString()));
}

void RackElevationWidget::paintManifold(QPainter& p, const Geometry& g) {
    const ThemeColors& c = m_theme.colors();
    const ManifoldStatus& m = m_rack.manifold;
    const int first = slotOf(SlotKind::Compute, 0);
    const int last = slotOf(SlotKind::Compute, RackElevation::kComputeTrays - 1);
    const int top = slotRect(first, g).top();
    const int bottom = slotRect(last, g).bottom();
    const int pipeW = std::max(4, g.manifoldWidth / 10);
    const int supplyX = g.manifoldLeft + g.manifoldWidth * 3 / 10;
    const int returnX = g.manifoldLeft + g.manifoldWidth * 7 / 10;
    const QColor supply = m.isolated ? c.stale : c.coolantSupply;
    const QColor ret = m.isolated ? c.stale : c.coolantReturn;

    p.setRenderHint(QPainter::Antialiasing, true);
    // Stubs: every compute and switch tray is plumbed to both pipes.
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        if (m_slots[i].kind == SlotKind::PowerShelf) continue;
        const int y = slotRect(static_cast<int>(i), g).center().y();
        p.setPen(QPen(supply, 1.5));
        p.drawLine(g.manifoldLeft - 4, y - 2, supplyX, y - 2);
        p.setPen(QPen(ret, 1.5));
        p.drawLine(g.manifoldLeft - 4, y + 2, returnX, y + 2);
    }
    auto pipe = [&](int x, const QColor& color) {
        QPen pen(color, pipeW, m.isolated ? Qt::DashLine : Qt::SolidLine, Qt::FlatCap);
        p.setPen(pen);
        p.drawLine(x, top, x, bottom);
    };
    pipe(supplyX, supply);
    pipe(returnX, ret);
    p.setRenderHint(QPainter::Antialiasing, false);

    // Numbers above and below the pipes (over the power-shelf slots, or the header when none).
    auto fmt = [](const Reading& r, int decimals, const QString& unit) {
        return r.isMissing() ? QStringLiteral("n/a") : QString::number(double(r.value), 'f', decimals) + unit;
    };
    const QFont f = m_theme.font(7.5);
    const QFontMetrics fm(f);
    p.setFont(f);
    const QRect topArea(g.manifoldLeft, g.frame.top() + 2, g.manifoldWidth, top - g.frame.top() - 2);
    const QRect bottomArea(g.manifoldLeft, bottom + 2, g.manifoldWidth, g.frame.bottom() - bottom - 2);
    const int lh = fm.height();
    if (topArea.height() >= 2 * lh) {
        p.setPen(m.supply_c.isStale() || m.supply_c.isMissing() ? c.stale : c.coolantSupply);
        p.drawText(QRect(topArea.left(), topArea.bottom() - 2 * lh, topArea.width(), lh), Qt::AlignCenter,
                   QStringLiteral("in ") + fmt(m.supply_c, 1, QStringLiteral("°C")));
        p.setPen(m.return_c.isStale() || m.return_c.isMissing() ? c.stale : c.coolantReturn);
        p.drawText(QRect(topArea.left(), topArea.bottom() - lh, topArea.width(), lh), Qt::AlignCenter,
                   QStringLiteral("out ") + fmt(m.return_c, 1, QStringLiteral("°C")));
    }
    if (bottomArea.height() >= lh) {
        p.setPen(m.flow_lpm.isStale() || m.flow_lpm.isMissing() ? c.stale : c.text);
        p.drawText(QRect(bottomArea.left(), bottomArea.top(), bottomArea.width(), lh), Qt::AlignCenter,
                   fmt(m.flow_lpm, 0, QStringLiteral(" L/min")));
    }
    if (m.isolated || m.leaksDetected > 0) {
        const QString text =
            m.leaksDetected > 0 ? QStringLiteral("LEAK ×%1").arg(m.leaksDetected) : QStringLiteral("ISOLATED");
        const QRect badge(g.manifoldLeft + 2, (top + bottom) / 2 - lh, g.manifoldWidth - 4, 2 * lh);
        p.fillRect(badge, c.crit);
        p.setPen(textColorOn(c.crit));
        p.setFont(m_theme.font(7.5, true));
        p.drawText(badge, Qt::AlignCenter, text);
    }
}

// ---- interaction ----------------------------------------------------------------------------

void RackElevationWidget::mouseMoveEvent(QMouseEvent* event) {
    const Hit hit = hitTest(event->position().toPoint());
    const Hit gpuHit = hit.kind == Hit::Kind::Gpu ? hit : Hit{};
    if (gpuHit == m_hover) return;
    m_hover = gpuHit;
    update();
    emit gpuHovered(
        gpuHit.kind == Hit::Kind::Gpu
            ? m_rack.compute[static_cast<std::size_t>(hit.index)].gpus[static_cast<std::size_t>(hit.part)].id
            : QString());
}

void RackElevationWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const Hit hit = hitTest(event->position().toPoint());
    switch (hit.kind) {
    case Hit::Kind::Gpu:
        emit gpuActivated(
            m_rack.compute[static_cast<std::size_t>(hit.index)].gpus[static_cast<std::size_t>(hit.part)].id);
        break;
    case Hit::Kind::Cpu:
    case Hit::Kind::ComputeTray: emit trayActivated(m_rack.compute[static_cast<std::size_t>(hit.index)].id); break;
    case Hit::Kind::SwitchTray: emit trayActivated(m_rack.switches[static_cast<std::size_t>(hit.index)].id); break;
    case Hit::Kind::PowerShelf: emit trayActivated(m_rack.powerShelves[static_cast<std::size_t>(hit.index)].id); break;
    case Hit::Kind::Manifold:
    case Hit::Kind::None: break;
    }
}

void RackElevationWidget::leaveEvent(QEvent* event) {
    if (m_hover.kind != Hit::Kind::None) {
        m_hover = {};
        update();
        emit gpuHovered(QString());
    }
    QWidget::leaveEvent(event);
}

bool RackElevationWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipText(hitTest(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

}  // namespace watchfloor::widgets
