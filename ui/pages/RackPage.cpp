#include "RackPage.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "FleetFormat.h"
#include "KpiStrip.h"
#include "OperatorActions.h"
#include "PageHeader.h"
#include "RackElevationBinding.h"
#include "RackThresholds.h"
#include "RepairCaseView.h"

#include "FleetRankings.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "LegendWidget.h"
#include "NodeTableModel.h"
#include "RackElevationWidget.h"
#include "RepairCases.h"
#include "XidFilter.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {

// A node-table column grows to its text up to about 40 characters (a lifecycle with its lemon count
// and proposal fits); beyond, it elides and the cell's tooltip has the rest.
int maxNodeColumnWidth(const QWidget& table) { return table.fontMetrics().averageCharWidth() * 40; }

constexpr int kMaxXidRows = 50;

struct ElevationLens {
    const char* key;
    const char* title;
    v1::Metric metric;
    widgets::Lens lens;
};
const ElevationLens kElevationLenses[] = {
    {"gpu-temp", "GPU temperature", v1::DCGM_FI_DEV_GPU_TEMP, widgets::Lens::GpuTemperature},
    {"health", "GPU health", v1::METRIC_UNSPECIFIED, widgets::Lens::Health},
    {"power", "GPU power", v1::DCGM_FI_DEV_POWER_USAGE, widgets::Lens::Power},
    {"util", "GPU utilisation", v1::DCGM_FI_DEV_GPU_UTIL, widgets::Lens::Goodput},
};

}  // namespace

