#include "FleetPage.h"

#include "AutomationView.h"
#include "EntityNavigation.h"
#include "FleetFormat.h"
#include "KpiStrip.h"
#include "OperatorActions.h"
#include "PageHeader.h"

#include "FleetGoodputMerge.h"
#include "FleetRankings.h"
#include "FleetStore.h"
#include "RackMapWidget.h"
#include "RepairCases.h"
#include "SourceHealth.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {
// "Active" alerts on the map badges: warning/critical events this recent (server time).
constexpr std::chrono::minutes kAlertWindow{15};
constexpr int kAttentionRows = 10;

const QList<std::pair<QString, QString>>& lensTitles() {
    static const QList<std::pair<QString, QString>> titles{
        {QStringLiteral("health"), QStringLiteral("Health")},
        {QStringLiteral("gpu-temp"), QStringLiteral("GPU temperature")},
        {QStringLiteral("power"), QStringLiteral("Power")},
        {QStringLiteral("coolant-flow"), QStringLiteral("Coolant flow")},
        {QStringLiteral("delta-t"), QStringLiteral("Coolant ΔT")},
        {QStringLiteral("link-errors"), QStringLiteral("Link errors")},
        {QStringLiteral("job"), QStringLiteral("Job")},
        {QStringLiteral("goodput"), QStringLiteral("Goodput")},
        {QStringLiteral("lifecycle"), QStringLiteral("Lifecycle / lemons")}};
    return titles;
}
}  // namespace

