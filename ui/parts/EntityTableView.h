#pragma once
// A table of entities (racks, nodes, jobs, events) as every page shows them: sortable through a
// proxy on the models' SortRole, uniform rows, double-click or Enter to open the entity, and a
// context menu with "Copy name" (and whatever the page adds, e.g. operator actions), stale and
// missing values drawn as such (FreshnessDelegate). Hidden columns and widths are the page's
// business.

#include "EntityId.h"

#include <QTableView>

#include <functional>

class QMenu;

class QSortFilterProxyModel;

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// The look and behaviour every read-only table of the console shares: whole-row single
// selection, no editing, alternating rows, no grid, one line per row, last column stretched.
void setUpReadOnlyTable(QTableView& table);

class EntityTableView : public QTableView {
    Q_OBJECT
public:
    // Rows must carry their EntityId in client::EntityIdRole (every client model does).
    EntityTableView(const client::FleetStore& store, QAbstractItemModel* model, QWidget* parent = nullptr);

    QSortFilterProxyModel* proxy() const { return m_proxy; }
    client::EntityId entityAtRow(int viewRow) const;
    void setReadOnlyWall(bool wall);
    // Columns as wide as their text and header (at most `maxWidth`; longer text elides, its
    // tooltip has it all). growOnly: never narrower than now, so live values do not make the
    // columns jitter; false re-fits (a new rack).
    void fitColumnsToContents(int maxWidth, bool growOnly);
    // How wide a column wants to be: its widest cell or its header.
    int columnWidthWanted(int column) const;
    // Called after the standard entries of a row's context menu, with the row (view order).
    void setMenuExtension(std::function<void(QMenu& menu, int viewRow)> extension);
    // The context menu for a cell; what a right-click shows.
    void populateMenu(QMenu& menu, const QModelIndex& index);

signals:
    void entityActivated(watchfloor::client::EntityId id);

protected:
    void changeEvent(QEvent* event) override;

private:
    void showMenu(const QPoint& pos);

    const client::FleetStore& m_store;
    QSortFilterProxyModel* m_proxy;
    std::function<void(QMenu&, int)> m_menuExtension;
};

}  // namespace watchfloor::ui
