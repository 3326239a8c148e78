#pragma once
// Small bridges between the client's data (readings with freshness, proto enums) and what pages
// draw: widget readings, value text with units, and words for states. A value that is missing,
// blank or stale is never formatted as if it were a fresh reading.

#include "EntityId.h"
#include "EventListModel.h"
#include "Freshness.h"
#include "JobTableModel.h"
#include "Reading.h"
#include "StateLabels.h"
#include "ValueFormat.h"

#include "FleetGoodputMerge.h"
#include "watchfloor/v1/fleet.pb.h"

#include <QColor>
#include <QString>

namespace watchfloor::widgets {
class Theme;
}
namespace watchfloor::client {
struct FleetSummary;
}

namespace watchfloor::ui {

widgets::Reading toWidgetReading(const client::Reading& reading);
// Numbers as text: the client's one formatter (client/models/ValueFormat.h), so a table cell and
// a page card never word the same reading two ways.
using client::formatAge;
using client::formatDuration;
using client::formatRatioPercent;
using client::formatReading;
using client::formatValue;
QString formatUnixMs(std::int64_t unixMs, bool withDate = false);  // UTC "14:03:22"

QString kindLabel(watchfloor::v1::EntityKind kind);  // "GPU", "NVLink", "Cooling loop"
// State words are the client models' (one vocabulary in tables and pages).
using client::healthLabel;
using client::linkStateLabel;
using client::nodeStateLabel;
using client::rackStateLabel;
// Job states (client::jobStateText), recovery stages, severities and event types: client::toString()
// (the models' wording).
QString xidActionLabel(watchfloor::v1::XidAction action);  // operator wording of NVIDIA's buckets

// Which jobs the fleet goodput averages are over, when not all active ones: "over 3 of 5 jobs",
// "no job publishes step telemetry"; empty when every active job counts.
QString goodputCoverage(const client::FleetSummary& fleet);
// A merged fleet ratio: "87.3 %"; "starting" while every job with step telemetry is still
// starting (fleetd's 0 % would read as broken); "n/a" when there is none.
QString formatFleetRatio(const client::FleetSummary& fleet, double ratio);
// A job's goodput: "87.3 %", "starting" (no productive step yet) or "no step telemetry".
QString formatJobGoodput(const watchfloor::v1::Job& job);
// "1 of 2 endpoints live"; empty when every endpoint is.
QString endpointsLiveNote(const client::FleetSummary& fleet);
// How much of a merged count is the last-known value of endpoints not live: "360 of them stale";
// empty when none is.
QString staleCountNote(quint32 stale);
// The same for the merged ratios, by weight: "50 % of it stale"; empty when none is.
QString staleRatioNote(const client::FleetSummary& fleet);
// A line in front of an event in lists: a database glyph for telemetry-source events (their
// entity is the fleet, which says little), a dot for the rest.
QString eventGlyph(watchfloor::v1::EventType type);

QColor severityColor(watchfloor::v1::Severity severity, const widgets::Theme& theme);
QColor healthColor(watchfloor::v1::HealthState health, const widgets::Theme& theme);

}  // namespace watchfloor::ui
