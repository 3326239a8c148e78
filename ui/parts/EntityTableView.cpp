#include "EntityTableView.h"

#include <QEvent>

#include "FreshnessDelegate.h"

#include "FleetStore.h"
#include "ModelRoles.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>

#include <QMenu>
#include <QSortFilterProxyModel>
#include <algorithm>

namespace watchfloor::ui {

void setUpReadOnlyTable(QTableView& table) {
    table.setSelectionBehavior(QAbstractItemView::SelectRows);
    table.setSelectionMode(QAbstractItemView::SingleSelection);
    table.setEditTriggers(QAbstractItemView::NoEditTriggers);
    table.setAlternatingRowColors(true);
    table.setShowGrid(false);
    table.setWordWrap(false);
    table.verticalHeader()->hide();
    table.horizontalHeader()->setStretchLastSection(true);
}

EntityTableView::EntityTableView(const client::FleetStore& store, QAbstractItemModel* model, QWidget* parent)
    : QTableView(parent), m_store(store), m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(client::SortRole);
    // Live values change ~once a second; re-sorting on every dataChanged would make rows jump
    // under the operator's cursor, so the table re-sorts when the header is clicked.
    m_proxy->setDynamicSortFilter(false);
    setModel(m_proxy);
    setItemDelegate(new FreshnessDelegate(this));
    setSortingEnabled(true);
    setUpReadOnlyTable(*this);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    horizontalHeader()->setHighlightSections(false);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &EntityTableView::showMenu);
    connect(this, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        const client::EntityId id = entityAtRow(index.row());
        if (id.isValid()) emit entityActivated(id);
    });
}

client::EntityId EntityTableView::entityAtRow(int viewRow) const {
    return m_proxy->index(viewRow, 0).data(client::EntityIdRole).value<client::EntityId>();
}

void EntityTableView::fitColumnsToContents(int maxWidth, bool growOnly) {
    QHeaderView* header = horizontalHeader();
    for (int c = 0; c + 1 < header->count(); ++c) {  // the last one stretches
        const int wanted = std::min(maxWidth, columnWidthWanted(c));
        if (wanted > header->sectionSize(c) || (!growOnly && wanted != header->sectionSize(c)))
            header->resizeSection(c, wanted);
    }
}

int EntityTableView::columnWidthWanted(int column) const {
    return std::max(sizeHintForColumn(column), horizontalHeader()->sectionSizeHint(column));
}

void EntityTableView::setReadOnlyWall(bool wall) {
    setContextMenuPolicy(wall ? Qt::NoContextMenu : Qt::CustomContextMenu);
    setSortingEnabled(!wall);
}

void EntityTableView::setMenuExtension(std::function<void(QMenu&, int)> extension) {
    m_menuExtension = std::move(extension);
}

// Rows as tall as the type: the wall's larger font would otherwise draw each row over the next.
void EntityTableView::changeEvent(QEvent* event) {
    QTableView::changeEvent(event);
    if (event->type() == QEvent::FontChange) verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
}

void EntityTableView::showMenu(const QPoint& pos) {
    const QModelIndex index = indexAt(pos);
    if (!index.isValid()) return;
    QMenu menu(this);
    populateMenu(menu, index);
    menu.exec(viewport()->mapToGlobal(pos));
}

void EntityTableView::populateMenu(QMenu& menu, const QModelIndex& index) {
    const client::EntityId id = entityAtRow(index.row());
    const QString name = m_store.name(id);
    const QString cell = index.data(Qt::DisplayRole).toString();
    if (!name.isEmpty()) {
        menu.addAction(QStringLiteral("Open %1").arg(name), this, [this, id] { emit entityActivated(id); });
        menu.addAction(QStringLiteral("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
    }
    menu.addAction(QStringLiteral("Copy cell"), this, [cell] { QApplication::clipboard()->setText(cell); });
    if (m_menuExtension) m_menuExtension(menu, index.row());
}

}  // namespace watchfloor::ui