FleetPage::FleetPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_actions(context.actions),
      m_header(new PageHeader(QStringLiteral("Fleet"), this)),
      m_kpis(new KpiStrip(this)),
      m_lensBox(new QComboBox),
      m_map(new widgets::RackMapWidget(this)),
      m_attention(new QListWidget(this)),
      m_drains(new QListWidget(this)),
      m_repairs(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    for (const auto& [key, title] : lensTitles()) m_lensBox->addItem(title, key);
    m_lensBox->setToolTip(QStringLiteral("Colour the racks by …"));
    m_header->addControl(m_lensBox);
    layout->addWidget(m_header);

    m_kpis->addCard(QStringLiteral("goodput"), QStringLiteral("Goodput"),
                    QStringLiteral("Share of GPU time that became model progress (GPU-time-weighted over jobs)"));
    m_kpis->addCard(QStringLiteral("ettr"), QStringLiteral("ETTR (1 h)"),
                    QStringLiteral("Effective training time ratio over the last hour"));
    m_kpis->addCard(QStringLiteral("mfu"), QStringLiteral("MFU"), QStringLiteral("Model FLOPs utilisation (PaLM)"));
    // One definition with the racks' counts (RACK_GPUS_*): each card is the sum of the racks' numbers
    // that the map's tooltips and "Needs attention" quote.
    m_kpis->addCard(QStringLiteral("healthy"), QStringLiteral("GPUs healthy"),
                    QStringLiteral("GPUs in service and not throttled (the sum of the racks' healthy counts)"));
    m_kpis->addCard(QStringLiteral("degraded"), QStringLiteral("GPUs degraded"),
                    QStringLiteral("GPUs that work but not fully: thermal throttling, a tray its health check flagged, "
                                   "or a drained tray (powered, held out of service). The sum of the racks' degraded "
                                   "counts, as \"Needs attention\" lists them"));
    m_kpis->addCard(QStringLiteral("down"), QStringLiteral("GPUs down"),
                    QStringLiteral("Failed, fallen off the bus or powered off (the sum of the racks' down counts)"));
    m_kpis->addCard(QStringLiteral("incidents"), QStringLiteral("Active incidents"),
                    QStringLiteral("Open incidents reported by fleetd"));
    m_kpis->addCard(
        QStringLiteral("silent"), QStringLiteral("Hosts silent"),
        QStringLiteral("Trays whose exporters fleetd scrapes and which stopped answering, or keep repeating the "
                       "same values: their readings are the last read. Not a health: the tray may be fine."));
    m_kpis->setCardVisible(QStringLiteral("silent"), false);
    m_kpis->addCard(
        QStringLiteral("breaker"), QStringLiteral("Automation breaker"),
        QStringLiteral("fleetd's automatic draining and its circuit breaker: closed (acting), tripped (refusing "
                       "until an admin resets it), off"));
    m_kpis->addCard(QStringLiteral("mttr"), QStringLiteral("MTTR"),
                    QStringLiteral("Mean time to repair: from a tray's fault to the tray back in production, over the "
                                   "repair cases fixed in fleetd's window; automated (every step by fleetd "
                                   "--auto-remediate) against manual. The Repairs page lists the cases."));
    m_kpis->setCardVisible(QStringLiteral("mttr"), false);
    layout->addWidget(m_kpis);

    auto* body = new QHBoxLayout;
    body->setSpacing(8);
    m_map->setContextMenuPolicy(Qt::CustomContextMenu);
    m_map->setFocusPolicy(Qt::StrongFocus);
    // The map's rack index is the store's rack row (rebuildRacks places them in row order).
    m_map->setTooltipProvider([this](int index) {
        return index >= 0 && index < m_store.rackCount() ? rackTooltip(m_store, index, m_jobs) : QString();
    });
    body->addWidget(m_map, 1);
    auto* side = new QVBoxLayout;
    side->addWidget(makeSectionTitle(QStringLiteral("Needs attention"), this));
    m_attention->setMinimumWidth(300);
    m_attention->setMaximumWidth(380);
    m_attention->setWordWrap(true);
    m_attention->setToolTip(QStringLiteral("Racks ranked by how badly they need attention. Double-click to open."));
    side->addWidget(m_attention, 1);
    side->addWidget(makeSectionTitle(QStringLiteral("Out of service: who holds each tray"), this));
    m_drains->setObjectName(QStringLiteral("drainOwners"));
    m_drains->setMinimumWidth(300);
    m_drains->setMaximumWidth(380);
    m_drains->setWordWrap(true);
    m_drains->setToolTip(
        QStringLiteral("Drained, draining and down trays with their owner: a person (operator), the "
                       "health check or automation. Automation never resumes a person's drain. "
                       "Double-click to open the rack."));
    side->addWidget(m_drains, 1);
    m_repairs->setObjectName(QStringLiteral("repairMix"));
    m_repairs->setWordWrap(true);
    m_repairs->setMaximumWidth(380);
    m_repairs->setToolTip(
        QStringLiteral("Repair cases fixed in fleetd's window by the highest rung they needed, trays sent to RMA, "
                       "and the cases open now. The Repairs page lists them."));
    m_repairs->hide();
    side->addWidget(m_repairs);
    body->addLayout(side);
    layout->addLayout(body, 1);

    connect(m_lensBox, &QComboBox::currentIndexChanged, this,
            [this](int index) { setLens(m_lensBox->itemData(index).toString()); });
    connect(m_map, &widgets::RackMapWidget::rackActivated, this, [this](const QString& rack) {
        emit navigationRequested({PageId::Rack, rack});
    });
    connect(m_map, &QWidget::customContextMenuRequested, this, &FleetPage::showRackMenu);
    connect(m_attention, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit navigationRequested({PageId::Rack, item->data(Qt::UserRole).toString()});
    });
    connect(m_drains, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit navigationRequested({PageId::Rack, item->data(Qt::UserRole).toString()});
    });
    connect(&m_store, &client::FleetStore::changed, this, &FleetPage::onStoreChanged);
    m_slowRefresh.setInterval(500);
    connect(&m_slowRefresh, &QTimer::timeout, this, [this] {
        m_alerts = recentAlertsPerRack(m_store, kAlertWindow);
        refreshAttention();
        refreshStatuses();
        refreshAutomation();  // tray states change without a fleet change
    });
    rebuildRacks();
}

void FleetPage::setLens(const QString& key) {
    if (!lensKeys().contains(key)) return;
    m_lensKey = key;
    const int index = m_lensBox->findData(key);
    if (index >= 0 && index != m_lensBox->currentIndex()) m_lensBox->setCurrentIndex(index);
    applyScale();
    refreshStatuses();
}

void FleetPage::applyScale() {
    if (!m_theme) return;
    const widgets::Lens lens = lensFromKey(m_lensKey);
    m_map->setColorScale(lens == widgets::Lens::Job ? widgets::ColorScale::forJobs(m_jobs.jobNames(), *m_theme)
                                                    : widgets::ColorScale::forLens(lens, *m_theme));
}

