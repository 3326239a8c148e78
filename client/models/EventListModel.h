#pragma once
// The fleet's event timeline, newest first, bounded by FleetStore (e.g. the last 10,000).
// New events arrive as ONE beginInsertRows at the top per store notification; events the store
// dropped leave as ONE beginRemoveRows at the bottom. Rows are addressed through the store's
// event serials, so the model holds no copy of the events.

#include "FleetChangeSet.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QAbstractTableModel>

namespace watchfloor::client {

class FleetStore;

class EventListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Time, Severity, Type, Entity, Message, ColumnCount };

    explicit EventListModel(const FleetStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    quint64 serialAt(int row) const { return m_nextSerial - 1 - quint64(row); }

private:
    void onStoreChanged(const FleetChangeSet& changes);

    const FleetStore& m_store;
    quint64 m_firstSerial = 0;  // oldest shown (bottom row)
    quint64 m_nextSerial = 0;   // one past the newest shown (top row)
};

QString toString(watchfloor::v1::Severity severity);
QString toString(watchfloor::v1::EventType type);

}  // namespace watchfloor::client
