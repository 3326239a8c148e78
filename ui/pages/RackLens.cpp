#include "RackLens.h"

#include "FleetFormat.h"
#include "LinkMarks.h"

#include "StateLabels.h"

#include "FleetStore.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using widgets::Lens;

QStringList lensKeys() {
    static const QStringList keys{
        QStringLiteral("health"),       QStringLiteral("gpu-temp"), QStringLiteral("power"),
        QStringLiteral("coolant-flow"), QStringLiteral("delta-t"),  QStringLiteral("link-errors"),
        QStringLiteral("job"),          QStringLiteral("goodput"),  QStringLiteral("lifecycle")};
    return keys;
}

Lens lensFromKey(const QString& key) {
    static const QHash<QString, Lens> lenses{{QStringLiteral("health"), Lens::Health},
                                             {QStringLiteral("gpu-temp"), Lens::GpuTemperature},
                                             {QStringLiteral("power"), Lens::Power},
                                             {QStringLiteral("coolant-flow"), Lens::CoolantFlow},
                                             {QStringLiteral("delta-t"), Lens::CoolantDeltaT},
                                             {QStringLiteral("link-errors"), Lens::LinkErrors},
                                             {QStringLiteral("job"), Lens::Job},
                                             {QStringLiteral("goodput"), Lens::Goodput},
                                             {QStringLiteral("lifecycle"), Lens::Lifecycle}};
    return lenses.value(key, Lens::Health);
}

std::vector<int> recentAlertsPerRack(const client::FleetStore& store, std::chrono::milliseconds window) {
    std::vector<int> counts(std::size_t(store.rackCount()), 0);
    std::int64_t newestMs = 0;
    for (int i = 0; i < store.endpointCount(); ++i)
        newestMs = std::max(newestMs, store.endpointFleet(i).serverTimeUnixMs());
    for (quint64 serial = store.nextEventSerial(); serial-- > store.firstEventSerial();) {
        const client::StoredEvent* stored = store.eventBySerial(serial);
        if (!stored) continue;
        if (stored->event.time_unix_ms() < newestMs - window.count()) break;
        if (stored->event.severity() < v1::SEVERITY_WARNING) continue;
        const int rackRow = store.rackRow(store.rackOf(store.eventEntity(*stored)));
        if (rackRow >= 0) ++counts[std::size_t(rackRow)];
    }
    return counts;
}

namespace {

widgets::Reading withFreshness(float value, client::Freshness freshness) {
    client::Reading r;
    r.value = value;
    r.freshness = freshness;
    return toWidgetReading(r);
}

std::optional<widgets::HealthCategory> rackHealth(const client::RackRollup& rack) {
    using widgets::HealthCategory;
    const client::EntityStatus& status = rack.status;
    std::optional<HealthCategory> category;
    if (status.rackState == v1::RACK_STATE_ISOLATED)
        category = HealthCategory::Isolated;
    else if (status.health == v1::HEALTH_STATE_FAILED)
        category = HealthCategory::Failed;
    else if (status.health == v1::HEALTH_STATE_DEGRADED || status.rackState == v1::RACK_STATE_DEGRADED)
        category = HealthCategory::Degraded;
    else if (status.health == v1::HEALTH_STATE_HEALTHY || status.rackState == v1::RACK_STATE_IN_SERVICE)
        category = HealthCategory::Healthy;
    // A rack whose own state says healthy but has GPUs down or degraded is not healthy.
    if (category == HealthCategory::Healthy && ((rack.gpusDown.hasValue() && rack.gpusDown.value > 0) ||
                                                (rack.gpusDegraded.hasValue() && rack.gpusDegraded.value > 0)))
        category = HealthCategory::Degraded;
    return category;
}

}  // namespace

widgets::Reading rackLensReading(const client::FleetStore& store, const client::RackRollup& rack, Lens lens) {
    switch (lens) {
    case Lens::Health: {
        const std::optional<widgets::HealthCategory> category = rackHealth(rack);
        return category ? withFreshness(float(int(*category)), rack.stateFreshness) : widgets::Reading::missing();
    }
    case Lens::GpuTemperature: return toWidgetReading(rack.gpuTempMax);
    case Lens::Power: return toWidgetReading(rack.power);
    case Lens::CoolantFlow: return toWidgetReading(rack.coolantFlow);
    case Lens::CoolantDeltaT: return toWidgetReading(rack.coolantDeltaT);
    case Lens::LinkErrors: return toWidgetReading(rack.linkErrors);
    case Lens::Lifecycle: return withFreshness(float(int(rackLifecycle(store, rack.rack))), rack.stateFreshness);
    // Category 0 is "idle"; job rows start at 1.
    case Lens::Job: return withFreshness(float(rack.jobRow + 1), rack.stateFreshness);
    case Lens::Goodput: return toWidgetReading(rack.jobGoodput);
    }
    return widgets::Reading::missing();
}

