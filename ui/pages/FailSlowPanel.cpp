#include "FailSlowPanel.h"

#include "ActionDialog.h"
#include "FailSlowEviction.h"
#include "OperatorActions.h"
#include "PageHeader.h"
#include "StragglerDrillDown.h"

#include "FleetStore.h"
#include "Theme.h"

#include <QHeaderView>

#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

FailSlowPanel::FailSlowPanel(const PageContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_store(*context.store),
      m_actions(context.actions),
      m_note(new QLabel(this)),
      m_table(new QTableWidget(0, ColumnCount, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(makeSectionTitle(QStringLiteral("Fail-slow trays: observe → confirm → propose → evict"), this));
    m_note->setObjectName(QStringLiteral("failSlowNote"));
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    m_table->setObjectName(QStringLiteral("failSlowFindings"));
    m_table->setHorizontalHeaderLabels({QStringLiteral("Job"), QStringLiteral("Tray"), QStringLiteral("Slowdown"),
                                        QStringLiteral("Windows slow"), QStringLiteral("Gain if evicted"),
                                        QStringLiteral("Restart cost"), QStringLiteral("State"), QString(), QString()});
    m_table->horizontalHeaderItem(Gain)->setToolTip(
        QStringLiteral("GPUs × 24 h × (1 − 1/slowdown): the progress the slow tray costs the job a day"));
    m_table->horizontalHeaderItem(Cost)->setToolTip(
        QStringLiteral("GPUs × (restart overhead + half a checkpoint interval): one restart from the last checkpoint "
                       "onto a spare"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setShowGrid(false);
    layout->addWidget(m_table);
}

void FailSlowPanel::refresh(EntityId scope) {
    struct Row {
        EntityId job;
        QString jobName;
        v1::FailSlowFinding finding;
    };
    std::vector<Row> rows;
    bool autoEvict = false;
    for (int r = 0; r < m_store.jobCount(); ++r) {
        const EntityId id = m_store.jobAt(r);
        const v1::Job* job = m_store.job(r);
        if (!job || (scope.isValid() && id != scope)) continue;
        for (const auto& finding : job->fail_slow()) rows.push_back({id, QString::fromStdString(job->name()), finding});
    }
    for (EntityId root : m_store.fleetRoots())
        if (const v1::FleetGoodput* fleet = m_store.endpointFleet(root.endpoint).fleetGoodput())
            autoEvict |= fleet->fail_slow_auto_evict();
    m_note->setText(rows.empty() ? QStringLiteral("No slow trays: no job reports a straggler at 5 % or more.")
                    : autoEvict  ? QStringLiteral("fleetd evicts confirmed trays itself (--auto-evict-slow), as "
                                                   "'auto' behind the circuit breaker.")
                                 : QStringLiteral("fleetd proposes confirmed trays; an operator evicts them "
                                                   "(drain: the job restarts from its last checkpoint on a spare)."));
    m_table->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        const Row& row = rows[std::size_t(i)];
        const v1::FailSlowFinding& f = row.finding;
        auto set = [&](int column, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            if (column >= Slowdown && column <= Cost) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(i, column, item);
        };
        set(Job, row.jobName);
        set(Tray, QString::fromStdString(f.node_name()));
        set(Slowdown, QStringLiteral("%1×").arg(f.slowdown(), 0, 'f', 2));
        set(Windows, QStringLiteral("%1 (confirms at %2)").arg(f.windows_slow()).arg(f.windows_needed()));
        set(Gain, QStringLiteral("%1 GPU-h/day").arg(f.gain_gpu_hours_per_day(), 0, 'f', 0));
        set(Cost, QStringLiteral("%1 GPU-h").arg(f.cost_gpu_hours(), 0, 'f', 0));
        set(Stage, failSlowStageText(f));
        m_table->removeCellWidget(i, Action);
        addDrillDownButton(i, row.job, f);
        const EntityId tray{row.job.endpoint, f.node_index()};
        if (f.stage() != v1::FAIL_SLOW_STAGE_PROPOSED || !m_actions || !m_actions->actorFor(tray.endpoint)) continue;
        const ActionDraft draft = failSlowEvictionDraft(tray.endpoint, f, row.jobName);
        auto* button = new QPushButton(draft.label);
        button->setObjectName(QStringLiteral("evict-%1").arg(QString::fromStdString(f.node_name())));
        button->setToolTip(QStringLiteral("Drain %1: the preview shows the jobs it interrupts and their cost; the "
                                          "job restarts from its last checkpoint without it")
                               .arg(QString::fromStdString(f.node_name())));
        connect(button, &QPushButton::clicked, this, [this, draft] { m_actions->open(draft, this); });
        m_table->setCellWidget(i, Action, button);
    }
    m_table->resizeColumnsToContents();
    // As tall as its rows (up to five, then it scrolls): the jobs table above keeps the room.
    const int shown = std::clamp(int(rows.size()), 1, 5);
    m_table->setFixedHeight(m_table->horizontalHeader()->height() +
                            shown * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth() + 2);
}

void FailSlowPanel::addDrillDownButton(int row, EntityId job, const v1::FailSlowFinding& finding) {
    m_table->removeCellWidget(row, DrillDown);
    if (!m_context.connection(job.endpoint)) return;  // a recorded stream: nobody to ask for the step times
    const QString tray = QString::fromStdString(finding.node_name());
    auto* button = new QPushButton(QStringLiteral("Step times…"));
    button->setObjectName(QStringLiteral("drilldown-%1").arg(tray));
    button->setToolTip(
        QStringLiteral("Every tray's step time over time, and what in %1's telemetry explains its slowness").arg(tray));
    connect(button, &QPushButton::clicked, this, [this, job, index = finding.node_index()] {
        openStragglerDrillDown(m_context, job, EntityId{job.endpoint, index},
                               m_theme ? *m_theme : widgets::Theme::builtin(widgets::ThemeVariant::Dark), this);
    });
    m_table->setCellWidget(row, DrillDown, button);
}

}  // namespace watchfloor::ui
