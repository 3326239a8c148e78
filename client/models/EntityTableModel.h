#pragma once
// Base of the table models whose rows are entities (racks, nodes, jobs) and whose columns are
// declared as data: a title plus either a numeric reader (→ Reading, formatted with unit and
// freshness) or a text reader. Subclasses say which entities are rows and how FleetStore changes
// map to rows; this class turns dirty rows into one dataChanged per contiguous range, with the
// value roles only.

#include "EntityId.h"
#include "FleetChangeSet.h"
#include "Freshness.h"

#include <QAbstractTableModel>

#include <functional>
#include <vector>

namespace watchfloor::client {

class FleetStore;

struct EntityColumn {
    QString title;
    std::function<Reading(const FleetStore&, EntityId)> number;  // numeric column, or
    std::function<QString(const FleetStore&, EntityId)> text;    // text column
    int decimals = 1;
    QString unit;
    // Optional, numeric columns: why this row has no number at all (e.g. "no step telemetry").
    // Non-empty = that text is shown dim instead of a value, and the row sorts as missing.
    std::function<QString(const FleetStore&, EntityId)> unavailable;
    // Optional, text columns: how far the text can be trusted (default Fresh), e.g. a silent
    // tray's telemetry column.
    std::function<Freshness(const FleetStore&, EntityId)> textFreshness;
    // Optional, text columns: the cell's tooltip (the whole story behind a short text).
    std::function<QString(const FleetStore&, EntityId)> tooltip;
};

inline EntityColumn textColumn(QString title, std::function<QString(const FleetStore&, EntityId)> text) {
    EntityColumn c;
    c.title = std::move(title);
    c.text = std::move(text);
    return c;
}

inline EntityColumn numberColumn(QString title, std::function<Reading(const FleetStore&, EntityId)> number,
                                 int decimals, QString unit) {
    EntityColumn c;
    c.title = std::move(title);
    c.number = std::move(number);
    c.decimals = decimals;
    c.unit = std::move(unit);
    return c;
}

class EntityTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    EntityTableModel(const FleetStore& store, std::vector<EntityColumn> columns, QObject* parent);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    EntityId entityAt(int row) const;
    int rowOf(EntityId id) const;

protected:
    // The rows, re-read on reset. Must only grow between resets (appendRows).
    virtual std::vector<EntityId> currentRows() const = 0;
    virtual void onStoreChanged(const FleetChangeSet& changes) = 0;

    void resetRows();
    void appendRows(int count);
    // One dataChanged per contiguous run of `sortedRows`.
    void rowsChanged(const std::vector<int>& sortedRows);
    void allRowsChanged();

    const FleetStore& m_store;

private:
    static const QList<int>& valueRoles();
    std::vector<EntityColumn> m_columns;
    std::vector<EntityId> m_rows;
};

}  // namespace watchfloor::client
