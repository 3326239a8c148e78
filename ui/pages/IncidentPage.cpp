#include "IncidentPage.h"

#include "ActionBar.h"
#include "ChartAnnotationSource.h"
#include "FleetFormat.h"
#include "HistoryChartBinding.h"
#include "IncidentList.h"
#include "IncidentRackMap.h"
#include "IncidentTimelineView.h"
#include "KpiStrip.h"
#include "OperatorActions.h"
#include "PageHeader.h"

#include "EventListModel.h"
#include "FleetStore.h"
#include "TimeSeriesChart.h"

#include <QSplitter>

#include <QVBoxLayout>
#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {
constexpr std::chrono::milliseconds kChartRefresh{1000};
// The charts show the incident with some air around it: what led up to it, and its latest.
constexpr std::int64_t kChartLeadMs = 5 * 60'000;
constexpr std::int64_t kChartTrailMs = 60'000;

QWidget* titled(const QString& title, QWidget* content, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(makeSectionTitle(title, box));
    layout->addWidget(content, 1);
    content->setParent(box);
    return box;
}

KpiLevel stateLevel(const v1::Incident& incident) {
    switch (incident.state()) {
    case v1::INCIDENT_STATE_RESOLVED: return KpiLevel::Ok;
    case v1::INCIDENT_STATE_OPEN:
        return incident.severity() >= v1::SEVERITY_CRITICAL ? KpiLevel::Critical : KpiLevel::Warning;
    default: return KpiLevel::Warning;
    }
}
}  // namespace

IncidentPage::IncidentPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_context(context),
      m_store(*context.store),
      m_header(new PageHeader(QStringLiteral("Incident"), this)),
      m_facts(new KpiStrip(this)),
      m_actions(new ActionBar(context.actions, this)),
      m_timeline(new IncidentTimelineView(this)),
      m_map(new IncidentRackMap(*context.store, this)),
      m_rackChart(new widgets::TimeSeriesChart(this)),
      m_jobChart(new widgets::TimeSeriesChart(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);
    m_facts->addCard(QStringLiteral("state"), QStringLiteral("State"),
                     QStringLiteral("open → acknowledged → mitigated → resolved"));
    m_facts->addCard(QStringLiteral("owner"), QStringLiteral("Owner"),
                     QStringLiteral("Who acknowledged it, and the newest note"));
    m_facts->addCard(QStringLiteral("age"), QStringLiteral("Age"),
                     QStringLiteral("Open for (or lasted), by fleetd's clock"));
    m_facts->addCard(QStringLiteral("cost"), QStringLiteral("Goodput cost"),
                     QStringLiteral("GPU-hours the affected jobs lost while it was open (goodput ledger)"));
    m_facts->addCard(QStringLiteral("blast"), QStringLiteral("Blast radius"),
                     QStringLiteral("Racks, trays, GPUs and jobs it touches"));
    m_facts->addCard(QStringLiteral("members"), QStringLiteral("Alerts"),
                     QStringLiteral("Member events, and how many are still active"));
    layout->addWidget(m_facts);
    layout->addWidget(m_actions);
    m_actions->setDraftSource([this] {
        const v1::Incident* shown = incident();
        return shown && m_context.actions ? m_context.actions->draftsForIncident(m_endpoint, *shown)
                                          : QList<ActionDraft>{};
    });

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(titled(QStringLiteral("Timeline"), m_timeline, split));
    auto* right = new QSplitter(Qt::Vertical, split);
    right->addWidget(
        titled(QStringLiteral("Blast radius (red: root cause, amber: affected; badge: trays)"), m_map, right));
    m_rackChart->setTitle(QStringLiteral("Hottest GPU"));
    m_rackChart->setValueUnit(QStringLiteral("°C"));
    m_jobChart->setTitle(QStringLiteral("Goodput"));
    m_jobChart->setValueUnit(QStringLiteral("%"));
    m_rackChart->setAnnotationsShown(true);
    m_jobChart->setAnnotationsShown(true);
    right->addWidget(m_rackChart);
    right->addWidget(m_jobChart);
    right->setSizes({340, 360, 360});
    split->addWidget(right);
    // The rack map's size hint would take most of the width: start half and half.
    split->setSizes({800, 800});
    layout->addWidget(split, 1);
    m_map->setLegendVisible(false);

    connect(m_map, &widgets::RackMapWidget::rackActivated, this, [this](const QString& rack) {
        emit navigationRequested({PageId::Rack, rack});
    });
    connect(&m_store, &client::FleetStore::changed, this, &IncidentPage::onStoreChanged);
    m_chartTimer.setInterval(kChartRefresh);
    connect(&m_chartTimer, &QTimer::timeout, this, &IncidentPage::refreshCharts);
}

