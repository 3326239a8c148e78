#include "RepairsPage.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "KpiStrip.h"
#include "OperatorActions.h"
#include "PageHeader.h"
#include "RepairCaseView.h"

#include "FleetStore.h"
#include "RepairCaseModel.h"
#include "RepairCases.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {

// "off", "acts", "dry run" over the endpoints that send automation; "" when none does.
QString autoRemediationWords(const client::FleetStore& store) {
    QStringList words;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        const v1::AutomationStatus* automation = store.endpointFleet(endpoint).automation();
        if (!automation) continue;
        switch (automation->auto_remediation()) {
        case v1::AUTO_REMEDIATION_ACTS: words << QStringLiteral("acts"); break;
        case v1::AUTO_REMEDIATION_DRY_RUN: words << QStringLiteral("dry run"); break;
        default: words << QStringLiteral("off"); break;
        }
    }
    words.removeDuplicates();
    return words.join(QStringLiteral(" / "));
}

}  // namespace

RepairsPage::RepairsPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_actions(context.actions),
      m_header(new PageHeader(QStringLiteral("Repairs"), this)),
      m_kpis(new KpiStrip(this)),
      m_model(new client::RepairCaseModel(m_store, this)),
      m_table(new EntityTableView(m_store, m_model, this)),
      m_caseView(new RepairCaseView(0, this)),
      m_stepBar(new ActionBar(context.actions, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);

    m_kpis->addCard(QStringLiteral("open"), QStringLiteral("Open cases"),
                    QStringLiteral("Trays with a fault being repaired (open or in burn-in) and the GPU-hours they have "
                                   "been out of service"));
    m_kpis->addCard(QStringLiteral("mttr"), QStringLiteral("MTTR"),
                    QStringLiteral("Mean time from the fault to the tray back in production, over the cases fixed in "
                                   "fleetd's window"));
    m_kpis->addCard(QStringLiteral("automated"), QStringLiteral("MTTR automated"),
                    QStringLiteral("Cases whose every step automation took (fleetd --auto-remediate)"));
    m_kpis->addCard(QStringLiteral("manual"), QStringLiteral("MTTR manual"),
                    QStringLiteral("Cases a person took at least one step of"));
    m_kpis->addCard(QStringLiteral("mix"), QStringLiteral("Outcome mix"),
                    QStringLiteral("Fixed cases by the highest rung they needed, and trays sent to RMA"));
    m_kpis->addCard(QStringLiteral("auto"), QStringLiteral("Auto-remediation"),
                    QStringLiteral("fleetd --auto-remediate: off (the ladder only proposes), acts, or dry run "
                                   "(records what it would have done)"));
    layout->addWidget(m_kpis);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    m_table->setObjectName(QStringLiteral("repairCases"));
    // The model's order (open first, the longest open on top) until the operator sorts by a column;
    // no sort indicator, so re-enabling sorting (leaving wall mode) keeps it.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->proxy()->sort(-1);
    // Every column as wide as its text; the fault, the longest, takes what is left and elides.
    QHeaderView* header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(client::RepairCaseModel::Fault, QHeaderView::Stretch);
    splitter->addWidget(m_table);
    auto* detail = new QWidget(splitter);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(makeSectionTitle(QStringLiteral("Selected case"), detail));
    m_stepBar->setObjectName(QStringLiteral("repairStepBar"));
    m_stepBar->setDraftSource([this] {
        const client::RepairCaseRow* row = m_model->caseAt(selectedSourceRow());
        return m_actions && row && row->open ? m_actions->repairStepForTray(row->tray) : QList<ActionDraft>{};
    });
    auto* stepRow = new QHBoxLayout;
    stepRow->addWidget(m_stepBar);
    stepRow->addStretch(1);
    detailLayout->addLayout(stepRow);
    detailLayout->addWidget(m_caseView, 1);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(m_table, &EntityTableView::entityActivated, this, [this](client::EntityId tray) {
        emit navigationRequested({PageId::Rack, m_store.name(tray)});
    });
    m_table->setMenuExtension([this](QMenu& menu, int row) {
        if (m_actions) m_actions->addToMenu(menu, m_actions->repairStepForTray(m_table->entityAtRow(row)), window());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (const client::RepairCaseRow* row = m_model->caseAt(selectedSourceRow())) {
            m_selectedEndpoint = row->endpoint;
            m_selectedCase = row->record.id();
        }
        refreshSelection();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // The model rebuilds on every case change: the case selected stays selected.
        const int source = m_model->rowOf(m_selectedEndpoint, m_selectedCase);
        int view = source < 0 ? -1 : m_table->proxy()->mapFromSource(m_model->index(source, 0)).row();
        if (view < 0 && m_selectedCase == 0 && m_table->proxy()->rowCount() > 0) view = 0;  // the first to look at
        if (view >= 0) selectRow(view);
        refreshSelection();
    });
    connect(&m_store, &client::FleetStore::changed, this, &RepairsPage::onStoreChanged);
}