RackPage::RackPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_actions(context.actions),
      m_header(new PageHeader(QStringLiteral("Rack"), this)),
      m_lensBox(new QComboBox),
      m_elevation(new widgets::RackElevationWidget(this)),
      m_legend(new widgets::LegendWidget(this)),
      m_kpis(new KpiStrip(this)),
      m_nodeModel(new client::NodeTableModel(m_store, this)),
      m_nodes(new EntityTableView(m_store, m_nodeModel, this)),
      m_xids(new QTableWidget(0, 5, this)),
      m_jobs(new QTableWidget(0, 4, this)),
      m_actionBar(new ActionBar(context.actions, this)),
      m_repairPanel(new QWidget(this)),
      m_repairTitle(nullptr),
      m_repairCase(new RepairCaseView(3, m_repairPanel)),
      m_repairStep(new ActionBar(context.actions, m_repairPanel)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    for (const ElevationLens& lens : kElevationLenses)
        m_lensBox->addItem(QString::fromUtf8(lens.title), QString::fromLatin1(lens.key));
    m_lensBox->setToolTip(QStringLiteral("Colour the GPUs by …"));
    m_header->addControl(m_actionBar);
    m_header->addControl(m_lensBox);
    layout->addWidget(m_header);

    m_kpis->addCard(QStringLiteral("power"), QStringLiteral("Rack power"), QStringLiteral("RACK_POWER_KW vs design"));
    m_kpis->addCard(QStringLiteral("hottest"), QStringLiteral("Hottest GPU"), QStringLiteral("Max GPU temperature"));
    m_kpis->addCard(QStringLiteral("flow"), QStringLiteral("Coolant flow"), QStringLiteral("Loop flow vs design"));
    m_kpis->addCard(QStringLiteral("deltat"), QStringLiteral("Coolant ΔT"), QStringLiteral("Return minus supply"));
    m_kpis->addCard(QStringLiteral("gpus"), QStringLiteral("GPUs up"), QStringLiteral("Healthy + degraded of 72"));
    m_kpis->addCard(QStringLiteral("leaks"), QStringLiteral("Leak sensors"), QStringLiteral("Wet / faulted sensors"));
    layout->addWidget(m_kpis);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* elevationBox = new QWidget(splitter);
    auto* elevationLayout = new QVBoxLayout(elevationBox);
    elevationLayout->setContentsMargins(0, 0, 0, 0);
    elevationLayout->setSpacing(2);
    elevationLayout->addWidget(m_elevation, 1);
    elevationLayout->addWidget(m_legend);
    splitter->addWidget(elevationBox);
    auto* right = new QWidget(splitter);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(makeSectionTitle(QStringLiteral("Compute trays"), right));
    m_nodes->setObjectName(QStringLiteral("rackNodes"));
    rightLayout->addWidget(m_nodes, 3);
    m_repairPanel->setObjectName(QStringLiteral("rackRepairCase"));
    auto* repairLayout = new QVBoxLayout(m_repairPanel);
    repairLayout->setContentsMargins(0, 0, 0, 0);
    repairLayout->setSpacing(4);
    auto* repairHead = new QHBoxLayout;
    m_repairTitle = makeSectionTitle(QStringLiteral("Repair case"), m_repairPanel);
    repairHead->addWidget(m_repairTitle);
    repairHead->addStretch(1);
    m_repairStep->setObjectName(QStringLiteral("rackRepairStep"));
    m_repairStep->setDraftSource(
        [this] { return m_actions ? m_actions->repairStepForTray(selectedTray()) : QList<ActionDraft>{}; });
    repairHead->addWidget(m_repairStep);
    repairLayout->addLayout(repairHead);
    repairLayout->addWidget(m_repairCase);
    m_repairPanel->hide();
    rightLayout->addWidget(m_repairPanel);
    rightLayout->addWidget(makeSectionTitle(QStringLiteral("Recent Xids and recommended action"), right));
    m_xids->setObjectName(QStringLiteral("rackXids"));
    m_xids->setHorizontalHeaderLabels({QStringLiteral("Time"), QStringLiteral("GPU"), QStringLiteral("Xid"),
                                       QStringLiteral("Recommended action"), QStringLiteral("Fleet policy")});
    rightLayout->addWidget(m_xids, 2);
    rightLayout->addWidget(makeSectionTitle(QStringLiteral("Jobs on this rack"), right));
    m_jobs->setObjectName(QStringLiteral("rackJobs"));
    m_jobs->setHorizontalHeaderLabels(
        {QStringLiteral("Job"), QStringLiteral("State"), QStringLiteral("Trays here"), QStringLiteral("Goodput")});
    rightLayout->addWidget(m_jobs, 1);
    for (QTableWidget* table : {m_xids, m_jobs}) {
        table->verticalHeader()->hide();
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->setSelectionBehavior(QAbstractItemView::SelectRows);
        table->horizontalHeader()->setStretchLastSection(true);
        table->setShowGrid(false);
        table->setAlternatingRowColors(true);
        table->setWordWrap(false);
    }
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    connect(m_lensBox, &QComboBox::currentIndexChanged, this, [this] {
        applyScale();
        refreshElevation();
    });
    connect(m_elevation, &widgets::RackElevationWidget::gpuActivated, this, [this](const QString& gpu) {
        emit navigationRequested({PageId::Rack, gpu});
    });
    connect(m_elevation, &widgets::RackElevationWidget::trayActivated, this, [this](const QString& tray) {
        emit navigationRequested({PageId::Rack, tray});
    });
    connect(m_nodes, &EntityTableView::entityActivated, this,
            [this](EntityId id) { emit navigationRequested(locationFor(m_store, id)); });
    m_nodes->setMenuExtension([this](QMenu& menu, int row) {
        if (m_actions) m_actions->addToMenu(menu, m_actions->draftsFor(m_nodes->entityAtRow(row)), window());
    });
    connect(m_nodes->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RackPage::updateActionBar);
    m_elevation->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_elevation, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        populateElevationMenu(menu, pos);
        if (!menu.isEmpty()) menu.exec(m_elevation->mapToGlobal(pos));
    });
    connect(m_xids, &QTableWidget::cellActivated, this, [this](int row, int) {
        emit navigationRequested({PageId::Rack, m_xids->item(row, 1)->text()});
    });
    connect(m_jobs, &QTableWidget::cellActivated, this, [this](int row, int) {
        emit navigationRequested({PageId::Jobs, m_jobs->item(row, 0)->text()});
    });
    connect(&m_store, &client::FleetStore::changed, this, &RackPage::onStoreChanged);
}

QString RackPage::rackName() const { return m_store.name(m_rack); }
int RackPage::xidRowCount() const { return m_xids->rowCount(); }

bool RackPage::showEntity(const QString& name) {
    EntityId target;
    if (name.isEmpty()) {
        if (auto worst = client::worstRack(m_store))
            target = worst->id;
        else if (m_store.rackCount() > 0)
            target = m_store.rackAt(0);
        else
            return m_entity.isEmpty();  // nothing to show yet: an empty rack page is right
    } else {
        target = m_store.findByName(name);
    }
    const EntityId rack = m_store.rackOf(target);
    if (!rack.isValid()) return false;
    m_rack = rack;
    m_entity = m_store.name(target);
    m_nodeModel->setRack(rack);
    m_nodes->proxy()->sort(-1);
    m_nodes->fitColumnsToContents(maxNodeColumnWidth(*m_nodes), false);
    const EntityId node = m_store.kind(target) == v1::ENTITY_KIND_GPU ? m_store.parent(target) : target;
    if (m_store.kind(node) == v1::ENTITY_KIND_NODE) {
        for (int row = 0; row < m_nodes->proxy()->rowCount(); ++row) {
            if (m_nodes->entityAtRow(row) == node) m_nodes->selectRow(row);
        }
    }
    m_dirty = true;
    refresh();
    emit entityShown(m_entity);
    return true;
}

void RackPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_nodes->setReadOnlyWall(wall);
    m_elevation->setContextMenuPolicy(wall ? Qt::NoContextMenu : Qt::CustomContextMenu);
}

void RackPage::populateElevationMenu(QMenu& menu, const QPoint& pos) {
    using Hit = widgets::RackElevationWidget::Hit;
    const Hit hit = m_elevation->hitTest(pos);
    const auto& elevation = m_elevation->elevation();
    QString name = m_store.name(m_rack);
    const bool onTray = hit.kind == Hit::Kind::ComputeTray || hit.kind == Hit::Kind::Gpu || hit.kind == Hit::Kind::Cpu;
    if (onTray && hit.index >= 0 && hit.index < int(elevation.compute.size()))
        name = hit.kind == Hit::Kind::Gpu && hit.part >= 0
                   ? elevation.compute[std::size_t(hit.index)].gpus[std::size_t(hit.part)].id
                   : elevation.compute[std::size_t(hit.index)].id;
    if (name.isEmpty()) return;
    menu.addAction(QStringLiteral("Open %1").arg(name), this, [this, name] {
        emit navigationRequested({PageId::Rack, name});
    });
    menu.addAction(QStringLiteral("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
    if (m_actions) m_actions->addToMenu(menu, m_actions->draftsFor(m_store.findByName(name)), window());
}

client::EntityId RackPage::selectedTray() const {
    const QModelIndex current = m_nodes->selectionModel()->currentIndex();
    return current.isValid() ? m_nodes->entityAtRow(current.row()) : EntityId{};
}

void RackPage::refreshRepairCase() {
    const EntityId tray = selectedTray();
    const std::vector<const v1::RepairCase*> cases = client::repairCasesOf(m_store, tray);
    if (cases.empty()) {
        m_repairPanel->hide();
        m_repairStep->refresh();
        return;
    }
    // The open case, else the newest closed one: how the tray's last repair ended.
    const v1::RepairCase* shown = client::openRepairCase(m_store, tray);
    if (!shown) shown = cases.front();
    const client::RepairCaseRow row = client::repairCaseRow(m_store, tray.endpoint, *shown);
    m_repairTitle->setText(QStringLiteral("Repair case %1 · %2").arg(shown->id()).arg(row.trayName));
    m_repairCase->setCase(row);
    m_repairPanel->show();
    m_repairStep->refresh();
}

void RackPage::updateActionBar() {
    QList<EntityId> entities;
    const QModelIndex current = m_nodes->selectionModel()->currentIndex();
    if (current.isValid() && m_nodes->entityAtRow(current.row()).isValid())
        entities << m_nodes->entityAtRow(current.row());
    if (m_rack.isValid()) entities << m_rack;
    m_actionBar->setEntities(entities);
    refreshRepairCase();
}

void RackPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_elevation->setTheme(theme);
    m_legend->setTheme(theme);
    m_kpis->applyTheme(theme);
    m_header->applyTheme(theme);
    applyScale();
    m_dirty = true;
    refresh();
}

bool RackPage::hasContent() const {
    // Rack power comes from the facility (the twin has it, a store of exporters does not); the
    // rack's GPU readings are what every source has.
    if (!m_rack.isValid()) return false;
    const int row = m_store.rackRow(m_rack);
    return m_store.rackReading(row, v1::RACK_POWER_KW).hasValue() ||
           m_store.rackReading(row, v1::RACK_GPU_TEMP_MAX_C).hasValue();
}

void RackPage::setActive(bool active) {
    Page::setActive(active);
    if (active && m_dirty) refresh();
}

void RackPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (changes.topologyChanged && m_rack.isValid() && m_store.name(m_rack).isEmpty()) m_rack = {};
    const int row = m_rack.isValid() ? m_store.rackRow(m_rack) : -1;
    const bool mine = row >= 0 && std::binary_search(changes.dirtyRackRows.begin(), changes.dirtyRackRows.end(), row);
    if (mine || changes.topologyChanged || changes.eventsAdded > 0 || changes.freshnessTick ||
        !changes.dirtyJobRows.empty() || changes.jobsReset || changes.repairsChanged || changes.linksChanged) {
        m_dirty = true;
        if (isActive()) refresh();
    }
}

