#include "ConsoleProbes.h"

#include "RackMapWidget.h"

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <QBackingStore>
#include <QEvent>
#include <QImage>
#include <QPixmap>

#include <grpcpp/grpcpp.h>

#include <time.h>

#include <cstdlib>

namespace watchfloor::bench {

namespace v1 = watchfloor::v1;

// --- GuiStallProbe -----------------------------------------------------------------------------

namespace {
double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}
}  // namespace

GuiStallProbe::GuiStallProbe(std::chrono::milliseconds interval, QObject* parent)
    : QObject(parent), m_interval(interval) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(interval);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        const Clock::time_point now = Clock::now();
        const double cpuMs = threadCpuMs();
        m_gaps.push_back({now, std::chrono::duration<double, std::milli>(now - m_last).count(), cpuMs - m_lastCpuMs});
        m_last = now;
        m_lastCpuMs = cpuMs;
    });
}

void GuiStallProbe::start() {
    m_gaps.reserve(std::size_t(1 << 20));
    m_last = Clock::now();
    m_lastCpuMs = threadCpuMs();
    m_timer.start();
}

void GuiStallProbe::stop() { m_timer.stop(); }

// --- FaultArrivalWatcher -------------------------------------------------------------------------

FaultArrivalWatcher::FaultArrivalWatcher(QString target, QStringList racks)
    : m_target(std::move(target)), m_racks(std::move(racks)) {}

FaultArrivalWatcher::~FaultArrivalWatcher() { stop(); }

void FaultArrivalWatcher::start() {
    m_context = std::make_unique<grpc::ClientContext>();
    m_thread = std::thread([this] { run(); });
}

void FaultArrivalWatcher::stop() {
    if (!m_thread.joinable()) return;
    m_context->TryCancel();
    m_thread.join();
}

std::map<QString, Clock::time_point> FaultArrivalWatcher::arrivals() const {
    std::lock_guard lock(m_mutex);
    return m_arrivals;
}

QString FaultArrivalWatcher::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void FaultArrivalWatcher::run() {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    // Its own TCP connection: it must not queue behind the console's stream on a shared one.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel = grpc::CreateCustomChannel(m_target.toStdString(), grpc::InsecureChannelCredentials(), args);
    auto stub = v1::TelemetryService::NewStub(channel);
    v1::SubscribeRequest request;
    request.set_detail(v1::DETAIL_LEVEL_STANDARD);
    request.set_client_api_version(v1::API_VERSION_1);
    for (const QString& rack : m_racks) request.add_rack_names(rack.toStdString());

    auto reader = stub->Subscribe(m_context.get(), request);
    std::map<std::uint32_t, QString> rackByIndex;
    v1::SubscribeResponse message;
    while (reader->Read(&message)) {
        const Clock::time_point arrived = Clock::now();
        if (message.has_snapshot()) {
            for (const v1::Rack& rack : message.snapshot().topology().racks())
                rackByIndex[rack.index()] = QString::fromStdString(rack.name());
            m_sawSnapshot = true;
            continue;  // its recent events happened before we watched
        }
        if (!message.has_delta()) continue;
        for (const v1::Event& event : message.delta().events()) {
            if (event.type() != v1::EVENT_TYPE_RACK_ISOLATED) continue;
            const auto rack = rackByIndex.find(event.entity_index());
            if (rack == rackByIndex.end()) continue;
            std::lock_guard lock(m_mutex);
            m_arrivals.emplace(rack->second, arrived);  // keeps the first
        }
    }
    const grpc::Status status = reader->Finish();
    if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
        std::lock_guard lock(m_mutex);
        m_error = QStringLiteral("raw subscriber to %1 ended: %2 (gRPC code %3)")
                      .arg(m_target, QString::fromStdString(status.error_message()))
                      .arg(int(status.error_code()));
    }
}

// --- TilePixelWatcher ----------------------------------------------------------------------------

