// incidents_bench: what incident grouping costs fleetd's tick thread at 1,800 racks when a row's
// CDU fails (both pumps: no flow to its 10 racks, 720 GPUs heat, throttle and shut down).
// Runs the digital twin with full telemetry tick by tick, exactly as fleetd does, and times
// FleetIncidents::apply (the grouping step of FleetdServer::tick) on every tick.
//
//   incidents_bench [--racks N] [--minutes M] [--seed S]

#include "DigitalTwin.h"
#include "FleetIncidents.h"
#include "ThreadCpu.h"

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

using namespace watchfloor::server;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
    std::uint32_t racks = 1800;
    int minutes = 20;  // simulated minutes after the failure
    std::uint64_t seed = 1;
};

bool parse(int argc, char** argv, Args* args) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const long value = std::strtol(argv[i + 1], nullptr, 10);
        if (flag == "--racks" && value > 0)
            args->racks = static_cast<std::uint32_t>(value);
        else if (flag == "--minutes" && value > 0)
            args->minutes = static_cast<int>(value);
        else if (flag == "--seed" && value >= 0)
            args->seed = static_cast<std::uint64_t>(value);
        else
            return false;
    }
    return argc % 2 == 1;
}

using watchfloor::bench::percentile;
using watchfloor::bench::threadCpuMs;

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, &args)) {
        std::fprintf(stderr, "usage: incidents_bench [--racks N] [--minutes M] [--seed S]\n");
        return 2;
    }
    // The scenario: at 1 minute the first row's CDU loses one pump, then the other.
    char scenarioPath[] = "/tmp/incidents_bench_XXXXXX";
    const int fd = mkstemp(scenarioPath);
    if (fd < 0) return std::perror("mkstemp"), 1;
    close(fd);
    std::string firstRack;
    {
        sim::SimConfig probe;
        probe.racks = args.racks;
        probe.regions = 2;
        ConfigError error;
        auto twin = sim::DigitalTwin::create(probe, &error);
        if (!twin) return std::fprintf(stderr, "%s\n", error.toString().c_str()), 1;
        firstRack = twin->topology().racks(0).name();
    }
    std::ofstream(scenarioPath) << "at 1m pump-fail rack=" << firstRack << "\nat 1m pump-fail rack=" << firstRack
                                << "\n";

    sim::SimConfig config;
    config.seed = args.seed;
    config.racks = args.racks;
    config.regions = 2;
    config.scenarioFile = scenarioPath;
    ConfigError error;
    auto twin = sim::DigitalTwin::create(config, &error);
    std::remove(scenarioPath);
    if (!twin) return std::fprintf(stderr, "%s\n", error.toString().c_str()), 1;
    const auto& topology = twin->topology();
    incidents::FleetIncidents grouping(topology);

    std::vector<double> ms, cpuMs;
    double msAtBusiest = 0, cpuAtBusiest = 0;
    FleetChanges changes;
    std::uint64_t nextId = 1, events = 0, samples = 0;
    std::size_t worstEvents = 0;
    double worstMs = 0;
    std::size_t eventsAtWorst = 0;
    const int ticks = (1 + args.minutes) * 60;
    for (int t = 0; t < ticks; ++t) {
        changes.clear();
        changes.time = twin->now() + std::chrono::seconds(1);
        twin->advanceTo(changes.time, changes);
        for (auto& e : changes.events) e.set_id(nextId++);
        const auto began = Clock::now();
        const double cpuBegan = threadCpuMs();
        grouping.apply(changes);
        const double cpu = threadCpuMs() - cpuBegan;
        const double took = std::chrono::duration<double, std::milli>(Clock::now() - began).count();
        ms.push_back(took);
        cpuMs.push_back(cpu);
        if (changes.events.size() > worstEvents) {
            msAtBusiest = took;
            cpuAtBusiest = cpu;
        }
        events += changes.events.size();
        samples += changes.samples.size();
        worstEvents = std::max(worstEvents, changes.events.size());
        if (took > worstMs) {
            worstMs = took;
            eventsAtWorst = changes.events.size();
        }
    }
    std::uint32_t biggestMembers = 0;
    std::string biggest;
    for (const auto& incident : grouping.grouper().openIncidents())
        if (incident.member_count() > biggestMembers) {
            biggestMembers = incident.member_count();
            biggest = incident.title();
        }
    std::printf(
        "incidents_bench: %u racks, %d GPUs, seed %llu, first row's CDU loses both pumps at 1m, %d ticks (1 s)\n",
        args.racks, topology.gpus_size(), static_cast<unsigned long long>(args.seed), ticks);
    std::printf("  events %llu (most in one tick: %zu), samples per tick %.0f\n",
                static_cast<unsigned long long>(events), worstEvents, double(samples) / ticks);
    std::printf(
        "  grouping per tick: median %.3f ms, p99 %.3f ms, max %.3f ms (tick with %zu events)   target <= 5 ms\n",
        percentile(ms, 0.5), percentile(ms, 0.99), worstMs, eventsAtWorst);
    std::printf("  grouping CPU per tick: median %.3f ms, p99 %.3f ms, max %.3f ms\n", percentile(cpuMs, 0.5),
                percentile(cpuMs, 0.99), *std::max_element(cpuMs.begin(), cpuMs.end()));
    std::printf("  the busiest tick (%zu events): %.3f ms wall, %.3f ms CPU\n", worstEvents, msAtBusiest, cpuAtBusiest);
    std::printf("  open incidents at the end: %u; largest: %u members: %s\n", grouping.openCount(), biggestMembers,
                biggest.c_str());
    return 0;
}
