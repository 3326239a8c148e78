#include "ShiftHandoffDialog.h"

#include "ActionDialog.h"
#include "OperatorActions.h"

#include "FleetStore.h"
#include "ShiftHandoff.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFont>
#include <QFormLayout>
#include <QLabel>
#include <QPageLayout>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QVBoxLayout>

namespace watchfloor::ui {

ExportOutcome writeMarkdownPdf(const QString& markdown, const QString& path) {
    QPdfWriter writer(path);
    // No margins of the writer's own: QTextDocument::print() lays the text out 2 cm inside the page.
    writer.setPageLayout(
        QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Millimeter));
    writer.setTitle(QStringLiteral("Shift handoff"));
    writer.setCreator(QStringLiteral("Watchfloor"));
    QTextDocument doc;
    QFont font = doc.defaultFont();
    font.setPointSizeF(8.5);  // seven table columns on a portrait page
    doc.setDefaultFont(font);
    doc.setMarkdown(markdown);
    // Markdown tables come out as narrow as their words, wrapping "acknowledged": use the page's width.
    for (auto it = doc.rootFrame()->begin(); !it.atEnd(); ++it) {
        if (auto* table = qobject_cast<QTextTable*>(it.currentFrame())) {
            QTextTableFormat format = table->format();
            format.setWidth(QTextLength(QTextLength::PercentageLength, 100));
            format.setCellPadding(3);
            format.setBorderCollapse(true);
            table->setFormat(format);
        }
    }
    doc.print(&writer);
    QFile written(path);
    if (!written.exists() || written.size() == 0) return {false, QStringLiteral("Could not write %1").arg(path)};
    return {true, path};
}

ShiftHandoffDialog::ShiftHandoffDialog(const PageContext& context, QWidget* parent)
    : QDialog(parent),
      m_context(context),
      m_hours(new QSpinBox(this)),
      m_note(new QPlainTextEdit(this)),
      m_preview(new QTextBrowser(this)),
      m_status(new QLabel(this)),
      m_post(nullptr) {
    setWindowTitle(QStringLiteral("Shift handoff"));
    setObjectName(QStringLiteral("shiftHandoffDialog"));
    m_hours->setRange(1, 72);
    m_hours->setValue(client::kDefaultHandoffHours);
    m_hours->setSuffix(QStringLiteral(" h"));
    m_note->setPlaceholderText(
        QStringLiteral("What the next shift must know: what is in progress, who to call, what not to touch"));
    m_note->setMaximumHeight(90);
    auto* form = new QFormLayout;
    form->addRow(QStringLiteral("Report the last"), m_hours);
    form->addRow(QStringLiteral("Note for the next shift"), m_note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* exportButton =
        buttons->addButton(QStringLiteral("Export Markdown + PDF…"), QDialogButtonBox::ActionRole);
    exportButton->setAutoDefault(false);
    m_post = buttons->addButton(QStringLiteral("Post to fleetd…"), QDialogButtonBox::ActionRole);
    m_post->setObjectName(QStringLiteral("postHandoffButton"));
    m_post->setAutoDefault(false);
    connect(m_post, &QPushButton::clicked, this, &ShiftHandoffDialog::postToFleetd);
    m_status->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(exportButton, &QPushButton::clicked, this, &ShiftHandoffDialog::chooseAndExport);
    connect(m_hours, &QSpinBox::valueChanged, this, &ShiftHandoffDialog::rebuild);
    connect(m_note, &QPlainTextEdit::textChanged, this, &ShiftHandoffDialog::rebuild);
    connect(m_note, &QPlainTextEdit::textChanged, this, &ShiftHandoffDialog::updatePostButton);
    if (m_context.actions)
        connect(m_context.actions, &OperatorActions::availabilityChanged, this, &ShiftHandoffDialog::updatePostButton);
    connect(m_context.store, &client::FleetStore::changed, this, &ShiftHandoffDialog::onStoreChanged);
    resize(900, 760);
    rebuild();
    updatePostButton();
}

void ShiftHandoffDialog::updatePostButton() {
    const QString line = client::handoffNoteLine(m_note->toPlainText());
    const qsizetype bytes = line.toUtf8().size();
    QString why;
    if (!m_context.actions || m_context.actions->firstActableEndpoint() < 0)
        why = QStringLiteral("Posting needs a control connection and the operator or admin role; export still works.");
    else if (line.isEmpty())
        why = QStringLiteral("Write a note for the next shift to post it.");
    else if (bytes > client::kMaxHandoffNoteBytes)
        why = QStringLiteral("The note is %1 bytes as one line; fleetd keeps at most %2. Shorten it to post it.")
                  .arg(bytes)
                  .arg(client::kMaxHandoffNoteBytes);
    m_post->setEnabled(why.isEmpty());
    m_post->setToolTip(why.isEmpty() ? QStringLiteral("Store the note in fleetd; the next shift acknowledges it. Line "
                                                      "breaks become \" / \".")
                                     : why);
}

ActionDialog* ShiftHandoffDialog::postToFleetd() {
    updatePostButton();
    if (!m_post->isEnabled()) return nullptr;
    const std::int64_t end = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t start = end - std::int64_t(m_hours->value()) * 3'600'000;
    const auto draft = m_context.actions->draftPostHandoff(start, end, client::handoffNoteLine(m_note->toPlainText()));
    return draft ? m_context.actions->open(*draft, this) : nullptr;
}

void ShiftHandoffDialog::onStoreChanged() {
    QString seen;
    for (const client::PostedHandoff& p : client::postedHandoffs(*m_context.store))
        seen += QString::fromStdString(p.handoff.id() + ':' + p.handoff.acknowledged_by() + ';');
    if (seen == m_handoffsSeen) return;
    m_handoffsSeen = seen;
    rebuild();
}

void ShiftHandoffDialog::rebuild() {
    m_markdown = client::handoffMarkdown(
        client::collectHandoff(*m_context.store, m_context.controls, m_hours->value(), m_note->toPlainText()));
    m_preview->setMarkdown(m_markdown);
}

ExportOutcome ShiftHandoffDialog::exportTo(QString base) {
    if (base.endsWith(QStringLiteral(".md")) || base.endsWith(QStringLiteral(".pdf")))
        base = base.left(base.lastIndexOf(QLatin1Char('.')));
    rebuild();
    QFile md(base + QStringLiteral(".md"));
    if (!md.open(QIODevice::WriteOnly | QIODevice::Truncate) || md.write(m_markdown.toUtf8()) < 0)
        return {false, QStringLiteral("Could not write %1: %2").arg(md.fileName(), md.errorString())};
    md.close();
    const ExportOutcome pdf = writeMarkdownPdf(m_markdown, base + QStringLiteral(".pdf"));
    if (!pdf.ok) return pdf;
    return {true, QStringLiteral("Wrote %1 and %2").arg(md.fileName(), pdf.message)};
}

void ShiftHandoffDialog::chooseAndExport() {
    const QString base =
        QFileDialog::getSaveFileName(this, QStringLiteral("Export shift handoff"), QStringLiteral("shift-handoff.md"),
                                     QStringLiteral("Markdown and PDF (*.md)"));
    if (base.isEmpty()) return;
    const ExportOutcome outcome = exportTo(base);
    m_status->setText(outcome.message);
}

}  // namespace watchfloor::ui
