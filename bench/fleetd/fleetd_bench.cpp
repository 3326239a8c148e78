// fleetd_bench: starts the real fleetd with a large simulated fleet, attaches several STANDARD
// subscribers over loopback gRPC, and prints what fleetd produced and each subscriber received,
// how far behind each one ran, fleetd's CPU and peak memory, and how long a full snapshot takes
// to reach a subscriber that joins mid-run. Targets are printed beside the numbers.
//
//   fleetd_bench [--seconds 30] [--racks 1800] [--subscribers 4] [--speed 1] [--fleetd PATH]

#include "FleetdBenchSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace fleetd_bench;
using namespace std::chrono_literals;

namespace {

struct BenchOptions {
    int seconds = 30;
    int racks = 1800;
    int subscribers = 4;
    double speed = 1.0;
    std::string fleetd;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "fleetd_bench: " << problem << "\n"
              << "usage: fleetd_bench [--seconds N] [--racks N] [--subscribers N] [--speed X] [--fleetd PATH]\n";
    std::exit(2);
}

BenchOptions parseOptions(int argc, char** argv) {
    BenchOptions o;
    if (const char* env = std::getenv("FLEETD_BIN")) o.fleetd = env;
    if (o.fleetd.empty()) o.fleetd = FLEETD_DEFAULT_PATH;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") usage("runs fleetd under load and prints its numbers");
        if (i + 1 >= argc) usage(flag + ": missing value");
        const std::string value = argv[++i];
        try {
            if (flag == "--seconds")
                o.seconds = std::stoi(value);
            else if (flag == "--racks")
                o.racks = std::stoi(value);
            else if (flag == "--subscribers")
                o.subscribers = std::stoi(value);
            else if (flag == "--speed")
                o.speed = std::stod(value);
            else if (flag == "--fleetd")
                o.fleetd = value;
            else
                usage("unknown option " + flag);
        } catch (const std::exception&) {
            usage(flag + ": bad value \"" + value + "\"");
        }
    }
    if (o.seconds < 1 || o.racks < 1 || o.subscribers < 1 || o.speed <= 0) usage("values must be positive");
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const BenchOptions o = parseOptions(argc, argv);
    std::printf("fleetd_bench: %d racks, %d subscribers (DETAIL_LEVEL_STANDARD), %d s at speed %g\n", o.racks,
                o.subscribers, o.seconds, o.speed);
    std::fflush(stdout);
    FleetdChild fleetd(o.fleetd);
    if (!fleetd.start({"--listen", "127.0.0.1:0", "--racks", std::to_string(o.racks), "--regions",
                       std::to_string(std::min(o.racks, 4)), "--speed", std::to_string(o.speed), "--log-stats",
                       "5s"})) {
        std::fprintf(stderr, "fleetd_bench: cannot start %s\n", o.fleetd.c_str());
        return 1;
    }
    const auto startAsked = Clock::now();
    const auto port = fleetd.waitForPort(300s);
    if (!port) {
        std::fprintf(stderr, "fleetd_bench: %s did not start listening\n", o.fleetd.c_str());
        return 1;
    }
    const double startupSeconds = std::chrono::duration<double>(Clock::now() - startAsked).count();