void RackPage::refresh() {
    if (!m_theme || !m_rack.isValid()) return;
    m_dirty = false;
    const int row = m_store.rackRow(m_rack);
    const v1::Rack* info = m_store.rackInfo(m_rack);
    const client::EntityStatus status = m_store.status(m_rack);
    m_header->setTitle(QStringLiteral("Rack %1").arg(m_store.name(m_rack)));
    QString summary = QStringLiteral("%1 · hall %2 · row %3 · position %4 · %5")
                          .arg(m_store.regionNameOfRack(row), info ? QString::fromStdString(info->hall()) : QString())
                          .arg(info ? info->row() : 0)
                          .arg(info ? info->position() : 0)
                          .arg(rackStateLabel(status.rackState));
    const QString reason = m_store.statusReason(m_rack);
    if (!reason.isEmpty()) summary += QStringLiteral(" — ") + reason;
    if (const int silent = m_store.silentTraysInRack(m_rack); silent > 0 && info)
        summary += QStringLiteral(" · telemetry silent on %1 of %2 trays").arg(silent).arg(info->node_indexes_size());
    m_header->setSummary(summary);
    refreshElevation();
    refreshKpis();
    refreshXids();
    refreshJobs();
    // A lifecycle or telemetry text can grow ("triage (automation) · lemon: 3 failures").
    m_nodes->fitColumnsToContents(maxNodeColumnWidth(*m_nodes), true);
    updateActionBar();
}

void RackPage::applyScale() {
    if (!m_theme) return;
    const ElevationLens& lens = kElevationLenses[std::max(0, m_lensBox->currentIndex())];
    const widgets::ColorScale scale =
        QLatin1String(lens.key) == QLatin1String("util")
            ? widgets::ColorScale::sequential(QStringLiteral("GPU utilisation"), QStringLiteral("%"), 0, 100, *m_theme,
                                              false)
            : widgets::ColorScale::forLens(lens.lens, *m_theme);
    m_elevation->setColorScale(scale);
    m_legend->setScale(scale);
}

void RackPage::refreshElevation() {
    if (!m_store.rackInfo(m_rack)) return;
    const ElevationLens& lens = kElevationLenses[std::max(0, m_lensBox->currentIndex())];
    m_elevation->setElevation(rackElevation(m_store, m_rack, lens.metric));
}

