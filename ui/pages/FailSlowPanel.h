#pragma once
// The fail-slow ladder's findings on the Goodput page (fleet.proto FailSlowFinding): each slow
// tray of the fleet's jobs (or of one job) with its slowdown, the windows it was slow in, what
// evicting it is worth a day against what the restart costs, and where it stands (observed,
// proposed, refused by automation, evicting). A proposed tray has a button that opens the drain
// dialog (preview, reason, execute through the console's control connection), when this operator
// may act on its fleetd; every row opens the job's straggler drill-down.

#include "OperatorActions.h"
#include "PageContext.h"

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class FailSlowPanel : public QWidget {
    Q_OBJECT
public:
    // Without context.actions (wall display) there are no Evict buttons; "Step times…" opens the
    // straggler drill-down (StragglerDrillDown) wherever fleetd can be asked.
    explicit FailSlowPanel(const PageContext& context, QWidget* parent = nullptr);
    void setTheme(const widgets::Theme& theme) { m_theme = &theme; }

    // Invalid `job`: every job's findings.
    void refresh(client::EntityId job);
    QTableWidget* table() const { return m_table; }

    enum Column { Job, Tray, Slowdown, Windows, Gain, Cost, Stage, DrillDown, Action, ColumnCount };

private:
    void addDrillDownButton(int row, client::EntityId job, const watchfloor::v1::FailSlowFinding& finding);

    PageContext m_context;
    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    QLabel* m_note;
    QTableWidget* m_table;
};

}  // namespace watchfloor::ui
