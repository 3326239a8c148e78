#include "StragglerCausePanel.h"

#include "FailSlowEviction.h"
#include "PageHeader.h"
#include "StragglerCauses.h"

#include "FleetStore.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

StragglerCausePanel::StragglerCausePanel(const client::FleetStore& store, OperatorActions* actions, QWidget* parent)
    : QWidget(parent),
      m_store(store),
      m_actions(actions),
      m_title(makeSectionTitle(QString(), this)),
      m_causes(new QTableWidget(0, 2, this)),
      m_verdict(new QLabel(this)),
      m_action(new QPushButton(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    m_causes->setObjectName(QStringLiteral("stragglerCauses"));
    m_causes->setHorizontalHeaderLabels({QStringLiteral("Cause"), QStringLiteral("What fleetd saw")});
    m_causes->verticalHeader()->hide();
    m_causes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_causes->setSelectionMode(QAbstractItemView::NoSelection);
    m_causes->setWordWrap(false);
    m_causes->horizontalHeader()->setStretchLastSection(true);
    m_causes->setShowGrid(false);
    layout->addWidget(m_causes);
    m_verdict->setObjectName(QStringLiteral("stragglerVerdict"));
    m_verdict->setWordWrap(true);
    layout->addWidget(m_verdict);
    auto* actionRow = new QHBoxLayout;
    m_action->setObjectName(QStringLiteral("stragglerAction"));
    m_action->setVisible(false);
    actionRow->addWidget(m_action);
    actionRow->addStretch(1);
    layout->addLayout(actionRow);
    connect(m_action, &QPushButton::clicked, this, [this] {
        if (m_actions) m_actions->open(m_draft, this);
    });
}

void StragglerCausePanel::setTheme(const widgets::Theme& theme) { m_theme = &theme; }

void StragglerCausePanel::setStatus(const QString& text) { m_verdict->setText(text); }

void StragglerCausePanel::showTray(EntityId job, EntityId tray, double slowdown, const std::vector<v1::Event>& events,
                                   const client::NicPortCounters& ib) {
    const QString name = m_store.name(tray);
    m_title->setText(
        std::isfinite(slowdown)
            ? QStringLiteral("Why %1 is slow: %2× the median tray's step time").arg(name).arg(slowdown, 0, 'f', 2)
            : QStringLiteral("Why %1 is slow").arg(name));
    const std::vector<StragglerCause> causes = assessStragglerCauses(m_store, tray, events, ib);
    m_causes->setRowCount(int(causes.size()));
    for (int i = 0; i < int(causes.size()); ++i) {
        const StragglerCause& c = causes[std::size_t(i)];
        auto* family = new QTableWidgetItem((c.implicated ? QStringLiteral("● ") : QStringLiteral("○ ")) + c.family);
        auto* finding = new QTableWidgetItem(c.finding);
        finding->setToolTip(c.finding);
        if (c.implicated && m_theme) {
            family->setForeground(m_theme->colors().warn);
            finding->setForeground(m_theme->colors().warn);
        }
        m_causes->setItem(i, 0, family);
        m_causes->setItem(i, 1, finding);
    }
    m_causes->resizeColumnToContents(0);
    m_causes->setFixedHeight(m_causes->horizontalHeader()->height() +
                             int(causes.size()) * m_causes->verticalHeader()->defaultSectionSize() +
                             2 * m_causes->frameWidth() + 2);
    m_verdict->setText(stragglerVerdict(name, causes));
    offerEviction(job, tray);
}

void StragglerCausePanel::offerEviction(EntityId job, EntityId tray) {
    // The action is the ladder's: only a tray it holds a finding for, and only where this
    // operator may act. Anything else says why there is no button.
    const v1::Job* info = m_store.job(m_store.jobRow(job));
    const v1::FailSlowFinding* finding = nullptr;
    if (info)
        for (const auto& f : info->fail_slow())
            if (f.node_index() == tray.index) finding = &f;
    const bool mayAct = m_actions && m_actions->actorFor(tray.endpoint);
    const bool proposed = finding && finding->stage() == v1::FAIL_SLOW_STAGE_PROPOSED;
    m_action->setVisible(finding && mayAct);
    if (!finding || !mayAct) {
        if (!finding)
            m_verdict->setText(m_verdict->text() + QStringLiteral(" fleetd's fail-slow ladder holds no finding for it: "
                                                                  "nothing proposed."));
        return;
    }
    m_draft = failSlowEvictionDraft(tray.endpoint, *finding, QString::fromStdString(info->name()));
    m_action->setText(m_draft.label);
    m_action->setEnabled(proposed);
    m_action->setToolTip(proposed
                             ? QStringLiteral("Proposed by fleetd: %1 GPU-h/day gained against a %2 GPU-h restart. "
                                              "Opens the drain dialog: preview, reason, execute.")
                                   .arg(finding->gain_gpu_hours_per_day(), 0, 'f', 0)
                                   .arg(finding->cost_gpu_hours(), 0, 'f', 0)
                             : QStringLiteral("Not proposed yet: %1").arg(failSlowStageText(*finding)));
}

}  // namespace watchfloor::ui
