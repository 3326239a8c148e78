#pragma once
// What fleetd tells Alertmanager, in Alertmanager's terms: one alert (labels identify it,
// annotations describe it) and one maintenance window to silence. Times are wall-clock Unix ms,
// Alertmanager's clock (PagingClock maps the fleet's clock onto it).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::server::paging {

using LabelSet = std::vector<std::pair<std::string, std::string>>;  // name order, names unique

struct PagedAlert {
    LabelSet labels;
    LabelSet annotations;
    std::int64_t startsAtMs = 0;
    std::int64_t endsAtMs = 0;
};

// A maintenance window as the pager needs it: which places it covers and when. The window's
// owner (server/incidents' calendar) keeps the rest; `id` is its name for the window, the one
// cancelSilence() takes.
struct SilencedPlace {
    enum class Kind { Hall, Row, Rack, Node } kind = Kind::Rack;
    std::string hall;       // Hall, Row
    std::uint32_t row = 0;  // Row: the row within `hall`, from 1 (Rack.row)
    std::string name;       // Rack: the rack's name; Node: the tray's name
};

struct SilenceWindow {
    std::string id;
    std::vector<SilencedPlace> places;  // one Alertmanager silence each
    std::int64_t startsUnixMs = 0;      // the fleet's clock
    std::int64_t endsUnixMs = 0;
    std::string owner;   // createdBy
    std::string reason;  // comment
};

}  // namespace watchfloor::server::paging
