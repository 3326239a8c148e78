#include "EntityTableModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"
#include "ValueFormat.h"

#include <cmath>
#include <limits>

namespace watchfloor::client {

EntityTableModel::EntityTableModel(const FleetStore& store, std::vector<EntityColumn> columns, QObject* parent)
    : QAbstractTableModel(parent), m_store(store), m_columns(std::move(columns)) {
    connect(&store, &FleetStore::changed, this, [this](const FleetChangeSet& c) { onStoreChanged(c); });
}

int EntityTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int EntityTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_columns.size());
}

EntityId EntityTableModel::entityAt(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? m_rows[std::size_t(row)] : EntityId{};
}

int EntityTableModel::rowOf(EntityId id) const {
    const auto it = std::find(m_rows.begin(), m_rows.end(), id);
    return it == m_rows.end() ? -1 : int(it - m_rows.begin());
}

QVariant EntityTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const EntityId id = m_rows[std::size_t(index.row())];
    const EntityColumn& column = m_columns[std::size_t(index.column())];
    if (role == EntityIdRole) {
        return QVariant::fromValue(id);
    }
    if (column.text) {
        switch (role) {
        case Qt::DisplayRole:
        case SortRole: return column.text(m_store, id);
        case FreshnessRole: return int(column.textFreshness ? column.textFreshness(m_store, id) : Freshness::Fresh);
        case Qt::ToolTipRole: return column.tooltip ? QVariant(column.tooltip(m_store, id)) : QVariant();
        default: return {};
        }
    }
    if (const QString why = column.unavailable ? column.unavailable(m_store, id) : QString(); !why.isEmpty()) {
        switch (role) {
        case Qt::DisplayRole:
        case Qt::ToolTipRole: return why;
        case ValueRole: return std::numeric_limits<double>::quiet_NaN();
        case SortRole: return -std::numeric_limits<double>::max();
        case FreshnessRole: return int(Freshness::Missing);  // drawn dim, like any absent value
        case AgeMsRole: return qint64(-1);
        case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        default: return {};
        }
    }
    const Reading r = column.number(m_store, id);
    switch (role) {
    case Qt::DisplayRole: return formatReading(r, column.unit, column.decimals, ReadingText::ValueOnly);
    case ValueRole: return r.hasValue() ? double(r.value) : std::numeric_limits<double>::quiet_NaN();
    case SortRole: return r.hasValue() && !std::isnan(r.value) ? double(r.value) : -std::numeric_limits<double>::max();
    case FreshnessRole: return int(r.freshness);
    case AgeMsRole: return r.freshness == Freshness::Missing ? qint64(-1) : qint64(r.age.count());
    case Qt::ToolTipRole:
        return QStringLiteral("%1 (%2, %3)")
            .arg(formatReading(r, column.unit, column.decimals, ReadingText::ValueOnly), displayName(r.freshness),
                 formatAge(r));
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    default: return {};
    }
}

QVariant EntityTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= int(m_columns.size())) {
        return {};
    }
    return m_columns[std::size_t(section)].title;
}

QHash<int, QByteArray> EntityTableModel::roleNames() const {
    auto names = QAbstractTableModel::roleNames();
    names.insert(EntityIdRole, "entityId");
    names.insert(ValueRole, "value");
    names.insert(FreshnessRole, "freshness");
    names.insert(AgeMsRole, "ageMs");
    names.insert(SortRole, "sortKey");
    return names;
}

const QList<int>& EntityTableModel::valueRoles() {
    static const QList<int> roles{Qt::DisplayRole, ValueRole, SortRole, FreshnessRole, AgeMsRole, Qt::ToolTipRole};
    return roles;
}

void EntityTableModel::resetRows() {
    beginResetModel();
    m_rows = currentRows();
    endResetModel();
}

void EntityTableModel::appendRows(int count) {
    if (count <= 0) return;
    std::vector<EntityId> rows = currentRows();
    const int first = int(m_rows.size());
    const int last = std::min(int(rows.size()), first + count) - 1;
    if (last < first) return;
    beginInsertRows({}, first, last);
    m_rows.assign(rows.begin(), rows.begin() + last + 1);
    endInsertRows();
}

void EntityTableModel::rowsChanged(const std::vector<int>& sortedRows) {
    const int lastColumn = int(m_columns.size()) - 1;
    const int rowLimit = int(m_rows.size());
    std::size_t i = 0;
    while (i < sortedRows.size()) {
        const int first = sortedRows[i];
        int last = first;
        while (i + 1 < sortedRows.size() && sortedRows[i + 1] <= last + 1) {
            last = std::max(last, sortedRows[++i]);
        }
        ++i;
        if (first >= 0 && last < rowLimit && lastColumn >= 0) {
            emit dataChanged(index(first, 0), index(last, lastColumn), valueRoles());
        }
    }
}

void EntityTableModel::allRowsChanged() {
    if (!m_rows.empty() && !m_columns.empty()) {
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, int(m_columns.size()) - 1), valueRoles());
    }
}

}  // namespace watchfloor::client
