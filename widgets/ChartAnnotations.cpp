#include "ChartAnnotations.h"

#include <QChart>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <array>

namespace watchfloor::widgets {

QColor annotationColor(AnnotationKind kind, const Theme& theme) {
    const ThemeColors& c = theme.colors();
    switch (kind) {
    case AnnotationKind::Critical: return c.crit;
    case AnnotationKind::Warning: return c.warn;
    case AnnotationKind::Action: return c.accent;
    case AnnotationKind::StateChange: return c.ok;
    case AnnotationKind::Note: return c.textDim;
    case AnnotationKind::Info: break;
    }
    return c.info;
}

ChartAnnotationLayer::ChartAnnotationLayer(QChart* chart)
    : m_chart(chart), m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setZValue(100);  // above the series and the grid
    setAcceptedMouseButtons(Qt::NoButton);
}

void ChartAnnotationLayer::setAnnotations(std::vector<ChartAnnotation> annotations) {
    std::stable_sort(annotations.begin(), annotations.end(),
                     [](const ChartAnnotation& a, const ChartAnnotation& b) { return a.timeUnixMs < b.timeUnixMs; });
    if (annotations == m_annotations) return;
    m_annotations = std::move(annotations);
    update();
}

void ChartAnnotationLayer::setTheme(const Theme& theme) {
    m_theme = theme;
    update();
}

void ChartAnnotationLayer::setWindow(double t0, double t1) {
    const QRectF area = m_chart->plotArea();
    if (area != m_area) {
        prepareGeometryChange();
        m_area = area;
    }
    m_t0 = t0;
    m_t1 = std::max(t1, t0 + 1);
    update();
}

int ChartAnnotationLayer::markersInWindow() const {
    return int(std::count_if(m_annotations.begin(), m_annotations.end(), [this](const ChartAnnotation& a) {
        return double(a.timeUnixMs) >= m_t0 && double(a.timeUnixMs) <= m_t1;
    }));
}

QRectF ChartAnnotationLayer::boundingRect() const { return m_area; }

void ChartAnnotationLayer::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
    m_labelsDrawn = 0;
    if (m_area.isEmpty()) return;
    p->save();
    p->setClipRect(m_area);
    QFont font = m_theme.labelFont();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    p->setFont(font);
    const QFontMetrics metrics(font);
    const double lane = metrics.height() + 2;
    // The right edge of the last label in each lane: a label goes into the first lane it fits.
    std::array<double, kLabelLanes> laneEnd;
    laneEnd.fill(-1e9);
    for (const ChartAnnotation& a : m_annotations) {
        const double t = double(a.timeUnixMs);
        if (t < m_t0 || t > m_t1) continue;
        const double x = m_area.left() + (t - m_t0) / (m_t1 - m_t0) * m_area.width();
        const QColor colour = annotationColor(a.kind, m_theme);
        const bool action =
            a.kind == AnnotationKind::Action || a.kind == AnnotationKind::StateChange || a.kind == AnnotationKind::Note;
        QPen pen(colour, action ? 1.6 : 1.2, action ? Qt::SolidLine : Qt::DashLine);
        p->setPen(pen);
        p->drawLine(QPointF(x, m_area.top()), QPointF(x, m_area.bottom()));
        const QString text =
            a.label.size() > kMaxLabelChars ? a.label.left(kMaxLabelChars - 1) + QChar(0x2026) : a.label;
        const double w = metrics.horizontalAdvance(text) + 6;
        // Left of the marker when it would run off the plot's right edge.
        const double left = x + w + 2 > m_area.right() ? x - w - 2 : x + 2;
        for (int i = 0; i < kLabelLanes; ++i) {
            if (left <= laneEnd[std::size_t(i)] + 4) continue;
            laneEnd[std::size_t(i)] = left + w;
            const QRectF box(left, m_area.top() + 2 + i * lane, w, lane - 1);
            QColor back = m_theme.colors().window;
            back.setAlpha(220);
            p->fillRect(box, back);
            p->setPen(colour);
            p->drawText(box, Qt::AlignCenter, text);
            ++m_labelsDrawn;
            break;
        }
    }
    p->restore();
}

}  // namespace watchfloor::widgets
