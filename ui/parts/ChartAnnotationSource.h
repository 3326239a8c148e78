#pragma once
// What a chart's event markers say, from the console's data: the events the store holds about
// the charted entities (their own and those of anything inside them: a rack chart shows its
// trays' Xids) and the operations that acted on them; or one incident's timeline (its member
// events, state changes, operator actions and notes). Pure functions of the store and the
// control clients: the chart binding asks while the chart shows markers.

#include "ChartAnnotations.h"
#include "ControlClient.h"
#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QList>
#include <QPointer>
#include <QVector>

#include <vector>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// At most this many markers per chart, the newest kept: more would hide the lines.
inline constexpr std::size_t kMaxChartAnnotations = 60;

// Warning and critical events on (or inside) `entities`, and the operations whose target is one
// of them or lies inside one, newest kMaxChartAnnotations, oldest first.
std::vector<widgets::ChartAnnotation> entityAnnotations(const client::FleetStore& store,
                                                        const QVector<QPointer<client::ControlClient>>& controls,
                                                        const QList<client::EntityId>& entities);

// Member events this close to the first of a burst share its marker (fleet time).
inline constexpr std::int64_t kAlertBurstMs = 120'000;

// Every entry of the incident's timeline as a marker; a burst of member events as one.
std::vector<widgets::ChartAnnotation> incidentAnnotations(const watchfloor::v1::Incident& incident);

// A timeline entry's marker: member events in the incident's severity, what people did in theirs.
widgets::AnnotationKind annotationKind(const watchfloor::v1::IncidentTimelineEntry& entry,
                                       watchfloor::v1::Severity incidentSeverity);
// The few words on a marker: "Xid 79 r07-n03-g2", "leak r07-loop", "drain node r07-n03".
QString annotationLabel(const watchfloor::v1::Event& event, const QString& entityName);
QString annotationLabel(const watchfloor::v1::IncidentTimelineEntry& entry);

}  // namespace watchfloor::ui