bool similarColour(QRgb a, QRgb b) {
    constexpr int kTolerance = 8;
    return std::abs(qRed(a) - qRed(b)) <= kTolerance && std::abs(qGreen(a) - qGreen(b)) <= kTolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= kTolerance;
}

std::optional<Clock::time_point> TilePixelWatcher::firstDrawnAs(const QString& rack, QRgb colour,
                                                                Clock::time_point from) const {
    const auto log = m_log.find(rack);
    if (log == m_log.end()) return std::nullopt;
    for (const ColourChange& change : log->second)
        if (change.when >= from && similarColour(change.colour, colour)) return change.when;
    return std::nullopt;
}

std::optional<QRgb> TilePixelWatcher::lastColour(const QString& rack) const {
    const auto log = m_log.find(rack);
    if (log == m_log.end() || log->second.empty()) return std::nullopt;
    return log->second.back().colour;
}

TilePixelWatcher::TilePixelWatcher(widgets::RackMapWidget* map, QStringList racks, int expectedRacks, QObject* parent)
    : QObject(parent), m_map(map), m_racks(std::move(racks)), m_expectedRacks(expectedRacks) {
    m_tileIndexes.assign(std::size_t(m_racks.size()), -1);
    map->installEventFilter(this);
}

bool TilePixelWatcher::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_map && event->type() == QEvent::Paint) {
        ++m_repaints;
        // The paint has not happened yet: look once the event loop is back, after the backing
        // store holds the new frame.
        if (!m_samplePending) {
            m_samplePending = true;
            QMetaObject::invokeMethod(
                this,
                [this] {
                    m_samplePending = false;
                    sampleTiles();
                },
                Qt::QueuedConnection);
        }
    }
    return QObject::eventFilter(watched, event);
}

void TilePixelWatcher::sampleTiles() {
    if (!m_map) return;
    const Clock::time_point now = Clock::now();
    const bool fullFleet = m_map->rackCount() >= m_expectedRacks;
    if (fullFleet && !m_firstFullFrame) m_firstFullFrame = now;
    for (qsizetype i = 0; i < m_racks.size(); ++i) {
        int& index = m_tileIndexes[std::size_t(i)];
        if (index < 0 || index >= m_map->rackCount() || m_map->rack(index).id != m_racks[i])
            index = m_map->indexOfRack(m_racks[i]);
        if (index < 0) continue;
        // The tile's fill, found through the widget's own geometry: a quarter in from the left
        // edge at mid height, clear of the isolation ✕ (diagonals), the alert flag (top right)
        // and the label/value text (top and bottom lines).
        const QRect tile = m_map->tileRect(index);
        const QPoint fillPoint(tile.left() + tile.width() / 4, tile.top() + tile.height() / 2);
        if (tile.isEmpty() || m_map->rackAt(fillPoint) != index)
            continue;  // scrolled out of view or hidden: nothing to read
        const QRgb colour = pixelAt(fillPoint);
        auto& changes = m_log[m_racks[i]];
        if (changes.empty() || changes.back().colour != colour) changes.push_back({now, colour});
    }
}

QRgb TilePixelWatcher::pixelAt(const QPoint& mapPos) {
    QWidget* window = m_map->window();
    if (QBackingStore* store = window->backingStore(); store && m_readsBackingStore) {
        QPaintDevice* device = store->paintDevice();
        if (device && device->devType() == QInternal::Image) {
            const auto* frame = static_cast<const QImage*>(device);
            const QPoint p = (QPointF(m_map->mapTo(window, mapPos)) * frame->devicePixelRatio()).toPoint();
            if (frame->rect().contains(p)) return frame->pixel(p);
        }
        m_readsBackingStore = false;  // a platform without a raster backing store
    }
    return m_map->grab(QRect(mapPos, QSize(1, 1))).toImage().pixel(0, 0);
}

}  // namespace watchfloor::bench
