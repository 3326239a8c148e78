#include "LoopSchematicWidget.h"

#include "PaintHelpers.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace watchfloor::widgets {
namespace {

constexpr int kMargin = 12;
constexpr int kTitleHeight = 26;

QString formatted(const Reading& r, const QString& unit, int decimals) {
    if (r.isMissing()) return QStringLiteral("n/a");
    return QString::number(double(r.value), 'f', decimals) + QChar(0x202F) + unit;
}

}  // namespace

LoopSchematicWidget::LoopSchematicWidget(QWidget* parent)
    : QWidget(parent), m_theme(Theme::builtin(ThemeVariant::Dark)) {}

void LoopSchematicWidget::setStatus(const LoopStatus& status) {
    m_status = status;
    update();
}

void LoopSchematicWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    update();
}

int LoopSchematicWidget::wetSensorCount() const {
    return static_cast<int>(std::count_if(m_status.leakSensors.begin(), m_status.leakSensors.end(),
                                          [](const LeakSensor& s) { return s.state == LeakSensorState::Wet; }));
}

LoopSchematicWidget::Geometry LoopSchematicWidget::geometry() const {
    Geometry g;
    g.area = rect().adjusted(kMargin, kMargin + kTitleHeight, -kMargin, -kMargin);
    const int w = g.area.width();
    const int sensorsWidth = std::clamp(w * 26 / 100, 150, 240);
    const int schematicWidth = w - sensorsWidth - 16;
    const int x0 = g.area.left();
    g.inletX = x0 + 8;
    g.valveX = x0 + schematicWidth * 30 / 100;
    g.supplyManifoldX = x0 + schematicWidth * 52 / 100;
    g.returnManifoldX = x0 + schematicWidth * 92 / 100;
    g.supplyY = g.area.top() + g.area.height() * 22 / 100;
    g.returnY = g.area.top() + g.area.height() * 84 / 100;
    g.trays = QRect(g.supplyManifoldX + 14, g.supplyY + 10, g.returnManifoldX - g.supplyManifoldX - 28,
                    g.returnY - g.supplyY - 20);
    g.sensors = QRect(g.area.right() - sensorsWidth + 1, g.area.top(), sensorsWidth, g.area.height());
    return g;
}

QRect LoopSchematicWidget::valveRect() const {
    const Geometry g = geometry();
    const int s = std::clamp(g.area.height() / 9, 14, 30);
    return QRect(g.valveX - s, g.supplyY - s / 2 - s / 4, 2 * s, s + s / 2);
}

QRect LoopSchematicWidget::leakSensorRect(int index) const {
    const Geometry g = geometry();
    const int lh = QFontMetrics(m_theme.labelFont()).height() + 6;
    return QRect(g.sensors.left(), g.sensors.top() + lh * (index + 1), g.sensors.width(), lh);
}

void LoopSchematicWidget::paintValue(QPainter& p, const QRect& r, const QString& caption, const Reading& value,
                                     const QString& unit, int decimals, Qt::Alignment align) const {
    const ThemeColors& c = m_theme.colors();
    const QFont captionFont = m_theme.font(8);
    const QFont valueFont = m_theme.font(13, true);
    const int ch = QFontMetrics(captionFont).height();
    p.setFont(captionFont);
    p.setPen(c.textDim);
    p.drawText(QRect(r.left(), r.top(), r.width(), ch), align | Qt::AlignVCenter,
               value.isStale() ? caption + QStringLiteral(" (stale)") : caption);
    p.setFont(valueFont);
    p.setPen(value.isMissing() ? c.textDim : value.isStale() ? c.stale : c.textStrong);
    p.drawText(QRect(r.left(), r.top() + ch, r.width(), r.height() - ch), align | Qt::AlignTop,
               formatted(value, unit, decimals));
}

void LoopSchematicWidget::paintValve(QPainter& p, const QRect& r) const {
    const ThemeColors& c = m_theme.colors();
    const bool closed = m_status.isolated;
    const QPointF mid(r.center().x(), r.bottom() - r.width() / 4.0);
    const double half = r.width() / 2.0;
    const double h = r.width() / 4.0;
    QPainterPath bowtie;
    bowtie.moveTo(mid.x() - half, mid.y() - h);
    bowtie.lineTo(mid);
    bowtie.lineTo(mid.x() - half, mid.y() + h);
    bowtie.closeSubpath();
    bowtie.moveTo(mid.x() + half, mid.y() - h);
    bowtie.lineTo(mid);
    bowtie.lineTo(mid.x() + half, mid.y() + h);
    bowtie.closeSubpath();
    p.setPen(QPen(closed ? c.crit : c.text, 1.5));
    p.setBrush(closed ? QBrush(c.crit) : QBrush(c.window));
    p.drawPath(bowtie);
    // Actuator stem and head.
    p.drawLine(mid, QPointF(mid.x(), r.top() + 3));
    p.drawRect(QRectF(mid.x() - h * 0.8, r.top(), h * 1.6, 4));
}

