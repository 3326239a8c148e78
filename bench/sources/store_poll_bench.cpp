// store_poll_bench: one poll of a whole large fleet through fleetd's Prometheus path, on one core.
// The fleet is built as fleetd builds it for --source prometheus (a fleet file with hosts= per
// rack, read by readFleetFile, FleetModel with the real source's job slots); every query of
// pollQueries() gets the answer a real store would give for that fleet (dcgm-exporter's series
// per GPU, node_exporter's per host and IB port, the timestamp() anchors, hwmon by instance), and
// the bench times what fleetd does with them:
//   (a) decode + StoreTelemetry::add of every answer,
//   (b) StoreTelemetry::finish (one value per series, sample times from anchors, aggregates),
//   (c) FleetStateStore::apply with fleetd's HistoryStore as its sink,
// for a first poll (creates every series), a second (the first with IB rates: one sample more per
// port and counter, so every later sample moves in the order and the store re-finds its series) and
// a third (the steady state: same series, same order), over several rounds (best and median: the
// machine is shared). The ceiling is the bare decode of the same bytes into
// an empty callback. Answers are generated one at a time into one reused buffer, untimed, so the
// process holds what fleetd holds (one answer, not the whole poll's text) and RSS means something.
//
//   store_poll_bench [--racks 1800] [--rounds 5] [--no-history]

#include "ProcessMeasures.h"

#include "FleetChanges.h"
#include "FleetModel.h"
#include "FleetSpec.h"
#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "PromAnswerWriter.h"
#include "PromClient.h"
#include "StoreTelemetry.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace v1 = watchfloor::v1;
using namespace watchfloor::server;
using Clock = std::chrono::steady_clock;

constexpr double kTargetSeconds = 5.0;
constexpr double kTargetGiB = 4.0;
constexpr std::uint32_t kRealJobSlots = 65'536;  // as fleetd's --source prometheus
constexpr std::chrono::minutes kLookback(5);     // the store's default lookback
constexpr std::int64_t kFirstPollMs = 1'800'000'000'000;
constexpr std::int64_t kPollPeriodMs = 30'000;
constexpr std::int64_t kScrapeIntervalMs = 15'000;
constexpr int kPolls = 3;

struct Options {
    int racks = 1800;
    int rounds = 5;
    bool history = true;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--no-history")
            o.history = false;
        else if (flag == "--racks" && i + 1 < argc)
            o.racks = std::atoi(argv[++i]);
        else if (flag == "--rounds" && i + 1 < argc)
            o.rounds = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: store_poll_bench [--racks N] [--rounds N] [--no-history]\n");
            std::exit(2);
        }
    }
    if (o.racks < 1 || o.rounds < 1) std::exit(2);
    return o;
}

using watchfloor::bench::rssMiB;

double peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The site as its exporters name it: hosts, their GPUs by DCGM index and their IB devices.
struct SiteHost {
    std::string name;
    std::vector<int> dcgmGpus;
    std::vector<std::string> ibDevices;
};

std::vector<SiteHost> siteOf(const v1::Topology& topology) {
    std::vector<SiteHost> hosts(std::size_t(topology.nodes_size()));
    std::vector<int> position(
        std::size_t(topology.nodes_size() ? topology.nodes(topology.nodes_size() - 1).index() + 1 : 0), -1);
    for (int i = 0; i < topology.nodes_size(); ++i) {
        hosts[std::size_t(i)].name = topology.nodes(i).hostname();
        position[topology.nodes(i).index()] = i;
    }
    for (const auto& gpu : topology.gpus())
        hosts[std::size_t(position[gpu.node_index()])].dcgmGpus.push_back(int(gpu.dcgm_gpu_index()));
    for (const auto& nic : topology.nic_ports())
        hosts[std::size_t(position[nic.node_index()])].ibDevices.push_back(nic.host_device());
    // Prometheus answers a selector in label order, and Hostname is the first label that differs.
    std::sort(hosts.begin(), hosts.end(), [](const SiteHost& a, const SiteHost& b) { return a.name < b.name; });
    return hosts;
}