const v1::Incident* IncidentPage::incident() const { return m_id ? findIncident(m_store, m_endpoint, m_id) : nullptr; }

QString IncidentPage::entity() const { return m_id ? incidentKey(m_store, m_endpoint, m_id) : QString(); }

bool IncidentPage::showEntity(const QString& name) {
    std::pair<int, std::uint64_t> wanted;
    if (name.isEmpty()) {
        const std::vector<IncidentRef> incidents = incidentsInDockOrder(m_store);
        if (incidents.empty()) return m_id == 0;
        wanted = {incidents.front().endpoint, incidents.front().incident->id()};
    } else {
        const auto parsed = parseIncidentKey(m_store, name);
        if (!parsed || !findIncident(m_store, parsed->first, parsed->second)) return false;
        wanted = *parsed;
    }
    m_endpoint = wanted.first;
    m_id = wanted.second;
    bindCharts(*incident());
    m_dirty = true;
    refresh();
    emit entityShown(entity());
    return true;
}

EntityId IncidentPage::chartedRack(const v1::Incident& incident) const {
    const v1::ProbableCause& cause = incident.root_cause();
    if (cause.has_entity()) {
        const EntityId rack = m_store.rackOf(EntityId{quint16(m_endpoint), cause.entity_index()});
        if (rack.isValid()) return rack;
    }
    const auto& racks = incident.blast_radius().rack_indexes();
    return racks.empty() ? EntityId{} : EntityId{quint16(m_endpoint), racks[0]};
}

void IncidentPage::bindCharts(const v1::Incident& incident) {
    if (!m_theme) return;  // applyTheme() binds them
    m_chartedRack = chartedRack(incident);
    const auto& jobs = incident.blast_radius().job_indexes();
    m_chartedJob = jobs.empty() ? EntityId{} : EntityId{quint16(m_endpoint), jobs[0]};
    m_rackChart->setTitle(QStringLiteral("Hottest GPU — %1").arg(m_store.name(m_chartedRack)));
    m_jobChart->setTitle(QStringLiteral("Goodput — %1").arg(m_store.name(m_chartedJob)));
    m_jobChart->setVisible(m_chartedJob.isValid());
    if (m_charts.empty()) {
        const widgets::ThemeColors& c = m_theme->colors();
        auto bind = [this](widgets::TimeSeriesChart* chart) {
            auto* binding = new HistoryChartBinding(m_context, chart, this);
            // Markers from the incident's timeline, not every event of the rack.
            binding->setAnnotationProvider([this] {
                const v1::Incident* shown = this->incident();
                return shown ? incidentAnnotations(*shown) : std::vector<widgets::ChartAnnotation>{};
            });
            m_charts.push_back(binding);
            return binding;
        };
        bind(m_rackChart)->addSeries(QStringLiteral("Hottest GPU"), c.warn, m_chartedRack, v1::RACK_GPU_TEMP_MAX_C);
        bind(m_jobChart)->addSeries(QStringLiteral("Goodput"), c.ok, m_chartedJob, v1::JOB_GOODPUT_RATIO, 100.0);
    } else {
        m_charts[0]->setEntity(m_chartedRack);
        m_charts[1]->setEntity(m_chartedJob);
    }
}

void IncidentPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
}

void IncidentPage::applyTheme(const widgets::Theme& theme) {
    const bool first = !m_theme;
    m_theme = &theme;
    m_header->applyTheme(theme);
    m_facts->applyTheme(theme);
    m_map->applyTheme(theme);
    m_rackChart->setTheme(theme);
    m_jobChart->setTheme(theme);
    if (first && incident()) bindCharts(*incident());
    m_dirty = true;
    refresh();
}

bool IncidentPage::hasContent() const {
    if (!incident()) return false;
    return std::all_of(m_charts.begin(), m_charts.end(),
                       [](const HistoryChartBinding* c) { return c->backfillSettled(); });
}

