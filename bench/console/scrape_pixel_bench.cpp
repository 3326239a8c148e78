// scrape_pixel_bench: fault-to-pixel on a real site's path, through --source scrape and through
// the Prometheus path of part 1, measured in the same run on the same exporters.
//
// The site: the digital twin's dcgm-exporter and node_exporter pages for every tray of a fleet file,
// held still on loopback, and a real Prometheus scraping them every --store-interval-ms
// (ExporterSite). Two real fleetd processes read that fleet file: one with `--source scrape
// --scrape-interval` (the fast path), one with `--source prometheus=URL --poll` and
// `--store-scrape-interval` at the store's interval (part 1's path). In this process, offscreen,
// one console per fleetd: EndpointConnection → FleetStore → the Fleet page (Health lens), each
// rack map watched by a TilePixelWatcher (the pixels of the rendered frame).
//
// A flip: at a random phase of both paths' cycles, one GPU's DCGM_FI_DEV_ROW_REMAP_FAILURE gauge
// goes 0 → 1 at the exporters (row remapping failed: fleetd turns its rack Degraded, so the rack's
// Health tile changes colour), or back 1 → 0 on that rack's next flip (Healthy again).
//   t0 = the moment the exporters serve the new value,
//   t1 = the end of the first repaint whose rendered frame shows that rack's tile in the new
//        colour, for each console.
// The next flip waits until both consoles drew it (or gave up), then for its random phase.
//
//   scrape_pixel_bench [--flips 16] [--interval-ms 1000] [--store-interval-ms 15000] [--racks 4]
//                      [--fleetd PATH] [--size 1280x720]

#include "BenchFlags.h"
#include "BenchFleetd.h"
#include "BenchMeasures.h"
#include "ConsoleProbes.h"
#include "ExporterSite.h"

#include "FleetPage.h"
#include "PageContext.h"

#include "ColorScale.h"
#include "EndpointConnection.h"
#include "FleetStore.h"
#include "Theme.h"

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace watchfloor;
using bench::Clock;
using namespace std::chrono_literals;

constexpr double kSlackMs = 200;  // issue 11: scrape path p99 <= scrape interval + 200 ms

struct Options {
    int flips = 16;
    int intervalMs = 1000;        // fleetd --scrape-interval
    int storeIntervalMs = 15000;  // Prometheus's scrape_interval and the other fleetd's --poll (part 1's defaults)
    int racks = 4;
    QSize size{1280, 720};
    QString fleetd;
};

[[noreturn]] void usage(const QString& problem) {
    std::fprintf(
        stderr,
        "scrape_pixel_bench: %s\n"
        "usage: scrape_pixel_bench [--flips N] [--interval-ms N] [--store-interval-ms N] [--racks N]\n"
        "                          [--fleetd PATH] [--size WxH]\n"
        "  --interval-ms N        the scrape path's --scrape-interval (default 1000, at least 1000)\n"
        "  --store-interval-ms N  Prometheus's scrape interval and the Prometheus path's --poll (default 15000)\n",
        qPrintable(problem));
    std::exit(2);
}

Options parseOptions(const QStringList& args) {
    Options o;
    o.fleetd = qEnvironmentVariable("FLEETD_BIN", QStringLiteral(FLEETD_DEFAULT_PATH));
    bench::BenchFlags(usage, QStringLiteral("fault-to-pixel through --source scrape beside --source prometheus"))
        .integer(QStringLiteral("--flips"), o.flips)
        .integer(QStringLiteral("--interval-ms"), o.intervalMs)
        .integer(QStringLiteral("--store-interval-ms"), o.storeIntervalMs)
        .integer(QStringLiteral("--racks"), o.racks)
        .text(QStringLiteral("--fleetd"), o.fleetd)
        .size(QStringLiteral("--size"), o.size)
        .read(args);
    // fleetd takes whole seconds of at least 1 s for both intervals.
    if (o.flips < 1 || o.racks < 1 || o.racks > 99 || o.intervalMs < 1000 || o.intervalMs % 1000 ||
        o.storeIntervalMs < 1000 || o.storeIntervalMs % 1000 || o.size.isEmpty())
        usage(QStringLiteral("--flips and --racks (at most 99) positive, intervals whole seconds of at least 1000 ms"));
    return o;
}

QString seconds(int ms) { return QStringLiteral("%1s").arg(ms / 1000); }

