#include "EventFilterProxyModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"

namespace watchfloor::client {

EventFilterProxyModel::EventFilterProxyModel(const FleetStore& store, QObject* parent)
    : QSortFilterProxyModel(parent), m_store(store) {}

void EventFilterProxyModel::setMinimumSeverity(int severity) {
    m_minSeverity = severity;
    invalidateRowsFilter();
}

void EventFilterProxyModel::setTypes(const QSet<int>& types) {
    m_types = types;
    invalidateRowsFilter();
}

void EventFilterProxyModel::setEntity(EntityId entity) {
    m_entity = entity;
    invalidateRowsFilter();
}

bool EventFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const QVariant severity = index.data(SeverityRole);
    if (!severity.isValid()) {
        return false;  // the store already dropped it
    }
    if (severity.toInt() < m_minSeverity) return false;
    if (!m_types.isEmpty() && !m_types.contains(index.data(EventTypeRole).toInt())) return false;
    if (m_entity.isValid()) {
        const quint64 serial = index.data(EventSerialRole).toULongLong();
        const StoredEvent* e = m_store.eventBySerial(serial);
        if (!e) return false;
        if (m_store.isWithin(m_store.eventEntity(*e), m_entity)) return true;
        for (std::uint32_t related : e->event.related_entity_indexes()) {
            if (m_store.isWithin(EntityId{quint16(e->endpoint), related}, m_entity)) return true;
        }
        return false;
    }
    return true;
}

}  // namespace watchfloor::client
