#include "StragglerDrillDown.h"

#include "StragglerCausePanel.h"
#include "StragglerCauses.h"

#include "ColorScale.h"
#include "FleetStore.h"
#include "HeatmapWidget.h"
#include "LegendWidget.h"
#include "NicPortCounters.h"

#include <QDateTime>
#include <QLabel>
#include <QScrollArea>
#include <QTimeZone>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {
// 1.00 = the median tray; the ladder's threshold is 1.05 and published fail-slow trays run
// 1.05-1.15 (MegaScale). The ramp ends at the slowest tray's mean ratio (rounded up to 0.05) so a
// 1.3x tray is hotter than a 1.15x one, but never below 1.15 (a 1.1x tray must not look as hot
// as a real straggler when nothing worse is on the map) and never above 3 (a tray that barely
// steps would wash every other one out; cells above the end take its colour).
constexpr float kRampLow = 1.0f, kRampTopAtLeast = 1.15f, kRampTopAtMost = 3.0f, kRampTopStep = 0.05f;

float rampTop(const client::StepTimeGrid& grid) {
    float slowest = 0;
    for (int r = 0; r < grid.rows(); ++r)
        if (const double mean = grid.meanRatio(r); std::isfinite(mean)) slowest = std::max(slowest, float(mean));
    const float rounded = std::ceil(slowest / kRampTopStep) * kRampTopStep;
    return std::clamp(rounded, kRampTopAtLeast, kRampTopAtMost);
}

widgets::ColorScale stepRatioScale(float top, const widgets::Theme& theme) {
    auto scale =
        widgets::ColorScale::sequential(QStringLiteral("Step time / median tray's (same minute; fail-slow from 1.05)"),
                                        QStringLiteral("×"), kRampLow, top, theme);
    scale.setDecimals(2);
    return scale;
}

QString fleetClock(std::int64_t unixMs) {
    return QDateTime::fromMSecsSinceEpoch(unixMs, QTimeZone::utc()).toString(QStringLiteral("HH:mm"));
}
}  // namespace