// One console in this process against one fleetd: its store, the Fleet page shown offscreen, and
// the watcher of the page's rendered rack-map pixels.
struct Console {
    Console(const QString& target, const QString& label, const QStringList& racks, const Options& o,
            const widgets::Theme& theme) {
        client::EndpointConfig config;
        config.target = target;
        config.label = label;
        connection = new client::EndpointConnection(config, &store);
        store.attach(connection);
        context.store = &store;
        context.connections = {connection};
        page = std::make_unique<ui::FleetPage>(context);
        page->applyTheme(theme);
        page->resize(o.size);
        page->setWindowTitle(label);
        page->setActive(true);
        page->show();
        pixels = std::make_unique<bench::TilePixelWatcher>(page->rackMap(), racks, o.racks);
        connection->start();
    }
    ~Console() { connection->stop(); }

    client::FleetStore store;
    client::EndpointConnection* connection = nullptr;  // owned by the store
    ui::PageContext context;
    std::unique_ptr<ui::FleetPage> page;
    std::unique_ptr<bench::TilePixelWatcher> pixels;
};

struct Path {
    const char* name;
    bench::FleetdProcess fleetd;
    std::unique_ptr<Console> console;
    std::vector<double> ms;  // per flip drawn; +inf for one never drawn within the give-up time
};

// One GPU per rack whose gauge the flips toggle, and the rack's tile state.
struct Target {
    QString rack;
    std::uint32_t gpu = 0;
    QString gpuName;
    bool failed = false;
};

std::vector<Target> pickTargets(const v1::Topology& topology, int racks) {
    std::vector<Target> targets;
    for (const v1::Rack& rack : topology.racks()) {
        if (int(targets.size()) == racks) break;
        Target t;
        t.rack = QString::fromStdString(rack.name());
        // A GPU of the rack's middle tray (slot 9), a different one of its four per rack.
        if (rack.node_indexes_size() < 9) continue;
        const std::uint32_t tray = rack.node_indexes(8);
        const auto node = std::find_if(topology.nodes().begin(), topology.nodes().end(),
                                       [tray](const v1::Node& n) { return n.index() == tray; });
        if (node == topology.nodes().end() || node->gpu_indexes_size() == 0) continue;
        t.gpu = node->gpu_indexes(int(targets.size()) % node->gpu_indexes_size());
        for (const v1::Gpu& gpu : topology.gpus())
            if (gpu.index() == t.gpu) t.gpuName = QString::fromStdString(gpu.name());
        if (!t.gpuName.isEmpty()) targets.push_back(t);
    }
    return targets;
}

