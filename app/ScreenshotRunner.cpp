#include "ScreenshotRunner.h"

#include "MainWindow.h"
#include "Page.h"

#include "FleetGoodputMerge.h"
#include "FleetStore.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

namespace watchfloor::app {

namespace {
constexpr std::chrono::milliseconds kPollInterval{200};
}

ScreenshotRunner::ScreenshotRunner(ui::MainWindow& window, client::FleetStore& store, Request request, QObject* parent)
    : QObject(parent), m_window(window), m_store(store), m_request(std::move(request)) {
    m_poll.setInterval(kPollInterval);
    connect(&m_poll, &QTimer::timeout, this, &ScreenshotRunner::poll);
}

void ScreenshotRunner::start() {
    m_sinceStart.start();
    m_poll.start();
}

bool ScreenshotRunner::endpointIsLive(int endpoint) const {
    return m_store.endpointState(endpoint) == client::ConnectionState::Live &&
           m_store.endpointFleet(endpoint).hasSnapshot();
}

int ScreenshotRunner::liveEndpoints() const {
    int live = 0;
    for (int i = 0; i < m_store.endpointCount(); ++i) live += endpointIsLive(i) ? 1 : 0;
    return live;
}

bool ScreenshotRunner::storeIsLive() const {
    return m_store.endpointCount() > 0 && liveEndpoints() == m_store.endpointCount() &&
           client::summarizeFleet(m_store).endpointsReporting > 0;
}

QString ScreenshotRunner::notLiveSummary() const {
    QStringList states;
    for (int i = 0; i < m_store.endpointCount(); ++i) {
        if (!endpointIsLive(i))
            states << QStringLiteral("%1: %2").arg(m_store.endpointDisplayName(i), m_store.endpointStatus(i));
    }
    return states.join(QStringLiteral("; "));
}

void ScreenshotRunner::poll() {
    if (m_done) return;
    const auto elapsed = std::chrono::milliseconds(m_sinceStart.elapsed());
    if (!m_shown) {
        const bool timedOut = elapsed > m_request.timeout;
        // Past the timeout, what is live is rendered and the rest is marked (banner, KPI notes,
        // Needs attention): a merged console with one region down is exactly when a picture helps.
        const bool partial = timedOut && liveEndpoints() > 0 && client::summarizeFleet(m_store).endpointsReporting > 0;
        if (storeIsLive() || partial) {
            if (!m_window.navigate(m_request.location))
                return fail(QStringLiteral("The %1 page cannot show '%2': no such entity in the fleet.")
                                .arg(ui::pageKey(m_request.location.page), m_request.location.entity));
            m_shown = true;
            m_sinceShown.start();
        } else if (timedOut) {
            return fail(QStringLiteral("No live data within %1 s (%2). Is fleetd running and reachable?")
                            .arg(m_request.timeout.count())
                            .arg(notLiveSummary()));
        }
        return;
    }
    const auto sinceShown = std::chrono::milliseconds(m_sinceShown.elapsed());
    const bool settled = sinceShown >= m_request.settle;
    ui::Page* page = m_window.currentPage();
    if (settled && page && page->hasContent()) return render();
    if (sinceShown > m_request.timeout + m_request.settle) {
        if (page && !page->hasContent())
            return fail(QStringLiteral("The %1 page had nothing to show within %2 s of live data.")
                            .arg(ui::pageKey(m_request.location.page))
                            .arg(m_request.timeout.count()));
        render();
    }
}

void ScreenshotRunner::render() {
    m_done = true;
    m_poll.stop();
    m_store.flushChanges();
    QApplication::processEvents();
    // Render at exactly the requested size whatever the screen's scale: 1 device pixel per pixel.
    m_window.resize(m_request.size);
    QApplication::processEvents();
    QImage image(m_request.size, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(1.0);
    image.fill(m_window.palette().window().color());
    {
        QPainter painter(&image);
        m_window.render(&painter);
    }
    if (!image.save(m_request.path, "PNG"))
        return fail(
            QStringLiteral("Could not write %1 (check that the folder exists and is writable).").arg(m_request.path));
    const int live = liveEndpoints();
    const QString partial = live == m_store.endpointCount()
                                ? QString()
                                : QStringLiteral("; %1 of %2 endpoints live, the rest marked stale or missing (%3)")
                                      .arg(live)
                                      .arg(m_store.endpointCount())
                                      .arg(notLiveSummary());
    emit finished(0, QStringLiteral("Wrote %1 (%2×%3, page %4%5%6)")
                         .arg(m_request.path)
                         .arg(image.width())
                         .arg(image.height())
                         .arg(ui::pageKey(m_window.currentLocation().page),
                              m_window.currentLocation().entity.isEmpty()
                                  ? QString()
                                  : QStringLiteral(", ") + m_window.currentLocation().entity,
                              partial));
}

void ScreenshotRunner::fail(const QString& message) {
    m_done = true;
    m_poll.stop();
    emit finished(1, message);
}

}  // namespace watchfloor::app
