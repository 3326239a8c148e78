#include "RackPage.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "FleetFormat.h"
#include "KpiStrip.h"
#include "OperatorActions.h"
#include "PageHeader.h"

#include "client/FleetStore.h"
#include "client/JobProgress.h"
#include "client/models/NodeTableModel.h"
#include "widgets/LegendWidget.h"
#include "widgets/RackElevationWidget.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QMenu>
#include <QHBoxLayout>
#include <QHeaderView>
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
// DCGM clocks-event reasons that mean the GPU is held back: SW power cap 0x4, HW slowdown 0x8,
// SW thermal 0x20, HW thermal 0x40, HW power brake 0x80.
constexpr std::uint32_t kThrottleReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

widgets::TrayState trayState(v1::NodeState state)
{
    switch (state) {
    case v1::NODE_STATE_IDLE: return widgets::TrayState::Idle;
    case v1::NODE_STATE_ALLOCATED: return widgets::TrayState::Allocated;
    case v1::NODE_STATE_DRAINING: return widgets::TrayState::Draining;
    case v1::NODE_STATE_DRAINED: return widgets::TrayState::Drained;
    case v1::NODE_STATE_DOWN: return widgets::TrayState::Down;
    default: break;
    }
    return widgets::TrayState::Unknown;
}

