#pragma once
// The Xids the console lists for one part of the fleet (the Rack page's "Recent Xids and
// recommended action"): the EVENT_TYPE_XID events reported on an entity or anything inside it,
// newest first, at most `limit`. fleetd attaches its catalogue row to every Xid event (XidDetail:
// mnemonic, NVIDIA's resolution bucket, fatal flag, fleet policy; docs/domain/xid-catalogue.md),
// so the console keeps no table of its own: it selects, orders and bounds.

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace watchfloor::client {

class FleetStore;

struct XidFilter {
    EntityId scope;  // a rack, tray or GPU: its Xids and those of everything in it; invalid: none
    int limit = 50;  // the newest this many; 0 or less: none
};

// One listed Xid, as fleetd described it.
struct XidRow {
    quint64 serial = 0;  // FleetStore::eventBySerial
    EntityId entity;     // the GPU (or tray) that reported it
    std::int64_t timeUnixMs = 0;
    std::uint32_t xid = 0;
    QString mnemonic;  // empty when fleetd has no catalogue row for the code
    watchfloor::v1::XidAction action = watchfloor::v1::XID_ACTION_UNSPECIFIED;
    bool fatal = false;
    QString fleetPolicy;
    QString message;

    // "79 GPU_HAS_FALLEN_OFF_THE_BUS"; the bare code without a catalogue row.
    QString code() const;
};

// The events the store holds now that `filter` selects, newest first.
std::vector<XidRow> selectXids(const FleetStore& store, const XidFilter& filter);

}  // namespace watchfloor::client
