#include "BerHistoryChart.h"

#include <QDateTime>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace watchfloor::widgets {

namespace {

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kBucketMs = 30 * 60'000;
// How far right of the newest sample the chart looks: at most two days, so a far crossing does not
// squeeze the history into a sliver (the band then runs off the right edge).
constexpr std::int64_t kMaxAheadMs = 48 * kHourMs;
// Room above and below the data on the log axis, in decades: a point on a line stays off the frame.
constexpr double kLogPad = 0.33;

bool plottable(double v) { return std::isfinite(v) && v > 0; }

QColor lineColor(BerThreshold::Level level, const ThemeColors& c) {
    switch (level) {
    case BerThreshold::Level::Error: return c.crit;
    case BerThreshold::Level::Warning: return c.warn;
    case BerThreshold::Level::Normal: return c.ok;
    }
    return c.textDim;
}

void drawDownTriangle(QPainter& p, QPointF top, double size) {
    // The flat side at the bound, the tip below it: "somewhere under here".
    const QPointF tri[3] = {QPointF(top.x() - size, top.y()), QPointF(top.x() + size, top.y()),
                            QPointF(top.x(), top.y() + 1.6 * size)};
    p.drawPolygon(tri, 3);
}

}  // namespace

BerHistoryChart::BerHistoryChart(QWidget* parent) : QWidget(parent), m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setMinimumHeight(160);
}

void BerHistoryChart::setData(BerChartData data) {
    m_data = std::move(data);
    update();
}

void BerHistoryChart::setTheme(const Theme& theme) {
    m_theme = theme;
    update();
}

QRectF BerHistoryChart::plotRect() const {
    const QFontMetrics fm(m_theme.labelFont());
    const double left = fm.horizontalAdvance(QStringLiteral("5e-15")) + 14;
    const double top = fm.height() * 2 + 18;  // title, legend, and half the top decade's label
    const double bottom = fm.height() + 8;
    return QRectF(left, top, std::max(10.0, width() - left - 12), std::max(10.0, height() - top - bottom));
}

std::pair<double, double> BerHistoryChart::logRange() const {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    auto take = [&](double v) {
        if (!plottable(v)) return;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    };
    for (const BerSample& s : m_data.samples) take(s.value);
    for (const BerThreshold& t : m_data.lines) take(t.value);
    if (m_data.band.shown) {
        take(m_data.band.value);
        take(m_data.band.fromValue);
    }
    if (!(hi > 0)) return {-16, -13};
    return {std::log10(lo) - kLogPad, std::log10(hi) + kLogPad};
}

std::pair<std::int64_t, std::int64_t> BerHistoryChart::timeWindow() const {
    std::int64_t first = 0, last = 0;
    for (const BerSample& s : m_data.samples) {
        if (first == 0 || s.timeUnixMs < first) first = s.timeUnixMs;
        last = std::max(last, s.timeUnixMs);
    }
    const std::int64_t now = m_data.nowUnixMs > 0 ? m_data.nowUnixMs : last;
    if (first == 0) first = now - 8 * kHourMs;
    const std::int64_t start = first - kBucketMs;  // a sample is the end of its bucket
    std::int64_t end = std::max(now, last) + kHourMs;
    if (m_data.band.shown)
        end = std::max(end, std::min(m_data.band.latestMs, std::max(now, last) + kMaxAheadMs) + kHourMs / 2);
    return {start, std::max(end, start + kHourMs)};
}

double BerHistoryChart::xOf(std::int64_t timeUnixMs) const {
    const auto [start, end] = timeWindow();
    const QRectF r = plotRect();
    return r.left() + r.width() * double(timeUnixMs - start) / double(end - start);
}

double BerHistoryChart::yOf(double value) const {
    if (!plottable(value)) return std::numeric_limits<double>::quiet_NaN();
    const auto [bottom, top] = logRange();
    const QRectF r = plotRect();
    return r.bottom() - r.height() * (std::log10(value) - bottom) / (top - bottom);
}

