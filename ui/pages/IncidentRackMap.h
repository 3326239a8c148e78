#pragma once
// The racks an incident touches on a small rack map: the fleet's RackMapWidget with the racks of
// the regions it touches, each tile coloured by how the incident touches it (the root cause's
// rack, another rack in the blast radius, not affected), its badge counting the affected trays,
// its tooltip naming them. Clicking a rack opens it (rackActivated).

#include "RackMapWidget.h"

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

class IncidentRackMap : public widgets::RackMapWidget {
    Q_OBJECT
public:
    // Tile categories.
    enum Touch { NotAffected = 0, InBlastRadius = 1, RootCause = 2 };

    IncidentRackMap(const client::FleetStore& store, QWidget* parent = nullptr);

    void setIncident(int endpoint, const watchfloor::v1::Incident& incident);
    void applyTheme(const widgets::Theme& theme);
    // How the shown incident touches the rack (by name); NotAffected for an unknown name.
    Touch touchOf(const QString& rackName) const;
    int affectedTrays(const QString& rackName) const;

private:
    const client::FleetStore& m_store;
    std::vector<Touch> m_touch;        // by tile
    std::vector<QStringList> m_trays;  // by tile: the affected trays' names
};

}  // namespace watchfloor::ui
