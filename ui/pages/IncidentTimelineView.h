#pragma once
// An incident's timeline as a table, oldest first: time, what kind of entry (member event, state
// change, operator action, note), who, and the line fleetd wrote. fleetd sends the first 16 and
// the newest 48 entries of a long timeline: a row between them says how many are not shown.

#include "watchfloor/v1/fleet.pb.h"

#include <QTreeWidget>

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class IncidentTimelineView : public QTreeWidget {
    Q_OBJECT
public:
    enum Column { Time, Kind, Who, What, ColumnCount };

    explicit IncidentTimelineView(QWidget* parent = nullptr);

    void setIncident(const watchfloor::v1::Incident& incident, const widgets::Theme& theme);
    // Rows that are timeline entries (not the "not shown" row).
    int entryRowCount() const { return m_entryRows; }
    static QString kindWord(watchfloor::v1::TimelineEntryKind kind);

private:
    int m_entryRows = 0;
};

}  // namespace watchfloor::ui
