// fleetd_soak_bench: the long-run figures of fleetd, each a mode.
//
//   rss       fleetd at --racks (1,800) with one STANDARD subscriber for --minutes (15): RSS every
//             10 s until it levels (growth over the last third < 2 %); target <= 4 GiB.
//   stalled   two runs of --minutes (10) each at --racks (1,800): --live (9) STANDARD subscribers,
//             then the same plus one subscriber that never reads. Targets: RSS of the second run
//             <= the first + 64 MiB; live subscribers' p99 lag < 250 ms once settled (deltas that
//             arrive 30 s after all nine had their snapshots; the figure with the joining catch-up
//             is printed beside it). --trace PREFIX writes one subscriber's deltas to CSV files.
//   restarts  fleetd (--racks 7) killed with SIGKILL and restarted on the same port --restarts
//             (100) times under --live (3) subscribers that reopen their stream with
//             resume_after_sequence/resume_run_id as the console does. Targets: 0 gaps and 0
//             duplicates by sequence; prints how long after fleetd listened each one was back.
//
//   fleetd_soak_bench --mode rss|stalled|restarts [--minutes N] [--racks N] [--live N]
//                     [--restarts N] [--fleetd PATH] [--trace PREFIX]

#include "FleetdBenchSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace fleetd_bench;
using namespace std::chrono_literals;

namespace {

struct Options {
    std::string mode;
    double minutes = 0;  // 0: the mode's default
    int racks = 0;
    int live = 0;
    int restarts = 100;
    std::string fleetd;
    std::string trace;  // stalled: write the first live subscriber's deltas to TRACE-{plain,stalled}.csv
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "fleetd_soak_bench: " << problem << "\n"
              << "usage: fleetd_soak_bench --mode rss|stalled|restarts [--minutes N] [--racks N] [--live N] "
                 "[--restarts N] [--fleetd PATH] [--trace PREFIX]\n";
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    if (const char* env = std::getenv("FLEETD_BIN")) o.fleetd = env;
    if (o.fleetd.empty()) o.fleetd = FLEETD_DEFAULT_PATH;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) usage(flag + ": missing value");
        const std::string value = argv[++i];
        try {
            if (flag == "--mode")
                o.mode = value;
            else if (flag == "--minutes")
                o.minutes = std::stod(value);
            else if (flag == "--racks")
                o.racks = std::stoi(value);
            else if (flag == "--live")
                o.live = std::stoi(value);
            else if (flag == "--restarts")
                o.restarts = std::stoi(value);
            else if (flag == "--fleetd")
                o.fleetd = value;
            else if (flag == "--trace")
                o.trace = value;
            else
                usage("unknown option " + flag);
        } catch (const std::exception&) {
            usage(flag + ": bad value \"" + value + "\"");
        }
    }
    if (o.mode != "rss" && o.mode != "stalled" && o.mode != "restarts") usage("--mode rss|stalled|restarts");
    if (o.minutes < 0 || o.racks < 0 || o.live < 0 || o.restarts < 1) usage("values must be positive");
    return o;
}

std::vector<std::string> fleetArgs(int racks, const std::string& listen = "127.0.0.1:0") {
    return {"--listen",    listen, "--racks", std::to_string(racks), "--regions", std::to_string(std::min(racks, 4)),
            "--log-stats", "60s"};
}

bool allHaveSnapshots(const std::vector<std::unique_ptr<Subscriber>>& subscribers, std::chrono::seconds timeout) {
    const auto until = Clock::now() + timeout;
    while (Clock::now() < until) {
        if (std::all_of(subscribers.begin(), subscribers.end(), [](const auto& s) { return s->snapshotSeconds >= 0; }))
            return true;
        std::this_thread::sleep_for(50ms);
    }
    return false;
}

// --- rss ------------------------------------------------------------------------------------

