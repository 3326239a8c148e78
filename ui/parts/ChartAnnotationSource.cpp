#include "ChartAnnotationSource.h"

#include "ActionWords.h"
#include "EventListModel.h"
#include "FleetStore.h"

#include "watchfloor/v1/control.pb.h"

#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using widgets::AnnotationKind;
using widgets::ChartAnnotation;

namespace {

AnnotationKind kindOf(v1::Severity severity) {
    return severity >= v1::SEVERITY_CRITICAL  ? AnnotationKind::Critical
           : severity >= v1::SEVERITY_WARNING ? AnnotationKind::Warning
                                              : AnnotationKind::Info;
}

// The entity an operation acts on: a node, rack or job by name; none for the targets that are no
// part of the fleet (an incident, a maintenance window, a handoff).
client::EntityId operationTarget(const client::FleetStore& store, int endpoint, const v1::ActionRequest& request) {
    using client::ActionTargetKind;
    const ActionTargetKind kind = client::actionWords(request.type()).target;
    if (kind != ActionTargetKind::Node && kind != ActionTargetKind::Rack && kind != ActionTargetKind::Job) return {};
    const QString name = client::actionTargetName(request);
    if (name.isEmpty()) return {};
    const client::EntityId id = store.findByName(name);
    if (id.isValid() && id.endpoint == endpoint) return id;
    // A name several endpoints share is qualified in the store: ask with the endpoint's name.
    return store.findByName(QStringLiteral("%1/%2").arg(store.endpointDisplayName(endpoint), name));
}

bool insideAny(const client::FleetStore& store, client::EntityId id, const QList<client::EntityId>& entities) {
    return id.isValid() &&
           std::any_of(entities.begin(), entities.end(), [&](client::EntityId e) { return store.isWithin(id, e); });
}

void keepNewest(std::vector<ChartAnnotation>* out) {
    std::stable_sort(out->begin(), out->end(),
                     [](const ChartAnnotation& a, const ChartAnnotation& b) { return a.timeUnixMs < b.timeUnixMs; });
    if (out->size() > kMaxChartAnnotations) out->erase(out->begin(), out->end() - std::ptrdiff_t(kMaxChartAnnotations));
}

}  // namespace

AnnotationKind annotationKind(const v1::IncidentTimelineEntry& entry, v1::Severity incidentSeverity) {
    switch (entry.kind()) {
    case v1::TIMELINE_ENTRY_KIND_STATE_CHANGE: return AnnotationKind::StateChange;
    case v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION: return AnnotationKind::Action;
    case v1::TIMELINE_ENTRY_KIND_NOTE: return AnnotationKind::Note;
    default: return incidentSeverity >= v1::SEVERITY_CRITICAL ? AnnotationKind::Critical : AnnotationKind::Warning;
    }
}

QString annotationLabel(const v1::Event& event, const QString& entityName) {
    const QString what = event.type() == v1::EVENT_TYPE_XID ? QStringLiteral("Xid %1").arg(event.xid().xid())
                                                            : client::toString(event.type());
    return entityName.isEmpty() ? what : QStringLiteral("%1 %2").arg(what, entityName);
}

QString annotationLabel(const v1::IncidentTimelineEntry& entry) {
    switch (entry.kind()) {
    case v1::TIMELINE_ENTRY_KIND_STATE_CHANGE: {
        QString state = QString::fromStdString(v1::IncidentState_Name(entry.state()));
        state.remove(QStringLiteral("INCIDENT_STATE_"));
        return state.toLower();
    }
    case v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION:
        return QStringLiteral("%1 %2").arg(client::recordedActionName(entry.action()),
                                           QString::fromStdString(entry.target()));
    case v1::TIMELINE_ENTRY_KIND_NOTE:
        return QStringLiteral("note (%1)").arg(QString::fromStdString(entry.principal()));
    default: return QString::fromStdString(entry.text());
    }
}

std::vector<ChartAnnotation> entityAnnotations(const client::FleetStore& store,
                                               const QVector<QPointer<client::ControlClient>>& controls,
                                               const QList<client::EntityId>& entities) {
    std::vector<ChartAnnotation> out;
    if (entities.isEmpty()) return out;
    // Newest first, so a long history stops once the chart has enough.
    for (quint64 serial = store.nextEventSerial();
         serial-- > store.firstEventSerial() && out.size() < kMaxChartAnnotations;) {
        const client::StoredEvent* stored = store.eventBySerial(serial);
        if (!stored || stored->event.severity() < v1::SEVERITY_WARNING) continue;
        const client::EntityId entity = store.eventEntity(*stored);
        if (!insideAny(store, entity, entities)) continue;
        out.push_back({stored->event.time_unix_ms(), annotationLabel(stored->event, store.localName(entity)),
                       kindOf(stored->event.severity())});
    }
    for (int endpoint = 0; endpoint < controls.size(); ++endpoint) {
        if (!controls[endpoint]) continue;
        for (const v1::Operation& op : controls[endpoint]->operations()) {
            if (!insideAny(store, operationTarget(store, endpoint, op.request()), entities)) continue;
            out.push_back({op.created_unix_ms(), client::actionSentence(op.request()), AnnotationKind::Action});
        }
    }
    keepNewest(&out);
    return out;
}

std::vector<ChartAnnotation> incidentAnnotations(const v1::Incident& incident) {
    std::vector<ChartAnnotation> out;
    // A fault's symptoms come in bursts (18 trays' GPUs throttling within a minute): a burst of
    // member events is one marker, "N alerts", so what people did stays readable beside it.
    std::int64_t burstStart = 0;
    int burst = 0;
    for (const v1::IncidentTimelineEntry& entry : incident.timeline()) {
        const bool member = entry.kind() == v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT;
        if (member && burst > 0 && entry.time_unix_ms() - burstStart <= kAlertBurstMs) {
            out.back().label = QStringLiteral("%1 alerts").arg(++burst);
            continue;
        }
        burst = member ? 1 : 0;
        burstStart = entry.time_unix_ms();
        out.push_back({entry.time_unix_ms(), annotationLabel(entry), annotationKind(entry, incident.severity())});
    }
    keepNewest(&out);
    return out;
}

}  // namespace watchfloor::ui
