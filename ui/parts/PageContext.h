#pragma once
// What every page is built with: the fleet model, and the endpoint connections behind it for
// on-demand queries (history backfill, event search). A recorded stream has no connection.
// Operator actions go through one ControlClient per endpoint; `actions` (set by MainWindow, not
// on the wall display) decides which action controls a page may show.

#include "ControlClient.h"
#include "EndpointConnection.h"

#include <QPointer>
#include <QVector>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

class OperatorActions;

struct PageContext {
    client::FleetStore* store = nullptr;
    // Indexed by the store's endpoint number; null where there is no live connection.
    QVector<QPointer<client::EndpointConnection>> connections;

    client::EndpointConnection* connection(int endpoint) const {
        return endpoint >= 0 && endpoint < connections.size() ? connections[endpoint].data() : nullptr;
    }

    // Indexed like `connections`; null where the console has no control channel to that fleetd.
    QVector<QPointer<client::ControlClient>> controls;
    // Null: no action controls at all (war room, tests of read-only pages).
    OperatorActions* actions = nullptr;

    client::ControlClient* control(int endpoint) const {
        return endpoint >= 0 && endpoint < controls.size() ? controls[endpoint].data() : nullptr;
    }
};

}  // namespace watchfloor::ui
