#pragma once
// File → Shift handoff…: the handoff report of the last N hours (default 8), previewed as it will
// read, with a note for the next shift, exported as Markdown and as PDF side by side (one base
// name, .md and .pdf). The report is client/ShiftHandoff.h's Markdown; the PDF is that Markdown
// laid out by QTextDocument onto a QPdfWriter (A4), so both files say the same.

#include "PageContext.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QTextBrowser;

namespace watchfloor::ui {

struct ExportOutcome {
    bool ok = false;
    QString message;  // the files written, or what failed
};

// Writes the Markdown to `path` as a PDF (A4, 2 cm margins).
ExportOutcome writeMarkdownPdf(const QString& markdown, const QString& path);

class ShiftHandoffDialog : public QDialog {
    Q_OBJECT
public:
    ShiftHandoffDialog(const PageContext& context, QWidget* parent = nullptr);

    QSpinBox* hoursBox() const { return m_hours; }
    QPlainTextEdit* noteEdit() const { return m_note; }
    QString markdown() const { return m_markdown; }
    // Writes <base>.md and <base>.pdf (a trailing .md or .pdf on `base` is dropped).
    ExportOutcome exportTo(QString base);

private:
    void rebuild();
    void chooseAndExport();

    PageContext m_context;
    QSpinBox* m_hours;
    QPlainTextEdit* m_note;
    QTextBrowser* m_preview;
    QLabel* m_status;
    QString m_markdown;
};

}  // namespace watchfloor::ui
