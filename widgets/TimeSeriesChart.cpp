#include "TimeSeriesChart.h"

#include "M4Reducer.h"

#include <QChart>
#include <QChartView>
#include <QDateTimeAxis>
#include <QFile>
#include <QFontMetrics>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QTextStream>
#include <QToolButton>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace watchfloor::widgets {
namespace {

// Bounds on multiples of 1, 2 or 5 × 10^k so the ticks fall on round numbers.
std::pair<double, double> niceRange(double lo, double hi, int ticks) {
    if (hi - lo < 1e-9) {
        lo -= 0.5;
        hi += 0.5;
    }
    const double rawStep = (hi - lo) / std::max(1, ticks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rawStep)));
    double step = magnitude * 10;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (magnitude * m >= rawStep) {
            step = magnitude * m;
            break;
        }
    }
    return {std::floor(lo / step) * step, std::ceil(hi / step) * step};
}

}  // namespace
TimeSeriesChart::TimeSeriesChart(QWidget* parent)
    : QWidget(parent),
      m_theme(Theme::builtin(ThemeVariant::Dark)),
      m_chart(new QChart),
      m_timeAxis(new QDateTimeAxis),
      m_valueAxis(new QValueAxis) {
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_timeAxis->setFormat(QStringLiteral("HH:mm:ss"));
    m_timeAxis->setTickCount(6);
    // QDateTimeAxis starts with an empty range, and QtCharts keeps the size it measured for the axis
    // then (zero height) until the tick count or format changes: a chart laid out before its first
    // data never drew its time labels. Start with a real window so the first measure is right.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_timeAxis->setRange(now.addSecs(-60), now);
    m_valueAxis->setTickCount(5);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    m_view = embedChart(this, m_chart);
    // A resize re-reduces once QtCharts has laid the chart out at the new size (the widget's own
    // resize event comes before that, with the old plot width): ticks and the M4 column grid fit
    // the plot area as drawn. Queued: not from inside QtCharts' own layout pass.
    connect(m_chart, &QChart::plotAreaChanged, this, &TimeSeriesChart::refresh, Qt::QueuedConnection);
    m_annotations = new ChartAnnotationLayer(m_chart);
    m_annotations->setVisible(false);
    m_view->scene()->addItem(m_annotations);
    m_annotationToggle = new QToolButton(this);
    m_annotationToggle->setObjectName(QStringLiteral("annotationToggle"));
    m_annotationToggle->setText(QStringLiteral("Events"));
    m_annotationToggle->setCheckable(true);
    m_annotationToggle->setAutoRaise(true);
    m_annotationToggle->setFocusPolicy(Qt::TabFocus);
    m_annotationToggle->setToolTip(
        QStringLiteral("Show the events and operator actions of what this chart plots "
                       "as markers on the time axis"));
    connect(m_annotationToggle, &QToolButton::toggled, this, [this](bool shown) {
        m_annotations->setVisible(shown);
        emit annotationsShownChanged(shown);
    });
    applyTheme();
}

void TimeSeriesChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_annotationToggle->adjustSize();
    m_annotationToggle->move(width() - m_annotationToggle->width() - 2, 2);
    m_annotationToggle->raise();
}

void TimeSeriesChart::setAnnotations(std::vector<ChartAnnotation> annotations) {
    m_annotations->setAnnotations(std::move(annotations));
}

const std::vector<ChartAnnotation>& TimeSeriesChart::annotations() const { return m_annotations->annotations(); }

void TimeSeriesChart::setAnnotationToggleVisible(bool visible) { m_annotationToggle->setVisible(visible); }

void TimeSeriesChart::setAnnotationsShown(bool shown) { m_annotationToggle->setChecked(shown); }

bool TimeSeriesChart::annotationsShown() const { return m_annotationToggle->isChecked(); }

int TimeSeriesChart::annotationsInView() const { return annotationsShown() ? m_annotations->markersInWindow() : 0; }

int TimeSeriesChart::annotationLabelsDrawn() const { return annotationsShown() ? m_annotations->labelsDrawn() : 0; }

void TimeSeriesChart::setTitle(const QString& title) {
    m_title = title;
    m_chart->setTitle(m_note.isEmpty() ? m_title : QStringLiteral("%1 — %2").arg(m_title, m_note));
}

void TimeSeriesChart::setNote(const QString& note) {
    if (note == m_note) return;
    m_note = note;
    setTitle(m_title);
}

