#pragma once
// Rewind in the console window: the bar (RewindBar), the past pages (RewindView) in place of the
// live ones, and an Alerts dock on the past store in place of the live dock, all fed by
// client::PastFleet. The live FleetStore keeps ingesting the stream the whole time, so going back
// to live (Esc, the Live button, the slider's right end) is a switch of widgets, instant.
//
// MainWindow owns one (not on the war-room wall): it puts bar() above its pages, wraps its page
// stack with wrap() and hands its Alerts dock to addDocks().

#include "NavigationHistory.h"
#include "PageContext.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QMainWindow;
class QShortcut;
class QStackedWidget;

namespace watchfloor::client {
class PastFleet;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class IncidentsDock;
class RewindBar;
class RewindView;

class RewindController : public QObject {
    Q_OBJECT
public:
    // `here` says where the live console is, so the past opens on the same rack.
    RewindController(const PageContext& live, QMainWindow* window, std::function<Location()> here);
    ~RewindController() override;

    RewindBar* bar() const { return m_bar; }
    RewindView* view() const { return m_view; }
    IncidentsDock* pastDock() const { return m_pastDock; }
    client::PastFleet& past() const { return *m_past; }
    // A stack of the live page area and the past view, for the window's layout.
    QWidget* wrap(QWidget* liveArea);
    void addDocks(IncidentsDock* liveDock);
    void applyTheme(const widgets::Theme& theme);

    bool isLive() const { return !m_wantPast; }
    // The moment the pages show while rewound (fleet time, Unix ms); 0 while they show live.
    std::int64_t pastShownMs() const;
    void rewindTo(std::int64_t asOfMs);
    void goLive();

signals:
    // Back to live at the place the past view showed (MainWindow navigates there).
    void liveAt(const watchfloor::ui::Location& location);
    // The pages switched between live and a past moment, or moved to another moment.
    void viewingChanged();

private:
    void onMoved(std::int64_t shownMs, const QStringList& problems);
    // Shows the place the live console was at, once the past store knows it.
    void openWhenKnown();
    void markPastDockTitle();  // "AS OF 14:32:10 UTC (past) · Alerts — …"

    void showPastWidgets(bool past);
    std::int64_t liveNowMs() const;

    const PageContext m_live;
    QMainWindow* m_window;
    std::function<Location()> m_here;
    std::unique_ptr<client::PastFleet> m_past;
    RewindBar* m_bar;
    RewindView* m_view;
    QStackedWidget* m_area = nullptr;
    QWidget* m_liveArea = nullptr;
    IncidentsDock* m_liveDock = nullptr;
    IncidentsDock* m_pastDock = nullptr;
    bool m_liveDockWasVisible = true;
    QShortcut* m_escape;
    QTimer m_windowTimer;               // keeps the slider's range following the live end
    std::optional<Location> m_opening;  // where the past view opens, until the past store knows it
    bool m_wantPast = false;
    bool m_showingPast = false;
};

}  // namespace watchfloor::ui
