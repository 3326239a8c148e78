#pragma once
// Custom roles shared by the console's item models. Views draw from DisplayRole; delegates and
// proxies use these to style stale/blank values and to sort and filter without parsing text.

#include <Qt>

namespace watchfloor::client {

enum ModelRole {
    EntityIdRole = Qt::UserRole + 1,  // EntityId of the row
    ValueRole,                        // double; NaN when there is no reading
    FreshnessRole,                    // int(Freshness)
    AgeMsRole,                        // qint64 age of the value in ms (server clock); -1 if none
    SortRole,                         // double for numbers (missing sorts lowest), QString for text
    SeverityRole,                     // int(watchfloor::v1::Severity), event models
    EventTypeRole,                    // int(watchfloor::v1::EventType), event models
    EventSerialRole,                  // quint64, event models
    MinorRole,                        // bool: a row that matters less than the rows above it, drawn dim
};

}  // namespace watchfloor::client
