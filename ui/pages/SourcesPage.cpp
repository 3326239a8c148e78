#include "SourcesPage.h"

#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "PageHeader.h"
#include "SourcesDock.h"

#include "FleetStore.h"
#include "ModelRoles.h"
#include "ScrapeTargetModel.h"
#include "SourceHealth.h"
#include "Theme.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace watchfloor::ui {

void TargetProblemsFilter::setProblemsOnly(bool only) {
    m_only = only;
    invalidateRowsFilter();
}

bool TargetProblemsFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!m_only) return true;
    const QVariant f = sourceModel()->index(sourceRow, 0, sourceParent).data(client::FreshnessRole);
    return f.isValid() && client::Freshness(f.toInt()) != client::Freshness::Fresh;
}

SourcesPage::SourcesPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_header(new PageHeader(QStringLiteral("Sources"), this)),
      m_sources(new SourcesTable(m_store)),
      m_targetsTitle(makeSectionTitle(QStringLiteral("Scrape targets"), this)),
      m_targetsSummary(new QLabel),
      m_problemsOnly(new QCheckBox(QStringLiteral("Only targets not up"))),
      m_model(new client::ScrapeTargetModel(m_store, this)),
      m_filter(new TargetProblemsFilter(this)),
      m_targets(nullptr) {
    m_filter->setSourceModel(m_model);
    m_targets = new EntityTableView(m_store, m_filter, this);
    m_targets->setObjectName(QStringLiteral("scrapeTargetsTable"));
    // Worst first: down, frozen, not scraped yet, up (the header re-sorts on click).
    m_targets->proxy()->sort(client::ScrapeTargetModel::State, Qt::DescendingOrder);
    m_targets->horizontalHeader()->setSortIndicator(client::ScrapeTargetModel::State, Qt::DescendingOrder);
    m_targetsSummary->setObjectName(QStringLiteral("scrapeTargetsSummary"));
    m_targetsSummary->setWordWrap(true);
    m_problemsOnly->setToolTip(QStringLiteral("Hide the exporters that answer with live values"));
    m_header->addControl(m_problemsOnly);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_sources);
    auto* targets = new QWidget(split);
    auto* targetsLayout = new QVBoxLayout(targets);
    targetsLayout->setContentsMargins(0, 0, 0, 0);
    targetsLayout->setSpacing(4);
    targetsLayout->addWidget(m_targetsTitle);
    targetsLayout->addWidget(m_targetsSummary);
    targetsLayout->addWidget(m_targets, 1);
    split->addWidget(targets);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 4);
    // A handful of sources, thousands of targets: the targets get the height.
    split->setSizes({200, 900});
    layout->addWidget(split, 1);

    // Widths follow the rows (the URL and host columns differ by site); the last error stretches.
    auto fitColumns = [this] { m_targets->resizeColumnsToContents(); };
    connect(m_model, &QAbstractItemModel::modelReset, this, fitColumns);
    fitColumns();
    connect(m_problemsOnly, &QCheckBox::toggled, this, [this](bool only) {
        m_filter->setProblemsOnly(only);
        refreshSummary();
    });
    connect(m_targets, &EntityTableView::entityActivated, this,
            [this](client::EntityId id) { emit navigationRequested(locationFor(m_store, id)); });
    connect(&m_store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        if (changes.telemetryChanged || changes.sourcesChanged || changes.topologyChanged || changes.freshnessTick)
            refreshSummary();
    });
    refreshSummary();
}

bool SourcesPage::showEntity(const QString& name) {
    if (name.isEmpty()) return true;
    const client::EntityId id = m_store.findByName(name);
    if (!id.isValid()) return false;
    for (int row = 0; row < m_targets->proxy()->rowCount(); ++row) {
        if (m_targets->entityAtRow(row) == id) {
            m_targets->selectRow(row);
            m_targets->scrollTo(m_targets->proxy()->index(row, 0));
            return true;
        }
    }
    return false;
}

void SourcesPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_header->applyTheme(theme);
    m_sources->applyTheme(theme);
    refreshSummary();
}

bool SourcesPage::hasContent() const {
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint)
        if (m_store.endpointFleet(endpoint).hasSnapshot()) return true;
    return false;
}

void SourcesPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_targets->setReadOnlyWall(wall);
}

QString SourcesPage::targetsSummary() const { return m_targetsSummary->text(); }

void SourcesPage::refreshSummary() {
    const client::ScrapeTargetModel::Counts c = m_model->counts();
    const client::SourcesOverview overview = client::overviewOfSources(m_store);
    m_targets->setColumnHidden(client::ScrapeTargetModel::Endpoint, m_store.endpointCount() < 2);
    m_targets->setVisible(c.targets > 0);
    m_problemsOnly->setVisible(c.targets > 0 && !isWallDisplay());
    QString text;
    bool bad = false;
    if (c.targets == 0) {
        text = QStringLiteral("fleetd scrapes no exporters itself (no --source scrape): nothing to list.");
    } else {
        QStringList parts{QStringLiteral("%1 up").arg(c.up)};
        if (c.down) parts << QStringLiteral("%1 down").arg(c.down);
        if (c.frozen) parts << QStringLiteral("%1 frozen").arg(c.frozen);
        if (c.unscraped) parts << QStringLiteral("%1 not scraped yet").arg(c.unscraped);
        text = QStringLiteral("%1 exporters: %2 · %3")
                   .arg(c.targets)
                   .arg(parts.join(QStringLiteral(", ")), client::silentHostsText(overview));
        bad = c.down + c.frozen > 0;
        if (m_filter->problemsOnly()) text += QStringLiteral(" · showing the %1 not up").arg(c.targets - c.up);
    }
    m_targetsSummary->setText(text);
    m_header->setSummary(overview.total == 0 ? QStringLiteral("No endpoint reads external telemetry sources")
                                             : QStringLiteral("%1 source(s) · %2").arg(overview.total).arg(text));
    if (m_theme)
        m_targetsSummary->setStyleSheet(QStringLiteral("color: %1; font-weight: %2;")
                                            .arg((bad ? m_theme->colors().silent : m_theme->colors().text).name())
                                            .arg(bad ? 700 : 400));
}

}  // namespace watchfloor::ui