int runRss(const Options& o) {
    const int racks = o.racks ? o.racks : 1800;
    const double minutes = o.minutes > 0 ? o.minutes : 15;
    std::printf("fleetd_soak_bench rss: %d racks, 1 STANDARD subscriber, %.0f min\n", racks, minutes);
    FleetdChild fleetd(o.fleetd);
    if (!fleetd.start(fleetArgs(racks))) return 1;
    const auto port = fleetd.waitForPort(300s);
    if (!port) return std::fprintf(stderr, "fleetd did not start\n"), 1;
    std::vector<std::unique_ptr<Subscriber>> subscribers;
    subscribers.push_back(std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD));
    subscribers.back()->start();
    if (!allHaveSnapshots(subscribers, 120s)) return std::fprintf(stderr, "no snapshot\n"), 1;
    const auto began = Clock::now();
    std::vector<std::pair<double, double>> curve;  // (minute, MiB)
    std::printf("\n  %8s %10s\n", "minute", "RSS MiB");
    while (Clock::now() - began < std::chrono::duration<double, std::ratio<60>>(minutes)) {
        const double minute = std::chrono::duration<double, std::ratio<60>>(Clock::now() - began).count();
        curve.emplace_back(minute, rssMiB(fleetd.pid()));
        if (curve.size() % 6 == 1) std::printf("  %8.1f %10.0f\n", minute, curve.back().second), std::fflush(stdout);
        std::this_thread::sleep_for(10s);
    }
    const double end = curve.back().first;
    double thirdStart = -1, peak = 0;
    for (const auto& [minute, mib] : curve) {
        if (thirdStart < 0 && minute >= end * 2 / 3) thirdStart = mib;
        peak = std::max(peak, mib);
    }
    const double last = curve.back().second;
    const double growth = thirdStart > 0 ? 100.0 * (last - thirdStart) / thirdStart : 0;
    std::printf("\n  after first snapshot %.0f MiB, at %.1f min %.0f MiB, peak %.0f MiB (VmHWM %.0f MiB)\n",
                curve.front().second, end, last, peak, peakRssMiB(fleetd.pid()));
    std::printf("  growth over the last third: %+.2f %% -> %s\n", growth, growth < 2.0 ? "levelled" : "still growing");
    std::printf("  %-34s %-20s %-10s %s\n", "steady-state RSS", (std::to_string(int(last)) + " MiB").c_str(),
                "<= 4 GiB", verdict(growth < 2.0 && last <= 4096));
    for (auto& s : subscribers) s->stop();
    fleetd.terminate(30s);
    return 0;
}

// --- stalled --------------------------------------------------------------------------------

struct StallRun {
    double rssMeanMiB = 0;  // over the second half
    double rssPeakMiB = 0;
    double lagP99Ms = 0, lagP50Ms = 0, lagMaxMs = 0;
    double settledP99Ms = 0, settledP50Ms = 0, settledMaxMs = 0;  // deltas arriving after kSettle
    double tickStartP50Ms = 0, tickStartP99Ms = 0;                // the lag of each tick's first delta
    int liveEnded = 0;
    bool stalledDropped = false;
    int subscribersAtEnd = -1;  // fleetd's last count of open Subscribe streams
    std::string failure;        // set when the run measured nothing: fleetd did not start, no delta came
};

// Nine consoles joining at once queue their deltas behind nine 38 MB snapshots, and each then
// catches up: the first ~20 s of deltas say how joining goes (the joining snapshot's time is
// fleetd_bench's figure), not how a live console keeps up. The settled figures leave them out.
constexpr auto kSettle = std::chrono::seconds(30);

// --trace: one subscriber's deltas, their lag measured from the same baseline as the figures.
void writeTrace(const std::string& path, const std::vector<Subscriber::DeltaArrival>& arrivals, double baseline) {
    FILE* out = std::fopen(path.c_str(), "w");
    if (!out) return (void)std::fprintf(stderr, "fleetd_soak_bench: cannot write %s\n", path.c_str());
    std::fprintf(out, "server_time_ms,second_of_minute,lag_ms,samples\n");
    for (const auto& a : arrivals)
        std::fprintf(out, "%lld,%lld,%.0f,%llu\n", static_cast<long long>(a.serverTimeMs),
                     static_cast<long long>(a.serverTimeMs / 1000 % 60), a.offsetMs - baseline,
                     static_cast<unsigned long long>(a.samples));
    std::fclose(out);
}