namespace {

// The rack's active maintenance window (its events raise no incident), for the map's hatch and tooltip.
void describeMaintenance(const client::FleetStore& store, client::EntityId rack, widgets::RackStatus* status) {
    const client::EndpointFleet& fleet = store.endpointFleet(rack.endpoint);
    if (const v1::MaintenanceWindow* window = fleet.rackMaintenance(rack.index)) {
        status->maintenance = true;
        status->maintenanceNote =
            QStringLiteral("Maintenance (%1 %2) until %3 UTC, owner %4: %5 — its events raise no incident")
                .arg(window->scope() == v1::MAINTENANCE_SCOPE_RACK  ? QStringLiteral("rack")
                     : window->scope() == v1::MAINTENANCE_SCOPE_ROW ? QStringLiteral("row")
                                                                    : QStringLiteral("hall"),
                     QString::fromStdString(window->scope_name()), formatUnixMs(window->end_unix_ms()),
                     QString::fromStdString(window->owner()), QString::fromStdString(window->reason()));
    } else if (const int trays = fleet.nodesInMaintenance(rack.index); trays > 0) {
        status->traysInMaintenance = trays;
        status->maintenanceNote = QStringLiteral("%1 tray%2 in maintenance").arg(trays).arg(trays == 1 ? "" : "s");
    }
}

}  // namespace

std::vector<widgets::RackStatus> rackStatuses(const client::FleetStore& store,
                                              const std::vector<client::RackRollup>& racks, Lens lens,
                                              const std::vector<int>& alerts) {
    std::vector<widgets::RackStatus> statuses(racks.size());
    for (std::size_t i = 0; i < racks.size(); ++i) {
        const client::RackRollup& rack = racks[i];
        widgets::RackStatus& s = statuses[i];
        s.value = rackLensReading(store, rack, lens);
        s.alertCount = rack.row >= 0 && rack.row < int(alerts.size()) ? alerts[std::size_t(rack.row)] : 0;
        s.isolated = rack.status.rackState == v1::RACK_STATE_ISOLATED;
        s.silentTrays = rack.silentTrays;
        describeMaintenance(store, rack.rack, &s);
        const RackLinkMarks links = rackLinkMarks(store, rack.rack);
        s.linksAtRisk = links.atRisk;
        s.linksIsolated = links.isolated;
        s.linkNote = links.note();
    }
    return statuses;
}

