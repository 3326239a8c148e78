#include "MainWindow.h"

#include "BreadcrumbBar.h"
#include "ConnectionBanner.h"
#include "EntityNavigation.h"
#include "FleetFormat.h"
#include "HandoffBanner.h"
#include "IncidentsDock.h"
#include "JumpBox.h"
#include "OperationsDock.h"
#include "OperatorActions.h"
#include "Page.h"
#include "Pages.h"
#include "PagingIndicator.h"
#include "RewindBar.h"
#include "RewindController.h"
#include "ShiftHandoffDialog.h"
#include "SourcesDock.h"
#include "SourcesIndicator.h"
#include "ThemeStyling.h"

#include "ConnectionState.h"
#include "FleetGoodputMerge.h"
#include "FleetStore.h"
#include "SourceHealth.h"
#include "TimeSeriesChart.h"
#include "WallLegibility.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::ConnectionState;

namespace {
// With no --rotate the wall still checks for a new critical incident this often.
constexpr std::chrono::seconds kIncidentCheckInterval{10};
}  // namespace

MainWindow::MainWindow(PageContext context, MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent),
      m_context(std::move(context)),
      m_options(std::move(options)),
      m_theme(&widgets::Theme::builtin(m_options.wallDisplay ? widgets::ThemeVariant::WarRoom
                                                             : themeVariantFor(m_options.theme))) {
    setObjectName(QStringLiteral("mainWindow"));
    if (m_options.wallDisplay) {
        m_wallTheme = m_theme->forWall(widgets::wallScaleFor(size()));
        m_theme = &*m_wallTheme;
    }
    setWindowTitle(QStringLiteral("Watchfloor"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/watchfloor.svg")));
    resize(1600, 960);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    buildWallHeader(central);
    layout->addWidget(m_wallHeader);
    m_banner = new ConnectionBanner(central);
    layout->addWidget(m_banner);
    m_breadcrumbs = new BreadcrumbBar(central);
    layout->addWidget(m_breadcrumbs);
    m_stack = new QStackedWidget(central);
    if (!m_options.wallDisplay) {  // the wall always shows the live fleet
        m_rewind = new RewindController(m_context, this, [this] { return currentLocation(); });
        layout->addWidget(m_rewind->bar());
        layout->addWidget(m_rewind->wrap(m_stack), 1);
        connect(m_rewind, &RewindController::liveAt, this, &MainWindow::navigate);
        connect(m_rewind, &RewindController::viewingChanged, this, &MainWindow::updateConnectionUi);
    } else {
        layout->addWidget(m_stack, 1);
    }
    setCentralWidget(central);

    // The wall display is read-only: without OperatorActions no page shows an action control.
    if (!m_options.wallDisplay) {
        m_context.actions = new OperatorActions(*m_context.store, m_context.controls, this);
        // Under the connection banner: the incoming shift reads the handoff before the pages.
        m_handoffBanner = new HandoffBanner(*m_context.store, m_context.actions, central);
        layout->insertWidget(layout->indexOf(m_banner) + 1, m_handoffBanner);
    }
    buildPages();
    m_jumpBox = new JumpBox(
        [this](const QString& text, int limit) { return searchJumpTargets(*m_context.store, text, limit); }, this);
    connect(m_jumpBox, &JumpBox::targetChosen, this, &MainWindow::navigate);
    connect(m_breadcrumbs, &BreadcrumbBar::crumbActivated, this, &MainWindow::navigate);

    if (m_options.wallDisplay) {
        // Read-only: no toolbar, menus, docks, context menus or status bar. Keyboard shortcuts
        // that only move around stay out too; nothing here can change the fleet or the view.
        m_wallHeader->show();
        m_breadcrumbs->hide();
        m_banner->setLargeType(true);
        setContextMenuPolicy(Qt::NoContextMenu);
        statusBar()->hide();
        m_rotation.emplace(m_options.rotatePages);
        const auto interval = m_options.rotateInterval.count() > 0 ? m_options.rotateInterval : kIncidentCheckInterval;
        m_rotationTimer.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(interval));
        connect(&m_rotationTimer, &QTimer::timeout, this, &MainWindow::onRotationTick);
        m_rotationTimer.start();
        auto* clockTimer = new QTimer(this);
        connect(clockTimer, &QTimer::timeout, this, &MainWindow::updateWallHeader);
        clockTimer->start(1000);
    } else {
        m_wallHeader->hide();
        buildToolBar();
        buildDocks();
        buildStatusBar();
    }
    applyTheme();
    connect(m_context.store, &client::FleetStore::changed, this, &MainWindow::onStoreChanged);

    const PageId first = m_rotation ? m_rotation->current() : PageId::Fleet;
    navigate({first, {}});
    updateConnectionUi();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildPages() {
    for (PageId id : kAllPages) {
        if (m_options.wallDisplay && !isWallPage(id)) continue;
        Page* page = createPage(id, m_context, m_stack);
        page->setWallDisplay(m_options.wallDisplay);
        // The wall has no controls at all, not even a chart's Events toggle.
        if (m_options.wallDisplay)
            for (auto* chart : page->findChildren<widgets::TimeSeriesChart*>())
                chart->setAnnotationToggleVisible(false);
        m_pages.insert(id, page);
        m_stack->addWidget(page);
        connect(page, &Page::navigationRequested, this, &MainWindow::navigate);
        connect(page, &Page::entityShown, this, [this, page] {
            if (page == currentPage()) updateBreadcrumbs();
        });
    }
    if (auto* fleet = qobject_cast<FleetPage*>(m_pages.value(PageId::Fleet))) fleet->setLens(m_options.lens);
}

void MainWindow::buildToolBar() {
    m_toolBar = addToolBar(QStringLiteral("Navigation"));
    m_toolBar->setObjectName(QStringLiteral("navigationToolBar"));
    m_toolBar->setMovable(false);
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);

    m_backAction = m_toolBar->addAction(QStringLiteral("◀"), this, &MainWindow::goBack);
    m_backAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    m_backAction->setToolTip(QStringLiteral("Back (Alt+Left)"));
    m_forwardAction = m_toolBar->addAction(QStringLiteral("▶"), this, &MainWindow::goForward);
    m_forwardAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    m_forwardAction->setToolTip(QStringLiteral("Forward (Alt+Right)"));
    m_toolBar->addSeparator();

    m_pageActions = new QActionGroup(this);
    int number = 1;
    for (PageId id : kAllPages) {
        if (!m_pages.contains(id)) continue;
        QAction* action = m_toolBar->addAction(pageTitle(id));
        action->setCheckable(true);
        action->setData(int(id));
        if (number <= 9) {
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + number)));
            action->setToolTip(QStringLiteral("%1 page (Ctrl+%2)").arg(pageTitle(id)).arg(number));
        }
        m_pageActions->addAction(action);
        connect(action, &QAction::triggered, this, [this, id] { navigate({id, {}}); });
        ++number;
    }

    auto* spacer = new QWidget(m_toolBar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolBar->addWidget(spacer);
    QAction* jump = m_toolBar->addAction(QStringLiteral("Jump to…  Ctrl+K"), this, &MainWindow::openJumpBox);
    jump->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    jump->setToolTip(QStringLiteral("Jump to any region, rack, node, GPU, link or job by name (Ctrl+K)"));

    auto* themeButton = new QToolButton(m_toolBar);
    themeButton->setText(QStringLiteral("Theme"));
    themeButton->setPopupMode(QToolButton::InstantPopup);
    auto* themeMenu = new QMenu(themeButton);
    auto* themeGroup = new QActionGroup(themeMenu);
    for (auto [choice, label] : {std::pair{ThemeChoice::Dark, "Dark"}, std::pair{ThemeChoice::Light, "Light"},
                                 std::pair{ThemeChoice::HighContrast, "High contrast"}}) {
        QAction* action = themeMenu->addAction(QString::fromLatin1(label));
        action->setCheckable(true);
        action->setChecked(choice == m_options.theme);
        themeGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, choice = choice] { setThemeChoice(choice); });
    }
    themeButton->setMenu(themeMenu);
    m_toolBar->addWidget(themeButton);

    auto* quit = new QAction(QStringLiteral("Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    addAction(quit);

    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction* handoff = file->addAction(QStringLiteral("Shift handoff…"), this, &MainWindow::openShiftHandoff);
    handoff->setObjectName(QStringLiteral("shiftHandoffAction"));
    handoff->setToolTip(
        QStringLiteral("The last hours' incidents, actions, goodput and racks out, as Markdown and PDF"));
    file->addSeparator();
    file->addAction(quit);
}

ShiftHandoffDialog* MainWindow::openShiftHandoff() {
    auto* dialog = new ShiftHandoffDialog(m_context, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->show();
    return dialog;
}

void MainWindow::buildDocks() {
    m_incidents = new IncidentsDock(*m_context.store, m_context.actions, this);
    m_incidents->setObjectName(QStringLiteral("incidentsDock"));
    addDockWidget(Qt::RightDockWidgetArea, m_incidents);
    connect(m_incidents, &IncidentsDock::navigationRequested, this, &MainWindow::navigate);
    m_rewind->addDocks(m_incidents);

    // Hidden until an endpoint reports sources: a twin-only console has nothing to list.
    m_sources = new SourcesDock(*m_context.store, this);
    m_sources->setObjectName(QStringLiteral("sourcesDock"));
    addDockWidget(Qt::BottomDockWidgetArea, m_sources);
    m_sources->hide();
    connect(m_sources, &SourcesDock::targetsRequested, this, [this] { navigate({PageId::Sources, {}}); });

    bool anyControl = false;
    QStringList labels;
    for (int i = 0; i < m_context.controls.size(); ++i) {
        anyControl = anyControl || m_context.controls[i];
        labels << (i < m_context.store->endpointCount() ? m_context.store->endpointLabel(i) : QString());
    }
    if (!anyControl) return;  // no control connection: no operations to list
    m_operations = new OperationsDock(m_context.controls, labels, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_operations);
    tabifyDockWidget(m_operations, m_sources);
    // A few rows by default; the page keeps most of the height (a saved layout overrides this).
    resizeDocks({m_operations}, {200}, Qt::Vertical);
}

void MainWindow::buildStatusBar() {
    for (int i = 0; i < m_context.store->endpointCount(); ++i) {
        auto* label = new QLabel(this);
        label->setObjectName(QStringLiteral("endpointStatus%1").arg(i));
        statusBar()->addWidget(label);
        m_endpointLabels << label;
    }
    m_pagingIndicator = new PagingIndicator(this);
    statusBar()->addPermanentWidget(m_pagingIndicator);
    m_sourcesIndicator = new SourcesIndicator(this);
    connect(m_sourcesIndicator, &QToolButton::clicked, this, &MainWindow::showSourcesDock);
    statusBar()->addPermanentWidget(m_sourcesIndicator);
    m_serverTimeLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_serverTimeLabel);
}

void MainWindow::buildWallHeader(QWidget* host) {
    m_wallHeader = new QWidget(host);
    m_wallHeader->setObjectName(QStringLiteral("wallHeader"));
    auto* layout = new QHBoxLayout(m_wallHeader);
    layout->setContentsMargins(24, 10, 24, 10);
    m_wallTitle = new QLabel(m_wallHeader);
    m_wallKpis = new QLabel(m_wallHeader);
    m_wallClock = new QLabel(m_wallHeader);
    for (QLabel* label : {m_wallTitle, m_wallKpis, m_wallClock}) label->setTextFormat(Qt::RichText);
    // In wall type title, KPIs and clock can be wider than the wall (a long entity name, sources
    // down): the title gives way, as the page header under it repeats it; the KPIs (incidents) and
    // the clock never do, and no page is widened past the screen.
    m_wallTitle->setMinimumWidth(1);
    m_wallTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_wallTitle, 1);
    layout->addWidget(m_wallKpis);
    layout->addSpacing(32);
    layout->addWidget(m_wallClock);
}

