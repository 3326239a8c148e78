#pragma once
// The drill-down's lower half: why the selected tray is slow (StragglerCauses: one row per cause
// family, the implicated ones marked), a one-line verdict, and the proposed action — the
// fail-slow ladder's eviction of the tray, opened in the ordinary drain dialog (preview, reason,
// execute), never executed from here.

#include "OperatorActions.h"

#include "EntityId.h"
#include "NicPortCounters.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

struct StragglerCause;

class StragglerCausePanel : public QWidget {
    Q_OBJECT
public:
    StragglerCausePanel(const client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);
    void setTheme(const widgets::Theme& theme);

    // The tray, its job, the journal's events about it and its ports' counters; `slowdown`: its
    // step time over the median tray's in the heat map's range (NaN: unknown).
    void showTray(client::EntityId job, client::EntityId tray, double slowdown,
                  const std::vector<watchfloor::v1::Event>& events, const client::NicPortCounters& ib);
    // While the events are being fetched, or why they could not be.
    void setStatus(const QString& text);

    QTableWidget* causes() const { return m_causes; }
    QLabel* verdict() const { return m_verdict; }
    QPushButton* actionButton() const { return m_action; }

private:
    void offerEviction(client::EntityId job, client::EntityId tray);

    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    QLabel* m_title;
    QTableWidget* m_causes;
    QLabel* m_verdict;
    QPushButton* m_action;
    ActionDraft m_draft;
};

}  // namespace watchfloor::ui
