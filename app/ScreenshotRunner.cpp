#include "ScreenshotRunner.h"

#include "MainWindow.h"
#include "Page.h"

#include "client/FleetStore.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

namespace watchfloor::app {

namespace {
constexpr std::chrono::milliseconds kPollInterval{200};
}

ScreenshotRunner::ScreenshotRunner(ui::MainWindow& window, client::FleetStore& store, Request request, QObject* parent)
    : QObject(parent), m_window(window), m_store(store), m_request(std::move(request))
{
    m_poll.setInterval(kPollInterval);
    connect(&m_poll, &QTimer::timeout, this, &ScreenshotRunner::poll);
}

void ScreenshotRunner::start()
{
    m_sinceStart.start();
    m_poll.start();
}

bool ScreenshotRunner::storeIsLive() const
{
    for (int i = 0; i < m_store.endpointCount(); ++i) {
        if (m_store.endpointState(i) != client::ConnectionState::Live || !m_store.endpointFleet(i).hasSnapshot())
            return false;
    }
    return m_store.endpointCount() > 0 && m_store.fleetSummary().endpointsReporting > 0;
}

void ScreenshotRunner::poll()
{
    if (m_done)
        return;
    const auto elapsed = std::chrono::milliseconds(m_sinceStart.elapsed());
    if (!m_shown) {
        if (storeIsLive()) {
            if (!m_window.navigate(m_request.location))
                return fail(QStringLiteral("The %1 page cannot show '%2': no such entity in the fleet.")
                                .arg(ui::pageKey(m_request.location.page), m_request.location.entity));
            m_shown = true;
            m_sinceShown.start();
        } else if (elapsed > m_request.timeout) {
            QStringList states;
            for (int i = 0; i < m_store.endpointCount(); ++i)
                states << QStringLiteral("%1: %2").arg(m_store.endpointLabel(i), m_store.endpointStatus(i));
            return fail(QStringLiteral("No live data within %1 s (%2). Is fleetd running and reachable?")
                            .arg(m_request.timeout.count())
                            .arg(states.join(QStringLiteral("; "))));
        }
        return;
    }
    const bool settled = m_sinceShown.elapsed() >= std::chrono::milliseconds(m_request.settle).count();
    ui::Page* page = m_window.currentPage();
    if (settled && page && page->hasContent())
        return render();
    if (elapsed > m_request.timeout + m_request.settle) {
        if (page && !page->hasContent())
            return fail(QStringLiteral("The %1 page had nothing to show within %2 s of live data.")
                            .arg(ui::pageKey(m_request.location.page))
                            .arg(m_request.timeout.count()));
        render();
    }
}

void ScreenshotRunner::render()
{
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
        return fail(QStringLiteral("Could not write %1 (check that the folder exists and is writable).").arg(m_request.path));
    emit finished(0, QStringLiteral("Wrote %1 (%2×%3, page %4%5)")
                         .arg(m_request.path)
                         .arg(image.width())
                         .arg(image.height())
                         .arg(ui::pageKey(m_window.currentLocation().page),
                              m_window.currentLocation().entity.isEmpty()
                                  ? QString()
                                  : QStringLiteral(", ") + m_window.currentLocation().entity));
}

void ScreenshotRunner::fail(const QString& message)
{
    m_done = true;
    m_poll.stop();
    emit finished(1, message);
}

}  // namespace watchfloor::app