void report(const Path& path) {
    const auto& ms = path.ms;
    const auto drawn = std::count_if(ms.begin(), ms.end(), [](double v) { return std::isfinite(v); });
    std::printf("  %-16s n=%zu (%lld drawn)  p50 %7.0f ms  p99 %7.0f ms  max %7.0f ms  min %7.0f ms\n", path.name,
                ms.size(), (long long)drawn, bench::percentile(ms, 50), bench::percentile(ms, 99),
                *std::max_element(ms.begin(), ms.end()), *std::min_element(ms.begin(), ms.end()));
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const Options o = parseOptions(app.arguments());
    const QString loadAtStart = bench::loadAverage();

    QTemporaryDir dir;
    if (!dir.isValid())
        return std::fprintf(stderr, "scrape_pixel_bench: no temporary directory: %s\n", qPrintable(dir.errorString())),
               1;
    const QString fleetFile = dir.filePath(QStringLiteral("site.fleet"));
    {
        QFile file(fleetFile);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Text) ||
            file.write(QStringLiteral(
                           "fleet scrape-pixel\nregion us-east\nracks %1 hall=h1 row=1 hosts=gb200-{rack}-n[01-18]\n")
                           .arg(o.racks)
                           .toUtf8()) < 0)
            return std::fprintf(stderr, "scrape_pixel_bench: cannot write %s\n", qPrintable(fleetFile)), 1;
    }

    bench::ExporterSite::Options siteOptions;
    siteOptions.twin.seed = 7;
    siteOptions.twin.fleetFile = fleetFile.toStdString();
    siteOptions.storeScrapeInterval = std::chrono::milliseconds(o.storeIntervalMs);
    std::string error;
    auto site = bench::ExporterSite::start(siteOptions, &error);
    if (!site) return std::fprintf(stderr, "scrape_pixel_bench: %s\n", error.c_str()), 1;
    std::vector<Target> targets = pickTargets(site->topology(), o.racks);
    if (targets.empty())
        return std::fprintf(stderr, "scrape_pixel_bench: no GPU to flip in the fleet file's racks\n"), 1;
    QStringList racks;
    for (const Target& t : targets) racks << t.rack;

    Path scrape{"scrape path", {}, nullptr, {}};
    Path store{"Prometheus path", {}, nullptr, {}};
    scrape.fleetd.setLabel(QStringLiteral("fleetd scrape"));
    store.fleetd.setLabel(QStringLiteral("fleetd prometheus"));
    const QStringList common{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--fleet"),
                             fleetFile};
    // One exporter server stands in for every host: at most its pool's size of transfers at once.
    // The twin holds still between flips, so "frozen" must not be called on it.
    const QString scrapeError = scrape.fleetd.start(
        o.fleetd,
        common + QStringList{QStringLiteral("--source"), QStringLiteral("scrape"), QStringLiteral("--scrape-interval"),
                             seconds(o.intervalMs), QStringLiteral("--scrape-dcgm"),
                             QString::fromStdString(site->dcgmUrlPattern()), QStringLiteral("--scrape-node"),
                             QString::fromStdString(site->nodeUrlPattern()), QStringLiteral("--scrape-concurrency"),
                             QString::number(site->exporterThreads()), QStringLiteral("--scrape-frozen-after"),
                             QStringLiteral("24h")},
        60s);
    const QString storeError = store.fleetd.start(
        o.fleetd,
        common + QStringList{QStringLiteral("--source"),
                             QStringLiteral("prometheus=") + QString::fromStdString(site->prometheusUrl()),
                             QStringLiteral("--poll"), seconds(o.storeIntervalMs),
                             QStringLiteral("--store-scrape-interval"), seconds(o.storeIntervalMs)},
        60s);
    if (!scrapeError.isEmpty() || !storeError.isEmpty())
        return std::fprintf(stderr, "scrape_pixel_bench: %s %s\n", qPrintable(scrapeError), qPrintable(storeError)), 1;

    const widgets::Theme& theme = widgets::Theme::builtin(widgets::ThemeVariant::Dark);
    const widgets::ColorScale health = widgets::ColorScale::forLens(widgets::Lens::Health, theme);
    const QRgb healthy = health.colorFor(float(int(widgets::HealthCategory::Healthy))).rgb();
    const QRgb degraded = health.colorFor(float(int(widgets::HealthCategory::Degraded))).rgb();
    scrape.console = std::make_unique<Console>(QStringLiteral("127.0.0.1:%1").arg(scrape.fleetd.port()),
                                               QStringLiteral("scrape"), racks, o, theme);
    store.console = std::make_unique<Console>(QStringLiteral("127.0.0.1:%1").arg(store.fleetd.port()),
                                              QStringLiteral("prometheus"), racks, o, theme);
    Path* const paths[] = {&scrape, &store};

    std::printf(
        "scrape_pixel_bench: %d racks (%d hosts, %d scrape targets) in one fleet file; the twin's exporter pages\n"
        "  held still on loopback (%zu server threads); fleetd --source scrape --scrape-interval %s beside fleetd\n"
        "  --source prometheus --poll %s on a real Prometheus scraping every %s; two consoles offscreen (Fleet\n"
        "  page %dx%d, Health lens, %s); %d flips of DCGM_FI_DEV_ROW_REMAP_FAILURE on GPUs of racks %s;\n"
        "  load average %s\n",
        o.racks, site->topology().nodes_size(), 2 * site->topology().nodes_size(), site->exporterThreads(),
        qPrintable(seconds(o.intervalMs)), qPrintable(seconds(o.storeIntervalMs)),
        qPrintable(seconds(o.storeIntervalMs)), o.size.width(), o.size.height(),
        qPrintable(QApplication::platformName()), o.flips, qPrintable(racks.join(QLatin1Char(','))),
        qPrintable(loadAtStart));
    std::fflush(stdout);

    // Start-up: both consoles draw every watched rack Healthy (the store path's first values come
    // after one store scrape and one poll).
    const auto allHealthy = [&] {
        for (Path* path : paths)
            for (const QString& rack : racks) {
                const auto colour = path->console->pixels->lastColour(rack);
                if (!colour || !bench::similarColour(*colour, healthy)) return false;
            }
        return true;
    };
    const auto startupDeadline = Clock::now() + std::chrono::milliseconds(4 * o.storeIntervalMs + 60'000);
    while (!allHealthy() && Clock::now() < startupDeadline) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!allHealthy()) {
        for (Path* path : paths)
            for (const QString& rack : racks) {
                const auto colour = path->console->pixels->lastColour(rack);
                std::fprintf(stderr, "  %s: %s drawn %s\n", path->name, qPrintable(rack),
                             colour ? qPrintable(QStringLiteral("#%1").arg(*colour & 0xffffff, 6, 16, QLatin1Char('0')))
                                    : "never");
            }
        return std::fprintf(stderr, "scrape_pixel_bench: the consoles never drew every watched rack Healthy (#%06x)\n",
                            healthy & 0xffffff),
               1;
    }

    std::mt19937 random(7);
    // A uniform wait over the longer cycle puts each flip at a random phase of both (right after the
    // last one was drawn, a flip would sit at the same phase of the store's poll every time).
    std::uniform_int_distribution<int> phaseMs(500, 500 + std::max(o.intervalMs, o.storeIntervalMs));
    const auto giveUp = std::chrono::milliseconds(4 * std::max(o.intervalMs, o.storeIntervalMs) + 10'000);
    int faults = 0, clears = 0;
    for (int flip = 0; flip < o.flips; ++flip) {
        const auto waitUntil = Clock::now() + std::chrono::milliseconds(phaseMs(random));
        while (Clock::now() < waitUntil) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        Target& target = targets[std::size_t(flip) % targets.size()];
        target.failed = !target.failed;
        (target.failed ? faults : clears)++;
        const QRgb expected = target.failed ? degraded : healthy;
        const Clock::time_point t0 = Clock::now();
        site->set(target.gpu, v1::DCGM_FI_DEV_ROW_REMAP_FAILURE, target.failed ? 1.0f : 0.0f);
        std::optional<Clock::time_point> drawn[2];
        while ((!drawn[0] || !drawn[1]) && Clock::now() - t0 < giveUp) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            for (int p = 0; p < 2; ++p)
                if (!drawn[p]) drawn[p] = paths[p]->console->pixels->firstDrawnAs(target.rack, expected, t0);
        }
        std::printf("  flip %2d: %s %s → %s:", flip + 1, qPrintable(target.gpuName), target.failed ? "0" : "1",
                    target.failed ? "1 (rack Degraded)" : "0 (rack Healthy)");
        for (int p = 0; p < 2; ++p) {
            const double ms = drawn[p] ? bench::millis(*drawn[p] - t0) : std::numeric_limits<double>::infinity();
            paths[p]->ms.push_back(ms);
            std::printf("  %s %s", paths[p]->name,
                        drawn[p] ? qPrintable(QStringLiteral("%1 ms").arg(ms, 0, 'f', 0)) : "never");
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    const QString loadAtEnd = bench::loadAverage();
    for (Path* path : paths) {
        path->console.reset();
        path->fleetd.stop();
    }
    site.reset();

    std::printf(
        "\n  fault-to-pixel (t0: the exporters serve the new value; t1: the end of the first repaint whose\n"
        "  rendered frame shows the rack's Health tile in the new colour); %d faults + %d clears; a flip not\n"
        "  drawn within %.0f s counts as never (infinite)\n",
        faults, clears, std::chrono::duration<double>(giveUp).count());
    report(scrape);
    report(store);
    const double scrapeP99 = bench::percentile(scrape.ms, 99), storeP99 = bench::percentile(store.ms, 99);
    const double scrapeP50 = bench::percentile(scrape.ms, 50), storeP50 = bench::percentile(store.ms, 50);
    std::printf("  ratio Prometheus / scrape: p50 %.1fx, p99 %.1fx\n", storeP50 / scrapeP50, storeP99 / scrapeP99);
    const double target = o.intervalMs + kSlackMs;
    std::printf("  scrape path p99 %.0f ms vs target (scrape interval + %.0f ms) %.0f ms -> %s\n", scrapeP99, kSlackMs,
                target, scrapeP99 <= target ? "met" : "SHORT");
    std::printf("  load average %s at start, %s at end (2 cores shared with other work: every number includes it)\n",
                qPrintable(loadAtStart), qPrintable(loadAtEnd));
    return std::isfinite(scrapeP99) && std::isfinite(storeP99) ? 0 : 1;
}
