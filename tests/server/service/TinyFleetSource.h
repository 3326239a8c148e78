#pragma once
// A small deterministic FleetSource for service tests, built by hand: regions of racks, each with
// a cooling loop, compute trays of GPUs + one CPU + one NIC port, and one NVLink per GPU. Every
// tick reports values for every entity (a function of tick and entity), every third tick an Xid
// event, every fifth tick a node state change, and one job's progress.

#include "FleetSource.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace watchfloor::server::testing {

struct TinyFleetShape {
    std::uint32_t regions = 2;
    std::uint32_t racksPerRegion = 1;
    std::uint32_t nodesPerRack = 2;
    std::uint32_t gpusPerNode = 2;
};

class TinyFleetSource final : public FleetSource {
public:
    static constexpr std::uint32_t kJobIndex = 900'000;
    static UnixTime startTime() { return fromUnixMs(1'798'761'600'000); }

    explicit TinyFleetSource(TinyFleetShape shape = {});

    const watchfloor::v1::Topology& topology() const override { return topology_; }
    UnixTime now() const override { return now_; }
    void advanceTo(UnixTime until, FleetChanges& out) override;

    std::uint64_t ticks() const { return tick_; }
    // The value a GPU temperature sample had at `tick` (tests check history against it).
    static float gpuTempC(std::uint64_t tick, std::uint32_t gpuIndex);
    std::vector<std::uint32_t> gpus() const;

private:
    watchfloor::v1::Topology topology_;
    UnixTime now_ = startTime();
    std::uint64_t tick_ = 0;
};

}  // namespace watchfloor::server::testing
