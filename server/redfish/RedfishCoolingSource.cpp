#include "RedfishCoolingSource.h"

namespace watchfloor::server::redfish {

namespace v1 = watchfloor::v1;

namespace {

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

RedfishCoolingSource::RedfishCoolingSource(v1::Topology topology, CoolingMap map, RedfishSourceOptions options, Log log)
    : topology_(std::move(topology)),
      map_(std::move(map)),
      options_(std::move(options)),
      log_(std::move(log)),
      name_("redfish=" + options_.http.url),
      reader_(options_.http),
      mapper_(topology_, map_, name_),
      status_(CoolingMapper::initialStatus(name_)) {
    FleetChanges initial;
    initial.sources.push_back(status_);
    pending_.post(initial);
}

RedfishCoolingSource::~RedfishCoolingSource() { stop(); }

void RedfishCoolingSource::start() {
    thread_ = std::thread([this] { pollLoop(); });
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, options_.firstPollWait, [this] { return polls_ > 0 || stopping_; });
}

void RedfishCoolingSource::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

UnixTime RedfishCoolingSource::now() const { return fromUnixMs(wallMs()); }

void RedfishCoolingSource::advanceTo(UnixTime until, FleetChanges& out) {
    pending_.takeInto(out);
    out.time = std::min(until, now());
}

v1::SourceStatus RedfishCoolingSource::status() const {
    std::lock_guard lock(mutex_);
    return status_;
}

void RedfishCoolingSource::pollLoop() {
    auto next = std::chrono::steady_clock::now();
    while (true) {
        pollOnce();
        ++polls_;
        wake_.notify_all();
        next += options_.http.interval;
        std::unique_lock lock(mutex_);
        if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
        next = std::max(next, std::chrono::steady_clock::now());
    }
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
                 sources::plural(status.series(), "series") + " in " + std::to_string(seconds).substr(0, 5) + " s");
        else if ((before == v1::SOURCE_HEALTH_DOWN) != (status.health() == v1::SOURCE_HEALTH_DOWN))
            log_(status.health() == v1::SOURCE_HEALTH_DOWN ? name_ + " is not answering: " + status.last_error()
                                                           : name_ + " answers again");
        for (const auto& e : changes.events)
            if (e.type() == v1::EVENT_TYPE_LEAK) log_(e.message());
    }
    pending_.post(changes);
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
    sources::appendChanges(out, cooling);
}

}  // namespace watchfloor::server::redfish
