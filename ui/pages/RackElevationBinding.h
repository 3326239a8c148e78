#pragma once
// One rack of the store as the elevation widget draws it: every tray's Slurm state and telemetry
// (a silent tray and why), a rail link fleetd forecasts at risk or that is on the link ladder (its port and stage on a
// chip, ui/parts/LinkMarks.h), each GPU coloured by the chosen
// metric (or its health), throttling and failed GPUs marked, CPU temperatures beside the GPU temperature lens, switch
// trays and power shelves by health, the manifold. Values of an endpoint that is not Live draw stale; a silent tray's
// values draw silent.

#include "EntityId.h"

#include "RackElevationWidget.h"

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// `gpuMetric`: what colours the GPUs; METRIC_UNSPECIFIED colours them by health. An unknown rack
// gives an empty elevation.
widgets::RackElevation rackElevation(const client::FleetStore& store, client::EntityId rack,
                                     watchfloor::v1::Metric gpuMetric);

}  // namespace watchfloor::ui
