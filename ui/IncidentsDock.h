#pragma once
// The dock beside every page: the newest warning and critical events, newest first. Double-click
// (or Enter) opens the entity's page; the context menu copies the entity name or the message.

#include "NavigationHistory.h"

#include <QDockWidget>

class QListWidget;

namespace watchfloor::client {
class FleetStore;
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class IncidentsDock : public QDockWidget {
    Q_OBJECT
public:
    IncidentsDock(const client::FleetStore& store, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme);
    int incidentCount() const;

signals:
    void navigationRequested(const watchfloor::ui::Location& location);

private:
    void rebuild();
    void showContextMenu(const QPoint& pos);

    const client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    QListWidget* m_list;
};

}  // namespace watchfloor::ui
