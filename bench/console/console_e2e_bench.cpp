// console_e2e_bench: the console end to end against the real fleetd at fleet scale.
//
// Starts fleetd with 1,800 NVL72 racks (129,600 GPUs) at 1 Hz on loopback and a generated
// scenario of rack isolations, then runs the console's pipeline in this process, offscreen:
// EndpointConnection → FleetStore → the Fleet page (its RackMapWidget repainted on the store's
// ~30 Hz changed signal) at 1920×1080. It measures, with the targets beside the numbers:
//   1. GUI-thread stalls: gaps between firings of a 1 ms timer on the GUI thread, split into
//      start-up (connect → first full frame: the snapshot is built on FleetStore's worker thread,
//      so this holds its swap-in, the backlog of deltas applied in slices and the first full paint)
//      and steady state.
//   2. Fault-to-pixel latency: a raw gRPC subscriber on its own thread timestamps each isolation
//      event as it arrives from fleetd; the GUI side reads the rendered frame after every repaint
//      and timestamps when the isolated rack's tile changes colour.
//   3. Console RSS after the run, and projected to 15 minutes of history (or measured, with
//      --seconds 900).
//
//   console_e2e_bench [--seconds 60] [--racks 1800] [--regions 4] [--probe-ms 1] [--fleetd PATH]
//                     [--first-fault 20] [--max-faults 60] [--size 1920x1080]

#include "BenchFlags.h"
#include "BenchFleetd.h"
#include "BenchMeasures.h"
#include "ConsoleProbes.h"

#include "FleetPage.h"
#include "IncidentsDock.h"
#include "PageContext.h"

