#include "FleetFormat.h"

#include "FleetGoodputMerge.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "Theme.h"

#include <QDateTime>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

widgets::Reading toWidgetReading(const client::Reading& reading) {
    switch (reading.freshness) {
    case client::Freshness::Fresh: return widgets::Reading::fresh(reading.value);
    case client::Freshness::Stale: return widgets::Reading::stale(reading.value);
    case client::Freshness::Silent: return widgets::Reading::silent(reading.value);
    case client::Freshness::Missing:
    case client::Freshness::Blank: break;
    }
    return widgets::Reading::missing();
}

QString goodputCoverage(const client::FleetSummary& fleet) {
    if (fleet.jobsInGoodput >= fleet.jobsActive) return {};
    if (fleet.jobsInGoodput == 0) return QStringLiteral("no job publishes step telemetry");
    return QStringLiteral("over %1 of %2 jobs").arg(fleet.jobsInGoodput).arg(fleet.jobsActive);
}

QString formatFleetRatio(const client::FleetSummary& fleet, double ratio) {
    if (std::isnan(ratio) && fleet.starting()) return client::startingLabel();
    return formatRatioPercent(ratio);
}

QString formatJobGoodput(const v1::Job& job) {
    if (job.no_step_telemetry()) return client::noStepTelemetryLabel();
    return client::jobIsStarting(job) ? client::startingLabel() : formatRatioPercent(job.goodput_ratio());
}

QString endpointsLiveNote(const client::FleetSummary& fleet) {
    if (fleet.allLive()) return {};
    return QStringLiteral("%1 of %2 endpoints live").arg(fleet.endpointsLive).arg(fleet.endpointsTotal);
}

QString staleCountNote(quint32 stale) { return stale == 0 ? QString() : QStringLiteral("%1 of them stale").arg(stale); }

QString staleRatioNote(const client::FleetSummary& fleet) {
    if (fleet.ratioWeightStale <= 0 || std::isnan(fleet.goodputRatio)) return {};
    return QStringLiteral("%1 % of it stale").arg(std::round(100.0 * fleet.ratioWeightStale));
}

QString eventGlyph(v1::EventType type) {
    return type == v1::EVENT_TYPE_SOURCE ? QStringLiteral("⛁") : QStringLiteral("●");
}

QString formatUnixMs(std::int64_t unixMs, bool withDate) {
    if (unixMs <= 0) return QStringLiteral("—");
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(unixMs, Qt::UTC);
    return t.toString(withDate ? QStringLiteral("yyyy-MM-dd HH:mm:ss") : QStringLiteral("HH:mm:ss"));
}

QString kindLabel(v1::EntityKind kind) {
    switch (kind) {
    case v1::ENTITY_KIND_FLEET: return QStringLiteral("Fleet");
    case v1::ENTITY_KIND_REGION: return QStringLiteral("Region");
    case v1::ENTITY_KIND_RACK: return QStringLiteral("Rack");
    case v1::ENTITY_KIND_NODE: return QStringLiteral("Node");
    case v1::ENTITY_KIND_GPU: return QStringLiteral("GPU");
    case v1::ENTITY_KIND_CPU: return QStringLiteral("CPU");
    case v1::ENTITY_KIND_NVSWITCH_TRAY: return QStringLiteral("NVSwitch tray");
    case v1::ENTITY_KIND_POWER_SHELF: return QStringLiteral("Power shelf");
    case v1::ENTITY_KIND_NVLINK: return QStringLiteral("NVLink");
    case v1::ENTITY_KIND_NIC_PORT: return QStringLiteral("IB port");
    case v1::ENTITY_KIND_COOLING_LOOP: return QStringLiteral("Cooling loop");
    case v1::ENTITY_KIND_JOB: return QStringLiteral("Job");
    default: break;
    }
    return QStringLiteral("Entity");
}

QString xidActionLabel(v1::XidAction action) {
    switch (action) {
    case v1::XID_ACTION_IGNORE: return QStringLiteral("No action");
    case v1::XID_ACTION_RESTART_APP: return QStringLiteral("Restart the application");
    case v1::XID_ACTION_RESET_GPU: return QStringLiteral("Reset the GPU (reboot node if it persists)");
    case v1::XID_ACTION_RESTART_BM: return QStringLiteral("Drain, then power-cycle the node");
    case v1::XID_ACTION_WORKFLOW_XID_48:
        return QStringLiteral("Reset, check SRAM threshold, field diag; RMA if persistent");
    case v1::XID_ACTION_WORKFLOW_NVLINK_ERR: return QStringLiteral("NVLink workflow: check link, reset");
    case v1::XID_ACTION_WORKFLOW_NVLINK5_ERR:
        return QStringLiteral("NVLink5 workflow: may affect the rack's NVLink domain");
    case v1::XID_ACTION_RMA: return QStringLiteral("Drain and RMA the GPU");
    case v1::XID_ACTION_CHECK_MECHANICALS: return QStringLiteral("Check seating and auxiliary power");
    case v1::XID_ACTION_CONTACT_SUPPORT: return QStringLiteral("Contact NVIDIA support");
    default: break;
    }
    return QStringLiteral("—");
}

QColor severityColor(v1::Severity severity, const widgets::Theme& theme) {
    switch (severity) {
    case v1::SEVERITY_CRITICAL: return theme.colors().crit;
    case v1::SEVERITY_WARNING: return theme.colors().warn;
    default: break;
    }
    return theme.colors().info;
}

QColor healthColor(v1::HealthState health, const widgets::Theme& theme) {
    switch (health) {
    case v1::HEALTH_STATE_HEALTHY: return theme.colors().ok;
    case v1::HEALTH_STATE_DEGRADED: return theme.colors().warn;
    case v1::HEALTH_STATE_FAILED: return theme.colors().crit;
    default: break;
    }
    return theme.colors().missing;
}

}  // namespace watchfloor::ui