void MainWindow::applyTheme() {
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) applyApplicationTheme(*app, *m_theme);
    // Widgets polished by the application style sheet before this keep the font they had; set on
    // the window, wall type reaches every table, list and section title below it.
    if (m_options.wallDisplay) {
        const QFont wallFont = m_theme->font(9.5);
        setFont(wallFont);
        // Labels the style sheet polished keep their creation font even so: name it on each one
        // that has none of its own.
        for (QLabel* label : findChildren<QLabel*>())
            if (!label->testAttribute(Qt::WA_SetFont) || label->property("wallFont").toBool()) {
                label->setFont(wallFont);
                label->setProperty("wallFont", true);
            }
        // A section title in wall type is wider than the column it heads: it wraps rather than
        // widen the page past the wall.
        for (QLabel* label : findChildren<QLabel*>())
            if (label->property("role").toString() == QStringLiteral("sectionTitle")) label->setWordWrap(true);
    }
    for (Page* page : std::as_const(m_pages)) page->applyTheme(*m_theme);
    if (m_incidents) m_incidents->applyTheme(*m_theme);
    if (m_rewind) m_rewind->applyTheme(*m_theme);
    if (m_handoffBanner) m_handoffBanner->applyTheme(*m_theme);
    if (m_operations) m_operations->applyTheme(*m_theme);
    if (m_sources) m_sources->applyTheme(*m_theme);
    if (m_context.actions) m_context.actions->setTheme(*m_theme);
    QFont wallFont = m_theme->font(15, true);
    m_wallTitle->setFont(m_theme->font(17, true));
    m_wallKpis->setFont(wallFont);
    m_wallClock->setFont(wallFont);
    m_wallHeader->setStyleSheet(QStringLiteral("#wallHeader { background: %1; border-bottom: 2px solid %2; }")
                                    .arg(m_theme->colors().panelRaised.name(), m_theme->colors().grid.name()));
    updateWallHeader();
    updateConnectionUi();
}

