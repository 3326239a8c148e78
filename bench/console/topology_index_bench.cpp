// topology_index_bench: what indexing one fleet-scale topology by entity index costs: the shared
// index (proto/TopologyEntities) alone, the console's TopologyIndex on it (once per endpoint
// snapshot), fleetd's CauseTopology on it (incident grouping), and fleetd's TopologyLookup on it (the
// stream filters', adding a name map).
//
// Builds fleetd's topology for 1,800 NVL72 racks (every NVLink and NIC port: 2.3 M links) and
// reports, for each index: build time (best of 5), the heap it holds beyond the topology
// (glibc's mallinfo2, the index alive), and the time of the lookups incident grouping makes
// (tray, rack, region, name) over every entity. The console is measured on the full topology
// and on the STANDARD one (no NVLinks, no NIC ports) it subscribes to by default.
//
// Usage: topology_index_bench [racks=1800]

#include "CauseTopology.h"
#include "FleetModel.h"
#include "TopologyEntities.h"
#include "TopologyIndex.h"
#include "TopologyLookup.h"

#include <malloc.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace v1 = watchfloor::v1;
using watchfloor::client::TopologyIndex;
using watchfloor::server::incidents::CauseTopology;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRuns = 5;

double heapMiB() {
    const struct mallinfo2 info = mallinfo2();
    return double(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Build time (best of kRuns) and the heap one built index holds.
template <typename Build>
void measure(const char* what, Build build) {
    double best = 1e30;
    for (int run = 0; run < kRuns; ++run) {
        const auto t0 = Clock::now();
        auto index = build();
        best = std::min(best, msSince(t0));
    }
    const double before = heapMiB();
    auto kept = build();
    std::printf("%-44s build %7.1f ms   holds %6.1f MiB\n", what, best, heapMiB() - before);
}

// The questions incident grouping asks of every event's entity, over every index.
template <typename Index>
double lookupNs(const Index& index, std::uint32_t span, std::size_t* checksum) {
    double best = 1e30;
    for (int run = 0; run < kRuns; ++run) {
        std::size_t sum = 0;
        const auto t0 = Clock::now();
        for (std::uint32_t e = 0; e < span; ++e)
            sum += index.trayOf(e) + index.rackOf(e) + index.regionOf(e) + index.name(e).size();
        best = std::min(best, msSince(t0));
        *checksum = sum;
    }
    return best * 1e6 / double(span);
}

}  // namespace

int main(int argc, char** argv) {
    const int racks = argc > 1 ? std::atoi(argv[1]) : 1800;
    if (racks <= 0) {
        std::fprintf(stderr, "usage: topology_index_bench [racks=1800]\n");
        return 2;
    }
    const watchfloor::server::FleetModel model(watchfloor::server::generatedFleetSpec(2, std::uint32_t(racks)), 0);
    auto full = std::make_shared<const v1::Topology>(model.topology());
    auto standard = std::make_shared<v1::Topology>(model.topology());
    standard->clear_nvlinks();
    standard->clear_nic_ports();
    // The index space the lookups walk: the shared index's table spans it (every index up to the
    // largest the topology uses).
    const auto span = [&] {
        watchfloor::proto::TopologyEntities entities;
        std::string ignored;
        (void)entities.rebuild(full, &ignored);
        return std::uint32_t(entities.entries().size());
    }();
    std::printf("topology: %d racks, %d GPUs, %d NVLinks, %d NIC ports, %u entity indexes, %.1f MiB as a message\n",
                racks, full->gpus_size(), full->nvlinks_size(), full->nic_ports_size(), span,
                double(full->SpaceUsedLong()) / (1024.0 * 1024.0));

    std::string error;
    measure("shared TopologyEntities, full topology", [&] {
        auto index = std::make_unique<watchfloor::proto::TopologyEntities>();
        if (!index->rebuild(full, &error)) std::fprintf(stderr, "%s\n", error.c_str()), std::exit(1);
        return index;
    });
    measure("console TopologyIndex, full topology", [&] {
        auto index = std::make_unique<TopologyIndex>();
        if (!index->rebuild(full, &error)) std::fprintf(stderr, "%s\n", error.c_str()), std::exit(1);
        return index;
    });
    std::shared_ptr<const v1::Topology> standardShared = standard;
    measure("console TopologyIndex, STANDARD topology", [&] {
        auto index = std::make_unique<TopologyIndex>();
        if (!index->rebuild(standardShared, &error)) std::fprintf(stderr, "%s\n", error.c_str()), std::exit(1);
        return index;
    });
    measure("fleetd CauseTopology, full topology", [&] { return std::make_unique<CauseTopology>(*full); });
    measure("fleetd TopologyLookup, full topology",
            [&] { return std::make_unique<watchfloor::server::service::TopologyLookup>(*full); });

    const CauseTopology cause(*full);
    std::size_t checksum = 0;
    const double ns = lookupNs(cause, span, &checksum);
    std::printf("fleetd CauseTopology lookups (tray, rack, region, name) over every index: %.1f ns per entity (%zu)\n",
                ns, checksum);
    return 0;
}
