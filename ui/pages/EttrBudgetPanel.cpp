#include "EttrBudgetPanel.h"

#include "FleetFormat.h"
#include "PageHeader.h"

#include "Theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {

enum Row {
    FailureRate,
    RestartOverhead,
    Restarts,
    Rework,
    CheckpointSaves,
    Other,
    Ettr,
    SlowSteps,
    Goodput,
    AtMeasuredRates,
    RowCount
};

QString lossPercent(double ratio) { return QStringLiteral("− %1").arg(formatRatioPercent(ratio)); }

QString perHour(double rate) {
    return rate > 0 ? QStringLiteral("%1 / h").arg(rate, 0, 'g', 3) : QStringLiteral("none yet");
}

}  // namespace

EttrBudgetPanel::EttrBudgetPanel(QWidget* parent)
    : QWidget(parent), m_table(new QTableWidget(RowCount, 3, this)), m_note(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(makeSectionTitle(QStringLiteral("What separates ETTR from 100 %"), this));
    m_table->setObjectName(QStringLiteral("ettrBudget"));
    m_table->setHorizontalHeaderLabels({QString(), QStringLiteral("E[ETTR] (Meta)"), QStringLiteral("Measured")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setShowGrid(false);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setToolTip(QStringLiteral(
        "E[ETTR] = (1 − Λ(u0 + τ/2)) / (1 + C/τ), split into its terms: restarts Λu0, rework Λτ/2 (progress since "
        "the last checkpoint, lost on average), checkpoint saves C/τ, each over 1 + C/τ. Measured: shares of the "
        "job's time in the goodput ledger. Slow steps are ETTR (productive wall time) but not goodput (ideal pace)."));
    layout->addWidget(m_table, 1);
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("ettrBudgetNote"));
    layout->addWidget(m_note);
    for (int r = 0; r < RowCount; ++r) setRow(r, QString(), QString(), QString(), false);
}

void EttrBudgetPanel::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    QPalette palette = m_note->palette();
    palette.setColor(QPalette::WindowText, theme.colors().textDim);
    m_note->setPalette(palette);
}

void EttrBudgetPanel::setRow(int row, const QString& label, const QString& expected, const QString& measured,
                             bool total) {
    const QString cells[] = {label, expected, measured};
    for (int c = 0; c < 3; ++c) {
        auto* item = m_table->item(row, c);
        if (!item) {
            item = new QTableWidgetItem;
            m_table->setItem(row, c, item);
        }
        item->setText(cells[c]);
        item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
        QFont font = item->font();
        font.setBold(total);
        item->setFont(font);
    }
}

void EttrBudgetPanel::setView(const EttrBudgetView& view) {
    const v1::EttrBudget& b = view.budget;
    const bool expected = view.expectedEttr > 0;
    const QString none = QStringLiteral("—");
    auto ex = [&](const QString& text) { return expected ? text : none; };
    auto me = [&](const QString& text) { return view.measured ? text : none; };
    setRow(FailureRate, QStringLiteral("Job failure rate Λ"), ex(perHour(b.expected_failures_per_hour())),
           me(perHour(b.measured_failures_per_hour())), false);
    setRow(RestartOverhead, QStringLiteral("Restart overhead u0"), ex(formatDuration(b.restart_overhead_s())),
           me(b.measured_restart_overhead_s() > 0 ? formatDuration(b.measured_restart_overhead_s())
                                                  : QStringLiteral("none yet")),
           false);
    setRow(Restarts, QStringLiteral("Restarts"), ex(lossPercent(b.expected_restart_ratio())),
           me(lossPercent(b.measured_restart_ratio())), false);
    setRow(Rework, QStringLiteral("Rework (lost since checkpoint)"), ex(lossPercent(b.expected_rework_ratio())),
           me(lossPercent(b.measured_rework_ratio())), false);
    setRow(CheckpointSaves,
           QStringLiteral("Checkpoint saves (%1, %2 each)")
               .arg(formatDuration(b.checkpoint_interval_s()), formatDuration(b.checkpoint_save_s())),
           ex(lossPercent(b.expected_checkpoint_ratio())), me(lossPercent(b.measured_checkpoint_ratio())), false);
    setRow(Other, QStringLiteral("Other (gaps)"), ex(none), me(lossPercent(b.measured_other_ratio())), false);
    setRow(Ettr, QStringLiteral("= ETTR"), ex(formatRatioPercent(view.expectedEttr)), me(formatRatioPercent(view.ettr)),
           true);
    setRow(SlowSteps, QStringLiteral("Slow steps (ETTR, not goodput)"), ex(QStringLiteral("not modelled")),
           me(lossPercent(b.measured_slowness_ratio())), false);
    setRow(Goodput, QStringLiteral("= Goodput"), ex(none), me(formatRatioPercent(view.goodput)), true);
    setRow(
        AtMeasuredRates, QStringLiteral("E[ETTR] at the measured Λ and u0"), ex(none),
        me(b.expected_ettr_at_measured_rates_ratio() > 0 ? formatRatioPercent(b.expected_ettr_at_measured_rates_ratio())
                                                         : none),
        false);
    m_table->resizeColumnToContents(1);
    m_table->resizeColumnToContents(2);
    // Every row visible without scrolling: the rows add up to the numbers above them.
    m_table->resizeRowsToContents();
    int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth();
    for (int r = 0; r < m_table->rowCount(); ++r) height += m_table->rowHeight(r);
    m_table->setMinimumHeight(height);
    m_note->setText(view.note);
    m_note->setToolTip(view.noteDetail);
    m_note->setVisible(!view.note.isEmpty());
    fitNote();
}

// The wrapped footnote as tall as its lines at the panel's width, so a layout never gives it less
// and draws it over the table's last rows.
void EttrBudgetPanel::fitNote() {
    const int height = m_note->heightForWidth(width());
    if (height > 0 && height != m_note->minimumHeight()) m_note->setMinimumHeight(height);
}

void EttrBudgetPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitNote();
}

QString EttrBudgetPanel::cell(int row, int column) const {
    const QTableWidgetItem* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

int EttrBudgetPanel::rowOf(const QString& label) const {
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (cell(r, 0).startsWith(label)) return r;
    return -1;
}

}  // namespace watchfloor::ui