bool FleetPage::showEntity(const QString& name) {
    if (name.isEmpty()) {
        m_entity.clear();
        if (auto worst = client::worstRack(m_store); worst && worst->score > 0)
            m_map->setSelectedIndex(m_store.rackRow(worst->id));
        return true;
    }
    const client::EntityId id = m_store.findByName(name);
    if (!id.isValid()) return false;
    m_entity = m_store.name(id);
    const client::EntityId rack = m_store.rackOf(id);
    if (rack.isValid()) m_map->setSelectedIndex(m_store.rackRow(rack));
    emit entityShown(m_entity);
    return true;
}

void FleetPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    if (wall) m_map->setContextMenuPolicy(Qt::NoContextMenu);
    m_map->setWallDisplay(wall);
}

void FleetPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_map->setTheme(theme);
    m_kpis->applyTheme(theme);
    m_header->applyTheme(theme);
    m_attention->setFont(theme.font(9.5));  // scales with the wall display's large type
    m_drains->setFont(theme.font(9.5));
    m_repairs->setFont(theme.font(9.5));
    applyScale();
    refreshAttention();
}

bool FleetPage::hasContent() const {
    return m_store.rackCount() > 0 && client::summarizeFleet(m_store).endpointsReporting > 0;
}

void FleetPage::setActive(bool active) {
    Page::setActive(active);
    if (active) {
        m_slowRefresh.start();
        if (m_dirty) {
            m_alerts = recentAlertsPerRack(m_store, kAlertWindow);
            refreshStatuses();
            refreshKpis();
            refreshAttention();
        }
    } else {
        m_slowRefresh.stop();
    }
}

void FleetPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (changes.topologyChanged) rebuildRacks();
    if (changes.topologyChanged || changes.jobsReset || changes.jobsAppended > 0 || !changes.dirtyJobRows.empty()) {
        m_jobs.rebuild(m_store);
        if (m_lensKey == QStringLiteral("job")) applyScale();
    }
    if (!isActive()) {
        m_dirty = true;
        return;
    }
    if (!changes.dirtyRackRows.empty() || changes.freshnessTick || !changes.endpointsChanged.isEmpty() ||
        changes.topologyChanged || changes.linksChanged)
        refreshStatuses();
    if (changes.fleetChanged || !changes.endpointsChanged.isEmpty() || changes.freshnessTick)
        refreshKpis();
    else if (changes.sourcesChanged || changes.telemetryChanged)
        refreshSilentHosts();
    if (!changes.endpointsChanged.isEmpty()) {
        refreshHeader();
        // An endpoint going down or coming back changes the first lines of the list at once.
        refreshAttention();
    }
}

void FleetPage::rebuildRacks() {
    std::vector<widgets::RackPlacement> placements;
    placements.reserve(std::size_t(m_store.rackCount()));
    QSet<QString> regions;
    for (int row = 0; row < m_store.rackCount(); ++row) {
        const client::EntityId rack = m_store.rackAt(row);
        const v1::Rack* info = m_store.rackInfo(rack);
        const QString region = regionBandLabel(row);
        regions.insert(region);
        // The id is the fleet-unique name (navigation); the tile shows the rack's own name, which
        // its region band already places in its fleet.
        placements.push_back({m_store.name(rack), m_store.localName(rack), region,
                              info ? QStringLiteral("Hall %1").arg(QString::fromStdString(info->hall())) : QString(),
                              info ? QStringLiteral("Row %1").arg(info->row()) : QString()});
    }
    m_map->setRacks(std::move(placements));
    m_jobs.rebuild(m_store);
    m_regionCount = int(regions.size());
    refreshHeader();
    m_dirty = true;
    refreshStatuses();
}

void FleetPage::refreshHeader() {
    const client::FleetSummary fleet = client::summarizeFleet(m_store);
    const QString endpoints =
        m_store.endpointCount() < 2
            ? QString()
            : QStringLiteral(" · %1 endpoints%2")
                  .arg(m_store.endpointCount())
                  .arg(fleet.allLive() ? QString() : QStringLiteral(" (%1 live)").arg(fleet.endpointsLive));
    m_header->setSummary(QStringLiteral("%1 · %2 regions · %3 racks · %4 GPUs%5")
                             .arg(fleetNames())
                             .arg(m_regionCount)
                             .arg(m_store.rackCount())
                             .arg(fleet.gpusTotal)
                             .arg(endpoints));
}

