#pragma once
// Sources page: where the console's data comes from. fleetd's telemetry sources (the Sources
// table the dock shows), then every exporter fleetd scrapes itself (--source scrape), one row per
// tray and exporter: up, down or frozen, since when, the age of its last usable answer, the
// scrape's duration, series, refused lines, last error and URL. Problems sort first; "Only
// problems" hides the targets that are up; a row opens its tray's rack. With no scrape source the
// targets part says so instead of showing an empty table.

#include "Page.h"
#include "PageContext.h"

#include <QSortFilterProxyModel>

class QCheckBox;
class QLabel;

namespace watchfloor::client {
class ScrapeTargetModel;
}

namespace watchfloor::ui {

class EntityTableView;
class PageHeader;
class SourcesTable;

// Keeps the targets that are not up (FreshnessRole not Fresh) when `problemsOnly`.
class TargetProblemsFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setProblemsOnly(bool only);
    bool problemsOnly() const { return m_only; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_only = false;
};

class SourcesPage : public Page {
    Q_OBJECT
public:
    SourcesPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Sources; }
    // A host or tray name selects its targets' first row; empty shows the worst first.
    bool showEntity(const QString& name) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setWallDisplay(bool wall) override;

    SourcesTable* sources() const { return m_sources; }
    EntityTableView* targets() const { return m_targets; }
    client::ScrapeTargetModel* targetModel() const { return m_model; }
    QString targetsSummary() const;

private:
    void refreshSummary();

    const client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    PageHeader* m_header;
    SourcesTable* m_sources;
    QLabel* m_targetsTitle;
    QLabel* m_targetsSummary;
    QCheckBox* m_problemsOnly;
    client::ScrapeTargetModel* m_model;
    TargetProblemsFilter* m_filter;
    EntityTableView* m_targets;
};

}  // namespace watchfloor::ui