std::vector<BerHistoryChart::Marker> BerHistoryChart::markers() const {
    std::vector<Marker> out;
    for (const BerSample& s : m_data.samples) {
        if (!plottable(s.value)) continue;
        out.push_back({QPointF(xOf(s.timeUnixMs), yOf(s.value)), s.value, s.upperBound});
    }
    return out;
}

void BerHistoryChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.window);
    const QFont label = m_theme.labelFont();
    const QFontMetrics fm(label);
    const QRectF plot = plotRect();

    p.setFont(m_theme.headerFont());
    p.setPen(c.text);
    p.drawText(QRectF(8, 4, width() - 16, fm.height() + 2), Qt::AlignLeft | Qt::AlignVCenter, m_data.title);

    // Legend: what each mark means.
    p.setFont(label);
    const double legendY = 6 + fm.height() + 2 + fm.height() / 2.0;
    double lx = 8;
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(c.window, 1));
    p.setBrush(c.accent);
    p.drawEllipse(QPointF(lx + 4, legendY), 4, 4);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(c.text, 1.2));
    lx += 12;
    const QString pointText = QStringLiteral("BER of a 30-min bucket");
    p.drawText(QPointF(lx, legendY + fm.ascent() / 2.0 - 1), pointText);
    lx += fm.horizontalAdvance(pointText) + 14;
    drawDownTriangle(p, QPointF(lx + 4, legendY - 3), 4);
    lx += 12;
    const QString upperText = QStringLiteral("no error: under this 95 % bound");
    p.drawText(QPointF(lx, legendY + fm.ascent() / 2.0 - 1), upperText);
    lx += fm.horizontalAdvance(upperText) + 14;
    if (m_data.band.shown) {
        QColor fan = c.crit;
        fan.setAlphaF(0.25f);
        p.fillRect(QRectF(lx, legendY - 5, 14, 10), fan);
        lx += 18;
        p.drawText(QPointF(lx, legendY + fm.ascent() / 2.0 - 1), QStringLiteral("forecast crossing, 90 %"));
    }
    p.setRenderHint(QPainter::Antialiasing, false);

    // Decades labelled, 2× and 5× as fainter lines when a label fits between them (log 2 = 0.3
    // decade apart), every decade otherwise, every other one when even those crowd.
    const auto [bottom, top] = logRange();
    const double decadePx = plot.height() / (top - bottom);
    const bool minors = 0.3 * decadePx >= fm.height() + 2;
    const int decadeStep = decadePx >= fm.height() + 2 ? 1 : 2;
    for (int d = int(std::floor(bottom)); d <= int(std::ceil(top)); ++d) {
        for (int m : {1, 2, 5}) {
            const double log = d + std::log10(double(m));
            if (log < bottom || log > top) continue;
            if ((m != 1 && !minors) || (m == 1 && d % decadeStep != 0)) continue;
            const double y = yOf(m * std::pow(10.0, d));
            QColor grid = c.grid;
            if (m != 1) grid.setAlphaF(0.45f);
            p.setPen(QPen(grid, 1));
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
            p.setPen(c.textDim);
            p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 6, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       m == 1 ? QStringLiteral("1e%1").arg(d) : QStringLiteral("%1e%2").arg(m).arg(d));
        }
    }
    // Time ticks, UTC, on whole steps of 1, 2, 3, 6, 12 or 24 h: as many as fit.
    const auto [start, end] = timeWindow();
    const int maxTicks = std::max(2, int(plot.width() / (fm.horizontalAdvance(QStringLiteral("00:00")) + 24)));
    std::int64_t step = kHourMs;
    for (std::int64_t hours : {1, 2, 3, 6, 12, 24}) {
        step = hours * kHourMs;
        if ((end - start) / step <= maxTicks) break;
    }
    for (std::int64_t t = (start / step + 1) * step; t < end; t += step) {
        const double x = xOf(t);
        p.setPen(QPen(c.grid, 1, Qt::DotLine));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(c.textDim);
        p.drawText(QRectF(x - 40, plot.bottom() + 3, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   QDateTime::fromMSecsSinceEpoch(t, Qt::UTC).toString(QStringLiteral("HH:mm")));
    }
    p.setPen(QPen(c.grid, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);

    p.save();
    p.setClipRect(plot.adjusted(-6, -6, 6, 6));
    p.setRenderHint(QPainter::Antialiasing, true);
    // Threshold lines with their names at the right end.
    for (const BerThreshold& t : m_data.lines) {
        const double y = yOf(t.value);
        if (!std::isfinite(y)) continue;
        const QColor color = lineColor(t.level, c);
        const Qt::PenStyle style = t.level == BerThreshold::Level::Error     ? Qt::SolidLine
                                   : t.level == BerThreshold::Level::Warning ? Qt::DashLine
                                                                             : Qt::DotLine;
        p.setPen(QPen(color, t.level == BerThreshold::Level::Error ? 1.6 : 1.2, style));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(color);
        p.drawText(QRectF(plot.right() - 160, y - fm.height() - 1, 156, fm.height()), Qt::AlignRight | Qt::AlignBottom,
                   t.label);
    }
    // The forecast: a fan from the newest sample to the line, earliest to latest crossing.
    if (m_data.band.shown && plottable(m_data.band.fromValue) && plottable(m_data.band.value)) {
        const BerForecastBand& b = m_data.band;
        const QPointF from(xOf(b.fromMs), yOf(b.fromValue));
        const double yLine = yOf(b.value);
        QPolygonF fan;
        fan << from << QPointF(xOf(b.earliestMs), yLine) << QPointF(xOf(b.latestMs), yLine);
        QColor fill = c.crit;
        fill.setAlphaF(0.3f);
        QColor edge = c.crit;
        edge.setAlphaF(0.6f);
        p.setPen(QPen(edge, 1));
        p.setBrush(fill);
        p.drawPolygon(fan);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(c.crit, 1.4, Qt::DashLine));
        const QPointF likely(xOf(b.likelyMs), yLine);
        p.drawLine(from, likely);
        // Above the line from the newest sample on: clear of the fan under the line and of the
        // line's own name at the right end.
        p.setPen(c.crit);
        p.drawText(QRectF(from.x() + 6, yLine - fm.height() - 2, 260, fm.height()), Qt::AlignLeft | Qt::AlignBottom,
                   b.label);
    }
    if (m_data.nowUnixMs > 0) {
        const double x = xOf(m_data.nowUnixMs);
        p.setPen(QPen(c.textDim, 1, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(c.textDim);
        // At the foot of the line: the top is where the forecast's label sits.
        p.drawText(QRectF(x + 3, plot.bottom() - fm.height() - 2, 60, fm.height()), Qt::AlignLeft | Qt::AlignBottom,
                   QStringLiteral("now"));
    }
    // The samples: a line through the points with errors, then the marks.
    const std::vector<Marker> marks = markers();
    QPainterPath trend;
    bool started = false;
    for (const Marker& m : marks) {
        if (m.upperBound) continue;
        if (!started)
            trend.moveTo(m.at);
        else
            trend.lineTo(m.at);
        started = true;
    }
    p.setPen(QPen(c.accent, 1.4));
    p.drawPath(trend);
    for (const Marker& m : marks) {
        if (m.upperBound) {
            p.setPen(QPen(c.text, 1.3));
            p.setBrush(c.window);
            drawDownTriangle(p, m.at, 4.5);
        } else {
            p.setPen(QPen(c.window, 1));
            p.setBrush(c.accent);
            p.drawEllipse(m.at, 4, 4);
        }
    }
    p.restore();
    if (marks.empty() && !m_data.emptyText.isEmpty()) {
        p.setPen(c.textDim);
        p.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap, m_data.emptyText);
    }
}

}  // namespace watchfloor::widgets
