#pragma once
// When a Rack page number turns warning or critical: the rack's readings against its own design
// values (fleet.proto Rack, CoolingLoop, Gpu), one pure function per headline. A reading without a
// value is Missing, never judged; a design value the topology does not give (NaN) leaves nothing
// to judge against, so the value reads Ok. Stale and silent values are judged by their last value
// (the card's text says they are not current).

#include "KpiLevel.h"

#include "Freshness.h"

namespace watchfloor::ui {

// Above the design power critical, above 95 % of it warning.
KpiLevel rackPowerLevel(const client::Reading& powerKw, double designKw);
// At the GPUs' slowdown temperature critical, within 5 °C of it warning.
KpiLevel hottestGpuLevel(const client::Reading& temperatureC, double slowdownC);
// Coolant flow below 70 % of the loop's design critical, below 90 % warning.
KpiLevel coolantFlowLevel(const client::Reading& flowLpm, double designLpm);
// Return minus supply has no threshold of its own: Neutral when both are known.
KpiLevel coolantDeltaLevel(const client::Reading& deltaC);
// 4 or more GPUs down critical (a tray's worth); any down or degraded warning. Judged on `down`.
KpiLevel gpusUpLevel(const client::Reading& down, const client::Reading& degraded);
// A wet sensor critical, a faulted one warning. Judged on `wet`.
KpiLevel leakLevel(const client::Reading& wet, const client::Reading& faulted);

}  // namespace watchfloor::ui
