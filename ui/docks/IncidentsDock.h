#pragma once
// The Alerts dock beside every page. On top, fleetd's incidents (open first, then recently
// resolved): root cause, member alerts, scope, age and goodput cost, each expandable to its
// member events. Below, the warning and critical events that belong to no incident, newest
// first. Double-click (or Enter) opens the incident's page (an alert: its entity's page); an
// incident's context menu opens it or its cause, an alert's copies the entity name or the message
// and, for an operator, acknowledges the event. Under the lists, the selected Xid's recommended
// break/fix step as a button ("Power-cycle r01-n04…"), for an operator only.

#include "NavigationHistory.h"

#include <QDockWidget>

class QListWidget;
class QMenu;
class QTreeWidget;

namespace watchfloor::client {
class FleetStore;
struct FleetChangeSet;
}  // namespace watchfloor::client
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class ActionBar;
class OperatorActions;

class IncidentsDock : public QDockWidget {
    Q_OBJECT
public:
    // `actions` null: no acknowledge entry (war room, viewers).
    IncidentsDock(const client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme);
    int incidentCount() const;  // incident rows (open and recently resolved)
    int alertCount() const;     // rows of alerts in no incident
    // The context menu of an alert row (what a right-click shows): open, copy, acknowledge.
    void populateMenu(QMenu& menu, int row);
    // The context menu of an incident row (by top-level index): open the cause, copy the title
    // and, for an operator, the lifecycle steps fleetd allows it now.
    void populateIncidentMenu(QMenu& menu, int row);
    // Asks for the Incident page of that incident row; false for no such row.
    bool openIncident(int row);
    // The selected alert's (or incident member's) recommended break/fix step; hidden without one.
    ActionBar* stepBar() const { return m_stepBar; }
    // Selects the alert row (list of alerts in no incident) as a click does.
    void selectAlert(int row);

signals:
    void navigationRequested(const watchfloor::ui::Location& location);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void fitIncidentRows();
    void rebuildIncidents(std::vector<std::uint64_t>* memberKeys);
    void showContextMenu(const QPoint& pos);

    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    QTreeWidget* m_tree;
    QListWidget* m_list;
    ActionBar* m_stepBar;
    quint64 m_selectedSerial = 0;  // the selected event (store serial); 0 = none
};

}  // namespace watchfloor::ui
