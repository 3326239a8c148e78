// scrape_bench: how many hosts one fleetd shard scrapes, parses, maps and applies per second of
// one core with --source scrape. A child process plays the site: the digital twin, ticked every
// second, serving every tray's dcgm-exporter page (4 GPUs x the twin's dcgm-exporter fields) and
// node_exporter page (InfiniBand families and hwmon) in the twin's exporter format, over HTTP on
// loopback with keep-alive connections (as each host's exporters would). This process is fleetd's
// side only: ScrapeSource (libcurl multi, the exposition parser, StoreTelemetry's mapping and
// health) and, as fleetd's tick thread does every 100 ms, FleetStateStore::apply with its
// HistoryStore. The CPU time is this process's own (getrusage: user + system, the loopback TCP
// included), so the server's work is not counted, whatever its share of the machine.
//
//   scrape_bench [--racks 112] [--seconds 20] [--interval-ms 1000] [--concurrency 64] [--warmup 5]
//
// Prints hosts and pages per second (wall), CPU seconds per second, hosts per CPU-second (the
// shard's capacity on one core), samples applied, and RSS before the fleet store and with the
// scrape source running, per 1,000 hosts (with --no-history: what grows with the fleet).

#include "ProcessMeasures.h"

#include "DigitalTwin.h"
#include "ExporterPages.h"
#include "FleetChanges.h"
#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "ScrapeSource.h"

#include <httplib.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

namespace v1 = watchfloor::v1;
using namespace watchfloor::server;
using Clock = std::chrono::steady_clock;

constexpr double kTargetHostsPerCoreSecond = 2000;

struct Options {
    int racks = 112;  // 2,016 hosts
    int seconds = 20;
    int warmup = 5;
    int intervalMs = 1000;
    int concurrency = 64;
    bool history = true;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        auto next = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : -1; };
        if (flag == "--no-history")
            o.history = false;
        else if (flag == "--racks")
            o.racks = next();
        else if (flag == "--seconds")
            o.seconds = next();
        else if (flag == "--warmup")
            o.warmup = next();
        else if (flag == "--interval-ms")
            o.intervalMs = next();
        else if (flag == "--concurrency")
            o.concurrency = next();
        else {
            std::fprintf(stderr,
                         "usage: scrape_bench [--racks N] [--seconds N] [--warmup N] [--interval-ms N] [--concurrency "
                         "N] [--no-history]\n");
            std::exit(2);
        }
    }
    if (o.racks < 1 || o.seconds < 1 || o.warmup < 0 || o.intervalMs < 100 || o.concurrency < 1) std::exit(2);
    return o;
}

using watchfloor::bench::rssMiB;

double cpuSeconds(int who) {
    rusage usage{};
    getrusage(who, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double loadAverage() {
    double one = 0;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &one) != 1) one = 0;
        std::fclose(f);
    }
    return one;
}

sim::SimConfig twinConfig(const Options& o) {
    sim::SimConfig config;
    config.seed = 7;
    config.racks = std::uint32_t(o.racks);
    config.regions = 1;
    return config;
}

bool writeAll(int fd, const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n <= 0) return false;
        p += n;
        size -= std::size_t(n);
    }
    return true;
}

bool readAll(int fd, void* data, std::size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t n = ::read(fd, p, size);
        if (n <= 0) return false;
        p += n;
        size -= std::size_t(n);
    }
    return true;
}

