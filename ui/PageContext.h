#pragma once
// What every page is built with: the fleet model, and the endpoint connections behind it for
// on-demand queries (history backfill, event search). A recorded stream has no connection.

#include "client/EndpointConnection.h"

#include <QPointer>
#include <QVector>

namespace watchfloor::client {
class FleetStore;
}


namespace watchfloor::ui {

struct PageContext {
    client::FleetStore* store = nullptr;
    // Indexed by the store's endpoint number; null where there is no live connection.
    QVector<QPointer<client::EndpointConnection>> connections;

    client::EndpointConnection* connection(int endpoint) const
    {
        return endpoint >= 0 && endpoint < connections.size() ? connections[endpoint].data() : nullptr;
    }
};

}  // namespace watchfloor::ui
