#include "CoolingPage.h"

#include "EntityNavigation.h"
#include "FleetFormat.h"
#include "HistoryChartBinding.h"
#include "PageHeader.h"

#include "FleetStore.h"
#include "LoopSchematicWidget.h"
#include "TimeSeriesChart.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {
constexpr int kMaxAlarmRows = 100;
constexpr std::chrono::milliseconds kChartRefresh{1000};

bool isCoolingEvent(v1::EventType type) {
    return type == v1::EVENT_TYPE_CDU_ALARM || type == v1::EVENT_TYPE_LEAK || type == v1::EVENT_TYPE_RACK_ISOLATED ||
           type == v1::EVENT_TYPE_RACK_RESTORED;
}
}  // namespace

CoolingPage::CoolingPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_context(context),
      m_store(*context.store),
      m_header(new PageHeader(QStringLiteral("Cooling"), this)),
      m_schematic(new widgets::LoopSchematicWidget(this)),
      m_tempChart(new widgets::TimeSeriesChart(this)),
      m_flowChart(new widgets::TimeSeriesChart(this)),
      m_pressureChart(new widgets::TimeSeriesChart(this)),
      m_powerChart(new widgets::TimeSeriesChart(this)),
      m_alarms(new QTableWidget(0, 5, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(splitter);
    auto* topLayout = new QGridLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_schematic, 0, 0, 2, 1);
    m_tempChart->setTitle(QStringLiteral("Coolant temperature"));
    m_tempChart->setValueUnit(QStringLiteral("°C"));
    m_flowChart->setTitle(QStringLiteral("Flow"));
    m_flowChart->setValueUnit(QStringLiteral("L/min"));
    m_pressureChart->setTitle(QStringLiteral("Differential pressure"));
    m_pressureChart->setValueUnit(QStringLiteral("bar"));
    m_powerChart->setTitle(QStringLiteral("Heat load (rack power)"));
    m_powerChart->setValueUnit(QStringLiteral("kW"));
    topLayout->addWidget(m_tempChart, 0, 1);
    topLayout->addWidget(m_flowChart, 0, 2);
    topLayout->addWidget(m_pressureChart, 1, 1);
    topLayout->addWidget(m_powerChart, 1, 2);
    topLayout->setColumnStretch(0, 5);
    topLayout->setColumnStretch(1, 4);
    topLayout->setColumnStretch(2, 4);
    splitter->addWidget(top);

    auto* bottom = new QWidget(splitter);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(makeSectionTitle(QStringLiteral("CDU alarms, leaks and isolations (fleet)"), bottom));
    m_alarms->setObjectName(QStringLiteral("coolingAlarms"));
    m_alarms->setHorizontalHeaderLabels({QStringLiteral("Time"), QStringLiteral("Severity"), QStringLiteral("Type"),
                                         QStringLiteral("Entity"), QStringLiteral("Message")});
    m_alarms->verticalHeader()->hide();
    m_alarms->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_alarms->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_alarms->horizontalHeader()->setStretchLastSection(true);
    m_alarms->setShowGrid(false);
    m_alarms->setAlternatingRowColors(true);
    bottomLayout->addWidget(m_alarms);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(m_alarms, &QTableWidget::cellActivated, this, [this](int row, int) {
        const EntityId id = m_store.findByName(m_alarms->item(row, 3)->text());
        if (id.isValid()) emit navigationRequested({PageId::Cooling, m_store.name(m_store.rackOf(id))});
    });
    connect(&m_store, &client::FleetStore::changed, this, &CoolingPage::onStoreChanged);
    m_chartTimer.setInterval(kChartRefresh);
    connect(&m_chartTimer, &QTimer::timeout, this, [this] {
        for (HistoryChartBinding* chart : m_charts) chart->refresh();
    });
}

int CoolingPage::alarmRowCount() const { return m_alarms->rowCount(); }
QString CoolingPage::entity() const { return m_store.name(m_rack); }

EntityId CoolingPage::loopOf(EntityId rack) const {
    const v1::Rack* info = m_store.rackInfo(rack);
    return info ? EntityId{rack.endpoint, info->cooling_loop_index()} : EntityId{};
}

