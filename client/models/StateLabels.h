#pragma once
// The operator's words for entity states, shared by the item models and the pages.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

namespace watchfloor::client {

struct TrayLifecycleStatus;

QString healthLabel(watchfloor::v1::HealthState health);            // "healthy", "degraded", "failed", "unknown"
QString nodeStateLabel(watchfloor::v1::NodeState state);            // Slurm words: "idle", "draining", ...
QString rackStateLabel(watchfloor::v1::RackState state);            // "in service", "degraded", "isolated"
QString linkStateLabel(watchfloor::v1::LinkState state);            // "up", "down", "flapping"
QString telemetryStateLabel(watchfloor::v1::TelemetryState state);  // "live", "silent", "not scraped yet"
QString targetHealthLabel(watchfloor::v1::TargetHealth health);     // "up", "down", "frozen", "not scraped yet"
// A scraped tray's telemetry in one line: "live", "silent: dcgm-exporter: connection refused";
// "—" when the tray is not scraped (null).
QString describeTelemetry(const watchfloor::v1::TelemetryHealth* telemetry);
// "production", "triage", "burn-in", "RMA", "maintenance" (UNSPECIFIED: production, never set).
QString lifecycleLabel(watchfloor::v1::TrayLifecycle state);
// A tray's lifecycle in one line: "triage (alice)", "production · lemon: 3 failures · triage
// proposed"; "production" for null (nothing set, flagged or proposed).
QString describeLifecycle(const TrayLifecycleStatus* lifecycle);
// The whole story, one fact a line: who set the state and why, the failures in the lemon window,
// automation's proposal and its reason.
QString lifecycleTooltip(const TrayLifecycleStatus* lifecycle);

}  // namespace watchfloor::client
