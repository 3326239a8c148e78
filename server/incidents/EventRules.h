#pragma once
// How one event takes part in incidents, decided from its type, cause class and entity through
// the topology (docs/incidents.md has the table):
// - a fault at its own level (a valve, a pump, a leak, a GPU's Xids, a link) is a Root: it joins
//   the open incident with its cause key or opens one;
// - a consequence (a thermal clocks event, a tray over-temperature shutdown, a rack isolated, a
//   job interrupted, a straggler) is a Symptom: it joins the open incident whose cause covers
//   its entity, the most specific first, and opens one on its own key only when none does;
// - a Follower (a tray drained, an automated action, an informational Xid) joins a covering
//   incident and never opens one;
// - a Clear ends an active condition a Root, Symptom or Follower began (a clocks event ended,
//   a tray back in service, an alarm cleared, a job resumed).

#include "CauseTopology.h"

#include <cstdint>
#include <string>
#include <tuple>

namespace watchfloor::server::incidents {

enum class Role : std::uint8_t { Ignore, Root, Symptom, Follower, Clear };

// Which causes may explain a symptom: cooling symptoms are explained by the facility water, a
// CDU, a loop; any symptom by a rack, power shelf, leaf, switch tray, tray or job it lies under.
enum class Domain : std::uint8_t { Cooling, General };

// An incident's cause, as a key: the scope and the entity (or the interned CDU / leaf id, or the
// job index).
struct CauseKey {
    std::uint8_t scope = 0;  // watchfloor::v1::CauseScope
    std::uint32_t id = CauseTopology::kNone;
    auto operator<=>(const CauseKey&) const = default;
    bool valid() const { return scope != 0 && id != CauseTopology::kNone; }
};

// A condition that stays active until its clear arrives: what it is about and which family.
struct ConditionKey {
    std::uint8_t family = 0;  // the raising event's type
    std::uint32_t entity = CauseTopology::kNone;
    std::uint32_t related = CauseTopology::kNone;  // a CDU alarm's rack
    std::string cause;                             // a CDU alarm's class
    auto operator<=>(const ConditionKey&) const = default;
};

struct EventRule {
    Role role = Role::Ignore;
    Domain domain = Domain::General;
    CauseKey key;                                  // Root: its cause; Symptom: the key it opens when nothing covers it
    std::uint32_t subject = CauseTopology::kNone;  // the entity a Symptom/Follower needs covered
    bool sustained = false;                        // begins a condition that a Clear ends
    ConditionKey condition;                        // for sustained raises and for clears
    std::string causeClass;                        // Event.cause, or one derived from the type
};

EventRule classify(const watchfloor::v1::Event& event, const CauseTopology& topology);

}  // namespace watchfloor::server::incidents
