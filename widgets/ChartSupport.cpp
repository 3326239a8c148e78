#include "ChartSupport.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QVBoxLayout>

#include <QPixmap>
#include <QSaveFile>
#include <QTextStream>
#include <QWidget>

namespace watchfloor::widgets {

QChartView* embedChart(QWidget* host, QChart* chart) {
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart, host);
    view->setFrameShape(QFrame::NoFrame);
    view->setRenderHint(QPainter::Antialiasing, true);
    auto* layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view);
    return view;
}

void applyChartTheme(QChart* chart, QChartView* view, const QList<QAbstractAxis*>& axes, const Theme& theme) {
    const ThemeColors& c = theme.colors();
    chart->setBackgroundBrush(c.window);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(c.text);
    chart->setTitleFont(theme.headerFont());
    chart->legend()->setLabelColor(c.text);
    chart->legend()->setFont(theme.labelFont());
    view->setBackgroundBrush(c.window);
    for (QAbstractAxis* axis : axes) {
        axis->setLabelsBrush(c.textDim);
        axis->setLabelsFont(theme.labelFont());
        axis->setTitleBrush(c.textDim);
        axis->setTitleFont(theme.labelFont());
        axis->setGridLineColor(c.grid);
        axis->setLinePenColor(c.grid);
    }
}

ExportResult exportWidgetPng(const QWidget& widget, const QString& path) {
    const QPixmap pixmap = const_cast<QWidget&>(widget).grab();
    if (pixmap.isNull()) return {false, QStringLiteral("chart has no size to export (is it laid out?)")};
    if (!pixmap.save(path, "PNG"))
        return {false, QStringLiteral("cannot write PNG to %1 (check the folder exists and is writable)").arg(path)};
    return {true, {}};
}

ExportResult exportCsvFile(const QString& path, const std::function<void(QTextStream&)>& writeRows) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return {false, QStringLiteral("cannot write CSV to %1: %2").arg(path, file.errorString())};
    QTextStream out(&file);
    writeRows(out);
    out.flush();
    if (!file.commit()) return {false, QStringLiteral("cannot finish writing %1: %2").arg(path, file.errorString())};
    return {true, {}};
}

QString csvField(QString field) {
    if (field.contains(QLatin1Char(',')) || field.contains(QLatin1Char('"')) || field.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + field.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    return field;
}

}  // namespace watchfloor::widgets
