#pragma once
// Cooling page: one rack's liquid loop as a schematic (supply/return, flow, ΔP, valve, leak
// sensors, heat load), its history as charts, and the fleet's CDU alarms, leaks and isolations.

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

#include <QTimer>

class QTableWidget;

namespace watchfloor::client {
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class LoopSchematicWidget;
class TimeSeriesChart;
}  // namespace watchfloor::widgets

namespace watchfloor::ui {

class HistoryChartBinding;
class PageHeader;

class CoolingPage : public Page {
    Q_OBJECT
public:
    CoolingPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Cooling; }
    bool showEntity(const QString& name) override;
    QString entity() const override;
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    widgets::LoopSchematicWidget* schematic() const { return m_schematic; }
    int alarmRowCount() const;

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void refresh();
    void refreshSchematic();
    void refreshAlarms();
    client::EntityId worstCoolingRack() const;
    client::EntityId loopOf(client::EntityId rack) const;

    PageContext m_context;
    client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    client::EntityId m_rack;
    PageHeader* m_header;
    widgets::LoopSchematicWidget* m_schematic;
    widgets::TimeSeriesChart* m_tempChart;
    widgets::TimeSeriesChart* m_flowChart;
    widgets::TimeSeriesChart* m_pressureChart;
    widgets::TimeSeriesChart* m_powerChart;
    std::vector<HistoryChartBinding*> m_charts;
    QTableWidget* m_alarms;
    QTimer m_chartTimer;
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