widgets::Reading healthReading(v1::HealthState health)
{
    switch (health) {
    case v1::HEALTH_STATE_HEALTHY: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Healthy)));
    case v1::HEALTH_STATE_DEGRADED: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Degraded)));
    case v1::HEALTH_STATE_FAILED: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Failed)));
    default: break;
    }
    return widgets::Reading::missing();
}

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
      m_actionBar(new ActionBar(context.actions, this))
{
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
    connect(m_elevation, &widgets::RackElevationWidget::gpuActivated, this,
            [this](const QString& gpu) { emit navigationRequested({PageId::Rack, gpu}); });
    connect(m_elevation, &widgets::RackElevationWidget::trayActivated, this,
            [this](const QString& tray) { emit navigationRequested({PageId::Rack, tray}); });
    connect(m_nodes, &EntityTableView::entityActivated, this,
            [this](EntityId id) { emit navigationRequested(locationFor(m_store, id)); });
    m_nodes->setMenuExtension([this](QMenu& menu, int row) {
        if (m_actions)
            m_actions->addToMenu(menu, m_actions->draftsFor(m_nodes->entityAtRow(row)), window());
    });
    connect(m_nodes->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RackPage::updateActionBar);
    m_elevation->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_elevation, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        populateElevationMenu(menu, pos);
        if (!menu.isEmpty())
            menu.exec(m_elevation->mapToGlobal(pos));
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

bool RackPage::showEntity(const QString& name)
{
    EntityId target;
    if (name.isEmpty()) {
        if (auto worst = m_store.worstRack())
            target = worst->id;
        else if (m_store.rackCount() > 0)
            target = m_store.rackAt(0);
        else
            return m_entity.isEmpty();  // nothing to show yet: an empty rack page is right
    } else {
        target = m_store.findByName(name);
    }
    const EntityId rack = m_store.rackOf(target);
    if (!rack.isValid())
        return false;
    m_rack = rack;
    m_entity = m_store.name(target);
    m_nodeModel->setRack(rack);
    m_nodes->proxy()->sort(-1);
    m_nodes->fitColumnsToContents(maxNodeColumnWidth(*m_nodes), false);
    const EntityId node = m_store.kind(target) == v1::ENTITY_KIND_GPU ? m_store.parent(target) : target;
    if (m_store.kind(node) == v1::ENTITY_KIND_NODE) {
        for (int row = 0; row < m_nodes->proxy()->rowCount(); ++row) {
            if (m_nodes->entityAtRow(row) == node)
                m_nodes->selectRow(row);
        }
    }
    m_dirty = true;
    refresh();
    emit entityShown(m_entity);
    return true;
}

void RackPage::setWallDisplay(bool wall)
{
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_nodes->setReadOnlyWall(wall);
    m_elevation->setContextMenuPolicy(wall ? Qt::NoContextMenu : Qt::CustomContextMenu);
}

void RackPage::populateElevationMenu(QMenu& menu, const QPoint& pos)
{
    using Hit = widgets::RackElevationWidget::Hit;
    const Hit hit = m_elevation->hitTest(pos);
    const auto& elevation = m_elevation->elevation();
    QString name = m_store.name(m_rack);
    const bool onTray = hit.kind == Hit::Kind::ComputeTray || hit.kind == Hit::Kind::Gpu || hit.kind == Hit::Kind::Cpu;
    if (onTray && hit.index >= 0 && hit.index < int(elevation.compute.size()))
        name = hit.kind == Hit::Kind::Gpu && hit.part >= 0 ? elevation.compute[std::size_t(hit.index)].gpus[std::size_t(hit.part)].id
                                                           : elevation.compute[std::size_t(hit.index)].id;
    if (name.isEmpty())
        return;
    menu.addAction(QStringLiteral("Open %1").arg(name), this, [this, name] { emit navigationRequested({PageId::Rack, name}); });
    menu.addAction(QStringLiteral("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
    if (m_actions)
        m_actions->addToMenu(menu, m_actions->draftsFor(m_store.findByName(name)), window());
}

void RackPage::updateActionBar()
{
    QList<EntityId> entities;
    const QModelIndex current = m_nodes->selectionModel()->currentIndex();
    if (current.isValid() && m_nodes->entityAtRow(current.row()).isValid())
        entities << m_nodes->entityAtRow(current.row());
    if (m_rack.isValid())
        entities << m_rack;
    m_actionBar->setEntities(entities);
}

void RackPage::applyTheme(const widgets::Theme& theme)
{
    m_theme = &theme;
    m_elevation->setTheme(theme);
    m_legend->setTheme(theme);
    m_kpis->applyTheme(theme);
    m_header->applyTheme(theme);
    applyScale();
    m_dirty = true;
    refresh();
}

bool RackPage::hasContent() const
{
    // Rack power comes from the facility (the twin has it, a store of exporters does not); the
    // rack's GPU readings are what every source has.
    if (!m_rack.isValid())
        return false;
    const int row = m_store.rackRow(m_rack);
    return m_store.rackReading(row, v1::RACK_POWER_KW).hasValue() ||
           m_store.rackReading(row, v1::RACK_GPU_TEMP_MAX_C).hasValue();
}

void RackPage::setActive(bool active)
{
    Page::setActive(active);
    if (active && m_dirty)
        refresh();
}

void RackPage::onStoreChanged(const client::FleetChangeSet& changes)
{
    if (changes.topologyChanged && m_rack.isValid() && m_store.name(m_rack).isEmpty())
        m_rack = {};
    const int row = m_rack.isValid() ? m_store.rackRow(m_rack) : -1;
    const bool mine = row >= 0 && std::binary_search(changes.dirtyRackRows.begin(), changes.dirtyRackRows.end(), row);
    if (mine || changes.topologyChanged || changes.eventsAdded > 0 || changes.freshnessTick
        || !changes.dirtyJobRows.empty() || changes.jobsReset) {
        m_dirty = true;
        if (isActive())
            refresh();
    }
}

void RackPage::refresh()
{
    if (!m_theme || !m_rack.isValid())
        return;
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
    if (!reason.isEmpty())
        summary += QStringLiteral(" — ") + reason;
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

void RackPage::applyScale()
{
    if (!m_theme)
        return;
    const ElevationLens& lens = kElevationLenses[std::max(0, m_lensBox->currentIndex())];
    const widgets::ColorScale scale =
        QLatin1String(lens.key) == QLatin1String("util")
            ? widgets::ColorScale::sequential(QStringLiteral("GPU utilisation"), QStringLiteral("%"), 0, 100, *m_theme, false)
            : widgets::ColorScale::forLens(lens.lens, *m_theme);
    m_elevation->setColorScale(scale);
    m_legend->setScale(scale);
}

namespace {

// "dcgm-exporter down", "node_exporter frozen": what a wall reads from across the room.
QString silentInWords(const v1::TelemetryHealth& telemetry)
{
    QStringList words;
    for (const v1::ScrapeTarget& t : telemetry.targets())
        if (t.health() != v1::TARGET_HEALTH_UP)
            words << QStringLiteral("%1 %2").arg(QString::fromStdString(t.exporter()), client::targetHealthLabel(t.health()));
    return words.isEmpty() ? QString::fromStdString(telemetry.reason()) : words.join(QStringLiteral(", "));
}

}  // namespace

void RackPage::refreshElevation()
{
    const v1::Rack* info = m_store.rackInfo(m_rack);
    if (!info)
        return;
    const ElevationLens& lens = kElevationLenses[std::max(0, m_lensBox->currentIndex())];
    const bool live = m_store.endpointState(m_rack.endpoint) == client::ConnectionState::Live;
    auto asWidget = [&](const client::Reading& r) {
        widgets::Reading w = toWidgetReading(r);
        if (!live && !w.isMissing() && !w.isSilent())
            w.freshness = widgets::Freshness::Stale;
        return w;
    };
    auto id = [&](std::uint32_t index) { return EntityId{m_rack.endpoint, index}; };

    widgets::RackElevation e;
    e.rackId = m_store.name(m_rack);
    e.rackLabel = e.rackId;
    const int trays = std::min(info->node_indexes_size(), widgets::RackElevation::kComputeTrays);
    for (int t = 0; t < trays; ++t) {
        const EntityId node = id(info->node_indexes(t));
        const v1::Node* nodeInfo = m_store.nodeInfo(node);
        widgets::ComputeTray& tray = e.compute[std::size_t(t)];
        tray.id = m_store.name(node);
        tray.label = QStringLiteral("%1 · %2").arg(nodeInfo ? nodeInfo->slot() : t + 1, 2, 10, QChar(u'0')).arg(tray.id);
        tray.state = trayState(m_store.status(node).nodeState);
        if (const v1::TelemetryHealth* telemetry = m_store.trayTelemetry(node);
            telemetry && telemetry->state() == v1::TELEMETRY_STATE_SILENT) {
            tray.silent = true;
            tray.silentReason = silentInWords(*telemetry);
            tray.silentDetail = QString::fromStdString(telemetry->reason());
        }
        // Under a silent source even a state is the last one read (the health lens has no sample).
        auto onTray = [&](widgets::Reading r) {
            if (tray.silent && !r.isMissing())
                r.freshness = widgets::Freshness::Silent;
            return r;
        };
        if (!nodeInfo)
            continue;
        for (int g = 0; g < std::min(nodeInfo->gpu_indexes_size(), 4); ++g) {
            const EntityId gpu = id(nodeInfo->gpu_indexes(g));
            widgets::GpuCell& cell = tray.gpus[std::size_t(g)];
            const client::EntityStatus gpuStatus = m_store.status(gpu);
            cell.id = m_store.name(gpu);
            cell.value = onTray(lens.metric == v1::METRIC_UNSPECIFIED ? healthReading(gpuStatus.health)
                                                                      : asWidget(m_store.reading(gpu, lens.metric)));
            cell.down = gpuStatus.health == v1::HEALTH_STATE_FAILED;
            const client::Reading reasons = m_store.reading(gpu, v1::DCGM_FI_DEV_CLOCKS_EVENT_REASONS);
            cell.throttling = reasons.hasValue() && (std::uint32_t(reasons.value) & kThrottleReasons) != 0;
        }
        for (int c = 0; c < std::min(nodeInfo->cpu_indexes_size(), 2); ++c) {
            const EntityId cpu = id(nodeInfo->cpu_indexes(c));
            tray.cpus[std::size_t(c)] = lens.metric == v1::DCGM_FI_DEV_GPU_TEMP
                                            ? onTray(asWidget(m_store.reading(cpu, v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS)))
                                            : widgets::Reading::missing();
        }
    }
    for (int s = 0; s < std::min(info->nvswitch_tray_indexes_size(), widgets::RackElevation::kSwitchTrays); ++s) {
        const EntityId sw = id(info->nvswitch_tray_indexes(s));
        e.switches[std::size_t(s)] = {m_store.name(sw), m_store.name(sw), healthReading(m_store.status(sw).health)};
    }
    for (std::uint32_t shelfIndex : info->power_shelf_indexes()) {
        const EntityId shelf = id(shelfIndex);
        e.powerShelves.push_back({m_store.name(shelf), m_store.name(shelf), widgets::Reading::missing(),
                                  healthReading(m_store.status(shelf).health)});
    }
    const int row = m_store.rackRow(m_rack);
    e.manifold.supply_c = asWidget(m_store.rackReading(row, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C));
    e.manifold.return_c = asWidget(m_store.rackReading(row, v1::RACK_LIQUID_RETURN_TEMPERATURE_C));
    e.manifold.flow_lpm = asWidget(m_store.rackReading(row, v1::RACK_LIQUID_FLOW_LPM));
    const client::Reading isolation = m_store.rackReading(row, v1::RACK_LIQUID_ISOLATION_STATUS);
    e.manifold.isolated = isolation.hasValue() && isolation.value > 0;
    const client::Reading leaks = m_store.rackReading(row, v1::RACK_LEAK_DETECT);
    e.manifold.leaksDetected = leaks.hasValue() ? int(leaks.value) : 0;
    m_elevation->setElevation(e);
}

void RackPage::refreshKpis()
{
    const int row = m_store.rackRow(m_rack);
    const v1::Rack* info = m_store.rackInfo(m_rack);
    const v1::CoolingLoop* loop = m_store.coolingLoopInfo(EntityId{m_rack.endpoint, info ? info->cooling_loop_index() : 0});
    auto level = [](const client::Reading& r, bool bad, bool warn) {
        if (!r.hasValue())
            return KpiLevel::Missing;
        return bad ? KpiLevel::Critical : warn ? KpiLevel::Warning : KpiLevel::Ok;
    };
    const client::Reading power = m_store.rackReading(row, v1::RACK_POWER_KW);
    const double design = info ? info->design_power_kw() : std::nan("");
    m_kpis->setCard(QStringLiteral("power"), formatReading(power, QStringLiteral("kW"), 1),
                    QStringLiteral("design %1 kW").arg(design, 0, 'f', 0),
                    level(power, power.value > design, power.value > 0.95 * design));

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
                    level(hottest, hottest.value >= slowdown, hottest.value >= slowdown - 5));

    const client::Reading flow = m_store.rackReading(row, v1::RACK_LIQUID_FLOW_LPM);
    const double designFlow = loop ? loop->design_flow_lpm() : std::nan("");
    m_kpis->setCard(QStringLiteral("flow"), formatReading(flow, QStringLiteral("L/min"), 0),
                    QStringLiteral("design %1 L/min").arg(designFlow, 0, 'f', 0),
                    level(flow, flow.value < 0.7 * designFlow, flow.value < 0.9 * designFlow));

    const client::Reading supply = m_store.rackReading(row, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    const client::Reading ret = m_store.rackReading(row, v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
    client::Reading delta = ret;
    if (supply.hasValue() && ret.hasValue())
        delta.value = ret.value - supply.value;
    else
        delta = client::Reading{};
    m_kpis->setCard(QStringLiteral("deltat"), formatReading(delta, QStringLiteral("°C"), 1),
                    QStringLiteral("supply %1 → return %2")
                        .arg(formatReading(supply, QStringLiteral("°C"), 1), formatReading(ret, QStringLiteral("°C"), 1)),
                    delta.hasValue() ? KpiLevel::Neutral : KpiLevel::Missing);

    const client::Reading healthy = m_store.rackReading(row, v1::RACK_GPUS_HEALTHY);
    const client::Reading degraded = m_store.rackReading(row, v1::RACK_GPUS_DEGRADED);
    const client::Reading down = m_store.rackReading(row, v1::RACK_GPUS_DOWN);
    const int up = (healthy.hasValue() ? int(healthy.value) : 0) + (degraded.hasValue() ? int(degraded.value) : 0);
    m_kpis->setCard(QStringLiteral("gpus"), healthy.hasValue() ? QString::number(up) : QStringLiteral("n/a"),
                    QStringLiteral("%1 degraded · %2 down").arg(formatReading(degraded, {}, 0), formatReading(down, {}, 0)),
                    level(down, down.value >= 4, down.value > 0 || (degraded.hasValue() && degraded.value > 0)));

    const client::Reading wet = m_store.rackReading(row, v1::RACK_LEAK_DETECT);
    const client::Reading faulted = m_store.rackReading(row, v1::RACK_LEAK_SENSOR_FAULT);
    m_kpis->setCard(QStringLiteral("leaks"),
                    wet.hasValue() ? (wet.value > 0 ? QStringLiteral("%1 wet").arg(int(wet.value)) : QStringLiteral("dry"))
                                   : QStringLiteral("n/a"),
                    QStringLiteral("%1 sensors · %2 faulted")
                        .arg(loop ? int(loop->leak_sensor_count()) : 0)
                        .arg(formatReading(faulted, {}, 0)),
                    level(wet, wet.value > 0, faulted.hasValue() && faulted.value > 0));
}

void RackPage::refreshXids()
{
    m_xids->setRowCount(0);
    for (quint64 serial = m_store.nextEventSerial(); serial-- > m_store.firstEventSerial() && m_xids->rowCount() < kMaxXidRows;) {
        const client::StoredEvent* stored = m_store.eventBySerial(serial);
        if (!stored || stored->event.type() != v1::EVENT_TYPE_XID)
            continue;
        const EntityId entity = m_store.eventEntity(*stored);
        if (!m_store.isWithin(entity, m_rack))
            continue;
        const v1::Event& e = stored->event;
        const int row = m_xids->rowCount();
        m_xids->insertRow(row);
        const QString xid = QStringLiteral("%1 %2").arg(e.xid().xid()).arg(QString::fromStdString(e.xid().mnemonic()));
        const QStringList cells{formatUnixMs(e.time_unix_ms()), m_store.name(entity), xid,
                                xidActionLabel(e.xid().recommended_action()), QString::fromStdString(e.xid().fleet_policy())};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(QString::fromStdString(e.message()));
            if (c == 2 && m_theme)
                item->setForeground(e.xid().fatal() ? m_theme->colors().crit : m_theme->colors().warn);
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

void RackPage::refreshJobs()
{
    m_jobs->setRowCount(0);
    const v1::Rack* info = m_store.rackInfo(m_rack);
    if (!info)
        return;
    for (int row = 0; row < m_store.jobCount(); ++row) {
        const v1::Job* job = m_store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || m_store.jobAt(row).endpoint != m_rack.endpoint)
            continue;
        int traysHere = 0;
        for (std::uint32_t node : job->node_indexes())
            traysHere += std::count(info->node_indexes().begin(), info->node_indexes().end(), node) > 0 ? 1 : 0;
        if (traysHere == 0)
            continue;
        const int r = m_jobs->rowCount();
        m_jobs->insertRow(r);
        const QStringList cells{QString::fromStdString(job->name()), client::toString(job->state()),
                                QStringLiteral("%1 of %2").arg(traysHere).arg(job->node_indexes_size()),
                                formatJobGoodput(*job)};
        for (int c = 0; c < cells.size(); ++c)
            m_jobs->setItem(r, c, new QTableWidgetItem(cells[c]));
        if ((job->no_step_telemetry() || client::jobIsStarting(*job)) && m_theme)
            m_jobs->item(r, cells.size() - 1)->setForeground(m_theme->colors().textDim);
    }
    m_jobs->resizeColumnsToContents();
}

}  // namespace watchfloor::ui