void MainWindow::setThemeChoice(ThemeChoice choice) {
    if (m_options.wallDisplay) return;
    m_options.theme = choice;
    m_theme = &widgets::Theme::builtin(themeVariantFor(choice));
    applyTheme();
}

Page* MainWindow::currentPage() const { return qobject_cast<Page*>(m_stack->currentWidget()); }

Location MainWindow::currentLocation() const {
    Page* page = currentPage();
    return page ? Location{page->id(), page->entity()} : Location{};
}

bool MainWindow::showLocation(const Location& location) {
    Page* target = m_pages.value(location.page);
    if (!target || !target->showEntity(location.entity)) return false;
    if (Page* old = currentPage(); old && old != target) old->setActive(false);
    m_stack->setCurrentWidget(target);
    target->setActive(true);
    if (m_pageActions) {
        for (QAction* action : m_pageActions->actions())
            action->setChecked(action->data().toInt() == int(location.page));
    }
    if (m_rotation) m_rotation->syncTo(location.page);
    updateBreadcrumbs();
    updateWallHeader();
    emit locationChanged(currentLocation());
    return true;
}

bool MainWindow::navigate(const Location& location) {
    if (!showLocation(location)) {
        statusBar()->showMessage(QStringLiteral("%1 cannot show '%2'").arg(pageTitle(location.page), location.entity),
                                 5000);
        return false;
    }
    m_history.visit(currentLocation());
    if (m_backAction) {
        m_backAction->setEnabled(m_history.canGoBack());
        m_forwardAction->setEnabled(m_history.canGoForward());
    }
    return true;
}

