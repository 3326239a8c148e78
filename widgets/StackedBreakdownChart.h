#pragma once
// Stacked bars of a breakdown per bucket: e.g. GPU-hours per hour split into productive time and
// the badput categories (startup, checkpoint save/restore, wasted progress, infra recovery,
// straggler slowdown), or one bar per job. A thin QtCharts wrapper like TimeSeriesChart.

#include "ChartSupport.h"
#include "Theme.h"

#include <QStringList>
#include <QWidget>

#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QBarCategoryAxis;
class QChart;
class QChartView;
class QStackedBarSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace watchfloor::widgets {

struct BreakdownCategory {
    QString name;
    std::vector<double> values;  // one per bucket; NaN = no data for that bucket (drawn as 0 height)
    QColor color;                // invalid = next theme categorical colour
};

class StackedBreakdownChart : public QWidget {
    Q_OBJECT
public:
    explicit StackedBreakdownChart(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setValueUnit(const QString& unit);
    void setTheme(const Theme& theme);
    // Fixed top of the value axis while every stack fits under it, e.g. 100 for shares in
    // percent; taller stacks (or no ceiling) get a "nice" range above the tallest.
    void setValueCeiling(double ceiling);
    // Replaces the whole breakdown. Every category must hold bucketLabels.size() values; shorter
    // ones are padded with NaN.
    void setData(const QStringList& bucketLabels, std::vector<BreakdownCategory> categories);

    int bucketCount() const { return static_cast<int>(m_buckets.size()); }
    int categoryCount() const { return static_cast<int>(m_categories.size()); }
    // Stack total of a bucket (NaNs ignored).
    double bucketTotal(int bucket) const;
    // The value axis as drawn: {min, max}.
    std::pair<double, double> valueAxisRange() const;

    ExportResult exportPng(const QString& path) const;
    // "bucket,category,value" rows.
    ExportResult exportCsv(const QString& path) const;

    QSize sizeHint() const override { return {640, 300}; }

private:
    void rebuild();
    void applyTheme();

    Theme m_theme;
    QChart* m_chart = nullptr;
    QChartView* m_view = nullptr;
    QStackedBarSeries* m_series = nullptr;
    double m_ceiling = 0;  // 0 = none
    QBarCategoryAxis* m_bucketAxis = nullptr;
    QValueAxis* m_valueAxis = nullptr;
    QStringList m_buckets;
    std::vector<BreakdownCategory> m_categories;
};

}  // namespace watchfloor::widgets