void RackPage::refreshKpis() {
    const int row = m_store.rackRow(m_rack);
    const v1::Rack* info = m_store.rackInfo(m_rack);
    const v1::CoolingLoop* loop =
        m_store.coolingLoopInfo(EntityId{m_rack.endpoint, info ? info->cooling_loop_index() : 0});
    const client::Reading power = m_store.rackReading(row, v1::RACK_POWER_KW);
    const double design = info ? info->design_power_kw() : std::nan("");
    m_kpis->setCard(QStringLiteral("power"), formatReading(power, QStringLiteral("kW"), 1),
                    QStringLiteral("design %1 kW").arg(design, 0, 'f', 0), rackPowerLevel(power, design));

    const client::Reading hottest = m_store.rackReading(row, v1::RACK_GPU_TEMP_MAX_C);
    double slowdown = std::nan("");
    if (info && info->node_indexes_size() > 0) {
        if (const v1::Node* node = m_store.nodeInfo(EntityId{m_rack.endpoint, info->node_indexes(0)});
            node && node->gpu_indexes_size() > 0) {
            if (const v1::Gpu* gpu = m_store.gpuInfo(EntityId{m_rack.endpoint, node->gpu_indexes(0)}))
                slowdown = gpu->slowdown_temp_c();
        }
    }
    m_kpis->setCard(QStringLiteral("hottest"), formatReading(hottest, QStringLiteral("°C"), 1),
                    std::isnan(slowdown) ? QString() : QStringLiteral("slowdown at %1 °C").arg(slowdown, 0, 'f', 0),
                    hottestGpuLevel(hottest, slowdown));

    const client::Reading flow = m_store.rackReading(row, v1::RACK_LIQUID_FLOW_LPM);
    const double designFlow = loop ? loop->design_flow_lpm() : std::nan("");
    m_kpis->setCard(QStringLiteral("flow"), formatReading(flow, QStringLiteral("L/min"), 0),
                    QStringLiteral("design %1 L/min").arg(designFlow, 0, 'f', 0), coolantFlowLevel(flow, designFlow));

    const client::Reading supply = m_store.rackReading(row, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    const client::Reading ret = m_store.rackReading(row, v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
    client::Reading delta = ret;
    if (supply.hasValue() && ret.hasValue())
        delta.value = ret.value - supply.value;
    else
        delta = client::Reading{};
    m_kpis->setCard(
        QStringLiteral("deltat"), formatReading(delta, QStringLiteral("°C"), 1),
        QStringLiteral("supply %1 → return %2")
            .arg(formatReading(supply, QStringLiteral("°C"), 1), formatReading(ret, QStringLiteral("°C"), 1)),
        coolantDeltaLevel(delta));

    const client::Reading healthy = m_store.rackReading(row, v1::RACK_GPUS_HEALTHY);
    const client::Reading degraded = m_store.rackReading(row, v1::RACK_GPUS_DEGRADED);
    const client::Reading down = m_store.rackReading(row, v1::RACK_GPUS_DOWN);
    const int up = (healthy.hasValue() ? int(healthy.value) : 0) + (degraded.hasValue() ? int(degraded.value) : 0);
    m_kpis->setCard(
        QStringLiteral("gpus"), healthy.hasValue() ? QString::number(up) : QStringLiteral("n/a"),
        QStringLiteral("%1 degraded · %2 down").arg(formatReading(degraded, {}, 0), formatReading(down, {}, 0)),
        gpusUpLevel(down, degraded));

    const client::Reading wet = m_store.rackReading(row, v1::RACK_LEAK_DETECT);
    const client::Reading faulted = m_store.rackReading(row, v1::RACK_LEAK_SENSOR_FAULT);
    m_kpis->setCard(QStringLiteral("leaks"),
                    wet.hasValue()
                        ? (wet.value > 0 ? QStringLiteral("%1 wet").arg(int(wet.value)) : QStringLiteral("dry"))
                        : QStringLiteral("n/a"),
                    QStringLiteral("%1 sensors · %2 faulted")
                        .arg(loop ? int(loop->leak_sensor_count()) : 0)
                        .arg(formatReading(faulted, {}, 0)),
                    leakLevel(wet, faulted));
}

void RackPage::refreshXids() {
    m_xids->setRowCount(0);
    for (const client::XidRow& x : client::selectXids(m_store, client::XidFilter{m_rack, kMaxXidRows})) {
        const int row = m_xids->rowCount();
        m_xids->insertRow(row);
        const QStringList cells{formatUnixMs(x.timeUnixMs), m_store.name(x.entity), x.code(), xidActionLabel(x.action),
                                x.fleetPolicy};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(x.message);
            if (c == 2 && m_theme) item->setForeground(x.fatal ? m_theme->colors().crit : m_theme->colors().warn);
            m_xids->setItem(row, c, item);
        }
    }
    if (m_xids->rowCount() == 0) {
        m_xids->insertRow(0);
        auto* item = new QTableWidgetItem(QStringLiteral("No Xids on this rack in the events received."));
        item->setFlags(Qt::NoItemFlags);
        m_xids->setItem(0, 0, item);
        m_xids->setSpan(0, 0, 1, 5);
    } else {
        m_xids->clearSpans();
    }
    m_xids->resizeColumnsToContents();
}

void RackPage::refreshJobs() {
    m_jobs->setRowCount(0);
    const v1::Rack* info = m_store.rackInfo(m_rack);
    if (!info) return;
    for (int row = 0; row < m_store.jobCount(); ++row) {
        const v1::Job* job = m_store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || m_store.jobAt(row).endpoint != m_rack.endpoint) continue;
        int traysHere = 0;
        for (std::uint32_t node : job->node_indexes())
            traysHere += std::count(info->node_indexes().begin(), info->node_indexes().end(), node) > 0 ? 1 : 0;
        if (traysHere == 0) continue;
        const int r = m_jobs->rowCount();
        m_jobs->insertRow(r);
        const QStringList cells{QString::fromStdString(job->name()), client::toString(job->state()),
                                QStringLiteral("%1 of %2").arg(traysHere).arg(job->node_indexes_size()),
                                formatJobGoodput(*job)};
        for (int c = 0; c < cells.size(); ++c) m_jobs->setItem(r, c, new QTableWidgetItem(cells[c]));
        if ((job->no_step_telemetry() || client::jobIsStarting(*job)) && m_theme)
            m_jobs->item(r, cells.size() - 1)->setForeground(m_theme->colors().textDim);
    }
    m_jobs->resizeColumnsToContents();
}

}  // namespace watchfloor::ui
