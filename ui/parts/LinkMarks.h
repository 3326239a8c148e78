#pragma once
// Where the fabric degrades, as the rack elevation and the fleet map mark it: fleetd's listed rail
// links (fleet.proto LinkHealth) that are forecast at risk or on the isolate -> treat -> return
// ladder, as the widgets' LinkMark, with the words of their tooltips (the stage, its reason, since
// when). A link only above a line, neither at risk nor on the ladder, is no mark.

#include "EntityId.h"

#include "RackElevationWidget.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>
#include <QStringList>

#include <cstdint>

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// The ladder's stage first (an isolated link stays isolated while its BER is still at risk), then
// the forecast: PROPOSED → Proposed, ISOLATING → Isolating, ..., else at_risk → AtRisk, else None.
widgets::LinkMark linkMark(const watchfloor::v1::LinkHealth& link);
// One line for a tooltip: "Rail link r05-n03-ib1 isolated since 14:05:10 UTC (32 min): isolated by
// auto: errors prove the BER over the Error line", with the forecast for a link at risk ("P(Error
// or down) 82 % in 6 h, to Error: 3.2 h (1.9–6.0)") and, once treated, by whom and when it returns.
// `nowMs`: the endpoint's fleet clock.
QString linkMarkDetail(const watchfloor::v1::LinkHealth& link, std::int64_t nowMs);

// A tray's most pressing marked link for its chip, and every marked link in the detail.
struct TrayLinkMark {
    widgets::LinkMark mark = widgets::LinkMark::None;
    QString port;    // "ib1": the chip's port, the name's last part
    QString detail;  // linkMarkDetail of each marked link, most pressing first, one per line
};
TrayLinkMark trayLinkMark(const client::FleetStore& store, client::EntityId tray);

// A rack's marked links for the fleet map: how many are at risk (or proposed) and how many out of
// service on the ladder (isolating, isolated, treated), and their names with the mark's word.
struct RackLinkMarks {
    int atRisk = 0;
    int isolated = 0;
    QStringList links;  // "r05-n03-ib1 at risk", "r06-n10-ib1 isolated", most pressing first
    // "Rail links: r05-n03-ib1 at risk · r06-n10-ib1 isolated"; "" without a marked link.
    QString note() const;
};
RackLinkMarks rackLinkMarks(const client::FleetStore& store, client::EntityId rack);

}  // namespace watchfloor::ui
