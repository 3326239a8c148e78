#pragma once
// A thin wrapper over QtCharts for live time series, so the chart engine can be swapped later
// (QtCharts is deprecated from Qt 6.10). It follows the measured rules of
// docs/domain/streaming-patterns.md: never append point by point; reduce to ≤ 4 points per pixel column
// (M4) and call QXYSeries::replace() once per series per update; explicit axis ranges; no
// animations; no OpenGL (it crashes offscreen).
//
//   chart->addSeries("GPU temp max", "°C");
//   chart->setSeriesPoints(0, points);   // x = Unix time in ms (UTC), y = value; sorted by x
//
// The raw points are kept, so resizing re-reduces at the new width and exports are lossless.

#include "ChartAnnotations.h"
#include "ChartSupport.h"
#include "Theme.h"

#include <QDateTime>
#include <QList>
#include <QPen>
#include <QPointF>
#include <QWidget>

#include <chrono>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QDateTimeAxis;
class QLineSeries;
class QToolButton;
class QValueAxis;
QT_END_NAMESPACE

namespace watchfloor::widgets {

class TimeSeriesChart : public QWidget {
    Q_OBJECT
public:
    explicit TimeSeriesChart(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    // A line about the data under the title (e.g. why the lines break); empty: none.
    void setNote(const QString& note);
    QString note() const { return m_note; }
    // Label of the value axis, e.g. "°C".
    void setValueUnit(const QString& unit);
    void setTheme(const Theme& theme);

    // Returns the series index. colour: invalid = next theme categorical colour.
    int addSeries(const QString& name, const QColor& color = {});
    int seriesCount() const { return static_cast<int>(m_series.size()); }
    // Replaces the series' data: x = Unix ms UTC, y = value (NaN = blank: a break in the line),
    // sorted by x.
    void setSeriesPoints(int series, QList<QPointF> points);
    void clearSeries(int series);

    // Time window shown; unset = the extent of the data.
    void setTimeRange(const QDateTime& from, const QDateTime& to);
    void clearTimeRange();
    // Value axis range; unset = data extent with 5% headroom.
    void setValueRange(double min, double max);
    void clearValueRange();

    // Data gaps: a step between samples larger than this is drawn as a break in the line, not a
    // straight line across the outage (blank samples always break it). Zero turns it off.
    void setMaxGap(std::chrono::milliseconds gap);

    // Points handed to QtCharts for a series (all its segments) after M4 reduction (≤ 4 per
    // plot-area pixel column).
    int displayedPointCount(int series) const;
    // Connected runs drawn for a series: 1 without gaps, n + 1 with n gaps in the window.
    int drawnRunCount(int series) const;
    const QList<QPointF>& rawPoints(int series) const;
    // The time-axis labels QtCharts draws now (visible and whole, not elided), left to right.
    QStringList visibleTimeLabels() const;

    // Event/action markers (ChartAnnotations.h) over the plot. Every chart has a checkable
    // "Events" button in its top-right corner that shows or hides them; the owner fills them
    // while they are shown (annotationsShown()) and may turn them on itself.
    void setAnnotations(std::vector<ChartAnnotation> annotations);
    const std::vector<ChartAnnotation>& annotations() const;
    void setAnnotationsShown(bool shown);
    bool annotationsShown() const;
    // The "Events" button; hidden on a read-only wall display (the markers stay as they were set).
    void setAnnotationToggleVisible(bool visible);
    // Markers inside the shown time window (0 while hidden), and how many carry a label.
    int annotationsInView() const;
    int annotationLabelsDrawn() const;

    // PNG of the chart as drawn now, at the widget's size and device pixel ratio.
    ExportResult exportPng(const QString& path) const;
    // Every raw point in the shown time window: "time_utc,series,value", ISO 8601 with ms, UTC.
    ExportResult exportCsv(const QString& path) const;

    QSize sizeHint() const override { return {640, 280}; }

signals:
    // The operator toggled the markers (the owner then fills or stops filling them).
    void annotationsShownChanged(bool shown);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Series {
        QString name;
        QList<QPointF> raw;
        QPen pen;
        // segments[0] carries the legend entry; more segments appear when the data has gaps.
        std::vector<QLineSeries*> segments;
    };
    QLineSeries* newSegment(const Series& s, bool inLegend);
    void refresh();
    int timeTickCountFor(const QString& format) const;
    void applyTheme();
    std::pair<double, double> timeWindow() const;

    Theme m_theme;
    QChart* m_chart = nullptr;
    QChartView* m_view = nullptr;
    QDateTimeAxis* m_timeAxis = nullptr;
    QValueAxis* m_valueAxis = nullptr;
    std::vector<Series> m_series;
    std::optional<std::pair<double, double>> m_timeRange;
    std::optional<std::pair<double, double>> m_valueRange;
    std::chrono::milliseconds m_maxGap{0};
    QString m_title;
    QString m_note;
    ChartAnnotationLayer* m_annotations = nullptr;  // owned by the chart's scene
    QToolButton* m_annotationToggle = nullptr;
};

}  // namespace watchfloor::widgets
