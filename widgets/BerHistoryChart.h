#pragma once
// A link's bit error ratio over the last hours on a log scale, with the threshold lines and where
// the trend is headed. Painted (QtCharts has no log axis that takes a marker per point kind):
//
//   chart->setData(BerChartData{samples, {{"Error", 1e-14, Level::Error}, ...}, band, nowMs});
//
// A sample with errors is a filled dot at its point estimate; a quiet sample (no error, only a
// 95 % upper bound) is a hollow down-pointing triangle at that bound — the BER is somewhere under
// it, and it is never drawn as 0 (a log axis has no 0, and a quiet link is not a perfect one).
// A sample without a positive value is left out. The forecast band is a fan from the newest
// sample to the line it crosses, between the earliest and the latest crossing, with a dashed
// line to the likeliest.

#include "ChartSupport.h"
#include "Theme.h"

#include <QString>
#include <QWidget>

#include <cstdint>
#include <limits>
#include <vector>

namespace watchfloor::widgets {

struct BerSample {
    std::int64_t timeUnixMs = 0;
    double value = std::numeric_limits<double>::quiet_NaN();  // the point, or the upper bound
    bool upperBound = false;
};

struct BerThreshold {
    enum class Level { Normal, Warning, Error };
    QString label;  // "Error 1e-14"
    double value = 0;
    Level level = Level::Normal;
};

// Where the trend meets `value` (a threshold line): between `earliestMs` and `latestMs`, likeliest
// at `likelyMs`, starting from the newest sample (`fromMs`, `fromValue`). Not drawn unless shown.
struct BerForecastBand {
    bool shown = false;
    std::int64_t fromMs = 0;
    double fromValue = 0;
    std::int64_t earliestMs = 0, likelyMs = 0, latestMs = 0;
    double value = 0;
    QString label;  // "Error in 3.2 h (1.9–6.0)"
};

struct BerChartData {
    QString title;
    std::vector<BerSample> samples;  // oldest first
    std::vector<BerThreshold> lines;
    BerForecastBand band;
    std::int64_t nowUnixMs = 0;  // a "now" marker; 0: none
    QString emptyText;           // shown without samples
};

class BerHistoryChart : public QWidget {
    Q_OBJECT
public:
    explicit BerHistoryChart(QWidget* parent = nullptr);

    void setData(BerChartData data);
    const BerChartData& data() const { return m_data; }
    void setTheme(const Theme& theme);

    // What paint draws, at the widget's size: one marker per plotted sample.
    struct Marker {
        QPointF at;
        double value = 0;
        bool upperBound = false;
    };
    std::vector<Marker> markers() const;
    QRectF plotRect() const;
    // The value axis, bottom and top as log10: the samples and the lines with a third of a decade
    // to spare on either side (-16 to -13 with nothing to show).
    std::pair<double, double> logRange() const;
    // The y of a value on the log axis; NaN for a value ≤ 0 (it has no place on it).
    double yOf(double value) const;
    double xOf(std::int64_t timeUnixMs) const;

    ExportResult exportPng(const QString& path) const { return exportWidgetPng(*this, path); }

    QSize sizeHint() const override { return {640, 260}; }
    QSize minimumSizeHint() const override { return {320, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::pair<std::int64_t, std::int64_t> timeWindow() const;

    BerChartData m_data;
    Theme m_theme;
};

}  // namespace watchfloor::widgets