#include "ColorScale.h"
#include "EndpointConnection.h"
#include "FleetGoodputMerge.h"
#include "FleetStore.h"
#include "RackMapWidget.h"
#include "Theme.h"

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace {

using namespace watchfloor;
using bench::Clock;
using namespace std::chrono_literals;

// Targets (issue 3, item 6). Never relaxed here: a SHORT is the finding.
constexpr double kStallTargetMs = 50.0;
constexpr double kFaultToPixelP99TargetMs = 500.0;
constexpr double kRssTargetMiB = 1536.0;
constexpr double kHistorySeconds = 900.0;  // 15 min of 1 Hz history (FleetStore::Options::historyPoints)

struct Options {
    int seconds = 60;
    int racks = 1800;
    int regions = 4;
    int probeMs = 1;
    int firstFaultSeconds = 20;
    int maxFaults = 60;
    int cduFailSeconds = 0;  // 0: no CDU failure
    QSize size{1920, 1080};
    QString fleetd;
};

[[noreturn]] void usage(const QString& problem) {
    std::fprintf(
        stderr,
        "console_e2e_bench: %s\n"
        "usage: console_e2e_bench [--seconds N] [--racks N] [--regions N] [--probe-ms N] [--fleetd PATH]\n"
        "                         [--first-fault S] [--max-faults N] [--size WxH] [--cdu-fail S]\n"
        "  --seconds N      how long the stream runs after connecting (default 60; 900 measures 15 min of history)\n"
        "  --probe-ms N     GUI-thread probe timer interval (default 1)\n"
        "  --first-fault S  simulated offset of the first isolation (default 20, after start-up)\n"
        "  --cdu-fail S     at S s the first row's CDU loses both pumps (its racks heat, throttle and shut\n"
        "                   down: thousands of events, one incident); the Alerts dock is shown beside the\n"
        "                   page and the stalls from then on are reported apart (default 0: off)\n",
        qPrintable(problem));
    std::exit(2);
}

Options parseOptions(const QStringList& args) {
    Options o;
    o.fleetd = qEnvironmentVariable("FLEETD_BIN", QStringLiteral(FLEETD_DEFAULT_PATH));
    bench::BenchFlags(usage, QStringLiteral("measures the console end to end against fleetd"))
        .integer(QStringLiteral("--seconds"), o.seconds)
        .integer(QStringLiteral("--racks"), o.racks)
        .integer(QStringLiteral("--regions"), o.regions)
        .integer(QStringLiteral("--probe-ms"), o.probeMs)
        .integer(QStringLiteral("--first-fault"), o.firstFaultSeconds)
        .integer(QStringLiteral("--max-faults"), o.maxFaults)
        .integer(QStringLiteral("--cdu-fail"), o.cduFailSeconds)
        .text(QStringLiteral("--fleetd"), o.fleetd)
        .size(QStringLiteral("--size"), o.size)
        .read(args);
    if (o.seconds < 10 || o.racks < 1 || o.regions < 1 || o.regions > o.racks || o.probeMs < 1 || o.maxFaults < 1 ||
        o.firstFaultSeconds < 1 || o.size.isEmpty() || o.cduFailSeconds < 0 || o.cduFailSeconds >= o.seconds)
        usage(
            QStringLiteral("--seconds must be at least 10, the other values positive, --regions at most --racks, "
                           "--cdu-fail below --seconds"));
    return o;
}

using bench::loadAverage;
using bench::millis;
using bench::percentile;
using bench::residentMiB;

const char* verdict(bool pass) { return pass ? "PASS" : "SHORT"; }

QString formatMs(double ms) {
    return std::isfinite(ms) ? QString::number(ms, 'f', 1) + QStringLiteral(" ms") : QStringLiteral("never");
}

void printRow(const QString& measure, const QString& value, const QString& target, bool pass) {
    std::printf("  %-40s %-26s %-14s %s\n", qPrintable(measure), qPrintable(value), qPrintable(target), verdict(pass));
}

struct StallSummary {
    double maxMs = 0, p99Ms = 0, p50Ms = 0;
    std::size_t count = 0, over = 0;
    double maxBusyMs = 0;  // the longest gap in which the GUI thread itself ran for most of it
    struct Worst {
        double atSeconds, ms, guiCpuMs;
    };
    std::vector<Worst> worst;    // longest gaps
    std::vector<Worst> busiest;  // gaps with the most GUI-thread CPU: the console's own work
};

StallSummary summarizeStalls(const std::vector<bench::GuiStallProbe::Gap>& gaps, Clock::time_point from,
                             Clock::time_point to, Clock::time_point connected) {
    StallSummary s;
    std::vector<double> ms;
    std::vector<StallSummary::Worst> all;
    for (const auto& g : gaps) {
        // A gap belongs to the phase it starts in: the stall that paints the first full frame
        // (static layer, text shaping) is start-up.
        const Clock::time_point start =
            g.end - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(g.ms));
        if (start < from || start >= to) continue;
        ms.push_back(g.ms);
        all.push_back({millis(start - connected) / 1000.0, g.ms, g.guiCpuMs});
        if (g.guiCpuMs >= 0.5 * g.ms) s.maxBusyMs = std::max(s.maxBusyMs, g.ms);
        if (g.ms > kStallTargetMs) ++s.over;
    }
    s.count = ms.size();
    if (ms.empty()) return s;
    s.maxMs = *std::max_element(ms.begin(), ms.end());
    s.p99Ms = percentile(ms, 99);
    s.p50Ms = percentile(ms, 50);
    const auto top5 = [&all](auto key) {
        std::vector<StallSummary::Worst> top = all;
        std::partial_sort(top.begin(), top.begin() + std::min<std::ptrdiff_t>(5, std::ptrdiff_t(top.size())), top.end(),
                          [key](const auto& a, const auto& b) { return key(a) > key(b); });
        top.resize(std::min<std::size_t>(5, top.size()));
        return top;
    };
    s.worst = top5([](const StallSummary::Worst& w) { return w.ms; });
    s.busiest = top5([](const StallSummary::Worst& w) { return w.guiCpuMs; });
    return s;
}

struct FaultSummary {
    std::vector<double> latenciesMs;  // +inf for a fault whose tile never showed the Isolated colour
    int planned = 0, arrived = 0, duringStartup = 0, notShown = 0, otherColour = 0, guiFirst = 0;
    QStringList unmatched;  // what the tiles of the faults never drawn Isolated showed instead
};

