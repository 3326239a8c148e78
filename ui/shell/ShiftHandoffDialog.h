#pragma once
// File → Shift handoff…: the handoff report of the last N hours (default 8), previewed as it will
// read, with a note for the next shift, exported as Markdown and as PDF side by side (one base
// name, .md and .pdf). The report is client/ShiftHandoff.h's Markdown; the PDF is that Markdown
// laid out by QTextDocument onto a QPdfWriter (A4), so both files say the same.
// "Post to fleetd…" stores the note in fleetd for the next shift to acknowledge (ControlService
// POST_HANDOFF, through the ActionDialog every action uses); the report lists fleetd's handoffs
// with who acknowledged them and when, and follows them as they change.

#include "PageContext.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace watchfloor::ui {

class ActionDialog;

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
    QPushButton* postButton() const { return m_post; }
    // Opens the action dialog posting the note for the period shown; null when the button is off.
    ActionDialog* postToFleetd();
    // Writes <base>.md and <base>.pdf (a trailing .md or .pdf on `base` is dropped).
    ExportOutcome exportTo(QString base);

private:
    void rebuild();
    void chooseAndExport();
    // Enables "Post to fleetd…" when the operator may post and the note fits, saying why not.
    void updatePostButton();
    // Rebuilds the report when fleetd's handoffs changed (not on every fleet tick).
    void onStoreChanged();

    PageContext m_context;
    QSpinBox* m_hours;
    QPlainTextEdit* m_note;
    QTextBrowser* m_preview;
    QLabel* m_status;
    QPushButton* m_post;
    QString m_markdown;
    QString m_handoffsSeen;  // ids and acknowledgers of fleetd's handoffs as last shown
};

}  // namespace watchfloor::ui
