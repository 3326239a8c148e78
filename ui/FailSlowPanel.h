#pragma once
// The fail-slow ladder's findings on the Goodput page (fleet.proto FailSlowFinding): each slow
// tray of the fleet's jobs (or of one job) with its slowdown, the windows it was slow in, what
// evicting it is worth a day against what the restart costs, and where it stands (observed,
// proposed, refused by automation, evicting). A proposed tray has a button that opens the drain
// dialog (preview, reason, execute through the console's control connection), when this operator
// may act on its fleetd.

#include "client/EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

class OperatorActions;

// "observed (2/3 windows)", "proposed", "refused by automation: …", "evicting (op-…)".
QString failSlowStageText(const watchfloor::v1::FailSlowFinding& finding);

class FailSlowPanel : public QWidget {
    Q_OBJECT
public:
    // `actions` may be null (wall display): no buttons.
    FailSlowPanel(const client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);

    // Invalid `job`: every job's findings.
    void refresh(client::EntityId job);
    QTableWidget* table() const { return m_table; }

    enum Column { Job, Tray, Slowdown, Windows, Gain, Cost, Stage, Action, ColumnCount };

private:
    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    QLabel* m_note;
    QTableWidget* m_table;
};

}  // namespace watchfloor::ui
