#pragma once
// Fleet page: every rack on one map grouped region › hall › row, coloured by the chosen lens,
// the fleet KPIs above it and the racks that most need attention beside it.

#include "Page.h"
#include "PageContext.h"
#include "RackLens.h"

#include <QTimer>

class QComboBox;
class QMenu;
class QLabel;
class QListWidget;

namespace watchfloor::client {
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class RackMapWidget;
}

namespace watchfloor::ui {

class KpiStrip;
class OperatorActions;
class PageHeader;

class FleetPage : public Page {
    Q_OBJECT
public:
    FleetPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Fleet; }
    bool showEntity(const QString& name) override;
    QString entity() const override { return m_entity; }
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    void setLens(const QString& key);
    QString lens() const { return m_lensKey; }
    widgets::RackMapWidget* rackMap() const { return m_map; }
    // The context menu of the rack at `rackRow` (its tile's index): open, cooling, links, copy, and
    // the operator's rack actions.
    void populateRackMenu(QMenu& menu, int rackRow);
    KpiStrip* kpis() const { return m_kpis; }
    QListWidget* drainList() const { return m_drains; }
    // The "Needs attention" lines, top first.
    QStringList attentionLines() const;
    // The fleet's repairs under the trays out of service: fixed cases by rung, RMA, open cases.
    QString repairLine() const;
    QString headerSummary() const;

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void rebuildRacks();
    void refreshHeader();
    // Every endpoint's fleet, e.g. "us-fleet + eu-fleet" (the header named only the first).
    QString fleetNames() const;
    QString regionBandLabel(int rackRow) const;
    void refreshStatuses();
    void refreshKpis();
    void refreshSilentHosts();
    void refreshRepairs();
    void refreshAutomation();  // the breaker card and who holds each tray out of service
    void refreshAttention();
    void applyScale();
    void showRackMenu(const QPoint& pos);

    client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    PageHeader* m_header;
    KpiStrip* m_kpis;
    QComboBox* m_lensBox;
    widgets::RackMapWidget* m_map;
    QListWidget* m_attention;
    QListWidget* m_drains;
    QLabel* m_repairs;
    client::RackJobs m_jobs;
    QString m_lensKey = QStringLiteral("health");
    QString m_entity;
    int m_regionCount = 0;
    bool m_dirty = true;
    QTimer m_slowRefresh;  // attention list and alert counts: 2 Hz is plenty
    std::vector<int> m_alerts;
};

}  // namespace watchfloor::ui
