#include "RackLens.h"

#include "FleetFormat.h"

#include "StateLabels.h"

#include "FleetStore.h"

#include <QMap>

#include <algorithm>
#include <cmath>

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

void RackJobs::rebuild(const client::FleetStore& store) {
    m_jobRowByRack.assign(std::size_t(store.rackCount()), -1);
    m_jobNames.clear();
    std::vector<QMap<int, int>> traysPerJob(std::size_t(store.rackCount()));
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        m_jobNames << (job ? QString::fromStdString(job->name()) : QString());
        if (!job || job->state() == v1::JOB_STATE_FINISHED || job->state() == v1::JOB_STATE_PENDING) continue;
        const client::EntityId jobId = store.jobAt(row);
        for (std::uint32_t node : job->node_indexes()) {
            const int rackRow = store.rackRow(store.rackOf(client::EntityId{jobId.endpoint, node}));
            if (rackRow >= 0) ++traysPerJob[std::size_t(rackRow)][row];
        }
    }
    for (std::size_t rack = 0; rack < traysPerJob.size(); ++rack) {
        int best = -1, bestTrays = 0;
        for (auto it = traysPerJob[rack].cbegin(); it != traysPerJob[rack].cend(); ++it) {
            if (it.value() > bestTrays) {
                best = it.key();
                bestTrays = it.value();
            }
        }
        m_jobRowByRack[rack] = best;
    }
}

QList<int> RackJobs::jobRowsOnRack(const client::FleetStore& store, int rackRow) const {
    QList<int> rows;
    const client::EntityId rack = store.rackAt(rackRow);
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || store.jobAt(row).endpoint != rack.endpoint) continue;
        for (std::uint32_t node : job->node_indexes()) {
            if (store.rackOf(client::EntityId{rack.endpoint, node}) == rack) {
                rows << row;
                break;
            }
        }
    }
    return rows;
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

widgets::Reading fromClient(const client::FleetStore& store, const client::Reading& reading, int endpoint) {
    widgets::Reading r = toWidgetReading(reading);
    // Not Live makes a value stale; a silent one stays silent (the more precise word).
    if (!r.isMissing() && !r.isSilent() && store.endpointState(endpoint) != client::ConnectionState::Live)
        r.freshness = widgets::Freshness::Stale;
    return r;
}

widgets::Reading rackHealth(const client::FleetStore& store, int rackRow) {
    const client::EntityId rack = store.rackAt(rackRow);
    const client::EntityStatus status = store.status(rack);
    using widgets::HealthCategory;
    std::optional<HealthCategory> category;
    if (status.rackState == v1::RACK_STATE_ISOLATED)
        category = HealthCategory::Isolated;
    else if (status.health == v1::HEALTH_STATE_FAILED)
        category = HealthCategory::Failed;
    else if (status.health == v1::HEALTH_STATE_DEGRADED || status.rackState == v1::RACK_STATE_DEGRADED)
        category = HealthCategory::Degraded;
    else if (status.health == v1::HEALTH_STATE_HEALTHY || status.rackState == v1::RACK_STATE_IN_SERVICE)
        category = HealthCategory::Healthy;
    if (!category) return widgets::Reading::missing();
    // A rack whose own state says healthy but has GPUs down or degraded is not healthy.
    if (*category == HealthCategory::Healthy) {
        const client::Reading down = store.rackReading(rackRow, v1::RACK_GPUS_DOWN);
        const client::Reading degraded = store.rackReading(rackRow, v1::RACK_GPUS_DEGRADED);
        if ((down.hasValue() && down.value > 0) || (degraded.hasValue() && degraded.value > 0))
            category = HealthCategory::Degraded;
    }
    const bool live = store.endpointState(rack.endpoint) == client::ConnectionState::Live;
    return live ? widgets::Reading::fresh(float(int(*category))) : widgets::Reading::stale(float(int(*category)));
}

}  // namespace

widgets::Reading rackLensReading(const client::FleetStore& store, int rackRow, Lens lens, const RackJobs& jobs) {
    const int endpoint = store.rackAt(rackRow).endpoint;
    auto metric = [&](v1::Metric m) { return fromClient(store, store.rackReading(rackRow, m), endpoint); };
    switch (lens) {
    case Lens::Health: return rackHealth(store, rackRow);
    case Lens::GpuTemperature: return metric(v1::RACK_GPU_TEMP_MAX_C);
    case Lens::Power: return metric(v1::RACK_POWER_KW);
    case Lens::CoolantFlow: return metric(v1::RACK_LIQUID_FLOW_LPM);
    case Lens::CoolantDeltaT: {
        const widgets::Reading supply = metric(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
        const widgets::Reading ret = metric(v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
        if (supply.isMissing() || ret.isMissing()) return widgets::Reading::missing();
        const float delta = ret.value - supply.value;
        return supply.isStale() || ret.isStale() ? widgets::Reading::stale(delta) : widgets::Reading::fresh(delta);
    }
    case Lens::LinkErrors: return metric(v1::RACK_LINK_ERRORS_PER_MIN);
    case Lens::Lifecycle: {
        const bool live = store.endpointState(endpoint) == client::ConnectionState::Live;
        const float worst = float(int(rackLifecycle(store, store.rackAt(rackRow))));
        return live ? widgets::Reading::fresh(worst) : widgets::Reading::stale(worst);
    }
    case Lens::Job: {
        const int job = jobs.jobRowOfRack(rackRow);
        // Category 0 is "idle"; job rows start at 1.
        return widgets::Reading::fresh(float(job + 1));
    }
    case Lens::Goodput: {
        const int jobRow = jobs.jobRowOfRack(rackRow);
        const v1::Job* job = jobRow >= 0 ? store.job(jobRow) : nullptr;
        if (!job) return widgets::Reading::missing();
        const widgets::Reading sampled =
            fromClient(store, store.reading(store.jobAt(jobRow), v1::JOB_GOODPUT_RATIO), endpoint);
        if (!sampled.isMissing()) return sampled;
        // No JOB_GOODPUT_RATIO samples: the Job message itself carries the ratio.
        const bool live = store.endpointState(endpoint) == client::ConnectionState::Live;
        const float ratio = float(job->goodput_ratio());
        return live ? widgets::Reading::fresh(ratio) : widgets::Reading::stale(ratio);
    }
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

std::vector<widgets::RackStatus> rackStatuses(const client::FleetStore& store, Lens lens, const RackJobs& jobs,
                                              const std::vector<int>& alerts) {
    std::vector<widgets::RackStatus> statuses(std::size_t(store.rackCount()));
    for (int row = 0; row < store.rackCount(); ++row) {
        widgets::RackStatus& s = statuses[std::size_t(row)];
        s.value = rackLensReading(store, row, lens, jobs);
        s.alertCount = row < int(alerts.size()) ? alerts[std::size_t(row)] : 0;
        s.isolated = store.status(store.rackAt(row)).rackState == v1::RACK_STATE_ISOLATED;
        s.silentTrays = store.silentTraysInRack(store.rackAt(row));
        describeMaintenance(store, store.rackAt(row), &s);
        // Every tray silent: whatever the rack's last state or value said, nobody knows it now.
        if (const v1::Rack* info = store.rackInfo(store.rackAt(row));
            info && s.silentTrays > 0 && s.silentTrays >= info->node_indexes_size() && !s.value.isMissing())
            s.value.freshness = widgets::Freshness::Silent;
    }
    return statuses;
}

QString rackTooltip(const client::FleetStore& store, int rackRow, const RackJobs& jobs) {
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