void TimeSeriesChart::setValueUnit(const QString& unit) { m_valueAxis->setTitleText(unit); }

void TimeSeriesChart::setTheme(const Theme& theme) {
    m_theme = theme;
    applyTheme();
}

void TimeSeriesChart::applyTheme() {
    applyChartTheme(m_chart, m_view, {m_timeAxis, m_valueAxis}, m_theme);
    m_annotations->setTheme(m_theme);
}

int TimeSeriesChart::addSeries(const QString& name, const QColor& color) {
    const auto& palette = m_theme.categorical();
    Series s;
    s.name = name;
    s.pen = QPen(color.isValid() ? color : palette[m_series.size() % palette.size()]);
    s.pen.setWidthF(1.6);
    s.segments.push_back(newSegment(s, true));
    m_series.push_back(std::move(s));
    return static_cast<int>(m_series.size()) - 1;
}

QLineSeries* TimeSeriesChart::newSegment(const Series& s, bool inLegend) {
    auto* line = new QLineSeries;
    line->setName(s.name);
    line->setPen(s.pen);
    m_chart->addSeries(line);
    line->attachAxis(m_timeAxis);
    line->attachAxis(m_valueAxis);
    if (!inLegend) {
        for (QLegendMarker* marker : m_chart->legend()->markers(line)) marker->setVisible(false);
    }
    return line;
}

void TimeSeriesChart::setMaxGap(std::chrono::milliseconds gap) {
    m_maxGap = gap;
    refresh();
}

void TimeSeriesChart::setSeriesPoints(int series, QList<QPointF> points) {
    if (series < 0 || series >= seriesCount()) return;
    m_series[static_cast<std::size_t>(series)].raw = std::move(points);
    refresh();
}

void TimeSeriesChart::clearSeries(int series) { setSeriesPoints(series, {}); }

void TimeSeriesChart::setTimeRange(const QDateTime& from, const QDateTime& to) {
    m_timeRange = std::pair{double(from.toMSecsSinceEpoch()), double(to.toMSecsSinceEpoch())};
    refresh();
}

void TimeSeriesChart::clearTimeRange() {
    m_timeRange.reset();
    refresh();
}

void TimeSeriesChart::setValueRange(double min, double max) {
    m_valueRange = std::pair{min, max};
    refresh();
}

void TimeSeriesChart::clearValueRange() {
    m_valueRange.reset();
    refresh();
}

std::pair<double, double> TimeSeriesChart::timeWindow() const {
    if (m_timeRange) return *m_timeRange;
    double lo = std::numeric_limits<double>::max();
    double hi = std::numeric_limits<double>::lowest();
    for (const Series& s : m_series) {
        if (s.raw.isEmpty()) continue;
        lo = std::min(lo, s.raw.front().x());
        hi = std::max(hi, s.raw.back().x());
    }
    if (lo > hi) {
        const double now = double(QDateTime::currentMSecsSinceEpoch());
        return {now - 60'000, now};
    }
    if (hi <= lo) hi = lo + 1000;
    return {lo, hi};
}

void TimeSeriesChart::refresh() {
    const auto [t0, t1] = timeWindow();
    const int columns =
        std::max(1, static_cast<int>(m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : width() * 0.85));
    // Per series, one reduced point list per gap-free run, on the same column grid.
    std::vector<std::vector<QList<QPointF>>> reduced(m_series.size());
    double vMin = std::numeric_limits<double>::max();
    double vMax = std::numeric_limits<double>::lowest();
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        for (std::span<const QPointF> run : splitAtGaps(m_series[i].raw, double(m_maxGap.count()))) {
            QList<QPointF> points = m4Reduce(run, t0, t1, columns);
            if (points.isEmpty()) continue;
            for (const QPointF& p : points) {
                vMin = std::min(vMin, p.y());
                vMax = std::max(vMax, p.y());
            }
            reduced[i].push_back(std::move(points));
        }
    }
    // Axes first, then each series once, so QtCharts recomputes geometry in a single pass.
    // Each axis change makes QtCharts recompute every series' geometry, so touch the axes only
    // when their range or format really changes, and compute "nice" bounds here instead of
    // calling applyNiceNumbers() (a second range change).
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(qint64(t0), Qt::UTC);
    const QDateTime to = QDateTime::fromMSecsSinceEpoch(qint64(t1), Qt::UTC);
    if (m_timeAxis->min() != from || m_timeAxis->max() != to) m_timeAxis->setRange(from, to);
    const QString format = t1 - t0 > 36 * 3600 * 1000.0 ? QStringLiteral("MM-dd HH:mm") : QStringLiteral("HH:mm:ss");
    if (m_timeAxis->format() != format) m_timeAxis->setFormat(format);
    // QtCharts elides a label wider than its slot to "..." and hides overlapping ones, so a small
    // chart with six ticks showed no time at all: fit the tick count to the plot's width instead.
    const int ticks = timeTickCountFor(format);
    if (m_timeAxis->tickCount() != ticks) m_timeAxis->setTickCount(ticks);
    std::pair<double, double> valueRange{0.0, 1.0};
    if (m_valueRange)
        valueRange = *m_valueRange;
    else if (vMin <= vMax)
        valueRange = niceRange(vMin, vMax, m_valueAxis->tickCount());
    if (m_valueAxis->min() != valueRange.first || m_valueAxis->max() != valueRange.second)
        m_valueAxis->setRange(valueRange.first, valueRange.second);
    m_annotations->setWindow(t0, t1);
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        Series& s = m_series[i];
        while (s.segments.size() < reduced[i].size()) s.segments.push_back(newSegment(s, false));
        for (std::size_t k = 0; k < s.segments.size(); ++k) {
            if (k < reduced[i].size())
                s.segments[k]->replace(reduced[i][k]);
            else if (s.segments[k]->count() > 0)
                s.segments[k]->clear();
        }
    }
}