StragglerDrillDown::StragglerDrillDown(const PageContext& context, EntityId job, EntityId tray,
                                       const widgets::Theme& theme, QWidget* parent)
    : QDialog(parent),
      m_context(context),
      m_job(job),
      m_tray(tray),
      m_theme(theme),
      m_summary(new QLabel(this)),
      m_heatmap(new widgets::HeatmapWidget(this)),
      m_legend(new widgets::LegendWidget(this)),
      m_causes(new StragglerCausePanel(*context.store, context.actions, this)) {
    setObjectName(QStringLiteral("stragglerDrillDown"));
    setWindowTitle(QStringLiteral("Step time per tray: %1").arg(context.store->name(job)));
    auto* layout = new QVBoxLayout(this);
    m_summary->setObjectName(QStringLiteral("stepTimeSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_heatmap->setObjectName(QStringLiteral("stepTimeHeatmap"));
    m_heatmap->setTheme(theme);
    m_heatmap->setTooltipProvider([this](int row, int column) { return cellToolTip(row, column); });
    // Every tray keeps a row as high as its name: a job's trays are sorted slowest first, and with
    // rows thinner than a label only every other row was named, so the second-slowest tray's cells
    // sat beside the next tray's name. The map scrolls instead; the slow trays are at its top.
    m_heatmap->setMinimumRowHeight(QFontMetrics(theme.labelFont()).height());
    m_heatmap->setLegendVisible(false);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("stepTimeHeatmapScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_heatmap);
    layout->addWidget(scroll, 3);
    m_legend->setTheme(theme);
    layout->addWidget(m_legend, 0);
    setRamp(kRampTopAtLeast);
    m_causes->setTheme(theme);
    layout->addWidget(m_causes, 0);
    connect(m_heatmap, &widgets::HeatmapWidget::cellActivated, this, [this](int row, int) {
        if (row >= 0 && row < m_grid.rows()) selectTray(EntityId{m_job.endpoint, m_grid.nodeIndex(row)});
    });
    resize(1120, 960);  // 72 trays at ~8 px a row above the cause table
    // A new minute bucket fills every minute of fleet time; at --speed above 1 sooner.
    auto* timer = new QTimer(this);
    timer->setInterval(kReloadEvery);
    connect(timer, &QTimer::timeout, this, &StragglerDrillDown::reload);
    timer->start();
    reload();
}

void StragglerDrillDown::setRamp(float top) {
    const widgets::ColorScale scale = stepRatioScale(top, m_theme);
    m_heatmap->setColorScale(scale);
    m_legend->setScale(scale);
}

void StragglerDrillDown::reload() {
    client::EndpointConnection* connection = m_context.connection(m_job.endpoint);
    if (!connection) {
        m_summary->setText(
            QStringLiteral("No connection to the fleetd that runs %1.").arg(m_context.store->name(m_job)));
        return;
    }
    const std::int64_t nowMs = m_context.store->endpointFleet(m_job.endpoint).serverTimeUnixMs();
    v1::StepTimeHeatmapRequest request;
    request.set_job_name(m_context.store->localName(m_job).toStdString());
    // Whole minutes, as fleetd's tray history keeps them, so a column is one minute of fleet time.
    const std::int64_t bucketMs = std::chrono::milliseconds(kBucket).count();
    const std::int64_t startMs = (nowMs - std::chrono::milliseconds(kWindow).count()) / bucketMs * bucketMs;
    request.set_start_unix_ms(startMs);
    request.set_end_unix_ms(nowMs + 1);
    request.set_step_ms(bucketMs);
    if (m_grid.columns() == 0)
        m_summary->setText(
            QStringLiteral("Asking fleetd for %1's step time per tray…").arg(m_context.store->name(m_job)));
    const quint64 generation = ++m_generation;
    connection->getStepTimeHeatmap(request, this, [this, generation](client::RpcOutcome<v1::StepTimeHeatmap> outcome) {
        if (generation != m_generation) return;
        if (!outcome.ok()) {
            m_summary->setText(outcome.error());
            return;
        }
        showMap(outcome.value());
    });
}

void StragglerDrillDown::showMap(const v1::StepTimeHeatmap& heatmap) {
    m_grid = client::StepTimeGrid(heatmap);
    m_order.resize(std::size_t(m_grid.rows()));
    std::iota(m_order.begin(), m_order.end(), 0);
    // Slowest first; a tray without steps last.
    auto key = [this](int r) { return std::isfinite(m_grid.meanRatio(r)) ? m_grid.meanRatio(r) : -1.0; };
    std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) { return key(a) > key(b); });

    std::vector<widgets::Reading> cells;
    cells.reserve(std::size_t(m_grid.rows() * m_grid.columns()));
    QStringList rowLabels;
    for (int r = 0; r < m_grid.rows(); ++r) {
        for (int c = 0; c < m_grid.columns(); ++c) {
            const float ratio = m_grid.ratio(r, c);
            cells.push_back(std::isfinite(ratio) ? widgets::Reading::fresh(ratio) : widgets::Reading::missing());
        }
        rowLabels << (std::isfinite(m_grid.meanRatio(r))
                          ? QStringLiteral("%1  %2×").arg(m_grid.trayNames().at(r)).arg(m_grid.meanRatio(r), 0, 'f', 2)
                          : m_grid.trayNames().at(r));
    }
    QStringList columnLabels;
    for (int c = 0; c < m_grid.columns(); ++c) columnLabels << fleetClock(m_grid.bucketStartMs(c));
    setRamp(rampTop(m_grid));
    m_heatmap->setData(m_grid.rows(), m_grid.columns(), std::move(cells), rowLabels, columnLabels);
    m_heatmap->setRowOrder(m_order);

    const int slowest = m_grid.slowestRow();
    const v1::Job* job = m_context.store->job(m_context.store->jobRow(m_job));
    if (m_grid.columns() == 0 || slowest < 0) {
        m_summary->setText(QStringLiteral("%1: no steps in the last %2 h (the job was not computing, or fleetd has "
                                          "just started).")
                               .arg(m_context.store->name(m_job))
                               .arg(kWindow.count()));
    } else {
        m_summary->setText(
            QStringLiteral("%1 · %2 trays · %3 min buckets since %4 UTC (fleet time) · ideal step %5 s, now %6 s "
                           "(%7× ideal) · slowest tray %8 at %9× the median tray. Click a tray for its cause.")
                .arg(m_context.store->name(m_job))
                .arg(m_grid.rows())
                .arg(double(m_grid.stepMs()) / 60000.0, 0, 'g', 3)
                .arg(fleetClock(m_grid.bucketStartMs(0)))
                .arg(m_grid.idealStepS(), 0, 'f', 2)
                .arg(job ? job->step_time_s() : std::nan(""), 0, 'f', 2)
                .arg(job && m_grid.idealStepS() > 0 ? job->step_time_s() / m_grid.idealStepS() : std::nan(""), 0, 'f',
                     2)
                .arg(m_grid.trayNames().at(slowest))
                .arg(m_grid.meanRatio(slowest), 0, 'f', 2));
    }
    emit mapLoaded();
    if (!m_tray.isValid() && slowest >= 0) m_tray = EntityId{m_job.endpoint, m_grid.nodeIndex(slowest)};
    if (m_tray.isValid()) loadCauses();
}

void StragglerDrillDown::selectTray(EntityId tray) {
    m_tray = tray;
    loadCauses();
}

QStringList StragglerDrillDown::displayedTrays() const {
    QStringList out;
    const QStringList names = m_grid.trayNames();
    for (const int r : m_order) out << names.at(r);
    return out;
}

void StragglerDrillDown::loadCauses() {
    client::EndpointConnection* connection = m_context.connection(m_tray.endpoint);
    if (!connection) return;
    const int row = m_grid.rowOfNode(m_tray.index);
    const double slowdown = row >= 0 ? m_grid.meanRatio(row) : std::nan("");
    m_causes->setStatus(QStringLiteral("Reading %1's events…").arg(m_context.store->name(m_tray)));
    v1::ListEventsRequest request;
    request.set_entity_name(m_context.store->localName(m_tray).toStdString());
    if (m_grid.columns() > 0) request.set_start_unix_ms(m_grid.bucketStartMs(0));
    for (const v1::EventType type : stragglerCauseEventTypes()) request.add_types(type);
    request.set_page_size(500);
    const EntityId job = m_job, tray = m_tray;
    // Selecting the same tray again asks again; the earlier answer must not show and report
    // "loaded" while the panel already reads "Reading…" for the newer request.
    const quint64 asked = ++m_causesRequest;
    connection->listEvents(
        request, this, [this, job, tray, slowdown, asked](client::RpcOutcome<v1::ListEventsResponse> outcome) {
            if (asked != m_causesRequest) return;  // another request (tray) meanwhile
            if (!outcome.ok()) {
                m_causes->setStatus(outcome.error());
                return;
            }
            const auto& answered = outcome.value().events();
            std::vector<v1::Event> events(answered.begin(), answered.end());
            client::EndpointConnection* connection = m_context.connection(tray.endpoint);
            const v1::Node* node = m_context.store->nodeInfo(tray);
            if (!connection || !node) return;
            m_causes->setStatus(
                QStringLiteral("Reading %1's InfiniBand port counters…").arg(m_context.store->name(tray)));
            const std::vector<std::uint32_t> ports(node->nic_port_indexes().begin(), node->nic_port_indexes().end());
            client::fetchNicPortCounters(
                *connection, ports, this,
                [this, job, tray, slowdown, asked, events = std::move(events)](client::NicPortCounters ib) {
                    if (asked != m_causesRequest) return;
                    m_causes->showTray(job, tray, slowdown, events, ib);
                    emit causesLoaded();
                });
        });
}

QString StragglerDrillDown::cellToolTip(int row, int column) const {
    if (row < 0 || row >= m_grid.rows() || column < 0 || column >= m_grid.columns()) return {};
    const QString tray = m_grid.trayNames().at(row);
    const QString when = fleetClock(m_grid.bucketStartMs(column));
    const float step = m_grid.stepS(row, column);
    if (!std::isfinite(step))
        return QStringLiteral("%1 at %2 UTC: no step (checkpoint, recovery or not running)").arg(tray, when);
    return QStringLiteral("%1 at %2 UTC: %3 s a step, %4× the median tray (%5 s), %6× ideal (%7 s)")
        .arg(tray, when)
        .arg(step, 0, 'f', 2)
        .arg(m_grid.ratio(row, column), 0, 'f', 3)
        .arg(m_grid.medianStepS(column), 0, 'f', 2)
        .arg(m_grid.idealStepS() > 0 ? step / m_grid.idealStepS() : std::nan(""), 0, 'f', 3)
        .arg(m_grid.idealStepS(), 0, 'f', 2);
}

StragglerDrillDown* openStragglerDrillDown(const PageContext& context, EntityId job, EntityId tray,
                                           const widgets::Theme& theme, QWidget* parent) {
    auto* dialog = new StragglerDrillDown(context, job, tray, theme, parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

}  // namespace watchfloor::ui
