#pragma once
// Event and action annotations over a TimeSeriesChart: a vertical marker at each moment with a
// short label along the top of the plot, so a line's dip reads next to what caused it ("Xid 79",
// "drain r07-n03", "acknowledged"). Data-agnostic: ui/ turns events, operations and an
// incident's timeline into these.

#include "Theme.h"

#include <QGraphicsItem>
#include <QString>

#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace watchfloor::widgets {

// What a marker stands for; the colour comes from the chart's theme. Events are drawn dashed,
// what people (or automation) did solid.
enum class AnnotationKind { Info, Warning, Critical, Action, StateChange, Note };

struct ChartAnnotation {
    qint64 timeUnixMs = 0;
    QString label;  // a few words; elided to kMaxLabelChars
    AnnotationKind kind = AnnotationKind::Info;

    friend bool operator==(const ChartAnnotation&, const ChartAnnotation&) = default;
};

QColor annotationColor(AnnotationKind kind, const Theme& theme);

// The markers, painted into the chart's scene above the series. The caller passes the time
// window the axis shows now (refresh() of the chart), so a marker sits exactly where its moment
// falls on the axis.
class ChartAnnotationLayer : public QGraphicsItem {
public:
    static constexpr int kMaxLabelChars = 22;
    static constexpr int kLabelLanes = 3;  // labels stagger over this many lines before one is left out

    explicit ChartAnnotationLayer(QChart* chart);

    void setAnnotations(std::vector<ChartAnnotation> annotations);
    const std::vector<ChartAnnotation>& annotations() const { return m_annotations; }
    void setTheme(const Theme& theme);
    void setWindow(double t0, double t1);
    // Markers inside the window, and how many of them carry their label (the rest: no room).
    int markersInWindow() const;
    int labelsDrawn() const { return m_labelsDrawn; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QChart* m_chart;
    Theme m_theme;
    std::vector<ChartAnnotation> m_annotations;  // sorted by time
    double m_t0 = 0;
    double m_t1 = 1;
    QRectF m_area;
    int m_labelsDrawn = 0;
};

}  // namespace watchfloor::widgets
