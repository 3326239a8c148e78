#pragma once
// What the QtCharts wrappers share: embedding and theming a chart, and file exports whose errors
// come back as values an operator can act on.

#include "Theme.h"

#include <QList>
#include <QString>

#include <functional>

class QTextStream;
class QWidget;
QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace watchfloor::widgets {

struct ExportResult {
    bool ok = false;
    QString error;  // empty when ok
};

// A frameless, antialiased view filling host (no animations: charts update live).
QChartView* embedChart(QWidget* host, QChart* chart);
// Theme colours and fonts on the chart, its view and the given axes.
void applyChartTheme(QChart* chart, QChartView* view, const QList<QAbstractAxis*>& axes, const Theme& theme);

// PNG of the widget as drawn now, at its size and device pixel ratio.
ExportResult exportWidgetPng(const QWidget& widget, const QString& path);
// Writes a CSV atomically (QSaveFile): writeRows writes the header and rows.
ExportResult exportCsvFile(const QString& path, const std::function<void(QTextStream&)>& writeRows);
// RFC 4180 quoting for one field.
QString csvField(QString field);

}  // namespace watchfloor::widgets