QString FleetPage::fleetNames() const {
    QStringList names;
    for (int i = 0; i < m_store.endpointCount(); ++i) {
        const QString fleet = m_store.endpointFleetName(i);
        const QString endpoint = m_store.endpointDisplayName(i);
        if (fleet.isEmpty())
            names << QStringLiteral("%1 (no data yet)").arg(endpoint);
        else if (fleet == endpoint || m_store.endpointCount() == 1)
            names << fleet;
        else
            names << QStringLiteral("%1 (%2)").arg(fleet, endpoint);
    }
    return names.join(QStringLiteral(" + "));
}

QString FleetPage::regionBandLabel(int rackRow) const {
    const client::EntityId rack = m_store.rackAt(rackRow);
    const v1::Rack* info = m_store.rackInfo(rack);
    if (!info) return {};
    const client::EntityId region{rack.endpoint, info->region_index()};
    const QString local = m_store.localName(region);
    // A region name several fleets use says which fleet after it, not as a path before it.
    return m_store.name(region) == local
               ? local
               : QStringLiteral("%1 · %2").arg(local, m_store.endpointDisplayName(rack.endpoint));
}

void FleetPage::refreshStatuses() {
    if (!isActive()) {
        m_dirty = true;
        return;
    }
    m_dirty = false;
    if (m_alerts.size() != std::size_t(m_store.rackCount())) m_alerts = recentAlertsPerRack(m_store, kAlertWindow);
    m_map->setStatuses(rackStatuses(m_store, client::rackRollups(m_store, m_jobs), lensFromKey(m_lensKey), m_alerts));
}

void FleetPage::refreshKpis() {
    const client::FleetSummary fleet = client::summarizeFleet(m_store);
    const bool reporting = fleet.endpointsReporting > 0;
    // Every card says how much of its number is last-known (endpoints not live) and, when not all
    // are, how many endpoints it is from; such a card is never drawn as plainly healthy.
    const QString endpoints = endpointsLiveNote(fleet);
    const QString coverage = goodputCoverage(fleet);
    auto join = [](QStringList parts) {
        parts.removeAll(QString());
        return parts.join(QStringLiteral(" · "));
    };
    auto ratioCard = [&](const QString& key, double ratio, const QString& normal) {
        const bool none = !reporting || std::isnan(ratio);
        const QString starting =
            fleet.starting() ? QStringLiteral("%1 job(s) initialising").arg(fleet.jobsStarting) : QString();
        const QString staleShare = staleRatioNote(fleet);
        const KpiLevel level = none ? KpiLevel::Missing : staleShare.isEmpty() ? KpiLevel::Neutral : KpiLevel::Warning;
        m_kpis->setCard(key, formatFleetRatio(fleet, ratio),
                        join({starting, staleShare, endpoints,
                              staleShare.isEmpty() && endpoints.isEmpty() ? normal : QString(), coverage}),
                        level);
    };
    ratioCard(QStringLiteral("goodput"), fleet.goodputRatio,
              QStringLiteral("%1 interruptions").arg(fleet.interruptions));
    ratioCard(QStringLiteral("ettr"), fleet.ettrSliding1hRatio, {});
    ratioCard(QStringLiteral("mfu"), fleet.mfuRatio, {});
    const auto share = [&](quint32 n) {
        return fleet.gpusTotal
                   ? QStringLiteral("%1 % of %2").arg(100.0 * n / fleet.gpusTotal, 0, 'f', 1).arg(fleet.gpusTotal)
                   : QString();
    };
    // `bad`: the level when the count is non-zero (Ok otherwise); stale parts lift Ok to Warning.
    auto countCard = [&](const QString& key, quint32 n, quint32 stale, bool withShare, KpiLevel bad) {
        if (!reporting) {
            m_kpis->setCard(key, QStringLiteral("n/a"), endpoints, KpiLevel::Missing);
            return;
        }
        KpiLevel level = n > 0 ? bad : KpiLevel::Ok;
        if (stale > 0 && level == KpiLevel::Ok) level = KpiLevel::Warning;
        m_kpis->setCard(key, QString::number(n),
                        join({withShare ? share(n) : QString(), staleCountNote(stale), endpoints}), level);
    };
    countCard(QStringLiteral("healthy"), fleet.gpusHealthy, fleet.gpusHealthyStale, true, KpiLevel::Ok);
    countCard(QStringLiteral("degraded"), fleet.gpusDegraded, fleet.gpusDegradedStale, true, KpiLevel::Warning);
    countCard(QStringLiteral("down"), fleet.gpusDown, fleet.gpusDownStale, true, KpiLevel::Critical);
    countCard(QStringLiteral("incidents"), fleet.activeIncidents, fleet.activeIncidentsStale, false,
              KpiLevel::Critical);
    refreshSilentHosts();
    refreshAutomation();
    refreshRepairs();
}