EntityId CoolingPage::worstCoolingRack() const {
    // Wet sensors first, then isolation, then the largest flow shortfall against design, then ΔT.
    EntityId worst;
    double worstScore = -1;
    for (int row = 0; row < m_store.rackCount(); ++row) {
        const EntityId rack = m_store.rackAt(row);
        const v1::CoolingLoop* loop = m_store.coolingLoopInfo(loopOf(rack));
        auto value = [&](v1::Metric m) {
            const client::Reading r = m_store.rackReading(row, m);
            return r.hasValue() ? double(r.value) : 0.0;
        };
        const double flow = value(v1::RACK_LIQUID_FLOW_LPM);
        const double shortfall =
            loop && loop->design_flow_lpm() > 0 ? std::max(0.0, 1.0 - flow / loop->design_flow_lpm()) : 0;
        const double score =
            value(v1::RACK_LEAK_DETECT) * 1000 + value(v1::RACK_LIQUID_ISOLATION_STATUS) * 500 + shortfall * 100 +
            (value(v1::RACK_LIQUID_RETURN_TEMPERATURE_C) - value(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C));
        if (score > worstScore) {
            worstScore = score;
            worst = rack;
        }
    }
    return worst;
}

bool CoolingPage::showEntity(const QString& name) {
    EntityId rack;
    if (name.isEmpty()) {
        rack = worstCoolingRack();
        if (!rack.isValid()) return !m_rack.isValid();
    } else {
        rack = m_store.rackOf(m_store.findByName(name));
        if (!rack.isValid()) return false;
    }
    const bool changed = !(rack == m_rack);
    m_rack = rack;
    if (changed) {
        const EntityId loop = loopOf(rack);
        const EntityId source = m_store.coolingLoopInfo(loop) ? loop : rack;
        // Loop points (temperatures, flow, ΔP) live on the cooling loop; power on the rack.
        for (HistoryChartBinding* chart : m_charts) chart->setEntity(chart->chart() == m_powerChart ? rack : source);
        if (m_charts.empty() && m_theme) {
            const widgets::ThemeColors& c = m_theme->colors();
            auto bind = [&](widgets::TimeSeriesChart* chart) {
                auto* binding = new HistoryChartBinding(m_context, chart, this);
                m_charts.push_back(binding);
                return binding;
            };
            HistoryChartBinding* temps = bind(m_tempChart);
            temps->addSeries(QStringLiteral("Supply"), c.coolantSupply, source, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
            temps->addSeries(QStringLiteral("Return"), c.coolantReturn, source, v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
            bind(m_flowChart)->addSeries(QStringLiteral("Flow"), c.accent, source, v1::RACK_LIQUID_FLOW_LPM);
            HistoryChartBinding* pressure = bind(m_pressureChart);
            pressure->addSeries(QStringLiteral("ΔP"), c.accent, source, v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR);
            pressure->addSeries(QStringLiteral("ΔP setpoint"), c.textDim, source,
                                v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_SP_BAR);
            bind(m_powerChart)->addSeries(QStringLiteral("Power"), c.warn, rack, v1::RACK_POWER_KW);
        }
    }
    m_dirty = true;
    refresh();
    emit entityShown(entity());
    return true;
}

void CoolingPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
}

void CoolingPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_header->applyTheme(theme);
    m_schematic->setTheme(theme);
    for (widgets::TimeSeriesChart* chart : {m_tempChart, m_flowChart, m_pressureChart, m_powerChart})
        chart->setTheme(theme);
    m_dirty = true;
    refresh();
}

bool CoolingPage::hasContent() const {
    if (!m_rack.isValid()) return false;
    const bool settled = std::all_of(m_charts.begin(), m_charts.end(),
                                     [](const HistoryChartBinding* c) { return c->backfillSettled(); });
    return settled && m_store.rackReading(m_store.rackRow(m_rack), v1::RACK_LIQUID_FLOW_LPM).hasValue();
}

void CoolingPage::setActive(bool active) {
    Page::setActive(active);
    if (active) {
        if (!m_rack.isValid()) showEntity({});
        m_chartTimer.start();
        for (HistoryChartBinding* chart : m_charts) chart->refresh();
        if (m_dirty) refresh();
    } else {
        m_chartTimer.stop();
    }
}

void CoolingPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (!m_rack.isValid() && changes.topologyChanged && isActive()) showEntity({});
    const int row = m_rack.isValid() ? m_store.rackRow(m_rack) : -1;
    const bool mine = row >= 0 && std::binary_search(changes.dirtyRackRows.begin(), changes.dirtyRackRows.end(), row);
    if (mine || changes.eventsAdded > 0 || changes.freshnessTick || changes.topologyChanged) {
        m_dirty = true;
        if (isActive()) refresh();
    }
}

