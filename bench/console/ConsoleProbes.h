#pragma once
// The observers the console benchmarks (console_e2e_bench, scrape_pixel_bench) run beside the
// console pipeline:
//  - GuiStallProbe: a short timer on the GUI thread; the gaps between its firings are how long the
//    GUI thread could not run anything (input, paint) — the stalls an operator feels.
//  - FaultArrivalWatcher: a second, raw gRPC subscriber on its own thread (same process) that
//    timestamps the moment each rack-isolation event arrives from fleetd.
//  - TilePixelWatcher: after every repaint of the rack map, reads the rendered pixels of the
//    watched racks' tiles and logs when their colour changes.

#include <QColor>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace grpc {
class ClientContext;
}
namespace watchfloor::widgets {
class RackMapWidget;
}

namespace watchfloor::bench {

using Clock = std::chrono::steady_clock;

class GuiStallProbe : public QObject {
    Q_OBJECT
public:
    struct Gap {
        Clock::time_point end;
        double ms = 0;
        double guiCpuMs = 0;  // CPU the GUI thread itself used in the gap: ≈ ms = our work, ≪ ms = preempted
    };

    explicit GuiStallProbe(std::chrono::milliseconds interval, QObject* parent = nullptr);
    void start();
    void stop();
    const std::vector<Gap>& gaps() const { return m_gaps; }
    std::chrono::milliseconds interval() const { return m_interval; }

private:
    std::chrono::milliseconds m_interval;
    QTimer m_timer;
    Clock::time_point m_last;
    double m_lastCpuMs = 0;
    std::vector<Gap> m_gaps;
};

// Subscribes (DETAIL_LEVEL_STANDARD, filtered to the watched racks so it costs little) and
// records the arrival time of the first RACK_ISOLATED event of each watched rack.
class FaultArrivalWatcher {
public:
    FaultArrivalWatcher(QString target, QStringList racks);
    ~FaultArrivalWatcher();
    FaultArrivalWatcher(const FaultArrivalWatcher&) = delete;
    FaultArrivalWatcher& operator=(const FaultArrivalWatcher&) = delete;

    void start();
    void stop();
    // Rack name → arrival time, for the racks whose isolation has arrived.
    std::map<QString, Clock::time_point> arrivals() const;
    // Empty, or why the stream ended early (an operator-readable gRPC status).
    QString error() const;
    bool sawSnapshot() const { return m_sawSnapshot.load(); }

private:
    void run();

    QString m_target;
    QStringList m_racks;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::unique_ptr<grpc::ClientContext> m_context;
    std::map<QString, Clock::time_point> m_arrivals;
    QString m_error;
    std::atomic<bool> m_sawSnapshot{false};
};

// Equal within a few levels per channel: the ✕ drawn over an isolated tile is antialiased, and its
// faint fringe can reach the sampled fill pixel (seen: #5b9ad4 for #5b9bd5). Health categories
// differ by far more.
bool similarColour(QRgb a, QRgb b);

class TilePixelWatcher : public QObject {
    Q_OBJECT
public:
    struct ColourChange {
        Clock::time_point when;  // the end of the repaint that drew it
        QRgb colour;
    };

    TilePixelWatcher(widgets::RackMapWidget* map, QStringList racks, int expectedRacks, QObject* parent = nullptr);

    // The first repaint that drew the whole fleet (the end of start-up); nullopt until then.
    std::optional<Clock::time_point> firstFullFrame() const { return m_firstFullFrame; }
    // Per watched rack: the colour before any change first, then every change.
    const std::map<QString, std::vector<ColourChange>>& log() const { return m_log; }
    int repaints() const { return m_repaints; }
    // The first repaint at or after `from` that drew `rack`'s tile in (about) `colour`; nullopt
    // when none has yet.
    std::optional<Clock::time_point> firstDrawnAs(const QString& rack, QRgb colour, Clock::time_point from) const;
    // The colour `rack`'s tile was last drawn in; nullopt before it was drawn.
    std::optional<QRgb> lastColour(const QString& rack) const;
    // True when pixels came from the window's backing store (what the screen gets), false when
    // they had to be re-rendered with QWidget::grab().
    bool readsBackingStore() const { return m_readsBackingStore; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void sampleTiles();
    QRgb pixelAt(const QPoint& mapPos);

    QPointer<widgets::RackMapWidget> m_map;
    QStringList m_racks;
    int m_expectedRacks;
    std::vector<int> m_tileIndexes;  // per watched rack, -1 when not on the map (yet)
    std::map<QString, std::vector<ColourChange>> m_log;
    std::optional<Clock::time_point> m_firstFullFrame;
    bool m_samplePending = false;
    bool m_readsBackingStore = true;
    int m_repaints = 0;
};

}  // namespace watchfloor::bench