// Pairs each isolation's arrival with the first repaint at or after it that drew the rack's tile
// in the Isolated colour. The raw subscriber and the console read separate streams on separate
// threads; the console can see the same tick a few ms earlier, so a change up to 1 s before the
// arrival still counts (as a latency below zero, reported).
FaultSummary summarizeFaults(const std::vector<bench::ScheduledFault>& faults,
                             const std::map<QString, Clock::time_point>& arrivals,
                             const bench::TilePixelWatcher& pixels, QRgb isolatedColour) {
    FaultSummary s;
    s.planned = int(faults.size());
    const auto fullFrame = pixels.firstFullFrame();
    for (const auto& fault : faults) {
        const auto arrival = arrivals.find(fault.rack);
        if (arrival == arrivals.end()) continue;
        ++s.arrived;
        if (!fullFrame || arrival->second < *fullFrame) {
            ++s.duringStartup;
            continue;
        }
        const auto log = pixels.log().find(fault.rack);
        double latency = std::numeric_limits<double>::infinity();
        bool changed = false;
        if (log != pixels.log().end()) {
            for (std::size_t i = 1; i < log->second.size(); ++i) {
                if (log->second[i].when < arrival->second - 1s) continue;
                changed = true;
                if (bench::similarColour(log->second[i].colour, isolatedColour)) {
                    latency = millis(log->second[i].when - arrival->second);
                    break;
                }
            }
        }
        if (std::isinf(latency)) {
            ++(changed ? s.otherColour : s.notShown);
            QStringList trail;
            if (log != pixels.log().end())
                for (const auto& change : log->second)
                    trail << QStringLiteral("%1 s: #%2")
                                 .arg(millis(change.when - arrival->second) / 1000.0, 0, 'f', 2)
                                 .arg(change.colour & 0xffffff, 6, 16, QLatin1Char('0'));
            s.unmatched << QStringLiteral("%1 (%2; tile colours, s after t0: %3)")
                               .arg(fault.rack, fault.verb,
                                    trail.isEmpty() ? QStringLiteral("none read") : trail.join(QStringLiteral(", ")));
        } else if (latency < 0)
            ++s.guiFirst;
        s.latenciesMs.push_back(latency);
    }
    return s;
}

struct MemorySample {
    double secondsAfterConnect;
    double rssMiB;
};

