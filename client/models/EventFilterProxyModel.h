#pragma once
// Filters EventListModel by minimum severity, event types and entity (the entity itself or
// anything inside it, e.g. a rack shows its nodes', GPUs' and links' events).

#include "EntityId.h"

#include <QSet>
#include <QSortFilterProxyModel>

namespace watchfloor::client {

class FleetStore;

class EventFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit EventFilterProxyModel(const FleetStore& store, QObject* parent = nullptr);

    void setMinimumSeverity(int severity);  // watchfloor::v1::Severity
    void setTypes(const QSet<int>& types);  // watchfloor::v1::EventType; empty = all
    void setEntity(EntityId entity);        // invalid = all
    int minimumSeverity() const { return m_minSeverity; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    const FleetStore& m_store;
    int m_minSeverity = 0;
    QSet<int> m_types;
    EntityId m_entity;
};

}  // namespace watchfloor::client
