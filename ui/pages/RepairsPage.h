#pragma once
// Repairs page: fleetd's repair cases (fleet.proto RepairCase) as a work list. On top the fleet's
// repair numbers (FleetGoodput.repairs merged over endpoints): open cases and the GPU-hours they
// keep out, MTTR overall, automated and manual, the outcome mix, fleetd's auto-remediation. Below,
// every open case (tray, state, fault, its step, age, owner, GPU-hours out), then the newest closed
// ones (fixed by which rung, or RMA, and the time to repair); the selected case's timeline beside
// it with the ladder's next step as a button (for an operator: the action dialog). Double-click a
// row for the tray's Rack page. The entity shown is a tray: its newest case is selected.

#include "Page.h"
#include "PageContext.h"

namespace watchfloor::client {
struct FleetChangeSet;
class RepairCaseModel;
}  // namespace watchfloor::client

namespace watchfloor::ui {

class ActionBar;
class EntityTableView;
class KpiStrip;
class OperatorActions;
class PageHeader;
class RepairCaseView;

class RepairsPage : public Page {
    Q_OBJECT
public:
    RepairsPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Repairs; }
    bool showEntity(const QString& name) override;
    QString entity() const override { return m_entity; }
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    client::RepairCaseModel* model() const { return m_model; }
    EntityTableView* table() const { return m_table; }
    KpiStrip* kpis() const { return m_kpis; }
    PageHeader* header() const { return m_header; }
    RepairCaseView* caseView() const { return m_caseView; }
    ActionBar* stepBar() const { return m_stepBar; }
    // Selects the table's row (view order) as a click does.
    void selectRow(int viewRow);

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void refreshKpis();
    void refreshSelection();
    int selectedSourceRow() const;

    client::FleetStore& m_store;
    OperatorActions* m_actions;
    QString m_entity;
    PageHeader* m_header;
    KpiStrip* m_kpis;
    client::RepairCaseModel* m_model;
    EntityTableView* m_table;
    RepairCaseView* m_caseView;
    ActionBar* m_stepBar;
    int m_selectedEndpoint = -1;
    std::uint64_t m_selectedCase = 0;  // kept across the model's rebuilds
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
