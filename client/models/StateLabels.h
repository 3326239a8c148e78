#pragma once
// The operator's words for entity states, shared by the item models and the pages.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

namespace watchfloor::client {

QString healthLabel(watchfloor::v1::HealthState health);    // "healthy", "degraded", "failed", "unknown"
QString nodeStateLabel(watchfloor::v1::NodeState state);    // Slurm words: "idle", "draining", ...
QString rackStateLabel(watchfloor::v1::RackState state);    // "in service", "degraded", "isolated"
QString linkStateLabel(watchfloor::v1::LinkState state);    // "up", "down", "flapping"

}  // namespace watchfloor::client
