#pragma once
// The Links page's "Links at risk": fleetd's listed rail links over every endpoint, worst first
// (client/LinkRiskModel: verdict, both ends' BER, P 1 h / 6 h / 24 h, the time to the Error line,
// the top influencer, the jobs and GPU-hours at stake, the stage's reason; the links only elevated
// behind a line under the list, "Show 12 elevated links…", dim once shown), fleetd's link summary
// in a line above, and the selected link's BER history beside it (widgets/BerHistoryChart: the
// 30-min buckets, a quiet one as its upper bound, the Warning and Error lines, the forecast's fan to
// the line). An empty list says why (client::linksAtRiskEmptyText). Under the list, the selected
// link's ladder steps (isolate, record a treatment, return) open the ordinary action dialog, for an
// operator who may act on its fleetd (OperatorActions::draftsForLink).

#include "OperatorActions.h"

#include "EntityId.h"

#include "BerHistoryChart.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace watchfloor::client {
class FleetStore;
class LinkRiskModel;
struct FleetChangeSet;
}  // namespace watchfloor::client

namespace watchfloor::ui {

class EntityTableView;

// One link's chart: its buckets oldest first (a quiet bucket at its 95 % upper bound, flagged, never
// at its point of 0), the Normal / Warning / Error lines, and the fan from the newest bucket to the
// Error line between the forecast's earliest and latest crossing (to the Warning line when only
// that crossing is in view; none once the errors prove it over the Error line). `nowMs`: the
// endpoint's fleet clock, from which the forecast's hours count.
widgets::BerChartData berChartData(const watchfloor::v1::LinkHealth& link, const QString& name, std::int64_t nowMs);

class LinksAtRiskPanel : public QWidget {
    Q_OBJECT
public:
    // `actions` null: no ladder steps (the war room, read-only pages).
    LinksAtRiskPanel(client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme);
    void setReadOnlyWall(bool wall);
    // Selects a listed port's row (and charts it), showing the elevated links when it is one of
    // them; false when the port is not listed.
    bool selectLink(client::EntityId port);
    client::EntityId selectedLink() const;

    client::LinkRiskModel* model() const { return m_model; }
    EntityTableView* table() const { return m_table; }
    widgets::BerHistoryChart* chart() const { return m_chart; }
    // The selected link's ladder steps, one button each ("Isolate link r05-n03-ib1…").
    QList<QPushButton*> ladderButtons() const;
    // The line above the list, and the sentence shown in place of an empty list.
    QString summaryText() const;
    QString emptyText() const;
    bool showsEmptyText() const;
    // The line under the list that shows or hides the elevated links (hidden while there are none).
    QPushButton* elevatedToggle() const { return m_elevatedToggle; }

signals:
    // Double-click or Enter on a row: the link's NIC port.
    void linkActivated(watchfloor::client::EntityId port);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    bool selectShown(client::EntityId port);
    void refreshElevatedToggle();
    // Every column as wide as its words; when they overflow the list's width, the BER, then the
    // top influencer give up width (their tooltips have it all) so the GPU-hours at stake, last and
    // stretched, keep theirs; width to spare goes to a column held to the cap.
    void fitColumns();
    void refreshChart();
    void refreshLadder();

    client::FleetStore& m_store;
    client::LinkRiskModel* m_model;
    QLabel* m_summary;
    QStackedWidget* m_stack;
    QLabel* m_empty;
    EntityTableView* m_table;
    QPushButton* m_elevatedToggle;
    widgets::BerHistoryChart* m_chart;
    OperatorActions* m_actions;
    QHBoxLayout* m_ladderRow;
    QLabel* m_ladderStage;
    QList<QPushButton*> m_ladderButtons;
    QString m_ladderShown;  // the drafts the buttons show, so a rebuild of the list keeps them
    client::EntityId m_selected;
};

}  // namespace watchfloor::ui
