#pragma once
// Headless rendering: wait for live data (bounded), open the page, let it settle so history
// backfills and charts fill, render the window at exactly 1920×1080 into a PNG, and report how
// it went as an exit code plus a message an operator can act on. With several endpoints, one that
// is still not live at the timeout does not stop the render: what is live is drawn, the rest is
// marked as the console marks it, and the message names it.

#include "NavigationHistory.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSize>
#include <QTimer>

#include <chrono>

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::ui {
class MainWindow;
}

namespace watchfloor::app {

class ScreenshotRunner : public QObject {
    Q_OBJECT
public:
    struct Request {
        ui::Location location;
        QString path;
        std::chrono::seconds timeout{30};
        std::chrono::seconds settle{2};
        QSize size{1920, 1080};
    };

    ScreenshotRunner(ui::MainWindow& window, client::FleetStore& store, Request request, QObject* parent = nullptr);
    void start();

signals:
    // exitCode 0 = PNG written (possibly with some endpoints not live: the message says so);
    // 1 = no live data in time, unknown entity, or the file could not be written.
    void finished(int exitCode, const QString& message);

private:
    void poll();
    bool endpointIsLive(int endpoint) const;
    int liveEndpoints() const;
    bool storeIsLive() const;
    // "<endpoint>: <status>" of every endpoint not live, for messages.
    QString notLiveSummary() const;
    void render();
    void fail(const QString& message);

    ui::MainWindow& m_window;
    client::FleetStore& m_store;
    Request m_request;
    QTimer m_poll;
    QElapsedTimer m_sinceStart;
    QElapsedTimer m_sinceShown;
    bool m_shown = false;
    bool m_done = false;
};

}  // namespace watchfloor::app
