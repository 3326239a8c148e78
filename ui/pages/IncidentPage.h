#pragma once
// Incident page: one of fleetd's incidents. Header: id, probable root cause, state, owner, age,
// goodput cost and blast radius (KPI cards); the lifecycle steps fleetd allows it now (buttons
// through the action dialog, for an operator); its timeline (member events, state changes,
// operator actions, notes); the racks and trays it touches on a mini rack map; and charts of the
// root cause's rack (hottest GPU, power) and of the first job it hit (goodput), annotated with
// the incident's timeline. Opened from the Alerts dock; its location's entity is the incident key
// (IncidentList.h: "7", or "<endpoint>/7").

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

#include <QTimer>

#include <cstdint>
#include <vector>

namespace watchfloor::client {
struct FleetChangeSet;
}
namespace watchfloor::v1 {
class Incident;
}
namespace watchfloor::widgets {
class TimeSeriesChart;
}

namespace watchfloor::ui {

class ActionBar;
class HistoryChartBinding;
class IncidentRackMap;
class IncidentTimelineView;
class KpiStrip;
class PageHeader;

class IncidentPage : public Page {
    Q_OBJECT
public:
    IncidentPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Incident; }
    // An incident key; empty: the dock's first incident (the worst open one).
    bool showEntity(const QString& name) override;
    QString entity() const override;
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    // The incident shown, or null (none yet, or fleetd no longer holds it).
    const watchfloor::v1::Incident* incident() const;
    PageHeader* header() const { return m_header; }
    KpiStrip* facts() const { return m_facts; }
    ActionBar* actionBar() const { return m_actions; }
    IncidentTimelineView* timeline() const { return m_timeline; }
    IncidentRackMap* rackMap() const { return m_map; }
    widgets::TimeSeriesChart* rackChart() const { return m_rackChart; }
    widgets::TimeSeriesChart* jobChart() const { return m_jobChart; }

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void refresh();
    void refreshFacts(const watchfloor::v1::Incident& incident);
    void bindCharts(const watchfloor::v1::Incident& incident);
    void refreshCharts();
    client::EntityId chartedRack(const watchfloor::v1::Incident& incident) const;

    PageContext m_context;
    client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    int m_endpoint = -1;
    std::uint64_t m_id = 0;
    PageHeader* m_header;
    KpiStrip* m_facts;
    ActionBar* m_actions;
    IncidentTimelineView* m_timeline;
    IncidentRackMap* m_map;
    widgets::TimeSeriesChart* m_rackChart;
    widgets::TimeSeriesChart* m_jobChart;
    std::vector<HistoryChartBinding*> m_charts;
    client::EntityId m_chartedRack;
    client::EntityId m_chartedJob;
    QTimer m_chartTimer;
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
