#pragma once
// Feeds a TimeSeriesChart from the fleet: each series is one (entity, metric). Older history is
// backfilled once from fleetd (GetHistory), then the store's live history ring extends it; the
// chart gets the union, re-reduced by the chart itself. Refreshing is the page's call (visible
// pages only, at most a few times a second). A fleetd restart (new run) breaks the lines, and the
// chart's note says when it restarted (and that the old run is not shown if its clock started over).
// While the chart shows its event markers ("Events" toggle), each refresh fills them: by default
// the events and operations of the charted entities (ChartAnnotationSource.h), or what the page
// provides instead (the Incident page: its incident's timeline).

#include "PageContext.h"

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QColor>
#include <QList>
#include <QObject>
#include <QPointF>

#include "ChartAnnotations.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace watchfloor::widgets {
class TimeSeriesChart;
}

namespace watchfloor::ui {

class HistoryChartBinding : public QObject {
    Q_OBJECT
public:
    HistoryChartBinding(const PageContext& context, widgets::TimeSeriesChart* chart, QObject* parent = nullptr);

    // How far back the backfill reaches (server time). Default 6 h.
    void setBackfillWindow(std::chrono::milliseconds window) { m_window = window; }
    // `scale` multiplies values (ratio → %).
    int addSeries(const QString& label, const QColor& color, client::EntityId entity, watchfloor::v1::Metric metric,
                  double scale = 1.0);
    // Points the existing series at another entity (same metrics), e.g. another rack.
    void setEntity(client::EntityId entity);
    // Points one series at another (entity, metric), e.g. a job's metric instead of the fleet's.
    void setSeriesTarget(int series, client::EntityId entity, watchfloor::v1::Metric metric);
    void refresh();
    using AnnotationProvider = std::function<std::vector<widgets::ChartAnnotation>()>;
    // Markers from `provider` instead of the charted entities' events; null: back to those.
    void setAnnotationProvider(AnnotationProvider provider);
    // Every GetHistory call answered (or there is no connection to ask).
    bool backfillSettled() const;
    // Operator-readable errors from backfill calls, empty if none.
    QStringList errors() const;
    widgets::TimeSeriesChart* chart() const { return m_chart; }

private:
    struct Series {
        QString label;
        client::EntityId entity;
        watchfloor::v1::Metric metric;
        double scale = 1.0;
        QList<QPointF> backfill;
        std::string backfillRun;  // fleetd run the backfill came from: a restart asks again
        bool pending = false;
        quint64 generation = 0;
        QString error;
    };
    void requestBackfill(int series);
    // What the chart says about a fleetd restart inside the points it shows, empty if none.
    QString restartNote(const Series& series, const QList<QPointF>& live) const;
    void refreshAnnotations();

    PageContext m_context;
    widgets::TimeSeriesChart* m_chart;
    std::vector<Series> m_series;
    AnnotationProvider m_annotationProvider;
    std::chrono::milliseconds m_window{std::chrono::hours(6)};
    quint64 m_generation = 0;
};

}  // namespace watchfloor::ui
