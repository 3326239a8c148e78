#pragma once
// The console window: page navigation (toolbar, Ctrl+1..8, breadcrumbs, back/forward with
// Alt+Left/Right, Ctrl+K jump box), the connection banner and per-endpoint status bar, the
// incidents and operations docks, and the war-room wall display (full screen, read-only, rotating, jumping to
// the worst incident, recovering from fleetd restarts without anyone touching it).

#include "ConsoleSettings.h"
#include "NavigationHistory.h"
#include "PageContext.h"
#include "WarRoomRotation.h"

#include "Theme.h"

#include <QMainWindow>
#include <QMap>
#include <QTimer>

#include <chrono>
#include <optional>

class QActionGroup;
class QLabel;
class QStackedWidget;
class QToolBar;

namespace watchfloor::client {
struct FleetChangeSet;
}

namespace watchfloor::ui {

class BreadcrumbBar;
class ConnectionBanner;
class HandoffBanner;
class IncidentsDock;
class JumpBox;
class OperationsDock;
class Page;
class SourcesDock;
class ShiftHandoffDialog;
class PagingIndicator;
class RewindController;
class SourcesIndicator;

struct MainWindowOptions {
    bool wallDisplay = false;                // --war-room
    std::chrono::seconds rotateInterval{0};  // wall display only; 0 = no rotation
    QVector<PageId> rotatePages;             // empty = every page
    ThemeChoice theme = ThemeChoice::Dark;   // ignored on the wall (always high contrast)
    QString lens = QStringLiteral("health");
    // Wall display: a new critical incident takes the wall. Off for a --screenshot of a named page.
    bool followIncidents = true;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(PageContext context, MainWindowOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows the location and records it for Back. Returns false (and stays) if the page cannot
    // show that entity, e.g. an unknown name.
    bool navigate(const Location& location);
    void goBack();
    void goForward();
    bool canGoBack() const { return m_history.canGoBack(); }
    bool canGoForward() const { return m_history.canGoForward(); }
    Location currentLocation() const;

    Page* page(PageId id) const { return m_pages.value(id); }
    Page* currentPage() const;
    JumpBox* jumpBox() const { return m_jumpBox; }
    ConnectionBanner* connectionBanner() const { return m_banner; }
    // The unacknowledged shift handoff under the connection banner; null on the wall display.
    HandoffBanner* handoffBanner() const { return m_handoffBanner; }
    BreadcrumbBar* breadcrumbBar() const { return m_breadcrumbs; }
    IncidentsDock* incidentsDock() const { return m_incidents; }  // the Alerts dock; null on the wall display
    OperationsDock* operationsDock() const { return m_operations; }
    SourcesDock* sourcesDock() const { return m_sources; }
    RewindController* rewind() const { return m_rewind; }  // null on the wall display
    bool isWallDisplay() const { return m_options.wallDisplay; }
    const widgets::Theme& theme() const { return *m_theme; }
    void setThemeChoice(ThemeChoice choice);
    ThemeChoice themeChoice() const { return m_options.theme; }

    // Restores geometry and dock layout; a blob Qt rejects is reported in `warnings`.
    void restoreLayout(const ConsoleSettings& settings, QStringList* warnings);
    void storeLayout(ConsoleSettings& settings) const;

public slots:
    void openJumpBox();
    // File → Shift handoff…: the (window-modal, self-deleting) export dialog.
    ShiftHandoffDialog* openShiftHandoff();

signals:
    void locationChanged(const watchfloor::ui::Location& location);

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildPages();
    void buildToolBar();
    void buildDocks();
    void buildStatusBar();
    void buildWallHeader(QWidget* host);
    void applyTheme();
    bool showLocation(const Location& location);
    void onStoreChanged(const client::FleetChangeSet& changes);
    void updateConnectionUi();
    // The status bar indicator and the Sources dock's first showing; appends the banner's line
    // about sources to `problems`. True if the banner must be critical (an endpoint whose sources
    // are all down).
    bool updateSourcesUi(QStringList& problems);
    void showSourcesDock();
    void updateBreadcrumbs();
    void updateWallHeader();
    void onRotationTick();
    // The newest critical event not yet shown on the wall, as a place to go.
    std::optional<Location> newWorstIncident();

    PageContext m_context;
    MainWindowOptions m_options;
    const widgets::Theme* m_theme;
    // The wall's type follows its resolution (Theme::forWall); m_theme points here on the wall.
    std::optional<widgets::Theme> m_wallTheme;
    NavigationHistory m_history;
    QMap<PageId, Page*> m_pages;
    QStackedWidget* m_stack = nullptr;
    BreadcrumbBar* m_breadcrumbs = nullptr;
    ConnectionBanner* m_banner = nullptr;
    HandoffBanner* m_handoffBanner = nullptr;
    JumpBox* m_jumpBox = nullptr;
    QToolBar* m_toolBar = nullptr;
    QActionGroup* m_pageActions = nullptr;
    QAction* m_backAction = nullptr;
    QAction* m_forwardAction = nullptr;
    IncidentsDock* m_incidents = nullptr;
    RewindController* m_rewind = nullptr;
    OperationsDock* m_operations = nullptr;
    SourcesDock* m_sources = nullptr;
    SourcesIndicator* m_sourcesIndicator = nullptr;
    PagingIndicator* m_pagingIndicator = nullptr;
    bool m_sourcesDockOffered = false;  // shown once, when an endpoint first reports sources
    QVector<QLabel*> m_endpointLabels;
    QLabel* m_serverTimeLabel = nullptr;

    // Wall display.
    QWidget* m_wallHeader = nullptr;
    QLabel* m_wallTitle = nullptr;
    QLabel* m_wallKpis = nullptr;
    QLabel* m_wallClock = nullptr;
    std::optional<WarRoomRotation> m_rotation;
    QTimer m_rotationTimer;
    quint64 m_lastIncidentSerialShown = 0;
    bool m_everLive = false;
};

}  // namespace watchfloor::ui