void MainWindow::goBack() {
    if (m_history.canGoBack()) showLocation(m_history.back());
    if (m_backAction) {
        m_backAction->setEnabled(m_history.canGoBack());
        m_forwardAction->setEnabled(m_history.canGoForward());
    }
}

void MainWindow::goForward() {
    if (m_history.canGoForward()) showLocation(m_history.forward());
    if (m_backAction) {
        m_backAction->setEnabled(m_history.canGoBack());
        m_forwardAction->setEnabled(m_history.canGoForward());
    }
}

void MainWindow::openJumpBox() {
    if (!m_options.wallDisplay) m_jumpBox->popup(this);
}

void MainWindow::updateBreadcrumbs() {
    const Location here = currentLocation();
    m_breadcrumbs->setCrumbs(breadcrumbsFor(*m_context.store, here.page, here.entity));
    setWindowTitle(QStringLiteral("%1 — Watchfloor").arg(m_breadcrumbs->path()));
}

void MainWindow::onStoreChanged(const client::FleetChangeSet& changes) {
    if (!changes.endpointsChanged.isEmpty() || changes.topologyChanged || changes.freshnessTick ||
        changes.sourcesChanged)
        updateConnectionUi();
    if (changes.topologyChanged) updateBreadcrumbs();
    if (m_pagingIndicator && (changes.fleetChanged || !changes.endpointsChanged.isEmpty()))
        m_pagingIndicator->refresh(*m_context.store, *m_theme);
    if (changes.fleetChanged || changes.freshnessTick || changes.sourcesChanged || changes.jobsReset ||
        !changes.dirtyJobRows.empty())
        updateWallHeader();
    if (m_options.wallDisplay && m_options.followIncidents && changes.eventsAdded > 0 &&
        m_options.rotateInterval.count() == 0) {
        if (auto incident = newWorstIncident()) showLocation(*incident);
    }
}

