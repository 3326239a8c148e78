#pragma once
// The newest InfiniBand error counters of one tray's NIC ports, asked of fleetd on demand: a
// console below FULL detail does not subscribe to port values (they are the bulk of a fleet's
// series), but the straggler cause panel needs them for the one tray it explains. One GetHistory
// per port and counter (fleet.proto: entity_index, latest_if_live_only), each with the
// connection's unary deadline; `done` runs once, on `context`'s thread, when all have answered.

#include "watchfloor/v1/fleet.pb.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace watchfloor::client {

class EndpointConnection;

struct NicPortCounters {
    int ports = 0;           // the tray's ports asked about
    int portsReporting = 0;  // ports fleetd has a sample of at least one counter for
    // Counter -> sum over the ports that reported it; a counter no port reported is absent.
    std::map<watchfloor::v1::Metric, double> totals;
    QString error;  // a call failed for another reason than "never reported": nothing is known
};

// IB_LINK_DOWNED_COUNTER, IB_LINK_ERROR_RECOVERY_COUNTER, IB_SYMBOL_ERROR_COUNTER, IB_PORT_RCV_ERRORS.
const std::vector<watchfloor::v1::Metric>& nicErrorCounters();

void fetchNicPortCounters(EndpointConnection& connection, const std::vector<std::uint32_t>& portIndexes,
                          QObject* context, std::function<void(NicPortCounters)> done);

}  // namespace watchfloor::client
