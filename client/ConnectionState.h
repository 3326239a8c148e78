#pragma once
// Lifecycle of one fleetd endpoint as the operator sees it in the status bar.

#include <QMetaType>
#include <QString>

#include <cstdint>

namespace watchfloor::client {

enum class ConnectionState : std::uint8_t {
    Disconnected,  // not started, or stopped on request
    Connecting,    // first attempt; no data yet
    Live,          // stream open and messages (incl. heartbeats) arriving
    Stale,         // stream open but silent for longer than the stale timeout
    Reconnecting,  // the stream failed; waiting for fleetd to answer again (or a backoff delay)
    Incompatible,  // the server speaks another API major version (or not this API at all)
};

QString displayName(ConnectionState s);

}  // namespace watchfloor::client

Q_DECLARE_METATYPE(watchfloor::client::ConnectionState)