StallRun stallRun(const Options& o, int racks, double minutes, int live, bool withStalled) {
    StallRun result;
    FleetdChild fleetd(o.fleetd, false);
    if (!fleetd.start(fleetArgs(racks))) {
        result.failure = "fleetd did not start";
        return result;
    }
    const auto port = fleetd.waitForPort(300s);
    if (!port) {
        result.failure = "fleetd did not listen within 300 s";
        return result;
    }
    std::vector<std::unique_ptr<Subscriber>> subscribers;
    for (int i = 0; i < live; ++i) {
        subscribers.push_back(std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD));
        subscribers.back()->start();
    }
    if (!allHaveSnapshots(subscribers, 300s)) result.failure = "not every live subscriber had its snapshot in 300 s";
    // The stalled one: a stream opened and never read; fleetd's buffers for it fill and it is dropped.
    auto stalledStub = v1::TelemetryService::NewStub(channelTo(*port));
    grpc::ClientContext stalledContext;
    std::unique_ptr<grpc::ClientReader<v1::SubscribeResponse>> stalled;
    if (withStalled) {
        v1::SubscribeRequest request;
        request.set_detail(v1::DETAIL_LEVEL_STANDARD);
        stalled = stalledStub->Subscribe(&stalledContext, request);
    }
    const auto began = Clock::now();
    const auto length = std::chrono::duration<double, std::ratio<60>>(minutes);
    std::vector<double> secondHalf;
    while (Clock::now() - began < length) {
        std::this_thread::sleep_for(5s);
        const double mib = rssMiB(fleetd.pid());
        result.rssPeakMiB = std::max(result.rssPeakMiB, mib);
        if (Clock::now() - began > length / 2) secondHalf.push_back(mib);
    }
    result.rssMeanMiB = mean(secondHalf);
    std::vector<double> lags, tickStarts, settled;
    // The twin's clock starts at its fixed epoch (2027-01-01), not at wall time, so a delta's
    // wall-minus-server time is a constant offset plus its lag. At --speed 1 the offset holds, and
    // each subscriber's fastest delivery (about a millisecond on loopback) is its baseline: lag =
    // offset - the smallest offset it saw. That understates every lag by that one millisecond and
    // counts a twin falling behind wall time as lag, as an operator would see it.
    for (auto& s : subscribers) {
        const auto mine = s->lagsMs();
        if (mine.empty()) continue;
        const double baseline = *std::min_element(mine.begin(), mine.end());
        for (const double offset : mine) lags.push_back(offset - baseline);
        for (const double offset : s->tickStartLagsMs()) tickStarts.push_back(offset - baseline);
        const auto arrivals = s->arrivals();
        for (const auto& a : arrivals)
            if (a.arrived - began >= kSettle) settled.push_back(a.offsetMs - baseline);
        if (!o.trace.empty() && s == subscribers.front())
            writeTrace(o.trace + (withStalled ? "-stalled.csv" : "-plain.csv"), arrivals, baseline);
        result.liveEnded += s->ended;
    }
    if (lags.empty() && result.failure.empty()) result.failure = "no live subscriber received a delta";
    result.settledP50Ms = percentile(settled, 50);
    result.settledP99Ms = percentile(settled, 99);
    result.settledMaxMs = percentile(settled, 100);
    result.lagP50Ms = percentile(lags, 50);
    result.lagP99Ms = percentile(lags, 99);
    result.lagMaxMs = percentile(lags, 100);
    result.tickStartP50Ms = percentile(tickStarts, 50);
    result.tickStartP99Ms = percentile(tickStarts, 99);
    // fleetd ends a stalled stream with a server-side cancel, which the client sees as CANCELLED as
    // it sees its own: fleetd's stats line (every 60 s) tells, by its count of open streams.
    const std::vector<int> open = fleetd.subscriberCounts();
    result.subscribersAtEnd = open.empty() ? -1 : open.back();
    if (stalled) {
        result.stalledDropped = !open.empty() && open.back() == live;
        stalledContext.TryCancel();
        v1::SubscribeResponse drained;
        while (stalled->Read(&drained)) {}
        stalled->Finish();
    }
    for (auto& s : subscribers) s->stop();
    fleetd.terminate(30s);
    return result;
}

int runStalled(const Options& o) {
    const int racks = o.racks ? o.racks : 1800;
    const double minutes = o.minutes > 0 ? o.minutes : 10;
    const int live = o.live ? o.live : 9;
    std::printf("fleetd_soak_bench stalled: %d racks, %d live STANDARD subscribers, %.0f min a run\n", racks, live,
                minutes);
    std::fflush(stdout);
    const StallRun plain = stallRun(o, racks, minutes, live, false);
    const StallRun stalled = stallRun(o, racks, minutes, live, true);
    // A run that measured nothing must not read as a pass with 0 ms of lag.
    for (const StallRun* r : {&plain, &stalled}) {
        if (!r->failure.empty()) {
            std::printf("\n  FAIL: %s run: %s\n", r == &plain ? "live-only" : "stalled", r->failure.c_str());
            return 1;
        }
    }
    auto row = [](const char* name, const StallRun& r) {
        std::printf(
            "  %-22s RSS mean %6.0f MiB peak %6.0f MiB | lag p50 %5.0f p99 %5.0f max %6.0f ms "
            "(a tick's first delta: p50 %5.0f p99 %5.0f ms) | settled lag p50 %5.0f p99 %5.0f max %6.0f ms "
            "| live ended %d\n",
            name, r.rssMeanMiB, r.rssPeakMiB, r.lagP50Ms, r.lagP99Ms, r.lagMaxMs, r.tickStartP50Ms, r.tickStartP99Ms,
            r.settledP50Ms, r.settledP99Ms, r.settledMaxMs, r.liveEnded);
    };
    std::printf("\n");
    row("live only", plain);
    row("live + 1 stalled", stalled);
    const double extra = stalled.rssMeanMiB - plain.rssMeanMiB;
    const double extraPeak = stalled.rssPeakMiB - plain.rssPeakMiB;
    std::printf("\n  %-40s %+.0f MiB (peak %+.0f MiB)  target <= +64 MiB  %s\n", "RSS with the stalled subscriber",
                extra, extraPeak, verdict(extra <= 64 && extraPeak <= 64));
    std::printf("  %-40s %.0f ms  target < 250 ms  %s\n", "live p99 lag beside it, settled", stalled.settledP99Ms,
                verdict(stalled.settledP99Ms < 250 && stalled.liveEnded == 0));
    std::printf("  %-40s %.0f ms  (from the first snapshot on, the joining catch-up included)\n",
                "live p99 lag beside it, all", stalled.lagP99Ms);
    std::printf("  %-40s %s (fleetd's last stats line: %d open streams, %d live)\n",
                "stalled subscriber dropped by fleetd", stalled.stalledDropped ? "yes" : "no", stalled.subscribersAtEnd,
                live);
    return 0;
}

