#include "client/models/StateLabels.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString healthLabel(v1::HealthState health)
{
    switch (health) {
    case v1::HEALTH_STATE_HEALTHY: return QStringLiteral("healthy");
    case v1::HEALTH_STATE_DEGRADED: return QStringLiteral("degraded");
    case v1::HEALTH_STATE_FAILED: return QStringLiteral("failed");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString nodeStateLabel(v1::NodeState state)
{
    switch (state) {
    case v1::NODE_STATE_IDLE: return QStringLiteral("idle");
    case v1::NODE_STATE_ALLOCATED: return QStringLiteral("allocated");
    case v1::NODE_STATE_DRAINING: return QStringLiteral("draining");
    case v1::NODE_STATE_DRAINED: return QStringLiteral("drained");
    case v1::NODE_STATE_DOWN: return QStringLiteral("down");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString rackStateLabel(v1::RackState state)
{
    switch (state) {
    case v1::RACK_STATE_IN_SERVICE: return QStringLiteral("in service");
    case v1::RACK_STATE_DEGRADED: return QStringLiteral("degraded");
    case v1::RACK_STATE_ISOLATED: return QStringLiteral("isolated");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString linkStateLabel(v1::LinkState state)
{
    switch (state) {
    case v1::LINK_STATE_UP: return QStringLiteral("up");
    case v1::LINK_STATE_DOWN: return QStringLiteral("down");
    case v1::LINK_STATE_FLAPPING: return QStringLiteral("flapping");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString telemetryStateLabel(v1::TelemetryState state) {
    switch (state) {
    case v1::TELEMETRY_STATE_LIVE: return QStringLiteral("live");
    case v1::TELEMETRY_STATE_SILENT: return QStringLiteral("silent");
    default: return QStringLiteral("not scraped yet");
    }
}

QString targetHealthLabel(v1::TargetHealth health) {
    switch (health) {
    case v1::TARGET_HEALTH_UP: return QStringLiteral("up");
    case v1::TARGET_HEALTH_DOWN: return QStringLiteral("down");
    case v1::TARGET_HEALTH_FROZEN: return QStringLiteral("frozen");
    default: return QStringLiteral("not scraped yet");
    }
}

QString describeTelemetry(const v1::TelemetryHealth* telemetry) {
    if (!telemetry) return QStringLiteral("—");
    const QString word = telemetryStateLabel(telemetry->state());
    return telemetry->reason().empty() ? word : word + QStringLiteral(": ") + QString::fromStdString(telemetry->reason());
}

}  // namespace watchfloor::client
