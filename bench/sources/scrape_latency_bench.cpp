// scrape_latency_bench: how long a flipped gauge takes to reach fleetd, through --source scrape
// and through the Prometheus path of --source prometheus, in the same run on the same exporters.
//
// The digital twin (held still) serves its dcgm-exporter and node_exporter pages on loopback; a
// real Prometheus scrapes them every second, and in this process a PrometheusSource polls it every
// second (the store path) while a ScrapeSource scrapes the pages every second (the scrape path).
// Then, at random phases, one GPU's temperature is flipped to a new value in the twin's store
// (what its exporter serves from then on) and the time until each source hands that value to
// fleetd's tick thread is taken. That is the latency up to fleetd's state; the console's own part
// (fleetd's delta to a changed pixel) is console_e2e_bench's fault-to-pixel, measured there.
//
//   scrape_latency_bench [--flips 20] [--interval-ms 1000] [--store-interval-ms 1000]
//
// --store-interval-ms 15000 runs the store path as part 1 measured it (a store scraping every
// 15 s, fleetd polling every 15 s) beside the scrape path at its own interval.

#include "ExporterSite.h"
#include "FleetChanges.h"
#include "PrometheusSource.h"
#include "ScrapeSource.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace v1 = watchfloor::v1;
using namespace watchfloor::server;
using Clock = std::chrono::steady_clock;
using watchfloor::bench::ExporterSite;

constexpr const char* kGpu = "r01-n07-g2";
constexpr double kSlackMs = 200;  // the target: p99 <= scrape interval + 200 ms

struct Options {
    int flips = 20;
    int intervalMs = 1000;       // fleetd's --scrape-interval
    int storeIntervalMs = 1000;  // the store's scrape interval and fleetd's --poll (part 1's defaults: 15000)
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        auto next = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : -1; };
        if (flag == "--flips")
            o.flips = next();
        else if (flag == "--interval-ms")
            o.intervalMs = next();
        else if (flag == "--store-interval-ms")
            o.storeIntervalMs = next();
        else {
            std::fprintf(stderr, "usage: scrape_latency_bench [--flips N] [--interval-ms N] [--store-interval-ms N]\n");
            std::exit(2);
        }
    }
    if (o.flips < 1 || o.intervalMs < 1000 || o.storeIntervalMs < 1000) std::exit(2);
    return o;
}

double loadAverage() {
    double one = 0;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &one) != 1) one = 0;
        std::fclose(f);
    }
    return one;
}