void LoopSchematicWidget::paintSensors(QPainter& p, const Geometry& g) const {
    const ThemeColors& c = m_theme.colors();
    p.fillRect(g.sensors, c.panel);
    const QFont f = m_theme.labelFont();
    const QFontMetrics fm(f);
    p.setFont(m_theme.headerFont());
    p.setPen(c.text);
    p.drawText(g.sensors.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               QStringLiteral("Leak sensors (%1)").arg(m_status.leakSensors.size()));
    p.setFont(f);
    p.setRenderHint(QPainter::Antialiasing, true);
    for (std::size_t i = 0; i < m_status.leakSensors.size(); ++i) {
        const QRect row = leakSensorRect(static_cast<int>(i));
        if (row.bottom() > g.sensors.bottom()) break;
        const LeakSensor& s = m_status.leakSensors[i];
        QColor dot = c.ok;
        QString state = QStringLiteral("dry");
        switch (s.state) {
        case LeakSensorState::Dry: break;
        case LeakSensorState::Wet:
            dot = c.crit;
            state = QStringLiteral("WET");
            break;
        case LeakSensorState::Fault:
            dot = c.warn;
            state = QStringLiteral("fault");
            break;
        case LeakSensorState::Unknown:
            dot = c.missing;
            state = QStringLiteral("n/a");
            break;
        }
        if (s.state == LeakSensorState::Wet) {
            QColor band = c.crit;
            band.setAlphaF(0.25f);
            p.fillRect(row.adjusted(2, 1, -2, -1), band);
        }
        p.setPen(Qt::NoPen);
        p.setBrush(dot);
        const int d = fm.height() / 2 + 2;
        p.drawEllipse(QRect(row.left() + 10, row.center().y() - d / 2, d, d));
        p.setPen(s.state == LeakSensorState::Wet ? c.textStrong : c.text);
        const QRect text = row.adjusted(16 + d, 0, -8, 0);
        p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(s.name, Qt::ElideRight, text.width() - 48));
        p.setPen(s.state == LeakSensorState::Dry ? c.textDim : dot);
        p.drawText(text, Qt::AlignVCenter | Qt::AlignRight, state);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void LoopSchematicWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.window);
    const Geometry g = geometry();
    const bool leak = wetSensorCount() > 0;

    p.setFont(m_theme.headerFont());
    p.setPen(c.text);
    const QRect titleRect(kMargin, kMargin, width() - 2 * kMargin, kTitleHeight - 4);
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, m_status.title);
    if (m_status.isolated || leak) {
        const QString banner = leak && m_status.isolated ? QStringLiteral("LEAK — RACK ISOLATED")
                               : leak                    ? QStringLiteral("LEAK DETECTED")
                                                         : QStringLiteral("ISOLATED — VALVE CLOSED");
        const QFontMetrics fm(m_theme.font(9, true));
        const QRect b(titleRect.right() - fm.horizontalAdvance(banner) - 16, titleRect.top(),
                      fm.horizontalAdvance(banner) + 16, titleRect.height());
        p.fillRect(b, c.crit);
        p.setFont(m_theme.font(9, true));
        p.setPen(textColorOn(c.crit));
        p.drawText(b, Qt::AlignCenter, banner);
    }

    // Pipes: no flow downstream of a closed valve, so that part is drawn grey and dashed.
    const int pipeW = std::clamp(g.area.height() / 40, 4, 9);
    const QColor downstreamSupply = m_status.isolated ? c.stale : c.coolantSupply;
    const QColor returnColour = m_status.isolated ? c.stale : c.coolantReturn;
    const Qt::PenStyle downstreamStyle = m_status.isolated ? Qt::DashLine : Qt::SolidLine;
    p.setRenderHint(QPainter::Antialiasing, true);
    auto pipe = [&](QPoint a, QPoint b, const QColor& colour, Qt::PenStyle style) {
        p.setPen(QPen(colour, pipeW, style, Qt::FlatCap, Qt::MiterJoin));
        p.drawLine(a, b);
    };
    const QRect valve = valveRect();
    pipe({g.inletX, g.supplyY}, {valve.left(), g.supplyY}, c.coolantSupply, Qt::SolidLine);
    pipe({valve.right(), g.supplyY}, {g.supplyManifoldX, g.supplyY}, downstreamSupply, downstreamStyle);
    pipe({g.supplyManifoldX, g.supplyY - pipeW / 2}, {g.supplyManifoldX, g.returnY}, downstreamSupply, downstreamStyle);
    pipe({g.returnManifoldX, g.supplyY}, {g.returnManifoldX, g.returnY + pipeW / 2}, returnColour, downstreamStyle);
    pipe({g.returnManifoldX, g.returnY}, {g.inletX, g.returnY}, returnColour, downstreamStyle);
    // Flow direction arrows at the CDU ends.
    auto arrow = [&](QPoint tip, int dir, const QColor& colour) {
        const int s = pipeW + 4;
        const QPointF pts[3] = {QPointF(tip), QPointF(tip.x() - dir * s, tip.y() - s),
                                QPointF(tip.x() - dir * s, tip.y() + s)};
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawPolygon(pts, 3);
    };
    arrow({g.inletX + 26, g.supplyY}, +1, c.coolantSupply);
    arrow({g.inletX + 6, g.returnY}, -1, returnColour);

    // Tray branches between the manifolds.
    const int branches = std::max(1, m_status.trayBranches);
    const double pitch = double(g.trays.height()) / branches;
    const int barH = std::max(1, static_cast<int>(pitch * 0.6));
    QColor trayColour = c.panelRaised;
    for (int i = 0; i < branches; ++i) {
        const int y = g.trays.top() + static_cast<int>(i * pitch + (pitch - barH) / 2);
        p.setPen(QPen(downstreamSupply, 1));
        p.drawLine(g.supplyManifoldX, y + barH / 2, g.trays.left(), y + barH / 2);
        p.setPen(QPen(returnColour, 1));
        p.drawLine(g.trays.right(), y + barH / 2, g.returnManifoldX, y + barH / 2);
        p.fillRect(QRect(g.trays.left(), y, g.trays.width(), barH), trayColour);
    }
    if (leak) {
        p.setPen(QPen(c.crit, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(g.trays.adjusted(-5, -5, 5, 5));
    }
    paintValve(p, valve);
    p.setRenderHint(QPainter::Antialiasing, false);

    // Numbers.
    const int vh = QFontMetrics(m_theme.font(8)).height() + QFontMetrics(m_theme.font(13, true)).height() + 2;
    const int colW = std::max(90, g.valveX - g.inletX - 20);
    paintValue(p, QRect(g.inletX, g.supplyY - pipeW - vh - 4, colW, vh), QStringLiteral("Supply"), m_status.supply_c,
               QStringLiteral("°C"), 1, Qt::AlignLeft);
    paintValue(p, QRect(g.inletX, g.supplyY + pipeW + 6, colW, vh), QStringLiteral("Flow"), m_status.flow_lpm,
               QStringLiteral("L/min"), 0, Qt::AlignLeft);
    paintValue(p, QRect(g.inletX, g.returnY - pipeW - vh - 4, colW, vh), QStringLiteral("Return"), m_status.return_c,
               QStringLiteral("°C"), 1, Qt::AlignLeft);
    paintValue(p, QRect(valve.center().x() - 60, valve.bottom() + 8, 120, vh),
               m_status.isolated ? QStringLiteral("Valve CLOSED") : QStringLiteral("Valve"), m_status.valve_pct,
               QStringLiteral("%"), 0, Qt::AlignHCenter);
    const QRect dpRect(g.supplyManifoldX, g.area.top(), g.returnManifoldX - g.supplyManifoldX, vh);
    QString dpCaption = QStringLiteral("ΔP manifold");
    if (!m_status.dpSetpoint_bar.isMissing())
        dpCaption += QStringLiteral(" (set %1 bar)").arg(double(m_status.dpSetpoint_bar.value), 0, 'f', 2);
    paintValue(p, dpRect.translated(0, -4), dpCaption, m_status.dp_bar, QStringLiteral("bar"), 2, Qt::AlignHCenter);
    const QRect heatRect(g.trays.left(), g.returnY + pipeW + 2, g.trays.width(), vh);
    paintValue(p, heatRect, QStringLiteral("Heat load"), m_status.power_kw, QStringLiteral("kW"), 1, Qt::AlignHCenter);

    paintSensors(p, g);
}

}  // namespace watchfloor::widgets
