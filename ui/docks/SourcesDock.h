#pragma once
// The Sources table: every telemetry source of every fleetd endpoint (a Prometheus-compatible
// store, a scrape of the exporters, Slurm, ...) with its health in the theme's colours, the age of
// its last good poll, the poll's duration, how old a store's newest samples are when they arrive
// (its delivery lag, which the console adds to the stale age), how many series it read and how many map to nothing in
// the inventory, its last error and warnings; for a scrape source also its targets up / down /
// frozen and its silent hosts. An endpoint without sources (the digital twin) gets one dim row
// saying so, so an empty list never passes for "no problems". The Sources dock shows it beside
// every page; the Sources page shows it above every scrape target.

#include "SourceHealth.h"

#include <QDockWidget>

class QLabel;
class QTableWidget;

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

// How loud the console is about its sources: an endpoint whose sources are all down shows a fleet
// that only looks alive (Critical); anything else not up is a Warning.
enum class SourcesAlarm { None, Warning, Critical };
SourcesAlarm sourcesAlarm(const client::SourcesOverview& overview);
QColor sourcesAlarmColor(SourcesAlarm alarm, const widgets::Theme& theme);
QColor sourceHealthColor(watchfloor::v1::SourceHealth health, const widgets::Theme& theme);

class SourcesTable : public QWidget {
    Q_OBJECT
public:
    enum Column {
        Endpoint,
        Source,
        Kind,
        Health,
        LastGoodPoll,
        PollDuration,
        DeliveryLag,
        Series,
        Unmapped,
        Targets,
        HostsSilent,
        LastError,
        Warnings,
        ColumnCount
    };

    explicit SourcesTable(const client::FleetStore& store, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme);
    QTableWidget* table() const { return m_table; }
    QString summaryText() const;
    // "Sources" or "Sources (1 of 2 not up)".
    QString titleText() const { return m_title; }

signals:
    void refreshed();

private:
    void refresh();
    void setCell(int row, int column, const QString& text, const QColor& colour, const QString& toolTip = {},
                 bool bold = false);
    void fillSourceRow(int row, int endpoint, const watchfloor::v1::SourceStatus& source);
    void fillTwinRow(int row, int endpoint);

    const client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    QLabel* m_summary;
    QTableWidget* m_table;
    QString m_title = QStringLiteral("Sources");
};

class SourcesDock : public QDockWidget {
    Q_OBJECT
public:
    using enum SourcesTable::Column;

    explicit SourcesDock(const client::FleetStore& store, QWidget* parent = nullptr);

    void applyTheme(const widgets::Theme& theme) { m_sources->applyTheme(theme); }
    QTableWidget* table() const { return m_sources->table(); }
    QString summaryText() const { return m_sources->summaryText(); }

signals:
    // "All targets": the operator wants the Sources page.
    void targetsRequested();

private:
    SourcesTable* m_sources;
};

}  // namespace watchfloor::ui
