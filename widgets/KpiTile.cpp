#include "KpiTile.h"

#include "PaintHelpers.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

namespace watchfloor::widgets {
namespace {

constexpr int kPad = 12;
constexpr int kStatusBar = 4;

QColor statusColour(KpiStatus s, const ThemeColors& c) {
    switch (s) {
    case KpiStatus::Ok: return c.ok;
    case KpiStatus::Warning: return c.warn;
    case KpiStatus::Critical: return c.crit;
    case KpiStatus::Neutral: break;
    }
    return c.grid;
}

}  // namespace

KpiTile::KpiTile(QWidget* parent) : QWidget(parent), m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void KpiTile::setLabel(const QString& label) {
    m_label = label;
    update();
}

void KpiTile::setUnit(const QString& unit) {
    m_unit = unit;
    update();
}

void KpiTile::setFormat(int decimals, double displayFactor) {
    m_decimals = decimals;
    m_displayFactor = displayFactor;
    update();
}

void KpiTile::setValue(const KpiValue& value) {
    m_value = value;
    update();
}

void KpiTile::setTheme(const Theme& theme) {
    m_theme = theme;
    updateGeometry();
    update();
}

QString KpiTile::valueText() const {
    if (m_value.value.isMissing()) return QStringLiteral("n/a");
    const QString number = QString::number(double(m_value.value.value) * m_displayFactor, 'f', m_decimals);
    if (m_unit.isEmpty()) return number;
    return m_unit == QLatin1String("%") ? number + m_unit : number + QChar(0x202F) + m_unit;
}

QSize KpiTile::sizeHint() const {
    const QFontMetrics label(m_theme.labelFont());
    const QFontMetrics value(m_theme.valueFont());
    return {std::max(180, value.horizontalAdvance(QStringLiteral("100.0 %")) + 2 * kPad + 30),
            kPad * 2 + kStatusBar + label.height() * 2 + value.height() + 6};
}

QSize KpiTile::minimumSizeHint() const { return {120, sizeHint().height()}; }

void KpiTile::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.panel);
    const bool stale = m_value.value.isStale();
    const bool missing = m_value.value.isMissing();
    p.fillRect(QRect(0, 0, width(), kStatusBar), stale || missing ? c.stale : statusColour(m_value.status, c));

    const QFont labelFont = m_theme.labelFont();
    const QFont valueFont = m_theme.valueFont();
    const QFontMetrics lm(labelFont);
    const QFontMetrics vm(valueFont);
    const QRect inner = rect().adjusted(kPad, kPad + kStatusBar - 4, -kPad, -kPad + 4);

    p.setFont(labelFont);
    p.setPen(c.textDim);
    p.drawText(QRect(inner.left(), inner.top(), inner.width(), lm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               lm.elidedText(m_label.toUpper(), Qt::ElideRight, inner.width()));

    const int valueTop = inner.top() + lm.height() + 2;
    p.setFont(valueFont);
    p.setPen(missing ? c.textDim : stale ? c.stale : c.textStrong);
    const QString text = valueText();
    p.drawText(QRect(inner.left(), valueTop, inner.width(), vm.height()), Qt::AlignLeft | Qt::AlignVCenter, text);

    // Trend arrow after the number, coloured by whether that direction is good.
    if (m_value.trend != Trend::None && !missing) {
        const int x = inner.left() + vm.horizontalAdvance(text) + 10;
        const int s = vm.height() / 4;
        const QPointF centre(x + s, valueTop + vm.height() / 2.0);
        QColor colour = c.textDim;
        QPainterPath arrow;
        if (m_value.trend == Trend::Flat) {
            arrow.moveTo(centre.x() - s, centre.y() - s * 0.7);
            arrow.lineTo(centre.x() + s, centre.y());
            arrow.lineTo(centre.x() - s, centre.y() + s * 0.7);
        } else {
            const bool up = m_value.trend == Trend::Up;
            colour = stale ? c.stale : (up == m_value.upIsGood ? c.ok : c.crit);
            const double dir = up ? -1 : 1;
            arrow.moveTo(centre.x() - s, centre.y() - dir * s * 0.6);
            arrow.lineTo(centre.x(), centre.y() + dir * s * 0.8);
            arrow.lineTo(centre.x() + s, centre.y() - dir * s * 0.6);
        }
        arrow.closeSubpath();
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawPath(arrow);
        p.setRenderHint(QPainter::Antialiasing, false);
    }

    QString detail = m_value.detail;
    if (stale)
        detail = QStringLiteral("stale%1%2")
                     .arg(m_value.staleAge.isEmpty() ? QString() : QStringLiteral(" · ") + m_value.staleAge,
                          detail.isEmpty() ? QString() : QStringLiteral(" · ") + detail);
    else if (missing)
        detail = QStringLiteral("no data");
    p.setFont(labelFont);
    p.setPen(stale || missing ? c.warn : c.textDim);
    p.drawText(QRect(inner.left(), valueTop + vm.height() + 2, inner.width(), lm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, lm.elidedText(detail, Qt::ElideRight, inner.width()));
}

void KpiTile::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && rect().contains(event->position().toPoint())) emit activated();
}

}  // namespace watchfloor::widgets
