#include "EventListModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"

#include <QDateTime>
#include <QTimeZone>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString toString(v1::Severity severity) {
    switch (severity) {
    case v1::SEVERITY_INFO: return QStringLiteral("info");
    case v1::SEVERITY_WARNING: return QStringLiteral("warning");
    case v1::SEVERITY_CRITICAL: return QStringLiteral("critical");
    default: return QStringLiteral("unknown");
    }
}

QString toString(v1::EventType type) {
    if (type == v1::EVENT_TYPE_SOURCE) return QStringLiteral("telemetry source");  // "source" alone says nothing
    // "EVENT_TYPE_LINK_FLAP" -> "link flap"
    QString name = QString::fromStdString(v1::EventType_Name(type));
    name.remove(QStringLiteral("EVENT_TYPE_"));
    return name.isEmpty() ? QStringLiteral("unknown") : name.toLower().replace(QLatin1Char('_'), QLatin1Char(' '));
}

EventListModel::EventListModel(const FleetStore& store, QObject* parent)
    : QAbstractTableModel(parent),
      m_store(store),
      m_firstSerial(store.firstEventSerial()),
      m_nextSerial(store.nextEventSerial()) {
    connect(&store, &FleetStore::changed, this, &EventListModel::onStoreChanged);
}

int EventListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_nextSerial - m_firstSerial);
}

int EventListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const quint64 serial = serialAt(index.row());
    const StoredEvent* stored = m_store.eventBySerial(serial);
    if (!stored) {
        return {};  // dropped by the store; this row leaves at the next notification
    }
    const v1::Event& e = stored->event;
    switch (role) {
    case EntityIdRole: return QVariant::fromValue(m_store.eventEntity(*stored));
    case SeverityRole: return int(e.severity());
    case EventTypeRole: return int(e.type());
    case EventSerialRole: return serial;
    case SortRole:
        if (index.column() == Time) return qint64(e.time_unix_ms());
        if (index.column() == Severity) return int(e.severity());
        break;
    case Qt::ToolTipRole:
        if (e.has_xid()) {
            return QStringLiteral("Xid %1 %2: %3")
                .arg(e.xid().xid())
                .arg(QString::fromStdString(e.xid().mnemonic()), QString::fromStdString(e.xid().fleet_policy()));
        }
        return QString::fromStdString(e.message());
    default: break;
    }
    if (role != Qt::DisplayRole && role != SortRole) {
        return {};
    }
    switch (index.column()) {
    case Time:
        if (role == SortRole) return qint64(e.time_unix_ms());
        // The column header says UTC; "T" and "+00:00" only made the time harder to read.
        return QDateTime::fromMSecsSinceEpoch(e.time_unix_ms(), QTimeZone::utc())
            .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Severity: return toString(e.severity());
    case Type: return toString(e.type());
    case Entity: return m_store.name(m_store.eventEntity(*stored));
    case Message: return QString::fromStdString(e.message());
    default: return {};
    }
}

QVariant EventListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Time: return QStringLiteral("Time (UTC)");
    case Severity: return QStringLiteral("Severity");
    case Type: return QStringLiteral("Type");
    case Entity: return QStringLiteral("Entity");
    case Message: return QStringLiteral("Message");
    default: return {};
    }
}

void EventListModel::onStoreChanged(const FleetChangeSet& changes) {
    if (changes.eventsAdded == 0 && changes.eventsTrimmed == 0 && !changes.topologyChanged) {
        return;
    }
    const quint64 storeFirst = m_store.firstEventSerial();
    const quint64 storeNext = m_store.nextEventSerial();
    if (rowCount() == 0) {
        m_firstSerial = m_nextSerial = storeFirst;  // nothing shown: everything is an insert
    } else if (storeFirst >= m_nextSerial) {
        // Everything shown was dropped (a burst larger than the bound): start over.
        beginResetModel();
        m_firstSerial = storeFirst;
        m_nextSerial = storeNext;
        endResetModel();
        return;
    }
    if (storeFirst > m_firstSerial) {
        const int rows = rowCount();
        const int dropped = int(storeFirst - m_firstSerial);
        beginRemoveRows({}, rows - dropped, rows - 1);
        m_firstSerial = storeFirst;
        endRemoveRows();
    }
    if (storeNext > m_nextSerial) {
        beginInsertRows({}, 0, int(storeNext - m_nextSerial) - 1);
        m_nextSerial = storeNext;
        endInsertRows();
    }
    if (changes.topologyChanged && rowCount() > 0) {
        emit dataChanged(index(0, Entity), index(rowCount() - 1, Entity), {Qt::DisplayRole});  // names may differ
    }
}

}  // namespace watchfloor::client