    std::vector<std::unique_ptr<Subscriber>> subscribers;
    for (int i = 0; i < o.subscribers; ++i) {
        subscribers.push_back(std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD));
        subscribers.back()->start();
    }
    // Warm up: every subscriber has its snapshot, then a few ticks more.
    const auto warmUntil = Clock::now() + 120s;
    while (Clock::now() < warmUntil &&
           std::any_of(subscribers.begin(), subscribers.end(), [](auto& s) { return s->snapshotSeconds < 0; }))
        std::this_thread::sleep_for(50ms);
    std::this_thread::sleep_for(3s);
    fleetd.clearRates();

    std::vector<std::uint64_t> samplesAtStart;
    for (auto& s : subscribers) samplesAtStart.push_back(s->samples);
    const CpuSample cpuStart = cpuOf(fleetd.pid());
    std::vector<std::uint64_t> maxLagSeq(subscribers.size(), 0);
    std::vector<double> maxLagSeconds(subscribers.size(), 0);
    double lateSnapshotSeconds = -1;
    const auto windowEnd = Clock::now() + std::chrono::seconds(o.seconds);
    const auto lateJoinAt = Clock::now() + std::chrono::seconds(o.seconds / 2);
    std::unique_ptr<Subscriber> late;
    while (Clock::now() < windowEnd) {
        std::this_thread::sleep_for(250ms);
        std::uint64_t head = 0;
        std::int64_t newestMs = 0;
        for (auto& s : subscribers) {
            head = std::max<std::uint64_t>(head, s->sequence);
            newestMs = std::max<std::int64_t>(newestMs, s->serverTimeMs);
        }
        for (std::size_t i = 0; i < subscribers.size(); ++i) {
            maxLagSeq[i] = std::max<std::uint64_t>(maxLagSeq[i], head - subscribers[i]->sequence);
            maxLagSeconds[i] =
                std::max(maxLagSeconds[i], double(newestMs - subscribers[i]->serverTimeMs) / 1000.0 / o.speed);
        }
        if (!late && Clock::now() >= lateJoinAt) {
            late = std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD);
            late->start();
        }
        if (late && lateSnapshotSeconds < 0 && late->snapshotSeconds >= 0) {
            lateSnapshotSeconds = late->snapshotSeconds;
            late->stop();
        }
    }
    const CpuSample cpuEnd = cpuOf(fleetd.pid());
    const double window = std::chrono::duration<double>(cpuEnd.at - cpuStart.at).count();
    const double cpuPercent = 100.0 * (cpuEnd.cpuSeconds - cpuStart.cpuSeconds) / window;
    const double rssGiB = peakRssMiB(fleetd.pid()) / 1024.0;
    const double produced = mean(fleetd.producedRates());
    const double ticksPerSecond = mean(fleetd.tickRates());

    std::printf("\n  fleetd start-up (twin + listen)  %.1f s\n", startupSeconds);
    std::printf("  produced                         %.0f samples/s, %.2f ticks/s (fleetd stats)\n", produced,
                ticksPerSecond);
    double worstLagSeconds = 0;
    bool allKept = true;
    for (std::size_t i = 0; i < subscribers.size(); ++i) {
        auto& s = *subscribers[i];
        const double delivered = double(s.samples - samplesAtStart[i]) / window;
        std::printf(
            "  subscriber %zu  delivered %10.0f samples/s | first snapshot %.2f s | lag max %llu seq, %.1f s"
            " | coalesced %d, resyncs %d%s\n",
            i + 1, delivered, s.snapshotSeconds.load(), static_cast<unsigned long long>(maxLagSeq[i]), maxLagSeconds[i],
            s.coalesced.load(), s.resyncs.load(), s.ended ? " | ENDED EARLY" : "");
        worstLagSeconds = std::max(worstLagSeconds, maxLagSeconds[i]);
        allKept = allKept && !s.ended;
    }
    std::size_t largestDelta = 0;
    for (auto& s : subscribers) largestDelta = std::max<std::size_t>(largestDelta, s->largestDeltaBytes);
    std::printf("  snapshot message                 %.1f MB; largest delta %.2f MB\n",
                double(subscribers.front()->snapshotBytes) / 1e6, double(largestDelta) / 1e6);
    const bool realTime = ticksPerSecond >= 0.95 * o.speed;
    const bool keepsUp = realTime && worstLagSeconds <= 2.0 && allKept;
    std::printf("\n  %-34s %-28s %-16s %s\n", "measure", "value", "target", "");
    char value[64];
    std::snprintf(value, sizeof value, "%.2f ticks/s, lag %.1f s", ticksPerSecond, worstLagSeconds);
    std::printf("  %-34s %-28s %-16s %s\n", "keeps up in real time", value, ">=0.95x, <=2 s", verdict(keepsUp));
    std::snprintf(value, sizeof value, "%.0f %% of one core", cpuPercent);
    std::printf("  %-34s %-28s %-16s %s\n", "fleetd CPU", value, "<= 100 %", verdict(cpuPercent <= 100));
    std::snprintf(value, sizeof value, "%.2f GiB", rssGiB);
    std::printf("  %-34s %-28s %-16s %s\n", "fleetd peak RSS (VmHWM)", value, "<= 4 GiB", verdict(rssGiB <= 4.0));
    std::snprintf(value, sizeof value, "%.2f s", lateSnapshotSeconds);
    std::printf("  %-34s %-28s %-16s %s\n", "snapshot to a joining subscriber", value, "< 2 s",
                verdict(lateSnapshotSeconds >= 0 && lateSnapshotSeconds < 2.0));
    std::fflush(stdout);

    const int exitCode = fleetd.terminate(30s);
    for (auto& s : subscribers) s->stop();
    int unavailable = 0;
    for (auto& s : subscribers) unavailable += s->endStatus.error_code() == grpc::StatusCode::UNAVAILABLE;
    std::printf("  %-34s exit %d, %d/%zu streams UNAVAILABLE\n", "fleetd SIGTERM", exitCode, unavailable,
                subscribers.size());
    return 0;
}