void RepairsPage::selectRow(int viewRow) {
    m_table->selectionModel()->setCurrentIndex(m_table->proxy()->index(viewRow, 0),
                                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

int RepairsPage::selectedSourceRow() const {
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? m_table->proxy()->mapToSource(current).row() : -1;
}

bool RepairsPage::showEntity(const QString& name) {
    if (name.isEmpty()) {
        m_entity.clear();
        if (!m_table->selectionModel()->currentIndex().isValid() && m_table->proxy()->rowCount() > 0) selectRow(0);
        return true;
    }
    const client::EntityId id = m_store.findByName(name);
    client::EntityId tray = id;
    if (m_store.kind(tray) == v1::ENTITY_KIND_GPU) tray = m_store.parent(tray);
    if (m_store.kind(tray) != v1::ENTITY_KIND_NODE) return false;
    m_entity = m_store.name(tray);
    // The tray's rows in view order: an open case first, else its newest closed one.
    for (int row = 0; row < m_table->proxy()->rowCount(); ++row) {
        if (m_table->entityAtRow(row) == tray) {
            selectRow(row);
            break;
        }
    }
    emit entityShown(m_entity);
    return true;
}

void RepairsPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_table->setReadOnlyWall(wall);
}

void RepairsPage::applyTheme(const widgets::Theme& theme) {
    m_header->applyTheme(theme);
    m_kpis->applyTheme(theme);
    m_caseView->applyTheme(theme);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(theme.font(9.5)).height() + 8);
    refreshKpis();
    refreshSelection();
}

bool RepairsPage::hasContent() const { return m_store.rackCount() > 0; }

void RepairsPage::setActive(bool active) {
    Page::setActive(active);
    if (active && m_dirty) {
        refreshKpis();
        refreshSelection();
    }
}

void RepairsPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (!changes.repairsChanged && !changes.fleetChanged && !changes.freshnessTick && !changes.topologyChanged) return;
    if (!isActive()) {
        m_dirty = true;
        return;
    }
    refreshKpis();
    // The model refreshes itself (and the selection with it) when cases change; a clock tick
    // ages the open case shown.
    if (!changes.repairsChanged) refreshSelection();
}

void RepairsPage::refreshKpis() {
    m_dirty = false;
    const client::RepairSummary s = client::summarizeRepairs(m_store);
    const int closedShown = m_model->rowCount() - m_model->openCount();
    QString summary = QStringLiteral("%1 open · %2 recently closed").arg(m_model->openCount()).arg(closedShown);
    if (s.any() && s.windowS > 0)
        summary += QStringLiteral(" · MTTR over the last %1").arg(client::formatRepairDuration(double(s.windowS)));
    summary += QStringLiteral(" · double-click a case for its rack");
    // An empty list says why, so a quiet fleet does not read as a broken page.
    if (m_model->rowCount() == 0)
        summary = s.any()
                      ? QStringLiteral(
                            "No repair cases: an Xid whose recommended action is a repair (GPU "
                            "reset, restart, the Xid 48 and NVLink workflows, RMA) opens one")
                      : QStringLiteral("No repair cases: fleetd keeps them only with operator actions on (--tokens)");
    m_header->setSummary(summary);
    if (!s.any()) {
        const QString why = QStringLiteral("fleetd sends no repair numbers (operator actions off)");
        for (const char* key : {"open", "mttr", "automated", "manual", "mix"})
            m_kpis->setCard(QString::fromLatin1(key), QStringLiteral("n/a"), why, KpiLevel::Missing);
    } else {
        m_kpis->setCard(QStringLiteral("open"), QString::number(s.open),
                        QStringLiteral("%1 GPU-h out of service").arg(s.outOfServiceGpuHours, 0, 'f', 1),
                        s.open > 0 ? KpiLevel::Warning : KpiLevel::Ok);
        m_kpis->setCard(QStringLiteral("mttr"), client::formatRepairDuration(s.mttrS),
                        QStringLiteral("%1 fixed · %2 sent to RMA").arg(s.fixed).arg(s.sentToRma),
                        std::isnan(s.mttrS) ? KpiLevel::Missing : KpiLevel::Neutral);
        m_kpis->setCard(QStringLiteral("automated"), client::formatRepairDuration(s.mttrAutomatedS),
                        QStringLiteral("%1 case%2").arg(s.fixedAutomated).arg(s.fixedAutomated == 1 ? "" : "s"),
                        std::isnan(s.mttrAutomatedS) ? KpiLevel::Missing : KpiLevel::Neutral);
        m_kpis->setCard(QStringLiteral("manual"), client::formatRepairDuration(s.mttrManualS),
                        QStringLiteral("%1 case%2").arg(s.fixedManual).arg(s.fixedManual == 1 ? "" : "s"),
                        std::isnan(s.mttrManualS) ? KpiLevel::Missing : KpiLevel::Neutral);
        m_kpis->setCard(QStringLiteral("mix"), QStringLiteral("%1 fixed").arg(s.fixed), client::repairOutcomeMix(s),
                        s.sentToRma > 0 ? KpiLevel::Warning : KpiLevel::Neutral);
    }
    const QString automation = autoRemediationWords(m_store);
    m_kpis->setCard(QStringLiteral("auto"), automation.isEmpty() ? QStringLiteral("n/a") : automation,
                    automation.isEmpty() ? QStringLiteral("no automation status from fleetd")
                                         : QStringLiteral("reset and reboot buckets only"),
                    automation.isEmpty() ? KpiLevel::Missing : KpiLevel::Neutral);
}

void RepairsPage::refreshSelection() {
    const client::RepairCaseRow* row = m_model->caseAt(selectedSourceRow());
    m_caseView->setCase(row ? std::optional<client::RepairCaseRow>(*row) : std::nullopt);
    m_stepBar->refresh();
}

}  // namespace watchfloor::ui