int TimeSeriesChart::displayedPointCount(int series) const {
    if (series < 0 || series >= seriesCount()) return 0;
    int count = 0;
    for (const QLineSeries* segment : m_series[static_cast<std::size_t>(series)].segments)
        count += static_cast<int>(segment->count());
    return count;
}

int TimeSeriesChart::drawnRunCount(int series) const {
    if (series < 0 || series >= seriesCount()) return 0;
    const auto& segments = m_series[static_cast<std::size_t>(series)].segments;
    return static_cast<int>(
        std::count_if(segments.begin(), segments.end(), [](const QLineSeries* s) { return s->count() > 0; }));
}

const QList<QPointF>& TimeSeriesChart::rawPoints(int series) const {
    return m_series.at(static_cast<std::size_t>(series)).raw;
}

QStringList TimeSeriesChart::visibleTimeLabels() const {
    std::vector<std::pair<double, QString>> labels;
    for (const QGraphicsItem* item : m_view->scene()->items()) {
        const auto* text = dynamic_cast<const QGraphicsTextItem*>(item);
        if (!text || !text->isVisible()) continue;
        const QString label = text->toPlainText();
        if (QDateTime::fromString(label, m_timeAxis->format()).isValid())
            labels.emplace_back(text->sceneBoundingRect().left(), label);
    }
    std::sort(labels.begin(), labels.end());
    QStringList out;
    for (const auto& [x, label] : labels) out << label;
    return out;
}

int TimeSeriesChart::timeTickCountFor(const QString& format) const {
    const QFontMetrics metrics(m_timeAxis->labelsFont());
    // Digits are the widest characters of a time label; 1.6 em of air keeps neighbours apart.
    QString sample = format;
    sample.replace(QRegularExpression(QStringLiteral("[A-Za-z]")), QStringLiteral("8"));
    const double slot = metrics.horizontalAdvance(sample) + 1.6 * metrics.height();
    const double plotWidth = m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : width() - 80.0;
    return std::clamp(int(plotWidth / slot) + 1, 2, 6);
}

ExportResult TimeSeriesChart::exportPng(const QString& path) const { return exportWidgetPng(*m_view, path); }

ExportResult TimeSeriesChart::exportCsv(const QString& path) const {
    const auto [t0, t1] = timeWindow();
    // Captured by name: clang 14 (the sanitizer build's compiler) cannot capture structured bindings.
    return exportCsvFile(path, [&, t0 = t0, t1 = t1](QTextStream& out) {
        out << "time_utc,series,value\n";
        for (const Series& s : m_series) {
            const QString name = csvField(s.name);
            for (const QPointF& p : s.raw) {
                if (p.x() < t0 || p.x() > t1) continue;
                out << QDateTime::fromMSecsSinceEpoch(qint64(p.x()), Qt::UTC).toString(Qt::ISODateWithMs) << ',' << name
                    << ',';
                if (!std::isnan(p.y())) out << QString::number(p.y(), 'g', 10);
                out << '\n';
            }
        }
    });
}

}  // namespace watchfloor::widgets
