#pragma once
// The Repairs view's table: fleetd's repair cases over every endpoint (client/RepairCases.h
// repairCaseRows): open ones first, the longest open on top, then the newest closed. Columns: the
// tray, the case's state, the fault, its step (running, proposed next, or how it closed), how long
// it has been open (closed: the time to repair), who took the last step by hand ("auto" for
// automation) and the GPU-hours the tray has been out. EntityIdRole is the tray (a row opens its
// rack), SortRole sorts numbers as numbers. Rebuilt when cases change; ages follow the fleet clock.

#include "FleetChangeSet.h"
#include "RepairCases.h"

#include <QAbstractTableModel>

#include <vector>

namespace watchfloor::client {

class FleetStore;

class RepairCaseModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Tray, State, Fault, Step, Age, Owner, OutOfService, ColumnCount };
    // The closed cases listed after the open ones (the newest).
    static constexpr int kClosedShown = 50;

    explicit RepairCaseModel(const FleetStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const RepairCaseRow* caseAt(int row) const;
    // The row of a case (endpoint, id), or -1.
    int rowOf(int endpoint, std::uint64_t caseId) const;
    int openCount() const { return m_open; }
    void refresh();

private:
    const FleetStore& m_store;
    std::vector<RepairCaseRow> m_rows;
    int m_open = 0;
};

}  // namespace watchfloor::client
