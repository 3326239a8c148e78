#pragma once
// File exports shared by the chart wrappers: errors come back as values an operator can act on.

#include <QString>

#include <functional>

class QTextStream;
class QWidget;

namespace watchfloor::widgets {

struct ExportResult {
    bool ok = false;
    QString error;  // empty when ok
};

// PNG of the widget as drawn now, at its size and device pixel ratio.
ExportResult exportWidgetPng(const QWidget& widget, const QString& path);
// Writes a CSV atomically (QSaveFile): writeRows writes the header and rows.
ExportResult exportCsvFile(const QString& path, const std::function<void(QTextStream&)>& writeRows);
// RFC 4180 quoting for one field.
QString csvField(QString field);

} // namespace watchfloor::widgets