QString rackTooltip(const client::FleetStore& store, int rackRow, const client::RackJobs& jobs) {
    const client::EntityId rack = store.rackAt(rackRow);
    const v1::Rack* info = store.rackInfo(rack);
    const client::EntityStatus status = store.status(rack);
    auto reading = [&](v1::Metric m, const char* unit, int decimals) {
        return formatReading(store.rackReading(rackRow, m), QString::fromUtf8(unit), decimals);
    };
    auto count = [&](v1::Metric m) { return formatReading(store.rackReading(rackRow, m), {}, 0); };
    QString text = QStringLiteral("<b>%1</b> — %2 · hall %3 · row %4<br>State: %5 (%6)")
                       .arg(store.name(rack), store.regionNameOfRack(rackRow),
                            info ? QString::fromStdString(info->hall()) : QString(),
                            info ? QString::number(info->row()) : QString(), rackStateLabel(status.rackState),
                            healthLabel(status.health));
    const QString reason = store.statusReason(rack);
    if (!reason.isEmpty()) text += QStringLiteral("<br><i>%1</i>").arg(reason.toHtmlEscaped());
    text += QStringLiteral("<br>GPUs healthy / degraded / down: %1 / %2 / %3")
                .arg(count(v1::RACK_GPUS_HEALTHY), count(v1::RACK_GPUS_DEGRADED), count(v1::RACK_GPUS_DOWN));
    text += QStringLiteral("<br>Hottest GPU: %1 · mean %2")
                .arg(reading(v1::RACK_GPU_TEMP_MAX_C, "°C", 1), reading(v1::RACK_GPU_TEMP_MEAN_C, "°C", 1));
    text += QStringLiteral("<br>Power: %1 of %2 kW design")
                .arg(reading(v1::RACK_POWER_KW, "kW", 1))
                .arg(info ? info->design_power_kw() : std::nan(""), 0, 'f', 0);
    text +=
        QStringLiteral("<br>Coolant: %1 · supply %2 · return %3")
            .arg(reading(v1::RACK_LIQUID_FLOW_LPM, "L/min", 0), reading(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, "°C", 1),
                 reading(v1::RACK_LIQUID_RETURN_TEMPERATURE_C, "°C", 1));
    text += QStringLiteral("<br>Link errors: %1").arg(reading(v1::RACK_LINK_ERRORS_PER_MIN, "/min", 0));
    if (const int silent = store.silentTraysInRack(rack); silent > 0 && info)
        text += QStringLiteral("<br><b>Telemetry silent on %1 of %2 trays</b>: their values are the last read")
                    .arg(silent)
                    .arg(info->node_indexes_size());
    widgets::RackStatus maintenance;
    describeMaintenance(store, rack, &maintenance);
    if (!maintenance.maintenanceNote.isEmpty())
        text += QStringLiteral("<br><b>%1</b>").arg(maintenance.maintenanceNote.toHtmlEscaped());
    if (const QString links = rackLinkMarks(store, rack).note(); !links.isEmpty())
        text += QStringLiteral("<br><b>%1</b>").arg(links.toHtmlEscaped());
    const int job = jobs.jobRowOfRack(rackRow);
    if (job >= 0 && job < jobs.jobNames().size())
        text += QStringLiteral("<br>Job: %1").arg(jobs.jobNames()[job].toHtmlEscaped());
    text += trayLifecycleLines(store, rack);
    return text;
}

widgets::LifecycleCategory trayLifecycleCategory(const client::TrayLifecycleStatus* tray) {
    using widgets::LifecycleCategory;
    if (!tray) return LifecycleCategory::Production;
    if (tray->state == v1::TRAY_LIFECYCLE_TRIAGE || tray->state == v1::TRAY_LIFECYCLE_RMA)
        return LifecycleCategory::TriageOrRma;
    if (tray->lemon || tray->proposed != v1::TRAY_LIFECYCLE_UNSPECIFIED) return LifecycleCategory::LemonOrProposed;
    if (tray->state == v1::TRAY_LIFECYCLE_BURN_IN || tray->state == v1::TRAY_LIFECYCLE_MAINTENANCE)
        return LifecycleCategory::Planned;
    return LifecycleCategory::Production;
}

widgets::LifecycleCategory rackLifecycle(const client::FleetStore& store, client::EntityId rack) {
    widgets::LifecycleCategory worst = widgets::LifecycleCategory::Production;
    if (const v1::Rack* info = store.rackInfo(rack))
        for (std::uint32_t node : info->node_indexes())
            worst = std::max(worst, trayLifecycleCategory(store.trayLifecycle(client::EntityId{rack.endpoint, node})));
    return worst;
}

QString trayLifecycleLines(const client::FleetStore& store, client::EntityId rack) {
    constexpr int kShown = 6;  // a tooltip, not a report: the rack page lists them all
    const v1::Rack* info = store.rackInfo(rack);
    if (!info) return {};
    QString lines;
    int listed = 0, more = 0;
    for (std::uint32_t node : info->node_indexes()) {
        const client::EntityId tray{rack.endpoint, node};
        const client::TrayLifecycleStatus* lifecycle = store.trayLifecycle(tray);
        if (trayLifecycleCategory(lifecycle) == widgets::LifecycleCategory::Production) continue;
        if (listed++ >= kShown) {
            ++more;
            continue;
        }
        lines +=
            QStringLiteral("<br>%1: %2").arg(store.name(tray), client::describeLifecycle(lifecycle).toHtmlEscaped());
    }
    if (more > 0) lines += QStringLiteral("<br>… and %1 more (rack page)").arg(more);
    return lines.isEmpty() ? lines : QStringLiteral("<br><b>Lifecycle</b>") + lines;
}

}  // namespace watchfloor::ui
