#include "StackedBreakdownChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QStackedBarSeries>
#include <QTextStream>
#include <QValueAxis>

#include <cmath>

namespace watchfloor::widgets {

StackedBreakdownChart::StackedBreakdownChart(QWidget* parent)
    : QWidget(parent),
      m_theme(Theme::builtin(ThemeVariant::Dark)),
      m_chart(new QChart),
      m_series(new QStackedBarSeries),
      m_bucketAxis(new QBarCategoryAxis),
      m_valueAxis(new QValueAxis) {
    m_chart->legend()->setAlignment(Qt::AlignRight);
    m_chart->addSeries(m_series);
    m_chart->addAxis(m_bucketAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    m_series->attachAxis(m_bucketAxis);
    m_series->attachAxis(m_valueAxis);
    m_series->setBarWidth(0.7);
    m_valueAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_view = embedChart(this, m_chart);
    applyTheme();
}

void StackedBreakdownChart::setTitle(const QString& title) { m_chart->setTitle(title); }

void StackedBreakdownChart::setValueUnit(const QString& unit) { m_valueAxis->setTitleText(unit); }

void StackedBreakdownChart::setTheme(const Theme& theme) {
    m_theme = theme;
    applyTheme();
    rebuild();
}

void StackedBreakdownChart::setValueCeiling(double ceiling) {
    m_ceiling = ceiling;
    rebuild();
}

void StackedBreakdownChart::applyTheme() {
    applyChartTheme(m_chart, m_view, {m_bucketAxis, m_valueAxis}, m_theme);
    m_bucketAxis->setGridLineVisible(false);
}

void StackedBreakdownChart::setData(const QStringList& bucketLabels, std::vector<BreakdownCategory> categories) {
    m_buckets = bucketLabels;
    for (auto& cat : categories) cat.values.resize(static_cast<std::size_t>(bucketLabels.size()), std::nan(""));
    m_categories = std::move(categories);
    rebuild();
}

double StackedBreakdownChart::bucketTotal(int bucket) const {
    double total = 0;
    for (const auto& cat : m_categories) {
        const double v = cat.values.at(static_cast<std::size_t>(bucket));
        if (!std::isnan(v)) total += v;
    }
    return total;
}

std::pair<double, double> StackedBreakdownChart::valueAxisRange() const {
    return {m_valueAxis->min(), m_valueAxis->max()};
}

void StackedBreakdownChart::rebuild() {
    // A handful of sets × buckets: rebuilding is cheaper than diffing and keeps colours stable.
    m_series->clear();
    const auto& palette = m_theme.categorical();
    for (std::size_t i = 0; i < m_categories.size(); ++i) {
        const BreakdownCategory& cat = m_categories[i];
        auto* set = new QBarSet(cat.name);
        const QColor colour = cat.color.isValid() ? cat.color : palette[i % palette.size()];
        set->setColor(colour);
        set->setBorderColor(m_theme.colors().window);
        QList<qreal> values;
        values.reserve(static_cast<qsizetype>(cat.values.size()));
        for (double v : cat.values) values.append(std::isnan(v) ? 0.0 : v);
        set->append(values);
        m_series->append(set);
    }
    m_bucketAxis->clear();
    m_bucketAxis->append(m_buckets);
    double maxTotal = 0;
    for (int b = 0; b < bucketCount(); ++b) maxTotal = std::max(maxTotal, bucketTotal(b));
    // Shares add up to 100 give or take rounding; a "nice" range over 105 would run to 150.
    if (m_ceiling > 0 && maxTotal <= m_ceiling * 1.001) {
        m_valueAxis->setRange(0, m_ceiling);
        m_valueAxis->setTickCount(5);
    } else {
        m_valueAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.05 : 1);
        m_valueAxis->applyNiceNumbers();
    }
}

ExportResult StackedBreakdownChart::exportPng(const QString& path) const { return exportWidgetPng(*m_view, path); }

ExportResult StackedBreakdownChart::exportCsv(const QString& path) const {
    return exportCsvFile(path, [&](QTextStream& out) {
        out << "bucket,category,value\n";
        for (int b = 0; b < bucketCount(); ++b) {
            for (const auto& cat : m_categories) {
                const double v = cat.values[static_cast<std::size_t>(b)];
                out << csvField(m_buckets[b]) << ',' << csvField(cat.name) << ','
                    << (std::isnan(v) ? QString() : QString::number(v, 'g', 10)) << '\n';
            }
        }
    });
}

}  // namespace watchfloor::widgets