void IncidentPage::setActive(bool active) {
    Page::setActive(active);
    if (active) {
        if (!m_id) showEntity({});
        m_chartTimer.start();
        if (m_dirty) refresh();
        refreshCharts();
    } else {
        m_chartTimer.stop();
    }
}

void IncidentPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (!changes.incidentsChanged && !changes.topologyChanged && !changes.freshnessTick) return;
    m_dirty = true;
    if (isActive()) {
        if (!m_id) showEntity({});
        refresh();
    }
}

void IncidentPage::refresh() {
    if (!m_theme || !isActive()) return;
    m_dirty = false;
    const v1::Incident* shown = incident();
    if (!shown) {
        m_header->setTitle(QStringLiteral("Incident"));
        m_header->setSummary(
            m_id ? QStringLiteral("fleetd no longer holds incident %1 (resolved ones are kept for a while)").arg(m_id)
                 : QStringLiteral("No incidents: fleetd has grouped no alerts yet"));
        m_timeline->clear();
        m_actions->refresh();
        return;
    }
    m_header->setTitle(
        QStringLiteral("Incident %1 — %2").arg(shown->id()).arg(QString::fromStdString(shown->root_cause().summary())));
    m_header->setSummary(QString::fromStdString(shown->title()));
    refreshFacts(*shown);
    m_actions->refresh();
    m_timeline->setIncident(*shown, *m_theme);
    m_map->setIncident(m_endpoint, *shown);
    refreshCharts();
}

void IncidentPage::refreshFacts(const v1::Incident& incident) {
    const QString state = stateWord(incident.state());
    m_facts->setCard(QStringLiteral("state"), state,
                     incident.raised_after_maintenance()
                         ? QStringLiteral("raised when a maintenance window ended")
                         : QStringLiteral("%1 · since %2")
                               .arg(client::toString(incident.severity()), formatUnixMs(incident.started_unix_ms())),
                     stateLevel(incident));
    const QString owner =
        incident.owner().empty() ? QStringLiteral("nobody") : QString::fromStdString(incident.owner());
    m_facts->setCard(QStringLiteral("owner"), owner,
                     incident.note().empty() ? QStringLiteral("no note") : QString::fromStdString(incident.note()),
                     incident.owner().empty() && isOpen(incident) ? KpiLevel::Warning : KpiLevel::Neutral);
    m_facts->setCard(
        QStringLiteral("age"), formatAge(std::chrono::milliseconds(incidentAgeMs(m_store, m_endpoint, incident))),
        isOpen(incident) ? QStringLiteral("open for")
                         : QStringLiteral("lasted; resolved %1").arg(formatUnixMs(incident.resolved_unix_ms())),
        KpiLevel::Neutral);
    m_facts->setCard(QStringLiteral("cost"),
                     QStringLiteral("%1 GPU-h").arg(incident.goodput_cost_gpu_hours(), 0, 'f', 1),
                     QStringLiteral("goodput lost so far"),
                     incident.goodput_cost_gpu_hours() > 0 ? KpiLevel::Warning : KpiLevel::Neutral);
    const v1::BlastRadius& blast = incident.blast_radius();
    m_facts->setCard(QStringLiteral("blast"), QStringLiteral("%1 GPUs").arg(blast.gpus()), incidentScope(blast),
                     KpiLevel::Neutral);
    m_facts->setCard(QStringLiteral("members"), QString::number(incident.member_count()),
                     QStringLiteral("%1 still active").arg(incident.active_members()),
                     incident.active_members() > 0 ? KpiLevel::Warning : KpiLevel::Ok);
}

void IncidentPage::refreshCharts() {
    const v1::Incident* shown = incident();
    if (!shown || !isActive()) return;
    const std::int64_t now = m_store.endpointFleet(m_endpoint).serverTimeUnixMs();
    const std::int64_t end = isOpen(*shown) ? now : std::min(now, shown->resolved_unix_ms() + kChartTrailMs);
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(shown->started_unix_ms() - kChartLeadMs, Qt::UTC);
    const QDateTime to =
        QDateTime::fromMSecsSinceEpoch(std::max(end, shown->started_unix_ms() + kChartTrailMs), Qt::UTC);
    for (widgets::TimeSeriesChart* chart : {m_rackChart, m_jobChart}) chart->setTimeRange(from, to);
    for (HistoryChartBinding* binding : m_charts) binding->refresh();
}

}  // namespace watchfloor::ui
