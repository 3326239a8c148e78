#pragma once
// The Alerts dock beside every page: the newest warning and critical events, newest first.
// Double-click (or Enter) opens the entity's page; the context menu copies the entity name or the
// message and, for an operator, acknowledges the event.

#include "NavigationHistory.h"

#include <QDockWidget>

class QListWidget;
class QMenu;

namespace watchfloor::client {
class FleetStore;
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class OperatorActions;

class IncidentsDock : public QDockWidget {
    Q_OBJECT
public:
    // `actions` null: no acknowledge entry (war room, viewers).
    IncidentsDock(const client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme);
    int incidentCount() const;
    // The context menu of a row (what a right-click shows): open, copy, acknowledge.
    void populateMenu(QMenu& menu, int row);

signals:
    void navigationRequested(const watchfloor::ui::Location& location);

private:
    void rebuild();
    void showContextMenu(const QPoint& pos);

    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    QListWidget* m_list;
};

}  // namespace watchfloor::ui