void MainWindow::updateConnectionUi() {
    const client::FleetStore& store = *m_context.store;
    const QList<int> blind = client::overviewOfSources(store).blindEndpoints;
    QStringList problems;
    bool critical = false;
    int live = 0;
    for (int i = 0; i < store.endpointCount(); ++i) {
        const ConnectionState state = store.endpointState(i);
        const QString label = store.endpointDisplayName(i);
        // Reachable but every source silent: as dead as an unreachable endpoint, and said so.
        const bool silent = state == ConnectionState::Live && blind.contains(i);
        if (state == ConnectionState::Live) {
            ++live;
        } else {
            const QString status = store.endpointStatus(i);
            problems << QStringLiteral("%1: %2").arg(label, status.isEmpty() ? client::displayName(state) : status);
            critical = critical || state == ConnectionState::Reconnecting || state == ConnectionState::Incompatible ||
                       state == ConnectionState::Stale;
        }
        if (i < m_endpointLabels.size()) {
            const QColor dot = silent                           ? m_theme->colors().crit
                               : state == ConnectionState::Live ? m_theme->colors().ok
                               : state == ConnectionState::Connecting || state == ConnectionState::Stale
                                   ? m_theme->colors().warn
                                   : m_theme->colors().crit;
            // "● eu-fleet (10.0.0.7:50551) — Live": which fleet, where, and its state; the full
            // status line is the tooltip.
            const QString target = store.endpointTarget(i);
            const QString where = target.isEmpty() || target.contains(label)
                                      ? (target.isEmpty() ? label : target)
                                      : QStringLiteral("%1 (%2)").arg(label, target);
            // Rewound, the pages show the past: "Live" beside the AS OF banner would be read as
            // "what you see is live", so the connection is named and the moment shown.
            const std::int64_t pastMs = m_rewind ? m_rewind->pastShownMs() : 0;
            const QString stateText =
                silent ? QStringLiteral("<b style='color:%1'>reachable, no live telemetry</b>")
                             .arg(m_theme->colors().crit.name())
                : pastMs != 0 && state == ConnectionState::Live
                    ? QStringLiteral("connected, viewing the past as of %1 UTC").arg(formatUnixMs(pastMs))
                    : client::displayName(state);
            m_endpointLabels[i]->setText(QStringLiteral("<span style='color:%1'>●</span> %2 — %3")
                                             .arg(dot.name(), where.toHtmlEscaped(), stateText));
            m_endpointLabels[i]->setToolTip(
                silent ? QStringLiteral("fleetd answers, but every telemetry source it reads is "
                                        "down or silent: the values shown are the last read.")
                       : store.endpointStatus(i));
        }
    }
    m_everLive = m_everLive || live > 0;
    QString message;
    if (!problems.isEmpty()) {
        const QString tail = m_everLive ? QStringLiteral(
                                              " — values shown are the last received and marked stale; "
                                              "reconnecting automatically.")
                                        : QString();
        message = problems.join(QStringLiteral("   ·   ")) + tail;
    }
    QStringList sourceProblems;
    critical = updateSourcesUi(sourceProblems) || critical;
    for (const QString& line : std::as_const(sourceProblems))
        message += (message.isEmpty() ? QString() : QStringLiteral("   ·   ")) + line;
    if (message.isEmpty()) {
        m_banner->clear();
    } else {
        m_banner->showMessage(message, critical ? ConnectionBanner::Level::Critical : ConnectionBanner::Level::Warning);
    }
    if (m_serverTimeLabel) {
        std::int64_t serverMs = 0;
        double speed = 1.0;
        for (int i = 0; i < store.endpointCount(); ++i) {
            serverMs = std::max(serverMs, store.endpointFleet(i).serverTimeUnixMs());
            speed = store.endpointFleet(i).simSpeed();
        }
        m_serverTimeLabel->setText(
            serverMs > 0 ? QStringLiteral("fleet time %1 UTC%2")
                               .arg(formatUnixMs(serverMs, true),
                                    speed != 1.0 ? QStringLiteral("  ·  simulated ×%1").arg(speed) : QString())
                         : QStringLiteral("no data yet"));
    }
}