void CoolingPage::refresh() {
    if (!m_theme || !m_rack.isValid()) return;
    m_dirty = false;
    const v1::CoolingLoop* loop = m_store.coolingLoopInfo(loopOf(m_rack));
    m_header->setTitle(QStringLiteral("Cooling · %1").arg(m_store.name(m_rack)));
    if (loop) {
        const client::Reading pumps = m_store.reading(loopOf(m_rack), v1::CDU_PUMPS_RUNNING);
        m_header->setSummary(QStringLiteral("%1 · fed by %2 · supply setpoint %3 °C · design flow %4 L/min · %5 leak "
                                            "sensors · CDU pumps running %6")
                                 .arg(QString::fromStdString(loop->name()), QString::fromStdString(loop->cdu_name()))
                                 .arg(loop->supply_setpoint_c(), 0, 'f', 1)
                                 .arg(loop->design_flow_lpm(), 0, 'f', 0)
                                 .arg(loop->leak_sensor_count())
                                 .arg(formatReading(pumps, {}, 0)));
    }
    refreshSchematic();
    refreshAlarms();
}

void CoolingPage::refreshSchematic() {
    const int row = m_store.rackRow(m_rack);
    const bool live = m_store.endpointState(m_rack.endpoint) == client::ConnectionState::Live;
    auto reading = [&](v1::Metric m) {
        widgets::Reading r = toWidgetReading(m_store.rackReading(row, m));
        if (!live && !r.isMissing()) r.freshness = widgets::Freshness::Stale;
        return r;
    };
    widgets::LoopStatus s;
    const v1::CoolingLoop* loop = m_store.coolingLoopInfo(loopOf(m_rack));
    s.title = loop ? QString::fromStdString(loop->name()) : m_store.name(m_rack);
    s.supply_c = reading(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    s.return_c = reading(v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
    s.flow_lpm = reading(v1::RACK_LIQUID_FLOW_LPM);
    s.dp_bar = reading(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR);
    s.dpSetpoint_bar = reading(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_SP_BAR);
    s.valve_pct = reading(v1::RACK_CONTROL_VALVE_POSITION_PCT);
    s.power_kw = reading(v1::RACK_POWER_KW);
    const client::Reading isolation = m_store.rackReading(row, v1::RACK_LIQUID_ISOLATION_STATUS);
    s.isolated = isolation.hasValue() && isolation.value > 0;
    // fleetd reports how many sensors are wet or faulted, not which: show the counts as groups
    // rather than pretend to know which sensor it is.
    const int total = loop ? int(loop->leak_sensor_count()) : 0;
    const client::Reading wet = m_store.rackReading(row, v1::RACK_LEAK_DETECT);
    const client::Reading fault = m_store.rackReading(row, v1::RACK_LEAK_SENSOR_FAULT);
    if (!wet.hasValue()) {
        s.leakSensors.push_back(
            {QStringLiteral("%1 sensors: no reading").arg(total), widgets::LeakSensorState::Unknown});
    } else {
        const int wetCount = int(wet.value);
        const int faultCount = fault.hasValue() ? int(fault.value) : 0;
        if (wetCount > 0)
            s.leakSensors.push_back({QStringLiteral("%1 wet").arg(wetCount), widgets::LeakSensorState::Wet});
        if (faultCount > 0)
            s.leakSensors.push_back({QStringLiteral("%1 faulted").arg(faultCount), widgets::LeakSensorState::Fault});
        s.leakSensors.push_back(
            {QStringLiteral("%1 dry").arg(std::max(0, total - wetCount - faultCount)), widgets::LeakSensorState::Dry});
    }
    m_schematic->setStatus(s);
}

void CoolingPage::refreshAlarms() {
    m_alarms->setRowCount(0);
    for (quint64 serial = m_store.nextEventSerial();
         serial-- > m_store.firstEventSerial() && m_alarms->rowCount() < kMaxAlarmRows;) {
        const client::StoredEvent* stored = m_store.eventBySerial(serial);
        if (!stored || !isCoolingEvent(stored->event.type())) continue;
        const v1::Event& e = stored->event;
        const EntityId entity = m_store.eventEntity(*stored);
        const int row = m_alarms->rowCount();
        m_alarms->insertRow(row);
        const QStringList cells{formatUnixMs(e.time_unix_ms(), true), client::toString(e.severity()),
                                client::toString(e.type()), m_store.name(entity), QString::fromStdString(e.message())};
        const bool here = m_store.isWithin(entity, m_rack);
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 1) item->setForeground(severityColor(e.severity(), *m_theme));
            if (here) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            m_alarms->setItem(row, c, item);
        }
    }
    if (m_alarms->rowCount() == 0) {
        m_alarms->insertRow(0);
        auto* item = new QTableWidgetItem(QStringLiteral("No CDU alarms, leaks or isolations in the events received."));
        item->setFlags(Qt::NoItemFlags);
        m_alarms->setItem(0, 0, item);
        m_alarms->setSpan(0, 0, 1, 5);
    } else {
        m_alarms->clearSpans();
    }
    m_alarms->resizeColumnsToContents();
}

}  // namespace watchfloor::ui
