#pragma once
// A synthetic NVL72 fleet that produces Subscribe messages the way fleetd does: a Snapshot
// (topology + all current values as per-metric SampleBlocks) and per-second Deltas. Values are
// deterministic pseudo-random around plausible operating points. Used by the client tests and by
// bench/console/ingest_bench (1,800 racks = 129,600 GPUs, ~1.3 M samples per simulated second).

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::testing {

struct SyntheticFleetSpec {
    int regions = 2;
    int racks = 7;           // spread round-robin over regions
    bool withLinks = false;  // DETAIL_LEVEL_FULL: NVLinks and NIC ports as entities
    std::string fleetName = "synthetic";
    std::string regionPrefix = "region";
    std::int64_t startUnixMs = 1'800'000'000'000;
};

class SyntheticFleet {
public:
    static constexpr int kNodesPerRack = 18;
    static constexpr int kGpusPerNode = 4;
    static constexpr int kCpusPerNode = 2;
    static constexpr int kSwitchTraysPerRack = 9;
    static constexpr int kPowerShelvesPerRack = 8;
    static constexpr int kNvlinksPerGpu = 18;
    static constexpr int kNicPortsPerNode = 4;

    explicit SyntheticFleet(SyntheticFleetSpec spec);

    const watchfloor::v1::Topology& topology() const { return m_topology; }
    // GPU metrics sent every second (10 of them: ~1.3 M samples/s at 129,600 GPUs).
    static const std::vector<watchfloor::v1::Metric>& gpuMetrics();
    static const std::vector<watchfloor::v1::Metric>& rackMetrics();
    static const std::vector<watchfloor::v1::Metric>& loopMetrics();

    watchfloor::v1::SubscribeResponse snapshot(std::uint64_t sequence, std::int64_t timeUnixMs,
                                               const std::string& runId = "run-1",
                                               const std::string& reason = "initial") const;
    // All GPU, rack and loop metrics for `timeUnixMs`; `events` events; the jobs' progress.
    watchfloor::v1::SubscribeResponse delta(std::uint64_t sequence, std::int64_t timeUnixMs, int events = 0) const;
    watchfloor::v1::SubscribeResponse heartbeat(std::uint64_t sequence, std::int64_t timeUnixMs) const;

    // Samples carried by one delta().
    std::size_t samplesPerDelta() const;

    std::uint32_t fleetIndex() const { return m_topology.fleet_index(); }
    std::uint32_t rackIndex(int rack) const { return m_topology.racks(rack).index(); }
    std::uint32_t loopIndex(int rack) const { return m_topology.racks(rack).cooling_loop_index(); }
    std::uint32_t nodeIndex(int rack, int node) const { return m_topology.racks(rack).node_indexes(node); }
    std::uint32_t gpuIndex(int rack, int node, int gpu) const;
    std::uint32_t jobIndex(int job) const { return m_jobIndexBase + std::uint32_t(job); }
    std::uint32_t nvlinkIndex(int rack, int node, int gpu, int link) const;
    int jobCount() const { return int(m_jobNodes.size()); }
    int rackCount() const { return m_topology.racks_size(); }

    // Value of `metric` for GPU/rack/loop sequence number `i` at `timeUnixMs` (deterministic).
    static float valueFor(watchfloor::v1::Metric metric, std::uint32_t entity, std::int64_t timeUnixMs);

private:
    void addSampleBlocks(google::protobuf::RepeatedPtrField<watchfloor::v1::SampleBlock>* blocks,
                         std::int64_t timeUnixMs) const;
    watchfloor::v1::Job makeJob(int job, std::int64_t timeUnixMs) const;

    SyntheticFleetSpec m_spec;
    watchfloor::v1::Topology m_topology;
    std::vector<std::uint32_t> m_gpuIndexes;
    std::vector<std::uint32_t> m_rackIndexes;
    std::vector<std::uint32_t> m_loopIndexes;
    std::vector<std::vector<std::uint32_t>> m_jobNodes;
    std::uint32_t m_jobIndexBase = 0;
};

}  // namespace watchfloor::testing