bool MainWindow::updateSourcesUi(QStringList& problems) {
    const client::FleetStore& store = *m_context.store;
    const client::SourcesOverview overview = client::overviewOfSources(store);
    if (m_sourcesIndicator) m_sourcesIndicator->refresh(store, *m_theme);
    if (m_sources && overview.total > 0 && !m_sourcesDockOffered) {
        m_sourcesDockOffered = true;
        m_sources->show();
        // A handful of rows: the page keeps most of the height (a saved layout overrides this).
        resizeDocks({m_sources}, {180}, Qt::Vertical);
    }
    // Only a source that is down earns the banner: its values are frozen and aging. Degraded or
    // not-yet-polled sources are the indicator's business, or the banner would never go away.
    // An endpoint whose sources are all down or silent is the banner's first line, worded like an
    // unreachable one: fleetd answers, but what it shows is as dead.
    if (overview.down == 0 && overview.blindEndpoints.isEmpty()) return false;
    for (int endpoint : overview.blindEndpoints)
        problems << QStringLiteral(
                        "%1: reachable, but no live telemetry — %2 — values shown are the last read and "
                        "age")
                        .arg(store.endpointDisplayName(endpoint), overview.hostsSilent > 0
                                                                      ? client::silentHostsText(overview)
                                                                      : QStringLiteral("every source down"));
    problems << client::sourcesHeadline(store, overview);
    return sourcesAlarm(overview) == SourcesAlarm::Critical;
}

void MainWindow::showSourcesDock() {
    if (!m_sources) return;
    m_sources->show();
    m_sources->raise();
}

