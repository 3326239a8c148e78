#pragma once
// Goodput page: fleet or one job — goodput (ideal pace; provisional and confirmed), ETTR (slow
// steps count) cumulative and sliding, MFU, E[ETTR] and what separates it and the measured ETTR
// from 100 % (EttrBudgetPanel), the hardware and all-cause failure rates with their intervals, MTTI; the history chart
// (backfilled from fleetd, then extended live); the badput breakdown per job; checkpoint interval against the
// Young/Daly optimum; the stragglers. Charts export to PNG and CSV.

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

#include <QTimer>

class QComboBox;
class QPushButton;
class QScrollArea;
class QTableWidget;

namespace watchfloor::client {
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class StackedBreakdownChart;
class TimeSeriesChart;
}  // namespace watchfloor::widgets

class QGridLayout;

namespace watchfloor::ui {

class HistoryChartBinding;
class EttrBudgetPanel;
class FailSlowPanel;
class KpiStrip;
class PageHeader;

class GoodputPage : public Page {
    Q_OBJECT
public:
    GoodputPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Goodput; }
    bool showEntity(const QString& name) override;
    QString entity() const override;
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    widgets::TimeSeriesChart* historyChart() const { return m_history; }
    widgets::StackedBreakdownChart* breakdownChart() const { return m_breakdown; }
    KpiStrip* kpis() const { return m_kpis; }
    EttrBudgetPanel* budgetPanel() const { return m_budget; }
    FailSlowPanel* failSlowPanel() const { return m_failSlow; }
    QString summary() const;
    // Writes the history chart; errors come back as operator-readable text (empty = ok).
    QString exportHistoryPng(const QString& path) const;
    QString exportHistoryCsv(const QString& path) const;

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void setScope(client::EntityId job);  // invalid = the fleet
    void rebuildScopeBox();
    void refresh();
    void refreshKpis();
    void refreshBreakdown();
    void refreshBudget();
    void refreshJobsTable();
    void fitJobsTable();
    void resizeEvent(QResizeEvent* event) override;
    void exportWithDialog(bool png);

    PageContext m_context;
    client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    client::EntityId m_job;  // invalid = fleet scope
    PageHeader* m_header;
    QComboBox* m_scopeBox;
    QPushButton* m_exportPng;
    QPushButton* m_exportCsv;
    KpiStrip* m_kpis;
    widgets::TimeSeriesChart* m_history;
    HistoryChartBinding* m_historyBinding = nullptr;
    widgets::StackedBreakdownChart* m_breakdown;
    QGridLayout* m_charts = nullptr;  // history, breakdown, ETTR budget
    EttrBudgetPanel* m_budget;
    QScrollArea* m_scroll;  // everything below the KPI strip
    QTableWidget* m_jobs;
    FailSlowPanel* m_failSlow;
    QTimer m_chartTimer;
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
