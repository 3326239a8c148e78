#pragma once
// Rack page: the NVL72 elevation with every GPU's state, the trays' Slurm states, the latest
// Xids with NVIDIA's recommended action, the rack's cooling and power, and the jobs on it.
// The page lays these out and wires navigation and actions; what it shows comes from parts tested
// alone: rackElevation() (RackElevationBinding), the KPI colours (RackThresholds) and the Xid
// list (client/XidFilter). Under the trays, the selected tray's repair case (RepairCaseView, compact)
// with the ladder's next step as a button; hidden while the tray has none.

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

class QComboBox;
class QLabel;
class QMenu;
class QTableWidget;

namespace watchfloor::client {
struct FleetChangeSet;
class NodeTableModel;
}  // namespace watchfloor::client
namespace watchfloor::widgets {
class LegendWidget;
class RackElevationWidget;
}  // namespace watchfloor::widgets

namespace watchfloor::ui {

class ActionBar;
class EntityTableView;
class KpiStrip;
class OperatorActions;
class PageHeader;
class RepairCaseView;

class RackPage : public Page {
    Q_OBJECT
public:
    RackPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Rack; }
    bool showEntity(const QString& name) override;
    QString entity() const override { return m_entity; }
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    QString rackName() const;
    widgets::RackElevationWidget* elevation() const { return m_elevation; }
    int xidRowCount() const;
    EntityTableView* nodesTable() const { return m_nodes; }
    ActionBar* actionBar() const { return m_actionBar; }
    // The selected tray's repair case and its next step; hidden without a case.
    QWidget* repairPanel() const { return m_repairPanel; }
    RepairCaseView* repairCase() const { return m_repairCase; }
    ActionBar* repairStepBar() const { return m_repairStep; }
    // The elevation's context menu at `pos`: the tray (or GPU's tray) under it, else the rack.
    void populateElevationMenu(QMenu& menu, const QPoint& pos);

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void refresh();
    void refreshElevation();
    void refreshKpis();
    void refreshXids();
    void refreshJobs();
    void applyScale();
    void updateActionBar();
    void refreshRepairCase();
    client::EntityId selectedTray() const;

    client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    client::EntityId m_rack;
    QString m_entity;
    PageHeader* m_header;
    QComboBox* m_lensBox;
    widgets::RackElevationWidget* m_elevation;
    widgets::LegendWidget* m_legend;
    KpiStrip* m_kpis;
    client::NodeTableModel* m_nodeModel;
    EntityTableView* m_nodes;
    QTableWidget* m_xids;
    QTableWidget* m_jobs;
    ActionBar* m_actionBar;
    QWidget* m_repairPanel;
    QLabel* m_repairTitle;
    RepairCaseView* m_repairCase;
    ActionBar* m_repairStep;
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
