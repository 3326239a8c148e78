#include "RewindController.h"

#include "FleetFormat.h"
#include "IncidentsDock.h"
#include "RewindBar.h"
#include "RewindView.h"

#include "FleetStore.h"
#include "PastFleet.h"

#include <QMainWindow>
#include <QShortcut>
#include <QStackedWidget>

#include <algorithm>

namespace watchfloor::ui {

RewindController::RewindController(const PageContext& live, QMainWindow* window, std::function<Location()> here)
    : QObject(window),
      m_live(live),
      m_window(window),
      m_here(std::move(here)),
      m_past(std::make_unique<client::PastFleet>(*live.store, live.connections)),
      m_bar(new RewindBar(window)),
      m_view(new RewindView(m_past->store(), window)),
      m_escape(new QShortcut(QKeySequence(Qt::Key_Escape), window)) {
    m_escape->setContext(Qt::WindowShortcut);
    m_escape->setEnabled(false);
    connect(m_escape, &QShortcut::activated, this, &RewindController::goLive);
    connect(m_bar, &RewindBar::moveRequested, this, &RewindController::rewindTo);
    connect(m_bar, &RewindBar::liveRequested, this, &RewindController::goLive);
    connect(m_past.get(), &client::PastFleet::moved, this, &RewindController::onMoved);
    connect(m_view, &RewindView::leaveRequested, this, [this](const Location& location) {
        goLive();
        emit liveAt(location);
    });
    // The past store learns its topology from the first answer, built on its worker thread: the
    // rack the live console showed can only be opened in the past once that has landed.
    connect(&m_past->store(), &client::FleetStore::changed, this, &RewindController::openWhenKnown);
    m_bar->setLiveClock([this] { return liveNowMs(); });
    m_windowTimer.setInterval(1000);
    connect(&m_windowTimer, &QTimer::timeout, this, [this] { m_bar->setWindow(m_past->earliestMs(), liveNowMs()); });
    m_windowTimer.start();
}

RewindController::~RewindController() = default;

QWidget* RewindController::wrap(QWidget* liveArea) {
    m_liveArea = liveArea;
    m_area = new QStackedWidget(m_window);
    m_area->setObjectName(QStringLiteral("liveOrPast"));
    m_area->addWidget(liveArea);
    m_area->addWidget(m_view);
    return m_area;
}

void RewindController::addDocks(IncidentsDock* liveDock) {
    m_liveDock = liveDock;
    m_pastDock = new IncidentsDock(m_past->store(), nullptr, m_window);
    m_pastDock->setObjectName(QStringLiteral("pastIncidentsDock"));
    m_window->addDockWidget(m_window->dockWidgetArea(liveDock), m_pastDock);
    m_pastDock->hide();
    connect(m_pastDock, &IncidentsDock::navigationRequested, m_view, &RewindView::show);
    // The dock titles itself with its counts on every change: keep the moment in front of them.
    connect(m_pastDock, &QWidget::windowTitleChanged, this, &RewindController::markPastDockTitle);
}

void RewindController::applyTheme(const widgets::Theme& theme) {
    m_view->applyTheme(theme);
    if (m_pastDock) m_pastDock->applyTheme(theme);
}

std::int64_t RewindController::liveNowMs() const {
    std::int64_t now = 0;
    for (int e = 0; e < m_live.store->endpointCount(); ++e)
        now = std::max(now, m_live.store->endpointFleet(e).serverTimeUnixMs());
    return now;
}

void RewindController::rewindTo(std::int64_t asOfMs) {
    if (!m_wantPast) {
        m_opening = m_here ? m_here() : Location{};
        openWhenKnown();
    }
    m_wantPast = true;
    m_escape->setEnabled(true);
    m_bar->showFetching(asOfMs);
    m_past->moveTo(asOfMs);
}

void RewindController::openWhenKnown() {
    if (!m_opening) return;
    if (!m_opening->entity.isEmpty() && !m_past->store().findByName(m_opening->entity).isValid()) return;
    m_view->show(*m_opening);
    m_opening.reset();
}

void RewindController::markPastDockTitle() {
    if (!m_pastDock || m_past->shownMs() == 0) return;
    static const QString kMark = QStringLiteral(" (past) · ");
    const QString prefix = QStringLiteral("AS OF %1 UTC").arg(formatUnixMs(m_past->shownMs())) + kMark;
    QString title = m_pastDock->windowTitle();
    if (title.startsWith(prefix)) return;
    if (const int mark = title.indexOf(kMark); mark >= 0) title = title.mid(mark + kMark.size());
    m_pastDock->setWindowTitle(prefix + title);
}

void RewindController::onMoved(std::int64_t shownMs, const QStringList& problems) {
    if (!m_wantPast) return;  // Esc came first
    if (shownMs == 0) {       // nothing answered: stay live and say why
        m_wantPast = false;
        m_escape->setEnabled(false);
        m_bar->showLive();
        m_bar->showStatus(problems.join(QStringLiteral("; ")));
        return;
    }
    m_bar->setWindow(m_past->earliestMs(), liveNowMs());
    m_bar->showPast(shownMs, problems);
    m_past->store().flushChanges();
    markPastDockTitle();
    showPastWidgets(true);
    emit viewingChanged();  // a new moment too, not only the switch
}

void RewindController::goLive() {
    const bool wasShowing = m_showingPast;
    const Location at = m_view->location();
    m_wantPast = false;
    m_opening.reset();
    m_escape->setEnabled(false);
    m_bar->showLive();
    showPastWidgets(false);
    emit viewingChanged();
    if (wasShowing) emit liveAt(at);
}

std::int64_t RewindController::pastShownMs() const { return m_showingPast ? m_past->shownMs() : 0; }

void RewindController::showPastWidgets(bool past) {
    if (past == m_showingPast) return;
    m_showingPast = past;
    if (m_area) m_area->setCurrentWidget(past ? static_cast<QWidget*>(m_view) : m_liveArea);
    m_view->setActive(past);
    if (!m_liveDock || !m_pastDock) return;
    if (past) {
        m_liveDockWasVisible = m_liveDock->isVisible();
        m_liveDock->hide();
        m_pastDock->show();
    } else {
        m_pastDock->hide();
        m_liveDock->setVisible(m_liveDockWasVisible);
    }
}

}  // namespace watchfloor::ui