// Scrape times as a store holds them: each target scraped every 15 s at its own phase.
std::int64_t scrapeMs(std::int64_t pollMs, std::uint32_t host, std::uint32_t salt) {
    return pollMs - 1'000 - std::int64_t((host * 2654435761u + salt) % kScrapeIntervalMs);
}

double dcgmValue(v1::Metric metric, std::uint32_t gpu, int poll) {
    switch (metric) {
    case v1::DCGM_FI_DEV_GPU_TEMP: return 35 + (gpu * 7 + std::uint32_t(poll) * 3) % 50;
    // A handful of GPUs raise an Xid between the polls: events, as on a real site.
    case v1::DCGM_FI_DEV_XID_ERRORS: return poll > 0 && gpu % 10'007 == 5 ? 79 : 0;
    case v1::DCGM_FI_DEV_ROW_REMAP_FAILURE: return gpu % 4'099 == 3 ? 1 : 0;
    // Fields a GB200 does not report come back as DCGM's blank.
    case v1::DCGM_FI_DEV_VGPU_LICENSE_STATUS: return double(watchfloor::server::telemetry::kDcgmInt64Blank);
    default: return double((gpu * 13 + std::uint32_t(metric) * 7 + std::uint32_t(poll)) % 2000) * 0.5;
    }
}

double ibValue(v1::Metric metric, std::uint32_t host, std::size_t port, int poll, std::int64_t sampleMs) {
    switch (metric) {
    case v1::IB_PORT_XMIT_DATA_GBPS:
    case v1::IB_PORT_RCV_DATA_GBPS:  // octets: ~25 GB/s a port since an arbitrary start
        return 1.0e13 + host * 1048576.0 + double(port) + double(sampleMs - kFirstPollMs + 3'600'000) * 25e6;
    case v1::IB_PHY_STATE: return 5;
    default: return double((host + port + std::size_t(poll)) % 3);
    }
}

// The answer the store gives to `query` on poll `poll` of `site`.
std::string_view answer(std::string& buffer, const sources::PollQuery& query, const std::vector<SiteHost>& site,
                        int poll) {
    using Kind = sources::PollQuery::Kind;
    const std::int64_t pollMs = kFirstPollMs + poll * kPollPeriodMs;
    watchfloor::bench::InstantAnswerWriter out(buffer, pollMs);
    switch (query.kind) {
    case Kind::DcgmField:
    case Kind::GpuAnchor: {
        std::uint32_t gpuOrdinal = 0;
        for (std::uint32_t h = 0; h < site.size(); ++h)
            for (int gpu : site[h].dcgmGpus) {
                const double value = query.kind == Kind::GpuAnchor ? double(scrapeMs(pollMs, h, 1)) / 1000.0
                                                                   : dcgmValue(query.dcgm->metric, gpuOrdinal, poll);
                out.dcgm(query.kind == Kind::GpuAnchor ? std::string_view() : query.dcgm->name, site[h].name, h, gpu,
                         value);
                ++gpuOrdinal;
            }
        break;
    }
    case Kind::IbFamily:
    case Kind::IbAnchor: {
        // Ordered by device, then instance: the first labels that differ.
        const std::size_t ports = site.empty() ? 0 : site.front().ibDevices.size();
        for (std::size_t p = 0; p < ports; ++p)
            for (std::uint32_t h = 0; h < site.size(); ++h) {
                const std::int64_t sampleMs = scrapeMs(pollMs, h, 2);
                const double value = query.kind == Kind::IbAnchor ? double(sampleMs) / 1000.0
                                                                  : ibValue(query.ib->metric, h, p, poll, sampleMs);
                out.infiniband(query.kind == Kind::IbAnchor ? std::string_view() : query.ib->name, site[h].name,
                               site[h].ibDevices[p], value);
            }
        break;
    }
    case Kind::HostTemperature:
    case Kind::HostAnchor:
        for (std::uint32_t h = 0; h < site.size(); ++h)
            out.byInstance(site[h].name, query.kind == Kind::HostAnchor ? double(scrapeMs(pollMs, h, 2)) / 1000.0
                                                                        : 40.0 + (h * 3 + std::uint32_t(poll)) % 35);
        break;
    case Kind::TrainingStep:
    case Kind::CheckpointStep: break;  // no job publishes progress
    }
    return out.finish();
}

