#include "SourceHandoff.h"

#include <algorithm>

namespace watchfloor::server {

namespace v1 = watchfloor::v1;

void appendChanges(FleetChanges& into, FleetChanges& from) {
    if (into.samples.empty()) {
        into.samples = std::move(from.samples);
        into.sampleTimesMs = std::move(from.sampleTimesMs);
    } else {
        into.samples.insert(into.samples.end(), from.samples.begin(), from.samples.end());
        into.sampleTimesMs.insert(into.sampleTimesMs.end(), from.sampleTimesMs.begin(), from.sampleTimesMs.end());
    }
    for (auto& e : from.events) into.events.push_back(std::move(e));
    for (auto& state : from.states) into.states.push_back(std::move(state));
    if (from.hasFleet) {
        into.hasFleet = true;
        into.fleet = std::move(from.fleet);
    }
    for (auto& job : from.jobs) {
        auto same = std::find_if(into.jobs.begin(), into.jobs.end(),
                                 [&](const v1::Job& j) { return j.index() == job.index(); });
        if (same != into.jobs.end())
            *same = std::move(job);
        else
            into.jobs.push_back(std::move(job));
    }
    for (auto& status : from.sources) {
        auto same = std::find_if(into.sources.begin(), into.sources.end(),
                                 [&](const v1::SourceStatus& s) { return s.name() == status.name(); });
        if (same != into.sources.end())
            *same = std::move(status);
        else
            into.sources.push_back(std::move(status));
    }
}

void PendingChanges::post(FleetChanges& changes) {
    std::lock_guard lock(mutex_);
    appendChanges(pending_, changes);
}

void PendingChanges::takeInto(FleetChanges& out) {
    std::lock_guard lock(mutex_);
    appendChanges(out, pending_);
    pending_ = FleetChanges{};
}

bool noteSourceTransition(v1::SourceHealth before, const v1::SourceStatus& status, std::int64_t timeMs,
                          std::uint32_t fleetIndex, const std::string& downMessage, const std::string& upMessage,
                          FleetChanges& out) {
    const bool wasDown = before == v1::SOURCE_HEALTH_DOWN;
    const bool isDown = status.health() == v1::SOURCE_HEALTH_DOWN;
    if (wasDown == isDown) return false;
    v1::Event e;
    e.set_time_unix_ms(timeMs);
    e.set_type(v1::EVENT_TYPE_SOURCE);
    e.set_entity_index(fleetIndex);
    e.set_cause(isDown ? "source_down" : "source_up");
    e.set_severity(isDown ? v1::SEVERITY_CRITICAL : v1::SEVERITY_INFO);
    e.set_message(isDown ? downMessage : upMessage);
    out.events.push_back(std::move(e));
    return true;
}

}  // namespace watchfloor::server
