#include "RedfishCoolingSource.h"

#include "Plural.h"

namespace watchfloor::server::redfish {

namespace v1 = watchfloor::v1;

RedfishCoolingSource::RedfishCoolingSource(v1::Topology topology, CoolingMap map, RedfishSourceOptions options, Log log)
    : PolledSource(options.firstPollWait),
      topology_(std::move(topology)),
      map_(std::move(map)),
      options_(std::move(options)),
      log_(std::move(log)),
      name_("redfish=" + options_.http.url),
      reader_(options_.http),
      mapper_(topology_, map_, name_),
      status_(CoolingMapper::initialStatus(name_)) {
    FleetChanges initial;
    initial.sources.push_back(status_);
    pending().post(initial);
}

RedfishCoolingSource::~RedfishCoolingSource() { stop(); }

v1::SourceStatus RedfishCoolingSource::status() const {
    std::lock_guard lock(mutex_);
    return status_;
}

PolledSource::Clock::time_point RedfishCoolingSource::pollStep() {
    pollOnce();
    notePolled();
    return nextPeriod(options_.http.interval);
}

void RedfishCoolingSource::pollOnce() {
    const std::int64_t pollMs = wallMs();
    const auto began = std::chrono::steady_clock::now();
    const CoolingReadout readout = reader_.read();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    const v1::SourceHealth before = mapper_.status().health();
    FleetChanges changes;
    mapper_.apply(readout, pollMs, seconds, changes);
    const v1::SourceStatus& status = mapper_.status();
    if (log_) {
        if (before == v1::SOURCE_HEALTH_UNSPECIFIED && status.health() != v1::SOURCE_HEALTH_DOWN)
            log_(name_ + ": first poll read " + std::to_string(status.targets_up()) + " CDUs, " +
                 plural(status.series(), "series") + " in " + std::to_string(seconds).substr(0, 5) + " s");
        else if ((before == v1::SOURCE_HEALTH_DOWN) != (status.health() == v1::SOURCE_HEALTH_DOWN))
            log_(status.health() == v1::SOURCE_HEALTH_DOWN ? name_ + " is not answering: " + status.last_error()
                                                           : name_ + " answers again");
        for (const auto& e : changes.events)
            if (e.type() == v1::EVENT_TYPE_LEAK) log_(e.message());
    }
    pending().post(changes);
    std::lock_guard lock(mutex_);
    status_ = status;
}

void CoolingOverlay::advanceTo(UnixTime until, FleetChanges& out) {
    base_.advanceTo(until, out);
    // Samples a source stamped with its instant only get that instant spelled out, so the
    // cooling samples can carry their own read times beside them.
    if (out.sampleTimesMs.size() != out.samples.size())
        out.sampleTimesMs.assign(out.samples.size(), toUnixMs(out.time));
    FleetChanges cooling;
    cooling_.takeChanges(cooling);
    appendChanges(out, cooling);
}

}  // namespace watchfloor::server::redfish