struct PollTimes {
    double ceiling = 0, decodeAdd = 0, finish = 0, apply = 0;
    double total() const { return decodeAdd + finish + apply; }
};

struct Stats {
    std::vector<double> values;
    double best() const { return *std::min_element(values.begin(), values.end()); }
    double median() const {
        auto v = values;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
};

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);

    // The fleet file a site writes: racks whose compute trays its exporters name by hosts=.
    const auto dir = std::filesystem::temp_directory_path() / ("store_poll_bench." + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto fleetFile = (dir / "site.fleet").string();
    std::ofstream(fleetFile) << "fleet bench-site\ninventory gpus=0,1,2,3 nics=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\n"
                             << "region us-east\nracks " << (options.racks + 1) / 2 << " hosts=gb200-{rack}-n[01-18]\n"
                             << "region us-west\nracks " << options.racks / 2 << " hosts=gb200-{rack}-n[01-18]\n";
    ConfigError error;
    const auto spec = readFleetFile(fleetFile, &error);
    std::filesystem::remove_all(dir);
    if (!spec) {
        std::fprintf(stderr, "store_poll_bench: %s\n", error.toString().c_str());
        return 1;
    }
    const FleetModel model(*spec, kRealJobSlots);
    const v1::Topology& topology = model.topology();
    const std::vector<SiteHost> site = siteOf(topology);
    const auto queries = sources::pollQueries();
    std::printf(
        "store_poll_bench: %d racks, %d hosts (hosts=gb200-{rack}-n[01-18] from a fleet file), %d GPUs, "
        "%d IB ports; %zu queries a poll; history sink %s\n",
        topology.racks_size(), topology.nodes_size(), topology.gpus_size(), topology.nic_ports_size(), queries.size(),
        options.history ? "on (as fleetd)" : "off");
    std::printf("rss with the topology built: %.0f MiB\n", rssMiB());

    std::string buffer;  // one answer at a time, as a client's receive buffer
    std::size_t answerBytes[kPolls] = {}, largestAnswer = 0;
    std::uint64_t seriesPerPoll[kPolls] = {}, samplesPerPoll[kPolls] = {}, eventsPerPoll[kPolls] = {};
    std::size_t deltasPerPoll[kPolls] = {}, deltaBytes[kPolls] = {};
    double rssAfterPoll[kPolls] = {};
    Stats stage[kPolls][5];  // [poll][ceiling, decodeAdd, finish, apply, total]
    bool ok = true;

    for (int round = 0; round < options.rounds; ++round) {
        sources::StoreTelemetry telemetry(topology, kLookback, [](const std::string& line) {
            std::fprintf(stderr, "store_poll_bench: source: %s\n", line.c_str());
        });
        service::FleetStateStore store(topology);
        service::HistoryStore history(store.index());
        for (int poll = 0; poll < kPolls; ++poll) {
            const std::int64_t pollMs = kFirstPollMs + poll * kPollPeriodMs;
            PollTimes t;
            telemetry.begin(pollMs);
            for (std::size_t q = 0; q < queries.size(); ++q) {
                const std::string_view json = answer(buffer, queries[q], site, poll);
                largestAnswer = std::max(largestAnswer, json.size());
                if (round == 0) answerBytes[poll] += json.size();
                auto start = Clock::now();
                const auto bare = prom::decodeInstantPadded(json, [](std::span<const prom::Label>, prom::Point) {});
                t.ceiling += since(start);
                start = Clock::now();
                const auto result =
                    prom::decodeInstantPadded(json, [&](std::span<const prom::Label> labels, prom::Point point) {
                        telemetry.add(q, queries[q], labels, point);
                    });
                t.decodeAdd += since(start);
                if (!bare.ok || !result.ok) {
                    std::printf("%s: decode failed: %s\n", queries[q].promql.c_str(), result.error.c_str());
                    return 1;
                }
            }
            FleetChanges changes;
            changes.time = fromUnixMs(pollMs);
            auto start = Clock::now();
            const sources::PollNotes notes = telemetry.finish(changes);
            t.finish = since(start);
            const std::size_t samples = changes.samples.size(), events = changes.events.size();
            start = Clock::now();
            const auto deltas = store.apply(changes, options.history ? &history : nullptr);
            t.apply = since(start);

            stage[poll][0].values.push_back(t.ceiling);
            stage[poll][1].values.push_back(t.decodeAdd);
            stage[poll][2].values.push_back(t.finish);
            stage[poll][3].values.push_back(t.apply);
            stage[poll][4].values.push_back(t.total());
            if (round == 0) {
                rssAfterPoll[poll] = rssMiB();
                seriesPerPoll[poll] = notes.series;
                samplesPerPoll[poll] = samples;
                eventsPerPoll[poll] = events;
                deltasPerPoll[poll] = deltas.size();
                for (const auto& d : deltas) deltaBytes[poll] += d->ByteSizeLong();
                if (notes.unmapped || notes.duplicates || notes.withoutAnchor || notes.fromTheFuture ||
                    notes.notFinite) {
                    std::printf(
                        "poll %d: unexpected notes: %llu unmapped, %llu duplicates, %llu without anchor, "
                        "%llu from the future, %llu not finite\n",
                        poll + 1, (unsigned long long)notes.unmapped, (unsigned long long)notes.duplicates,
                        (unsigned long long)notes.withoutAnchor, (unsigned long long)notes.fromTheFuture,
                        (unsigned long long)notes.notFinite);
                    ok = false;
                }
            }
        }
    }

    for (int poll = 0; poll < kPolls; ++poll)
        std::printf(
            "poll %d: %.0f MB of answers (largest %.1f MB), %llu series -> %llu samples, %llu events, "
            "%zu deltas (%.0f MB)\n",
            poll + 1, answerBytes[poll] / 1e6, largestAnswer / 1e6, (unsigned long long)seriesPerPoll[poll],
            (unsigned long long)samplesPerPoll[poll], (unsigned long long)eventsPerPoll[poll], deltasPerPoll[poll],
            deltaBytes[poll] / 1e6);
    std::printf("\none core, %d rounds: best / median seconds\n", options.rounds);
    const char* const names[] = {"ceiling: bare decode, empty callback", "(a) decode + StoreTelemetry::add",
                                 "(b) StoreTelemetry::finish", "(c) FleetStateStore::apply", "total (a)+(b)+(c)"};
    const char* const polls[] = {"first: creates every series", "second: first IB rates, the order shifts",
                                 "third: steady state"};
    for (int poll = 0; poll < kPolls; ++poll) {
        std::printf("poll %d (%s)\n", poll + 1, polls[poll]);
        for (int s = 0; s < 5; ++s) {
            std::printf("  %-40s %7.3f / %7.3f", names[s], stage[poll][s].best(), stage[poll][s].median());
            if (s == 4) {
                const double median = stage[poll][4].median();
                std::printf("   target <= %.1f s: %s; %.2fx the ceiling", kTargetSeconds,
                            median <= kTargetSeconds ? "met" : "MISSED", median / stage[poll][0].median());
            }
            std::printf("\n");
        }
    }
    const double peakGiB = peakRssMiB() / 1024.0;
    std::printf(
        "\nrss after poll 1: %.0f MiB, poll 2: %.0f MiB, poll 3: %.0f MiB (one %.0f MB answer buffer included)\n",
        rssAfterPoll[0], rssAfterPoll[1], rssAfterPoll[2], double(buffer.capacity()) / 1e6);
    std::printf("peak rss: %.2f GiB   target <= %.1f GiB: %s\n", peakGiB, kTargetGiB,
                peakGiB <= kTargetGiB ? "met" : "MISSED");
    return ok ? 0 : 1;
}
