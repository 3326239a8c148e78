#pragma once
// The pages a rewound console shows: the Fleet page (rack map) and the Rack page, built on the
// past FleetStore (client::PastFleet) with no actions (nothing can be done to the past) and no
// connections (no live history backfill). Clicking between them stays in the past; anywhere else
// asks to leave the past (leaveRequested).

#include "NavigationHistory.h"

#include <QWidget>

class QStackedWidget;

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class FleetPage;
class Page;
class RackPage;

class RewindView : public QWidget {
    Q_OBJECT
public:
    RewindView(client::FleetStore& past, QWidget* parent = nullptr);

    // Shows a Fleet or Rack location; any other page shows the Fleet page.
    void show(const Location& location);
    Location location() const;
    void setActive(bool active);
    void applyTheme(const widgets::Theme& theme);
    FleetPage* fleetPage() const { return m_fleet; }
    RackPage* rackPage() const { return m_rack; }

signals:
    void leaveRequested(const watchfloor::ui::Location& location);

private:
    void onNavigation(const Location& location);
    Page* current() const;

    QStackedWidget* m_stack;
    FleetPage* m_fleet;
    RackPage* m_rack;
};

}  // namespace watchfloor::ui