void MainWindow::updateWallHeader() {
    if (!m_options.wallDisplay) return;
    const client::FleetSummary fleet = client::summarizeFleet(*m_context.store);
    const widgets::ThemeColors& c = m_theme->colors();
    const Location here = currentLocation();
    m_wallTitle->setText(
        QStringLiteral("<span style='color:%1'>WATCHFLOOR</span>&nbsp;&nbsp;%2%3")
            .arg(c.accent.name(), pageTitle(here.page),
                 here.entity.isEmpty() ? QString() : QStringLiteral(" · ") + here.entity.toHtmlEscaped()));
    const QColor incidentColor = fleet.activeIncidents > 0 ? c.crit : c.ok;
    // Jobs without step telemetry are not in the averages: say over how many jobs they are.
    const QString coverage = fleet.jobsInGoodput < fleet.jobsActive
                                 ? QStringLiteral(" <span style='color:%1'>(%2 of %3 jobs)</span>")
                                       .arg(c.textDim.name())
                                       .arg(fleet.jobsInGoodput)
                                       .arg(fleet.jobsActive)
                                 : QString();
    QString text = QStringLiteral(
                       "Goodput <b>%1</b>%2 &nbsp; ETTR 1h <b>%3</b> &nbsp; GPUs down <b>%4</b> &nbsp; "
                       "<span style='color:%5'>Incidents <b>%6</b></span>")
                       .arg(formatFleetRatio(fleet, fleet.goodputRatio), coverage,
                            formatFleetRatio(fleet, fleet.ettrSliding1hRatio))
                       .arg(fleet.gpusDown)
                       .arg(incidentColor.name())
                       .arg(fleet.activeIncidents);
    // Merged numbers with an endpoint down are partly last-known: the wall says so beside them.
    if (!fleet.allLive()) {
        text += QStringLiteral(" &nbsp; <span style='color:%1'><b>%2</b></span>")
                    .arg(c.crit.name(), endpointsLiveNote(fleet).toHtmlEscaped());
    }
    const client::SourcesOverview sources = client::overviewOfSources(*m_context.store);
    if (!sources.allUp()) {
        text += QStringLiteral(" &nbsp; <span style='color:%1'>Sources <b>%2 of %3 not up</b></span>")
                    .arg(sourcesAlarmColor(sourcesAlarm(sources), *m_theme).name())
                    .arg(sources.total - sources.up)
                    .arg(sources.total);
    }
    m_wallKpis->setText(text);
    m_wallClock->setText(QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss 'UTC'")));
}

std::optional<Location> MainWindow::newWorstIncident() {
    const client::FleetStore& store = *m_context.store;
    const quint64 from = std::max(store.firstEventSerial(), m_lastIncidentSerialShown + 1);
    for (quint64 serial = store.nextEventSerial(); serial-- > from;) {
        const client::StoredEvent* event = store.eventBySerial(serial);
        if (!event || event->event.severity() != v1::SEVERITY_CRITICAL) continue;
        m_lastIncidentSerialShown = store.nextEventSerial() - 1;
        const client::EntityId entity = store.eventEntity(*event);
        if (store.name(entity).isEmpty()) return std::nullopt;
        return locationFor(store, entity);
    }
    return std::nullopt;
}

void MainWindow::onRotationTick() {
    if (auto incident = m_options.followIncidents ? newWorstIncident() : std::nullopt) {
        showLocation(*incident);
        return;
    }
    if (m_options.rotateInterval.count() > 0 && m_rotation) showLocation({m_rotation->advance(), {}});
}

void MainWindow::restoreLayout(const ConsoleSettings& settings, QStringList* warnings) {
    if (!settings.windowGeometry.isEmpty() && !restoreGeometry(settings.windowGeometry))
        warnings->append(QStringLiteral("The saved window geometry is unusable; using the default size."));
    if (!settings.windowState.isEmpty() && !restoreState(settings.windowState))
        warnings->append(QStringLiteral("The saved dock layout is unusable; using the default layout."));
    if (m_rewind && m_rewind->isLive() && m_rewind->pastDock())
        m_rewind->pastDock()->hide();  // a layout saved while rewound must not open on the past's dock
}

void MainWindow::storeLayout(ConsoleSettings& settings) const {
    settings.windowGeometry = saveGeometry();
    settings.windowState = saveState();
    settings.theme = m_options.theme;
    settings.lastPage = currentLocation().page;
    if (auto* fleet = qobject_cast<FleetPage*>(m_pages.value(PageId::Fleet))) settings.lens = fleet->lens();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    if (!m_options.wallDisplay) return;
    widgets::Theme wall =
        widgets::Theme::builtin(widgets::ThemeVariant::WarRoom).forWall(widgets::wallScaleFor(size()));
    if (m_wallTheme && wall.minCapHeightPx() == m_wallTheme->minCapHeightPx()) return;
    m_wallTheme = std::move(wall);
    m_theme = &*m_wallTheme;
    applyTheme();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_rotationTimer.stop();
    QMainWindow::closeEvent(event);
}

}  // namespace watchfloor::ui