// Least-squares slope (MiB per second) of the samples after `fromSeconds`.
double rssSlope(const std::vector<MemorySample>& samples, double fromSeconds) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& m : samples) {
        if (m.secondsAfterConnect < fromSeconds) continue;
        n += 1;
        sx += m.secondsAfterConnect;
        sy += m.rssMiB;
        sxx += m.secondsAfterConnect * m.secondsAfterConnect;
        sxy += m.secondsAfterConnect * m.rssMiB;
    }
    const double denominator = n * sxx - sx * sx;
    return n >= 3 && denominator > 0 ? (n * sxy - sx * sy) / denominator : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const Options o = parseOptions(app.arguments());
    const QString loadAtStart = loadAverage();

    // --- fleetd with the fault scenario ---------------------------------------------------------
    QTemporaryDir dir;
    if (!dir.isValid()) {
        std::fprintf(stderr, "console_e2e_bench: cannot create a temporary directory: %s\n",
                     qPrintable(dir.errorString()));
        return 1;
    }
    bench::FaultPlan plan;
    plan.first = std::chrono::seconds(o.firstFaultSeconds);
    plan.last = std::chrono::seconds(o.seconds - 5);  // leave time to see the last one drawn
    plan.every = std::max<std::chrono::milliseconds>(
        1500ms,
        std::chrono::duration_cast<std::chrono::milliseconds>(plan.last - plan.first) / std::max(1, o.maxFaults - 1));
    const std::vector<bench::ScheduledFault> faults = bench::planFaults(plan, o.racks);
    const QString scenario = dir.filePath(QStringLiteral("isolations.scn"));
    // Twice: the row's CDU has two pumps (N+1); the second failure stops its flow.
    std::vector<bench::ScheduledFault> scripted = faults;
    if (o.cduFailSeconds > 0)
        for (int pump = 0; pump < 2; ++pump)
            scripted.push_back(
                {bench::twinRackName(1, o.racks), std::chrono::seconds(o.cduFailSeconds), QStringLiteral("pump-fail")});
    if (const QString error = bench::writeScenario(scenario, scripted); !error.isEmpty()) {
        std::fprintf(stderr, "console_e2e_bench: %s\n", qPrintable(error));
        return 1;
    }
    QStringList watched;
    for (const auto& f : faults) watched << f.rack;

    std::printf(
        "console_e2e_bench: %d racks (%d GPUs), %d regions, fleetd --speed 1 on loopback; Fleet page at %dx%d (%s)\n",
        o.racks, o.racks * 72, o.regions, o.size.width(), o.size.height(), qPrintable(QApplication::platformName()));
    std::printf("  stream runs %d s after connecting; %zu scripted isolations (leak / isolate) at %d..%lld s\n",
                o.seconds, faults.size(), o.firstFaultSeconds,
                faults.empty() ? 0LL : (long long)faults.back().offset.count());
    std::fflush(stdout);

    bench::FleetdProcess fleetd;
    const QString startError =
        fleetd.start(o.fleetd,
                     {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--racks"),
                      QString::number(o.racks), QStringLiteral("--regions"), QString::number(o.regions),
                      QStringLiteral("--speed"), QStringLiteral("1"), QStringLiteral("--scenario"), scenario},
                     180s);
    if (!startError.isEmpty()) {
        std::fprintf(stderr, "console_e2e_bench: %s\n", qPrintable(startError));
        return 1;
    }
    const QString target = QStringLiteral("127.0.0.1:%1").arg(fleetd.port());

    // --- the raw subscriber, then the console pipeline --------------------------------------------
    bench::FaultArrivalWatcher arrivals(target, watched);
    arrivals.start();

    client::FleetStore store;
    client::EndpointConfig config;
    config.target = target;
    config.label = QStringLiteral("bench");
    auto* connection = new client::EndpointConnection(config, &store);
    store.attach(connection);
    ui::PageContext context;
    context.store = &store;
    context.connections = {connection};
    ui::FleetPage page(context);
    const widgets::Theme& theme = widgets::Theme::builtin(widgets::ThemeVariant::Dark);
    page.applyTheme(theme);
    page.resize(o.size);
    page.setActive(true);
    page.show();
    // The dock a NOC keeps open: with --cdu-fail it regroups thousands of member events.
    std::unique_ptr<ui::IncidentsDock> dock;
    if (o.cduFailSeconds > 0) {
        dock = std::make_unique<ui::IncidentsDock>(store, nullptr);
        dock->applyTheme(theme);
        dock->resize(480, o.size.height());
        dock->show();
    }

    bench::TilePixelWatcher pixels(page.rackMap(), watched, o.racks);
    bench::GuiStallProbe probe(std::chrono::milliseconds(o.probeMs));
    std::vector<MemorySample> memory;
    memory.reserve(std::size_t(o.seconds) + 8);

    const Clock::time_point connected = Clock::now();
    probe.start();
    connection->start();
    QTimer memoryTimer;
    QObject::connect(&memoryTimer, &QTimer::timeout, [&] {
        memory.push_back({millis(Clock::now() - connected) / 1000.0, residentMiB()});
    });
    memoryTimer.start(1000);
    QTimer::singleShot(std::chrono::seconds(o.seconds), Qt::PreciseTimer, &app, &QCoreApplication::quit);
    app.exec();
    const Clock::time_point ended = Clock::now();
    probe.stop();
    memoryTimer.stop();
    const double rssEndMiB = residentMiB();
    const double storeMiB = double(store.approximateBytes()) / (1024.0 * 1024.0);
    const auto stats = connection->stats();
    const int storeEvents = store.eventCount();
    arrivals.stop();
    const auto arrived = arrivals.arrivals();
    connection->stop();
    fleetd.stop();
    const QString loadAtEnd = loadAverage();

    // --- report -------------------------------------------------------------------------------
    const auto fullFrame = pixels.firstFullFrame();
    std::printf(
        "\n  machine: %d cores, load average %s at start, %s at end — shared with other work, so every\n"
        "  number below includes whatever else ran (fleetd itself also runs on these cores)\n",
        QThread::idealThreadCount(), qPrintable(loadAtStart), qPrintable(loadAtEnd));
    std::printf("  fleetd start-up (twin + first tick + listen): %.1f s\n",
                double(fleetd.startupTime().count()) / 1000.0);
    std::printf(
        "  console: first full frame %s after connecting; %d map repaints; stream %llu messages, %llu snapshot(s),"
        " %llu sequence gap(s) (resyncs)\n",
        fullFrame ? qPrintable(QStringLiteral("%1 s").arg(millis(*fullFrame - connected) / 1000.0, 0, 'f', 2))
                  : "never",
        pixels.repaints(), (unsigned long long)stats.messages, (unsigned long long)stats.snapshots,
        (unsigned long long)stats.sequenceGaps);
    if (!fullFrame) {
        std::fprintf(stderr, "console_e2e_bench: the map never showed all %d racks; is fleetd serving them?\n",
                     o.racks);
        return 1;
    }

    const StallSummary startup = summarizeStalls(probe.gaps(), connected, *fullFrame, connected);
    const StallSummary steady = summarizeStalls(probe.gaps(), *fullFrame, ended, connected);
    std::printf("\n  1. GUI-thread stalls (gap between firings of a %d ms timer on the GUI thread)\n", o.probeMs);
    std::printf(
        "     start-up  (connect → first full frame: snapshot swap-in, backlog, first paint): max %.1f ms, p99 %.1f "
        "ms, %zu gaps > %.0f ms\n",
        startup.maxMs, startup.p99Ms, startup.over, kStallTargetMs);
    std::printf(
        "     steady    (%.0f s after the first full frame): max %.1f ms, p99 %.2f ms, p50 %.2f ms, %zu of %zu gaps > "
        "%.0f ms\n",
        millis(ended - *fullFrame) / 1000.0, steady.maxMs, steady.p99Ms, steady.p50Ms, steady.over, steady.count,
        kStallTargetMs);
    std::printf(
        "     worst steady gaps (s after connect: gap ms / GUI thread CPU ms in it — CPU well below the gap\n"
        "     means the thread was waiting to be scheduled on the shared cores, not working):\n      ");
    for (const auto& w : steady.worst) std::printf(" %.1f: %.1f/%.1f", w.atSeconds, w.ms, w.guiCpuMs);
    std::printf("\n     steady gaps with the most GUI-thread CPU (same format):\n      ");
    for (const auto& w : steady.busiest) std::printf(" %.1f: %.1f/%.1f", w.atSeconds, w.ms, w.guiCpuMs);
    std::printf("\n     start-up gaps, longest and with the most GUI-thread CPU (same format):\n      ");
    for (const auto& w : startup.worst) std::printf(" %.1f: %.1f/%.1f", w.atSeconds, w.ms, w.guiCpuMs);
    std::printf("\n      ");
    for (const auto& w : startup.busiest) std::printf(" %.1f: %.1f/%.1f", w.atSeconds, w.ms, w.guiCpuMs);
    std::printf(
        "\n     longest gap in which the GUI thread was on the CPU for at least half of it: start-up %.1f ms,"
        " steady %.1f ms\n",
        startup.maxBusyMs, steady.maxBusyMs);
    std::optional<StallSummary> cdu;
    if (dock) {
        // Simulated offsets count from fleetd's start, which precedes the connection: this window
        // starts a little before the failure.
        cdu = summarizeStalls(probe.gaps(), std::max(*fullFrame, connected + std::chrono::seconds(o.cduFailSeconds)),
                              ended, connected);
        std::printf(
            "     CDU failure (%s, both pumps at %d s; Alerts dock shown): max %.1f ms, p99 %.2f ms, %zu of %zu gaps > "
            "%.0f ms;"
            " longest with the GUI thread on the CPU for half of it %.1f ms\n"
            "     the dock at the end: %d incident rows, %d alerts in no incident; the Fleet KPI's active incidents "
            "%u\n",
            qPrintable(bench::twinRackName(1, o.racks)), o.cduFailSeconds, cdu->maxMs, cdu->p99Ms, cdu->over,
            cdu->count, kStallTargetMs, cdu->maxBusyMs, dock->incidentCount(), dock->alertCount(),
            client::summarizeFleet(store).activeIncidents);
    }

    const QColor isolated = widgets::ColorScale::forLens(widgets::Lens::Health, theme)
                                .colorFor(float(int(widgets::HealthCategory::Isolated)));
    const FaultSummary faultsSeen = summarizeFaults(faults, arrived, pixels, isolated.rgb());
    const double p50 = percentile(faultsSeen.latenciesMs, 50);
    const double p99 = percentile(faultsSeen.latenciesMs, 99);
    const double worst = faultsSeen.latenciesMs.empty()
                             ? std::numeric_limits<double>::quiet_NaN()
                             : *std::max_element(faultsSeen.latenciesMs.begin(), faultsSeen.latenciesMs.end());
    const double best = faultsSeen.latenciesMs.empty()
                            ? std::numeric_limits<double>::quiet_NaN()
                            : *std::min_element(faultsSeen.latenciesMs.begin(), faultsSeen.latenciesMs.end());
    std::printf(
        "\n  2. Fault-to-pixel (rack isolation → its Health tile drawn in the Isolated colour)\n"
        "     t0 = when the isolation event reached a raw gRPC subscriber in this process (own thread, own\n"
        "     connection); fleetd publishes it in the tick that created it, so t0 ≈ its creation plus loopback\n"
        "     delivery. t1 = end of the first map repaint whose rendered frame (%s) shows the tile's\n"
        "     fill, found via RackMapWidget::tileRect/rackAt, in the Health lens's Isolated colour.\n",
        pixels.readsBackingStore() ? "the window's backing store" : "QWidget::grab");
    std::printf(
        "     %d scripted, %d isolation events arrived, %d during start-up (excluded), %zu measured:"
        " p50 %s, p99 %s, max %s, min %s\n"
        "     %d never drawn (counted as never), %d drawn in another colour only (counted as never),"
        " %d drawn before the raw subscriber saw them\n",
        faultsSeen.planned, faultsSeen.arrived, faultsSeen.duringStartup, faultsSeen.latenciesMs.size(),
        qPrintable(formatMs(p50)), qPrintable(formatMs(p99)), qPrintable(formatMs(worst)), qPrintable(formatMs(best)),
        faultsSeen.notShown, faultsSeen.otherColour, faultsSeen.guiFirst);
    std::printf("     expected Isolated colour #%06x\n", isolated.rgb() & 0xffffff);
    for (const QString& line : faultsSeen.unmatched) std::printf("     not drawn Isolated: %s\n", qPrintable(line));
    if (const QString error = arrivals.error(); !error.isEmpty()) std::printf("     %s\n", qPrintable(error));

    const double runSeconds = millis(ended - connected) / 1000.0;
    const double steadyFrom = millis(*fullFrame - connected) / 1000.0 + 10.0;
    const double slopeMiBps = std::max(0.0, rssSlope(memory, steadyFrom));
    const bool measuredFull = o.seconds >= int(kHistorySeconds);
    const double projectedMiB = measuredFull ? rssEndMiB : rssEndMiB + slopeMiBps * (kHistorySeconds - runSeconds);
    std::printf(
        "\n  3. Console RSS (this process: store, Fleet page, gRPC; the raw subscriber's share is small — it\n"
        "     only follows the %lld watched racks)\n",
        (long long)watched.size());
    std::printf(
        "     after %.0f s: %.0f MiB; FleetStore's own estimate %.0f MiB (%d events held); the bench's own\n"
        "     stall log is %.1f MiB of that (counted, not subtracted)\n",
        runSeconds, rssEndMiB, storeMiB, storeEvents,
        double(probe.gaps().size() * sizeof(bench::GuiStallProbe::Gap)) / (1024.0 * 1024.0));
    if (measuredFull)
        std::printf("     15 min of history: measured (run of %.0f s)\n", runSeconds);
    else
        std::printf(
            "     15 min of history: projected %.0f MiB = RSS now + steady-state RSS growth %.2f MiB/min × %.0f s\n"
            "     still to go (the store allocates its 900-point history ring at the first capture, so growth\n"
            "     is events, up to their bound, and allocator slack; run --seconds 900 to measure it)\n",
            projectedMiB, slopeMiBps * 60.0, kHistorySeconds - runSeconds);

    std::printf("\n  %-40s %-26s %-14s %s\n", "measure", "value", "target", "");
    printRow(QStringLiteral("GUI stall, steady state (max)"), formatMs(steady.maxMs), QStringLiteral("<= 50 ms"),
             steady.maxMs <= kStallTargetMs);
    printRow(QStringLiteral("GUI stall, start-up snapshot (max)"), formatMs(startup.maxMs), QStringLiteral("<= 50 ms"),
             startup.maxMs <= kStallTargetMs);
    if (cdu)
        printRow(QStringLiteral("GUI stall, CDU failure + dock (max)"), formatMs(cdu->maxMs),
                 QStringLiteral("<= 50 ms"), cdu->maxMs <= kStallTargetMs);
    printRow(QStringLiteral("fault-to-pixel p99 (%1 faults)").arg(faultsSeen.latenciesMs.size()), formatMs(p99),
             QStringLiteral("<= 500 ms"), !faultsSeen.latenciesMs.empty() && p99 <= kFaultToPixelP99TargetMs);
    printRow(QStringLiteral("console RSS after the run"), QStringLiteral("%1 MiB").arg(rssEndMiB, 0, 'f', 0),
             QStringLiteral("<= 1536 MiB"), rssEndMiB <= kRssTargetMiB);
    printRow(measuredFull ? QStringLiteral("console RSS, 15 min history")
                          : QStringLiteral("console RSS, 15 min (projected)"),
             QStringLiteral("%1 MiB").arg(projectedMiB, 0, 'f', 0), QStringLiteral("<= 1536 MiB"),
             projectedMiB <= kRssTargetMiB);
    std::fflush(stdout);
    return 0;
}
