#include "MaintenanceSilencer.h"

#include <algorithm>
#include <charconv>

namespace watchfloor::server::paging {

namespace v1 = watchfloor::v1;

namespace {

// Each rack of the window, by name.
void addRacks(const v1::MaintenanceWindow& window, const v1::Topology& topology, SilenceWindow& silence) {
    for (const std::uint32_t index : window.rack_indexes())
        for (const auto& rack : topology.racks())
            if (rack.index() == index) {
                SilencedPlace place;
                place.kind = SilencedPlace::Kind::Rack;
                place.name = rack.name();
                silence.places.push_back(std::move(place));
                break;
            }
}

}  // namespace

SilenceWindow silenceWindowOf(const v1::MaintenanceWindow& window, const v1::Topology& topology) {
    SilenceWindow silence;
    silence.id = window.id();
    silence.startsUnixMs = window.start_unix_ms();
    silence.endsUnixMs = window.end_unix_ms();
    silence.owner = window.owner();
    silence.reason = window.reason();
    SilencedPlace place;
    const std::string& name = window.scope_name();
    const auto slashes = std::count(name.begin(), name.end(), '/');
    switch (window.scope()) {
    case v1::MAINTENANCE_SCOPE_NODE:
        place.kind = SilencedPlace::Kind::Node;
        place.name = name;
        break;
    case v1::MAINTENANCE_SCOPE_RACK:
        place.kind = SilencedPlace::Kind::Rack;
        place.name = name;
        break;
    case v1::MAINTENANCE_SCOPE_HALL:
        if (slashes > 0) {
            addRacks(window, topology, silence);
            return silence;
        }
        place.kind = SilencedPlace::Kind::Hall;
        place.hall = name;
        break;
    case v1::MAINTENANCE_SCOPE_ROW: {
        if (slashes > 1) {
            addRacks(window, topology, silence);
            return silence;
        }
        const auto slash = name.find('/');
        if (slash == std::string::npos || slash == 0) return silence;
        const char* first = name.data() + slash + 1;
        const char* last = name.data() + name.size();
        const auto [end, error] = std::from_chars(first, last, place.row);
        if (error != std::errc() || end != last || place.row == 0) return silence;
        place.kind = SilencedPlace::Kind::Row;
        place.hall = name.substr(0, slash);
        break;
    }
    default: return silence;
    }
    silence.places.push_back(std::move(place));
    return silence;
}

void MaintenanceSilencer::onWindow(const v1::MaintenanceWindow& window) {
    std::lock_guard lock(mu_);
    switch (window.state()) {
    case v1::MAINTENANCE_STATE_SCHEDULED:
    case v1::MAINTENANCE_STATE_ACTIVE:
        if (silenced_.count(window.id())) return;
        if (pager_.silence(silenceWindowOf(window, topology_))) silenced_.insert(window.id());
        return;
    case v1::MAINTENANCE_STATE_CANCELLED:
        if (silenced_.erase(window.id())) pager_.cancelSilence(window.id());
        return;
    case v1::MAINTENANCE_STATE_ENDED: silenced_.erase(window.id()); return;
    default: return;
    }
}

}  // namespace watchfloor::server::paging
