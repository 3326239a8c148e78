#include "RepairCaseView.h"

#include "FleetFormat.h"

#include "Theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

std::vector<RepairTimelineEntry> repairTimeline(const v1::RepairCase& c) {
    std::vector<RepairTimelineEntry> entries;
    for (const v1::RepairStep& step : c.steps()) {
        RepairTimelineEntry e;
        e.timeUnixMs = step.started_unix_ms();
        e.who = QString::fromStdString(step.principal());
        e.what = client::repairRungLabel(step.rung());
        if (step.dry_run()) e.what += QStringLiteral(" (dry run)");
        const QString outcome = QString::fromStdString(step.outcome());
        if (step.ended_unix_ms() == 0) {
            e.outcome = QStringLiteral("running");
        } else {
            e.failed = !step.succeeded();
            e.outcome =
                QStringLiteral("%1 after %2")
                    .arg(step.succeeded() ? QStringLiteral("succeeded") : QStringLiteral("failed"),
                         client::formatRepairDuration(double(step.ended_unix_ms() - step.started_unix_ms()) / 1000.0));
            if (!outcome.isEmpty()) e.outcome += QStringLiteral(": ") + outcome;
        }
        entries.push_back(std::move(e));
    }
    for (const v1::RepairCaseNote& note : c.timeline())
        entries.push_back({note.time_unix_ms(), QString::fromStdString(note.actor()),
                           QString::fromStdString(note.text()), QString(), false});
    // A step and the note about it at the same moment: the step first.
    std::stable_sort(entries.begin(), entries.end(), [](const RepairTimelineEntry& a, const RepairTimelineEntry& b) {
        return a.timeUnixMs < b.timeUnixMs;
    });
    return entries;
}

QString repairCaseSummary(const client::RepairCaseRow& row) {
    const v1::RepairCase& c = row.record;
    QStringList parts{row.trayName};
    const QString age = client::formatRepairDuration(double(row.ageMs) / 1000.0);
    parts << (row.open ? QStringLiteral("%1 %2").arg(client::repairCaseStateLabel(c.state()), age)
                       : QStringLiteral("%1 after %2").arg(client::repairCaseStateLabel(c.state()), age));
    parts << QString::fromStdString(c.fault());
    parts << QStringLiteral("owner %1").arg(client::repairCaseOwnerText(c));
    if (row.open) parts << QStringLiteral("%1 GPU-h out").arg(c.out_of_service_gpu_hours(), 0, 'f', 1);
    QString text = parts.join(QStringLiteral(" · "));
    QString step = client::repairCaseStepText(c);
    if (!c.next_reason().empty()) step += QStringLiteral(" — ") + QString::fromStdString(c.next_reason());
    return text + QStringLiteral("\n") + step;
}

RepairCaseView::RepairCaseView(int compactRows, QWidget* parent)
    : QWidget(parent),
      m_compactRows(compactRows),
      m_summary(new QLabel(this)),
      m_timeline(new QTableWidget(0, 3, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_summary->setObjectName(QStringLiteral("repairCaseSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_timeline->setObjectName(QStringLiteral("repairCaseTimeline"));
    m_timeline->setHorizontalHeaderLabels({QStringLiteral("Time"), QStringLiteral("Who"), QStringLiteral("What")});
    m_timeline->verticalHeader()->hide();
    m_timeline->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_timeline->setSelectionBehavior(QAbstractItemView::SelectRows);
    // What happened is the long column: it takes the width left and wraps, never hides an outcome
    // behind a scroll bar.
    m_timeline->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_timeline->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_timeline->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_timeline->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_timeline->setShowGrid(false);
    // Compact: one line a row (the Rack page has no height to spare), the whole text in the tooltip.
    m_timeline->setWordWrap(m_compactRows == 0);
    if (m_compactRows > 0) m_timeline->horizontalHeader()->hide();
    layout->addWidget(m_timeline, 1);
    setCase(std::nullopt);
}

void RepairCaseView::applyTheme(const widgets::Theme& theme) { m_theme = &theme; }

QString RepairCaseView::summaryText() const { return m_summary->text(); }

void RepairCaseView::setCase(const std::optional<client::RepairCaseRow>& row) {
    m_timeline->setRowCount(0);
    if (!row) {
        m_summary->setText(QStringLiteral("No repair case selected."));
        return;
    }
    m_summary->setText(repairCaseSummary(*row));
    std::vector<RepairTimelineEntry> entries = repairTimeline(row->record);
    if (m_compactRows > 0 && int(entries.size()) > m_compactRows)
        entries.erase(entries.begin(), entries.end() - m_compactRows);
    for (const RepairTimelineEntry& e : entries) {
        const int r = m_timeline->rowCount();
        m_timeline->insertRow(r);
        const QString what = e.outcome.isEmpty() ? e.what : QStringLiteral("%1 — %2").arg(e.what, e.outcome);
        const QStringList cells{formatUnixMs(e.timeUnixMs, m_compactRows == 0), e.who, what};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(cells[c]);
            if (e.failed && c == 2 && m_theme) item->setForeground(m_theme->colors().crit);
            m_timeline->setItem(r, c, item);
        }
    }
    if (m_compactRows == 0) m_timeline->resizeRowsToContents();
    if (m_compactRows > 0) {
        // As tall as its rows: the Rack page has no height to spare for an empty table.
        int height = 4;
        for (int r = 0; r < m_timeline->rowCount(); ++r) height += m_timeline->rowHeight(r);
        m_timeline->setFixedHeight(std::max(height, m_timeline->verticalHeader()->defaultSectionSize() + 4));
    }
}

}  // namespace watchfloor::ui