// Shown only where fleetd keeps repair cases (operator actions on): elsewhere "no MTTR" would
// claim a watch nobody keeps.
void FleetPage::refreshRepairs() {
    const client::RepairSummary s = client::summarizeRepairs(m_store);
    m_kpis->setCardVisible(QStringLiteral("mttr"), s.any());
    m_repairs->setVisible(s.any());
    if (!s.any()) return;
    m_kpis->setCard(
        QStringLiteral("mttr"), client::formatRepairDuration(s.mttrS),
        QStringLiteral("auto %1 · manual %2 · %3 open")
            .arg(client::formatRepairDuration(s.mttrAutomatedS), client::formatRepairDuration(s.mttrManualS))
            .arg(s.open),
        std::isnan(s.mttrS) ? KpiLevel::Missing : KpiLevel::Neutral);
    m_repairs->setText(QStringLiteral("<b>Repairs</b> (last %1): %2 fixed — %3 · %4 open, %5 GPU-h out")
                           .arg(client::formatRepairDuration(double(s.windowS)))
                           .arg(s.fixed)
                           .arg(client::repairOutcomeMix(s).toHtmlEscaped())
                           .arg(s.open)
                           .arg(s.outOfServiceGpuHours, 0, 'f', 1));
}

QString FleetPage::repairLine() const { return m_repairs->isHidden() ? QString() : m_repairs->text(); }

void FleetPage::refreshAutomation() {
    const BreakerCard breaker = breakerCard(m_store);
    m_kpis->setCard(QStringLiteral("breaker"), breaker.value, breaker.detail,
                    breaker.tripped                             ? KpiLevel::Critical
                    : breaker.value == QStringLiteral("closed") ? KpiLevel::Ok
                                                                : KpiLevel::Missing);
    m_kpis->setCardToolTip(QStringLiteral("breaker"), breaker.toolTip);
    if (!m_theme) return;
    m_drains->clear();
    for (const DrainRow& row : drainRows(m_store)) {
        auto* item = new QListWidgetItem(row.text, m_drains);
        const client::EntityId rack = m_store.rackOf(row.trayId);
        item->setData(Qt::UserRole, m_store.name(rack));
        item->setForeground(row.kind == v1::DRAIN_OWNER_KIND_OPERATOR     ? m_theme->colors().accent
                            : row.kind == v1::DRAIN_OWNER_KIND_AUTOMATION ? m_theme->colors().warn
                                                                          : m_theme->colors().textDim);
    }
    if (m_drains->count() == 0)
        (new QListWidgetItem(QStringLiteral("every tray in service"), m_drains))->setFlags(Qt::ItemIsEnabled);
}

// Shown only where fleetd scrapes the exporters itself: elsewhere "0 silent" would claim a
// watch nobody keeps.
void FleetPage::refreshSilentHosts() {
    const client::SourcesOverview sources = client::overviewOfSources(m_store);
    m_kpis->setCardVisible(QStringLiteral("silent"), sources.hostsScraped > 0);
    if (sources.hostsScraped == 0) return;
    const QString detail = client::silentHostsText(sources);
    m_kpis->setCard(QStringLiteral("silent"), QString::number(sources.hostsSilent),
                    sources.hostsSilent > 0 ? detail + QStringLiteral(" · values are the last read") : detail,
                    sources.hostsSilent > 0 ? KpiLevel::Silent : KpiLevel::Ok);
}

