#include "HistoryChartBinding.h"

#include "ChartAnnotationSource.h"

#include "FleetFormat.h"

#include "FleetStore.h"
#include "TimeSeriesChart.h"

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

HistoryChartBinding::HistoryChartBinding(const PageContext& context, widgets::TimeSeriesChart* chart, QObject* parent)
    : QObject(parent), m_context(context), m_chart(chart) {
    // Turned on: the markers appear at once, not at the page's next refresh.
    connect(chart, &widgets::TimeSeriesChart::annotationsShownChanged, this, &HistoryChartBinding::refreshAnnotations);
}

int HistoryChartBinding::addSeries(const QString& label, const QColor& color, client::EntityId entity,
                                   v1::Metric metric, double scale) {
    const int index = m_chart->addSeries(label, color);
    Series series;
    series.label = label;
    series.entity = entity;
    series.metric = metric;
    series.scale = scale;
    m_series.push_back(std::move(series));
    requestBackfill(index);
    return index;
}

void HistoryChartBinding::setEntity(client::EntityId entity) {
    for (std::size_t i = 0; i < m_series.size(); ++i) setSeriesTarget(int(i), entity, m_series[i].metric);
}

void HistoryChartBinding::setSeriesTarget(int index, client::EntityId entity, v1::Metric metric) {
    Series& s = m_series[std::size_t(index)];
    if (s.entity == entity && s.metric == metric) return;
    s.entity = entity;
    s.metric = metric;
    s.backfill.clear();
    s.error.clear();
    s.generation = 0;
    m_chart->clearSeries(index);
    requestBackfill(index);
}

void HistoryChartBinding::requestBackfill(int index) {
    Series& s = m_series[std::size_t(index)];
    s.pending = false;
    client::FleetStore& store = *m_context.store;
    client::EndpointConnection* connection = s.entity.isValid() ? m_context.connection(s.entity.endpoint) : nullptr;
    if (!connection) return;
    const std::int64_t nowMs = store.endpointFleet(s.entity.endpoint).serverTimeUnixMs();
    if (nowMs <= 0) return;  // no snapshot yet; refresh() asks again once there is one
    v1::GetHistoryRequest request;
    // fleetd names its fleet entity "fleet"; other names are the topology's (unqualified) names.
    QString name = store.kind(s.entity) == v1::ENTITY_KIND_FLEET ? QStringLiteral("fleet") : store.name(s.entity);
    name = name.section(u'/', -1);
    request.set_entity_name(name.toStdString());
    request.set_metric(s.metric);
    request.set_start_unix_ms(nowMs - m_window.count());
    request.set_end_unix_ms(nowMs + 1);
    s.pending = true;
    s.backfillRun = store.endpointFleet(s.entity.endpoint).runId();
    s.generation = ++m_generation;
    const quint64 generation = s.generation;
    connection->getHistory(
        request, this, [this, index, generation](client::RpcOutcome<v1::GetHistoryResponse> outcome) {
            Series& series = m_series[std::size_t(index)];
            if (series.generation != generation) return;  // the series was pointed elsewhere meanwhile
            series.pending = false;
            if (!outcome.ok()) {
                series.error = QStringLiteral("History of %1 unavailable: %2").arg(series.label, outcome.error());
                return;
            }
            series.backfill.clear();
            for (const v1::HistoryPoint& p : outcome.value().points())
                series.backfill.append(QPointF(double(p.time_unix_ms()), double(p.mean()) * series.scale));
            refresh();
        });
}

void HistoryChartBinding::refresh() {
    const client::FleetStore& store = *m_context.store;
    QString note;
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        Series& s = m_series[i];
        if (!s.entity.isValid()) continue;
        if (s.generation != 0 && !s.pending && s.backfillRun != store.endpointFleet(s.entity.endpoint).runId()) {
            // fleetd restarted: the old run's backfill may overlap the new run's clock. Ask the new one.
            s.backfill.clear();
            s.error.clear();
            s.generation = 0;
        }
        if (!s.pending && s.backfill.isEmpty() && s.error.isEmpty() && s.generation == 0) requestBackfill(int(i));
        QList<QPointF> live = store.historyPoints(s.entity, s.metric);
        if (note.isEmpty()) note = restartNote(s, live);
        QList<QPointF> points;
        const double liveStart = live.isEmpty() ? std::numeric_limits<double>::infinity() : live.first().x();
        for (const QPointF& p : std::as_const(s.backfill)) {
            if (p.x() < liveStart && !std::isnan(p.y())) points.append(p);
        }
        points.reserve(points.size() + live.size());
        for (const QPointF& p : std::as_const(live)) points.append(QPointF(p.x(), p.y() * s.scale));
        m_chart->setSeriesPoints(int(i), std::move(points));
    }
    m_chart->setNote(note);
    refreshAnnotations();
}

void HistoryChartBinding::setAnnotationProvider(AnnotationProvider provider) {
    m_annotationProvider = std::move(provider);
    refreshAnnotations();
}

void HistoryChartBinding::refreshAnnotations() {
    if (!m_chart->annotationsShown()) return;
    if (m_annotationProvider) {
        m_chart->setAnnotations(m_annotationProvider());
        return;
    }
    QList<client::EntityId> entities;
    for (const Series& s : m_series)
        if (s.entity.isValid() && !entities.contains(s.entity)) entities << s.entity;
    m_chart->setAnnotations(entityAnnotations(*m_context.store, m_context.controls, entities));
}

QString HistoryChartBinding::restartNote(const Series& series, const QList<QPointF>& live) const {
    const auto& change = m_context.store->endpointFleet(series.entity.endpoint).lastRunChange();
    if (!change || live.isEmpty() || double(change->serverTimeMs) < live.first().x()) return {};
    const QString at = formatUnixMs(change->serverTimeMs);
    return change->historyCleared
               ? QStringLiteral(
                     "fleetd restarted at %1 UTC: the earlier run is not shown (the new run's clock started over)")
                     .arg(at)
               : QStringLiteral("fleetd restarted at %1 UTC: the lines break there").arg(at);
}

bool HistoryChartBinding::backfillSettled() const {
    return std::none_of(m_series.begin(), m_series.end(), [](const Series& s) { return s.pending; });
}

QStringList HistoryChartBinding::errors() const {
    QStringList out;
    for (const Series& s : m_series) {
        if (!s.error.isEmpty()) out << s.error;
    }
    return out;
}

}  // namespace watchfloor::ui