// --- restarts -------------------------------------------------------------------------------

int runRestarts(const Options& o) {
    const int racks = o.racks ? o.racks : 7;
    const int live = o.live ? o.live : 3;
    std::printf("fleetd_soak_bench restarts: %d racks, %d resuming subscribers, %d SIGKILL restarts\n", racks, live,
                o.restarts);
    std::fflush(stdout);
    FleetdChild fleetd(o.fleetd, false);
    if (!fleetd.start(fleetArgs(racks))) return 1;
    const auto port = fleetd.waitForPort(120s);
    if (!port) return std::fprintf(stderr, "fleetd did not start\n"), 1;
    const std::string listen = "127.0.0.1:" + std::to_string(*port);
    std::vector<std::unique_ptr<Subscriber>> subscribers;
    for (int i = 0; i < live; ++i) {
        subscribers.push_back(std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD, true));
        subscribers.back()->start();
    }
    if (!allHaveSnapshots(subscribers, 120s)) return std::fprintf(stderr, "no snapshot\n"), 1;
    std::mt19937 random(7);
    std::uniform_int_distribution<int> upMs(500, 1500);
    std::vector<double> backMs;
    int missing = 0, failedStarts = 0;
    for (int k = 0; k < o.restarts; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(upMs(random)));
        std::vector<std::size_t> returnsBefore;
        for (auto& s : subscribers) returnsBefore.push_back(s->returns().size());
        fleetd.kill9();
        if (!fleetd.start(fleetArgs(racks, listen)) || !fleetd.waitForPort(60s)) {
            ++failedStarts;
            continue;
        }
        const auto listening = fleetd.listeningAt();
        // Every subscriber must be back (resumed or resynced) within 30 s.
        for (std::size_t i = 0; i < subscribers.size(); ++i) {
            const auto until = Clock::now() + 30s;
            while (Clock::now() < until && subscribers[i]->returns().size() <= returnsBefore[i])
                std::this_thread::sleep_for(2ms);
            const auto returns = subscribers[i]->returns();
            if (returns.size() <= returnsBefore[i]) {
                ++missing;
                continue;
            }
            backMs.push_back(
                std::max(0.0, std::chrono::duration<double, std::milli>(returns.back() - listening).count()));
        }
        if ((k + 1) % 10 == 0) std::printf("  %d restarts done\n", k + 1), std::fflush(stdout);
    }
    int gaps = 0, duplicates = 0, resyncs = 0, resumed = 0;
    for (auto& s : subscribers) {
        gaps += s->gaps;
        duplicates += s->duplicates;
        resyncs += s->resyncs;
        resumed += s->resumed;
    }
    std::printf(
        "\n  %d restarts x %d subscribers: %zu returns (%d resynced by snapshot, %d resumed by replay), "
        "%d never came back, %d fleetd starts failed\n",
        o.restarts, live, backMs.size(), resyncs, resumed, missing, failedStarts);
    std::printf("  back after fleetd listened: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n", percentile(backMs, 50),
                percentile(backMs, 99), percentile(backMs, 100));
    std::printf("  %-30s gaps %d, duplicates %d  target 0 / 0  %s\n", "sequence", gaps, duplicates,
                verdict(gaps == 0 && duplicates == 0 && missing == 0 && failedStarts == 0));
    for (auto& s : subscribers) s->stop();
    fleetd.terminate(30s);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (o.mode == "rss") return runRss(o);
    if (o.mode == "stalled") return runStalled(o);
    return runRestarts(o);
}
