#include "StateLabels.h"

#include "EndpointFleet.h"

#include <QDateTime>
#include <QStringList>
#include <QTimeZone>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString healthLabel(v1::HealthState health) {
    switch (health) {
    case v1::HEALTH_STATE_HEALTHY: return QStringLiteral("healthy");
    case v1::HEALTH_STATE_DEGRADED: return QStringLiteral("degraded");
    case v1::HEALTH_STATE_FAILED: return QStringLiteral("failed");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString nodeStateLabel(v1::NodeState state) {
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

QString rackStateLabel(v1::RackState state) {
    switch (state) {
    case v1::RACK_STATE_IN_SERVICE: return QStringLiteral("in service");
    case v1::RACK_STATE_DEGRADED: return QStringLiteral("degraded");
    case v1::RACK_STATE_ISOLATED: return QStringLiteral("isolated");
    default: break;
    }
    return QStringLiteral("unknown");
}

QString linkStateLabel(v1::LinkState state) {
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

QString lifecycleLabel(v1::TrayLifecycle state) {
    switch (state) {
    case v1::TRAY_LIFECYCLE_TRIAGE: return QStringLiteral("triage");
    case v1::TRAY_LIFECYCLE_BURN_IN: return QStringLiteral("burn-in");
    case v1::TRAY_LIFECYCLE_RMA: return QStringLiteral("RMA");
    case v1::TRAY_LIFECYCLE_MAINTENANCE: return QStringLiteral("maintenance");
    default: return QStringLiteral("production");
    }
}

QString describeLifecycle(const TrayLifecycleStatus* lifecycle) {
    if (!lifecycle) return lifecycleLabel(v1::TRAY_LIFECYCLE_UNSPECIFIED);
    QString text = lifecycleLabel(lifecycle->state);
    if (!lifecycle->setBy.empty())
        text += QStringLiteral(" (%1)").arg(lifecycle->setBy == "auto" ? QStringLiteral("automation")
                                                                       : QString::fromStdString(lifecycle->setBy));
    if (lifecycle->lemon)
        text += QStringLiteral(" · lemon: %1 failures").arg(lifecycle->recentFailures);
    else if (lifecycle->recentFailures > 0)
        text += QStringLiteral(" · %1 recent failure(s)").arg(lifecycle->recentFailures);
    if (lifecycle->proposed != v1::TRAY_LIFECYCLE_UNSPECIFIED)
        text += QStringLiteral(" · %1 proposed").arg(lifecycleLabel(lifecycle->proposed));
    return text;
}

QString lifecycleTooltip(const TrayLifecycleStatus* lifecycle) {
    if (!lifecycle) return QStringLiteral("In production; no recent failures, nothing proposed");
    QStringList lines;
    QString state = QStringLiteral("Lifecycle: %1").arg(lifecycleLabel(lifecycle->state));
    if (!lifecycle->setBy.empty()) state += QStringLiteral(", set by %1").arg(QString::fromStdString(lifecycle->setBy));
    if (lifecycle->sinceUnixMs > 0)
        state += QStringLiteral(" at %1 UTC")
                     .arg(QDateTime::fromMSecsSinceEpoch(lifecycle->sinceUnixMs, QTimeZone::utc())
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    lines << state;
    if (!lifecycle->reason.empty()) lines << QStringLiteral("Why: %1").arg(QString::fromStdString(lifecycle->reason));
    if (lifecycle->recentFailures > 0)
        lines << QStringLiteral("%1 failure(s) in the lemon window%2")
                     .arg(lifecycle->recentFailures)
                     .arg(lifecycle->lemon ? QStringLiteral(": a lemon tray") : QString());
    if (lifecycle->proposed != v1::TRAY_LIFECYCLE_UNSPECIFIED)
        lines << QStringLiteral("Automation proposes %1: %2")
                     .arg(lifecycleLabel(lifecycle->proposed), QString::fromStdString(lifecycle->proposalReason));
    return lines.join(QLatin1Char('\n'));
}

QString describeTelemetry(const v1::TelemetryHealth* telemetry) {
    if (!telemetry) return QStringLiteral("—");
    const QString word = telemetryStateLabel(telemetry->state());
    return telemetry->reason().empty() ? word
                                       : word + QStringLiteral(": ") + QString::fromStdString(telemetry->reason());
}

}  // namespace watchfloor::client
