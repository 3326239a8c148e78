#include "GaugeWidget.h"

#include <QPainter>

#include <algorithm>

namespace watchfloor::widgets {
namespace {

constexpr double kStartDeg = 210;  // Qt angles: counter-clockwise from 3 o'clock
constexpr double kSpanDeg = -240;

}  // namespace

GaugeWidget::GaugeWidget(QWidget* parent) : QWidget(parent), m_theme(Theme::builtin(ThemeVariant::Dark)) {}

void GaugeWidget::setLabel(const QString& label) {
    m_label = label;
    update();
}
void GaugeWidget::setUnit(const QString& unit) {
    m_unit = unit;
    update();
}
void GaugeWidget::setDecimals(int decimals) {
    m_decimals = decimals;
    update();
}
void GaugeWidget::setValue(const Reading& value) {
    m_value = value;
    update();
}
void GaugeWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    update();
}

void GaugeWidget::setRange(double min, double max) {
    m_min = min;
    m_max = max > min ? max : min + 1;
    update();
}

void GaugeWidget::setThresholds(double warning, double critical, bool higherIsWorse) {
    m_warning = warning;
    m_critical = critical;
    m_higherIsWorse = higherIsWorse;
    update();
}

QColor GaugeWidget::valueColour() const {
    const ThemeColors& c = m_theme.colors();
    if (m_value.isMissing()) return c.missing;
    if (m_value.isStale()) return c.stale;
    const double v = m_value.value;
    const bool crit = m_higherIsWorse ? v >= m_critical : v <= m_critical;
    const bool warn = m_higherIsWorse ? v >= m_warning : v <= m_warning;
    return crit ? c.crit : warn ? c.warn : c.ok;
}

void GaugeWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.panel);
    const QFontMetrics lm(m_theme.labelFont());
    const int side = std::min(width() - 16, height() - lm.height() - 12);
    const double thickness = std::max(6.0, side / 11.0);
    const QRectF arc(QPointF((width() - side) / 2.0, 8.0), QSizeF(side, side));
    const QRectF inset = arc.adjusted(thickness / 2, thickness / 2, -thickness / 2, -thickness / 2);

    auto angleOf = [&](double v) { return kStartDeg + kSpanDeg * std::clamp((v - m_min) / (m_max - m_min), 0.0, 1.0); };
    // Track, then the threshold bands as thin outer ticks, then the value.
    p.setPen(QPen(c.grid, thickness, Qt::SolidLine, Qt::FlatCap));
    p.drawArc(inset, int(kStartDeg * 16), int(kSpanDeg * 16));
    const QRectF bandRect = arc.adjusted(-2, -2, 2, 2);
    auto band = [&](double from, double to, const QColor& colour) {
        p.setPen(QPen(colour, 3, Qt::SolidLine, Qt::FlatCap));
        const double a0 = angleOf(from);
        p.drawArc(bandRect, int(a0 * 16), int((angleOf(to) - a0) * 16));
    };
    if (m_higherIsWorse) {
        band(m_warning, m_critical, c.warn);
        band(m_critical, m_max, c.crit);
    } else {
        band(m_min, m_critical, c.crit);
        band(m_critical, m_warning, c.warn);
    }
    if (!m_value.isMissing()) {
        p.setPen(QPen(valueColour(), thickness, Qt::SolidLine, Qt::FlatCap));
        p.drawArc(inset, int(kStartDeg * 16), int((angleOf(m_value.value) - kStartDeg) * 16));
    }

    QFont valueFont = m_theme.font(16, true);
    const QString probe = m_value.isMissing() ? QStringLiteral("n/a")
                                              : QString::number(double(m_value.value), 'f', m_decimals) +
                                                    (m_unit.isEmpty() ? QString() : QChar(0x202F) + m_unit);
    // Shrink to fit inside the arc: large war-room type must not spill over the ring.
    const double room = inset.width() - 2 * thickness;
    while (valueFont.pointSizeF() > 6 && QFontMetricsF(valueFont).horizontalAdvance(probe) > room)
        valueFont.setPointSizeF(valueFont.pointSizeF() * 0.9);
    p.setFont(valueFont);
    p.setPen(m_value.isMissing() ? c.textDim : m_value.isStale() ? c.stale : c.textStrong);
    p.drawText(arc, Qt::AlignCenter, probe);
    p.setFont(m_theme.labelFont());
    p.setPen(m_value.isStale() ? c.warn : c.textDim);
    p.drawText(QRectF(0, arc.bottom() - lm.height() * 1.2, width(), lm.height() * 1.4), Qt::AlignCenter,
               m_value.isStale() ? m_label + QStringLiteral(" (stale)") : m_label);
}

}  // namespace watchfloor::widgets