// Whether `changes` carry `value` for the GPU's temperature.
bool carries(const FleetChanges& changes, std::uint32_t gpu, float value) {
    return std::any_of(changes.samples.begin(), changes.samples.end(), [&](const Sample& s) {
        return s.entityIndex == gpu && s.metric == v1::DCGM_FI_DEV_GPU_TEMP && s.value == value;
    });
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

void report(const char* path, const std::vector<double>& ms) {
    std::printf("%-22s n=%zu  p50 %.0f ms  p99 %.0f ms  max %.0f ms\n", path, ms.size(), percentile(ms, 0.5),
                percentile(ms, 0.99), *std::max_element(ms.begin(), ms.end()));
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    const auto interval = std::chrono::milliseconds(options.intervalMs);
    const auto storeInterval = std::chrono::milliseconds(options.storeIntervalMs);

    ExporterSite::Options siteOptions;
    siteOptions.twin.seed = 7;
    siteOptions.twin.racks = 2;
    siteOptions.twin.regions = 1;
    siteOptions.storeScrapeInterval = storeInterval;
    std::string error;
    auto site = ExporterSite::start(siteOptions, &error);
    if (!site) return std::fprintf(stderr, "scrape_latency_bench: %s\n", error.c_str()), 1;
    const v1::Topology& topology = site->topology();

    sources::PrometheusSourceOptions storePath;
    prom::StoreOptions connection;
    connection.url = site->prometheusUrl();
    connection.timeout = std::chrono::seconds(5);
    storePath.stores = {connection};
    storePath.poll = storeInterval;
    storePath.storeScrapeInterval = storeInterval;
    storePath.firstPollWait = std::chrono::milliseconds(0);
    sources::PrometheusSource viaStore(topology, storePath, {});

    sources::ScrapeSourceOptions scrapePath;
    scrapePath.targets.dcgmUrl = site->dcgmUrlPattern();
    scrapePath.targets.nodeUrl = site->nodeUrlPattern();
    scrapePath.interval = interval;
    scrapePath.http.timeout = interval;
    scrapePath.http.maxConcurrent = site->exporterThreads();  // one server stands in for every host: its pool's size
    scrapePath.frozenAfter = std::chrono::hours(1);           // the twin holds still between flips
    auto viaScrape = sources::ScrapeSource::create(topology, scrapePath, {}, &error);
    if (!viaScrape) return std::fprintf(stderr, "scrape_latency_bench: %s\n", error.c_str()), 1;

    std::uint32_t gpu = UINT32_MAX;
    for (const auto& g : topology.gpus())
        if (g.name() == kGpu) gpu = g.index();
    std::printf(
        "scrape_latency_bench: %d GPUs; fleetd scrapes every %d ms; Prometheus scrapes and fleetd polls it every "
        "%d ms; %d flips of %s; load average %.2f\n",
        topology.gpus_size(), options.intervalMs, options.storeIntervalMs, options.flips, kGpu, loadAverage());
    viaStore.start();
    viaScrape->start();

    std::mt19937 random(7);
    // Each flip lands at a random phase of both paths' cycles (a flip right after the last one's
    // arrival would sit at the same phase of the store's poll every time).
    std::uniform_int_distribution<int> phaseMs(
        options.intervalMs, options.intervalMs + 2 * std::max(options.intervalMs, options.storeIntervalMs));
    const auto giveUp = std::chrono::milliseconds(10 * std::max(options.intervalMs, options.storeIntervalMs));
    std::vector<double> scrapeMs, storeMs;
    int missed = 0;
    // Warm-up: both paths deliver the GPU's current value before the first flip.
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * options.storeIntervalMs + 5000));
    for (int flip = 0; flip < options.flips; ++flip) {
        std::this_thread::sleep_for(std::chrono::milliseconds(phaseMs(random)));
        FleetChanges drain;  // what arrived before the flip is not its answer
        viaStore.advanceTo(viaStore.now(), drain);
        viaScrape->advanceTo(viaScrape->now(), drain);
        const float value = float(60 + flip % 2 * 20 + flip % 7);  // whole degrees, never the last one
        const auto flipped = Clock::now();
        site->set(gpu, v1::DCGM_FI_DEV_GPU_TEMP, value);
        std::optional<double> byScrape, byStore;
        while ((!byScrape || !byStore) && Clock::now() - flipped < giveUp) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - flipped).count();
            FleetChanges a, b;
            viaScrape->advanceTo(viaScrape->now(), a);
            viaStore.advanceTo(viaStore.now(), b);
            if (!byScrape && carries(a, gpu, value)) byScrape = ms;
            if (!byStore && carries(b, gpu, value)) byStore = ms;
        }
        if (byScrape) scrapeMs.push_back(*byScrape);
        if (byStore) storeMs.push_back(*byStore);
        missed += !byScrape + !byStore;
    }
    viaScrape->stop();
    viaStore.stop();
    site.reset();
    if (scrapeMs.empty() || storeMs.empty()) return std::fprintf(stderr, "scrape_latency_bench: no flip arrived\n"), 1;

    report("scrape path", scrapeMs);
    report("Prometheus path", storeMs);
    const double scrapeP99 = percentile(scrapeMs, 0.99), target = options.intervalMs + kSlackMs;
    std::printf("ratio Prometheus / scrape: p50 %.1fx, p99 %.1fx; %d flips not seen within %.0f s\n",
                percentile(storeMs, 0.5) / percentile(scrapeMs, 0.5), percentile(storeMs, 0.99) / scrapeP99, missed,
                std::chrono::duration<double>(giveUp).count());
    std::printf(
        "scrape path p99 %.0f ms to fleetd vs target (interval + %.0f ms, console's part not included) %.0f ms -> %s\n",
        scrapeP99, kSlackMs, target, scrapeP99 <= target ? "met" : "SHORT");
    std::printf("load average at the end %.2f\n", loadAverage());
    return missed == 0 ? 0 : 1;
}