// The site, in the child: writes its port to `out`, then serves until `in` closes.
[[noreturn]] void serveSite(const Options& o, int in, int out) {
    ConfigError error;
    auto twin = sim::DigitalTwin::create(twinConfig(o), &error);
    if (!twin) {
        std::fprintf(stderr, "scrape_bench: %s\n", error.toString().c_str());
        std::_Exit(1);
    }
    service::FleetStateStore store(twin->topology());
    exporters::ExporterPages pages(store);
    FleetChanges first;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), first);
    store.apply(first);

    httplib::Server http;
    // One pool thread per keep-alive connection the scraper holds, and some to spare.
    const int threads = o.concurrency + 8;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(std::size_t(threads)); };
    http.set_keep_alive_max_count(1'000'000);
    http.set_keep_alive_timeout(30);
    http.Get(R"(/(dcgm|node)/([^/]+)/metrics)", [&](const httplib::Request& request, httplib::Response& response) {
        const auto exporter = request.matches[1] == "dcgm" ? exporters::Exporter::Dcgm : exporters::Exporter::Node;
        exporters::ExporterPage page =
            pages.page(exporter, request.matches[2].str());  // reads under the store's shared lock
        response.status = page.status;
        response.set_content(std::move(page.body), std::string(exporters::kExpositionContentType));
    });
    const int port = http.bind_to_any_port("127.0.0.1");
    std::thread server([&] { http.listen_after_bind(); });
    std::atomic<bool> stop{false};
    std::thread ticker([&] {  // the twin moves every second, so no exporter looks frozen
        while (!stop) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            FleetChanges changes;
            twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
            store.apply(changes);
        }
    });
    std::string topology;
    twin->topology().SerializeToString(&topology);
    const std::uint64_t size = topology.size();
    writeAll(out, &port, sizeof port);
    writeAll(out, &size, sizeof size);
    writeAll(out, topology.data(), topology.size());
    char c;
    while (::read(in, &c, 1) > 0) {}
    stop = true;
    http.stop();
    server.join();
    ticker.join();
    std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0 || pipe(fromChild) != 0) return 1;
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        ::close(toChild[1]);
        ::close(fromChild[0]);
        serveSite(options, toChild[0], fromChild[1]);
    }
    ::close(toChild[0]);
    ::close(fromChild[1]);
    int port = 0;
    std::uint64_t size = 0;
    std::string bytes;
    if (!readAll(fromChild[0], &port, sizeof port) || !readAll(fromChild[0], &size, sizeof size)) {
        std::fprintf(stderr, "scrape_bench: the site did not start\n");
        return 1;
    }
    bytes.resize(size);
    v1::Topology topology;
    if (!readAll(fromChild[0], bytes.data(), size) || !topology.ParseFromString(bytes)) return 1;
    bytes = {};

    const std::size_t hosts = std::size_t(topology.nodes_size());
    std::printf(
        "scrape_bench: %d racks, %zu hosts, %d GPUs, %d IB ports; interval %d ms, %d transfers in flight, "
        "keep-alive; load average %.2f\n",
        topology.racks_size(), hosts, topology.gpus_size(), topology.nic_ports_size(), options.intervalMs,
        options.concurrency, loadAverage());
    const double rssStart = rssMiB();

    service::FleetStateStore store(topology);
    service::HistoryStore history(store.index());
    const double rssStore = rssMiB();

    sources::ScrapeSourceOptions scrape;
    const std::string base = "http://127.0.0.1:" + std::to_string(port);
    scrape.targets.dcgmUrl = base + "/dcgm/{host}/metrics";
    scrape.targets.nodeUrl = base + "/node/{host}/metrics";
    scrape.interval = std::chrono::milliseconds(options.intervalMs);
    scrape.http.timeout = std::chrono::milliseconds(std::min(options.intervalMs, 10'000));
    scrape.http.connectTimeout = std::chrono::seconds(2);
    scrape.http.maxConcurrent = std::size_t(options.concurrency);
    scrape.firstRoundWait = std::chrono::seconds(30);
    std::string error;
    auto source = sources::ScrapeSource::create(topology, scrape, {}, &error);
    if (!source) {
        std::fprintf(stderr, "scrape_bench: %s\n", error.c_str());
        return 1;
    }
    source->start();

    // fleetd's tick thread: every 100 ms, what the source has, into the store and its history.
    std::uint64_t samples = 0, events = 0;
    v1::SourceStatus status;
    auto applyFor = [&](double seconds) {
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        while (Clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            FleetChanges changes;
            source->advanceTo(source->now(), changes);
            samples += changes.samples.size();
            events += changes.events.size();
            for (const auto& s : changes.sources)
                if (s.name() == "scrape") status = s;
            store.apply(changes, options.history ? &history : nullptr);
        }
    };
    applyFor(options.warmup);
    const double rssWarm = rssMiB();
    const std::uint64_t pages0 = source->pagesRead(), rounds0 = source->rounds(), samples0 = samples;
    const double cpu0 = cpuSeconds(RUSAGE_SELF), applyCpu0 = cpuSeconds(RUSAGE_THREAD);
    const auto wall0 = Clock::now();
    applyFor(options.seconds);
    const double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
    const double cpu = cpuSeconds(RUSAGE_SELF) - cpu0, applyCpu = cpuSeconds(RUSAGE_THREAD) - applyCpu0;
    const std::uint64_t pages = source->pagesRead() - pages0, rounds = source->rounds() - rounds0;
    const double rssEnd = rssMiB();
    source->stop();
    ::close(toChild[1]);
    int childStatus = 0;
    waitpid(child, &childStatus, 0);

    const double hostsPerSecond = double(pages) / 2.0 / wall;
    const double hostsPerCpuSecond = cpu > 0 ? double(pages) / 2.0 / cpu : 0;
    std::printf("round: %u targets, %u up, %u down, %u frozen; last round %.3f s; %llu series%s%s\n", status.targets(),
                status.targets_up(), status.targets_down(), status.targets_frozen(), status.last_poll_duration_s(),
                static_cast<unsigned long long>(status.series()), status.last_error().empty() ? "" : "; ",
                status.last_error().c_str());
    std::printf(
        "measured %.1f s: %llu rounds, %llu pages (%.0f pages/s, %.0f hosts/s), %.0f samples/s applied, %llu events\n",
        wall, static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(pages), double(pages) / wall,
        hostsPerSecond, double(samples - samples0) / wall, static_cast<unsigned long long>(events));
    std::printf(
        "fleetd side CPU: %.2f s per second (scrape thread + libcurl %.2f, apply%s %.2f); "
        "%.0f hosts per CPU-second (target >= %.0f) -> %s\n",
        cpu / wall, (cpu - applyCpu) / wall, options.history ? " with history" : "", applyCpu / wall, hostsPerCpuSecond,
        kTargetHostsPerCoreSecond, hostsPerCpuSecond >= kTargetHostsPerCoreSecond ? "met" : "SHORT");
    std::printf("one core: %.0f hosts at a 1 s interval, %.0f at 5 s\n", hostsPerCpuSecond, 5 * hostsPerCpuSecond);
    // The history store plans its buckets when series first arrive (a budget, not per host), so
    // only the run without it scales with the fleet.
    std::printf(
        "rss: start %.0f MiB, empty store %.0f, scraping (warm) %.0f, end %.0f MiB; %.1f MiB per 1,000 hosts%s\n",
        rssStart, rssStore, rssWarm, rssEnd, (rssEnd - rssStart) * 1000.0 / double(hosts),
        options.history ? " (history on: its planned budget is most of it)" : " (no history)");
    std::printf("load average at the end %.2f\n", loadAverage());
    const bool allUp = status.targets_up() == status.targets();
    if (!allUp) std::printf("not every target up: the figures are for a partial round\n");
    return WIFEXITED(childStatus) && allUp ? 0 : 1;
}