void FleetPage::refreshAttention() {
    if (!m_theme) return;
    m_attention->clear();
    // An endpoint that is not live comes first: its racks show last-known values, so "healthy" on
    // them means nothing.
    int staleRacks = 0;
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint) {
        const client::ConnectionState state = m_store.endpointState(endpoint);
        if (state == client::ConnectionState::Live) continue;
        const int racks = int(m_store.endpointFleet(endpoint).topology().count(v1::ENTITY_KIND_RACK));
        staleRacks += racks;
        const QString what = racks > 0 ? QStringLiteral("%1 racks show last-known values").arg(racks)
                                       : QStringLiteral("no data received yet");
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2: %3")
                .arg(m_store.endpointDisplayName(endpoint), client::displayName(state).toLower(), what),
            m_attention);
        item->setForeground(state == client::ConnectionState::Connecting ? m_theme->colors().warn
                                                                         : m_theme->colors().crit);
        item->setToolTip(m_store.endpointStatus(endpoint));
        item->setFlags(Qt::ItemIsEnabled);
    }
    const int staleRows = m_attention->count();
    for (const client::RankedEntity& ranked : client::worstRacks(m_store, kAttentionRows)) {
        const int row = m_store.rackRow(ranked.id);
        if (row < 0) continue;
        const client::RackRollup rack = client::rackRollup(m_store, row, m_jobs);
        const widgets::Reading health = rackLensReading(m_store, rack, widgets::Lens::Health);
        const bool healthy = !health.isMissing() && int(health.value) == int(widgets::HealthCategory::Healthy);
        const int alerts = row < int(m_alerts.size()) ? m_alerts[std::size_t(row)] : 0;
        if (ranked.score <= 0 || (healthy && alerts == 0)) continue;
        const QString name = m_store.name(ranked.id);
        const client::EntityStatus& status = rack.status;
        // ranked.why already counts the rack's recent alerts by severity.
        const bool stale = rack.stateFreshness == client::Freshness::Stale;
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2%3").arg(name, ranked.why, stale ? QStringLiteral(" (stale)") : QString()),
            m_attention);
        item->setData(Qt::UserRole, name);
        const bool critical = status.rackState == v1::RACK_STATE_ISOLATED || status.health == v1::HEALTH_STATE_FAILED;
        item->setForeground(critical ? m_theme->colors().crit : m_theme->colors().warn);
        item->setToolTip(QStringLiteral("Open %1").arg(name));
    }
    if (m_attention->count() == staleRows) {
        const QString text = m_store.rackCount() == 0 ? QStringLiteral("Waiting for fleet data…")
                             : staleRows > 0 && staleRacks == 0
                                 ? QStringLiteral("Every rack of the live endpoints is healthy.")
                             : staleRacks == 0 ? QStringLiteral("Every rack is healthy.")
                             : staleRacks < m_store.rackCount()
                                 ? QStringLiteral("Every live rack is healthy; %1 of %2 racks are stale.")
                                       .arg(staleRacks)
                                       .arg(m_store.rackCount())
                                 : QStringLiteral("No live rack: all %1 show last-known values.").arg(staleRacks);
        auto* item = new QListWidgetItem(text, m_attention);
        item->setForeground(m_theme->colors().textDim);
        item->setFlags(Qt::NoItemFlags);
    }
}

QStringList FleetPage::attentionLines() const {
    QStringList lines;
    for (int i = 0; i < m_attention->count(); ++i) lines << m_attention->item(i)->text();
    return lines;
}

QString FleetPage::headerSummary() const { return m_header->summary(); }

void FleetPage::showRackMenu(const QPoint& pos) {
    const int row = m_map->rackAt(pos);
    if (row < 0 || row >= m_store.rackCount()) return;
    QMenu menu(this);
    populateRackMenu(menu, row);
    menu.exec(m_map->mapToGlobal(pos));
}

void FleetPage::populateRackMenu(QMenu& menu, int rackRow) {
    const client::EntityId id = m_store.rackAt(rackRow);
    const QString rack = m_store.name(id);
    menu.addAction(QStringLiteral("Open %1").arg(rack), [this, rack] {
        emit navigationRequested({PageId::Rack, rack});
    });
    menu.addAction(QStringLiteral("Cooling of %1").arg(rack), [this, rack] {
        emit navigationRequested({PageId::Cooling, rack});
    });
    menu.addAction(QStringLiteral("Links of %1").arg(rack), [this, rack] {
        emit navigationRequested({PageId::Links, rack});
    });
    menu.addSeparator();
    menu.addAction(QStringLiteral("Copy name"), [rack] { QApplication::clipboard()->setText(rack); });
    if (m_actions) m_actions->addToMenu(menu, m_actions->draftsFor(id), window());
}

}  // namespace watchfloor::ui
