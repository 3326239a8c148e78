#pragma once
// fleetd --source redfish=URL: the facility's liquid cooling read from the Redfish service of
// its CDUs or building-management aggregator (never from tray BMCs), polled on a thread of its
// own every interval. Alone it is a FleetSource of its own (cooling only); beside a GPU source
// (--source prometheus=URL or scrape) CoolingOverlay merges its changes into that source's.
// A service that fails keeps the values it gave last: they age in the console as stale and the
// source's status says why.

#include "CoolingMap.h"
#include "CoolingMapper.h"
#include "CoolingReader.h"
#include "PolledSource.h"

#include <functional>
#include <mutex>

namespace watchfloor::server::redfish {

struct RedfishSourceOptions {
    RedfishOptions http;
    std::chrono::milliseconds firstPollWait{3'000};  // start() waits this long for the first poll
};

class RedfishCoolingSource final : public PolledSource {
public:
    using Log = std::function<void(const std::string&)>;

    RedfishCoolingSource(watchfloor::v1::Topology topology, CoolingMap map, RedfishSourceOptions options, Log log);
    ~RedfishCoolingSource() override;

    const watchfloor::v1::Topology& topology() const override { return topology_; }
    std::chrono::milliseconds telemetryPeriod() const override { return options_.http.interval; }
    bool countersPeriodic() const override { return true; }

    // What the poll thread produced since the last call (the overlay's way in).
    void takeChanges(FleetChanges& out) { pending().takeInto(out); }
    watchfloor::v1::SourceStatus status() const;
    const std::string& name() const { return name_; }

private:
    Clock::time_point pollStep() override;
    void pollOnce();

    watchfloor::v1::Topology topology_;
    CoolingMap map_;
    RedfishSourceOptions options_;
    Log log_;
    std::string name_;
    CoolingReader reader_;      // poll thread only
    CoolingMapper mapper_;      // poll thread only
    mutable std::mutex mutex_;  // status_, which other threads read
    watchfloor::v1::SourceStatus status_;
};

// A GPU source with the facility's cooling beside it: topology, clock and cadence are the GPU
// source's; every advance also carries the cooling source's changes.
class CoolingOverlay final : public FleetSource {
public:
    CoolingOverlay(FleetSource& base, RedfishCoolingSource& cooling) : base_(base), cooling_(cooling) {}

    const watchfloor::v1::Topology& topology() const override { return base_.topology(); }
    UnixTime now() const override { return base_.now(); }
    void advanceTo(UnixTime until, FleetChanges& out) override;
    std::chrono::milliseconds telemetryPeriod() const override { return base_.telemetryPeriod(); }
    bool countersPeriodic() const override { return base_.countersPeriodic(); }

private:
    FleetSource& base_;
    RedfishCoolingSource& cooling_;
};

}  // namespace watchfloor::server::redfish
