#include "IncidentTimelineView.h"

#include "ChartAnnotationSource.h"
#include "FleetFormat.h"

#include "ChartAnnotations.h"
#include "Theme.h"

#include <QHeaderView>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {
// fleetd keeps the first entries of a long timeline and then the newest (Incident.timeline).
constexpr int kFirstEntriesKept = 16;

}  // namespace

IncidentTimelineView::IncidentTimelineView(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("incidentTimeline"));
    setColumnCount(ColumnCount);
    setHeaderLabels(
        {QStringLiteral("Time (UTC)"), QStringLiteral("Kind"), QStringLiteral("Who"), QStringLiteral("What")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(Time, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(Kind, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(Who, QHeaderView::ResizeToContents);
}

QString IncidentTimelineView::kindWord(v1::TimelineEntryKind kind) {
    switch (kind) {
    case v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT: return QStringLiteral("event");
    case v1::TIMELINE_ENTRY_KIND_STATE_CHANGE: return QStringLiteral("state");
    case v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION: return QStringLiteral("action");
    case v1::TIMELINE_ENTRY_KIND_NOTE: return QStringLiteral("note");
    default: return QStringLiteral("—");
    }
}

void IncidentTimelineView::setIncident(const v1::Incident& incident, const widgets::Theme& theme) {
    clear();
    m_entryRows = 0;
    const int shown = incident.timeline_size();
    const int missing = int(incident.timeline_count()) - shown;
    for (int i = 0; i < shown; ++i) {
        if (missing > 0 && i == kFirstEntriesKept) {
            auto* gap = new QTreeWidgetItem(this);
            gap->setText(What, QStringLiteral("… %1 entr%2 in between not sent by fleetd (Events page: the rest)")
                                   .arg(missing)
                                   .arg(missing == 1 ? "y" : "ies"));
            gap->setForeground(What, theme.colors().textDim);
        }
        const v1::IncidentTimelineEntry& entry = incident.timeline(i);
        auto* row = new QTreeWidgetItem(this);
        row->setText(Time, formatUnixMs(entry.time_unix_ms()));
        row->setToolTip(Time, formatUnixMs(entry.time_unix_ms(), true));
        row->setText(Kind, kindWord(entry.kind()));
        row->setText(Who,
                     entry.principal().empty() ? QStringLiteral("fleetd") : QString::fromStdString(entry.principal()));
        QString what = QString::fromStdString(entry.text());
        if (entry.kind() == v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION && what.isEmpty()) what = annotationLabel(entry);
        row->setText(What, what);
        row->setToolTip(What, what);
        row->setForeground(Kind, widgets::annotationColor(annotationKind(entry, incident.severity()), theme));
        ++m_entryRows;
    }
}

}  // namespace watchfloor::ui
