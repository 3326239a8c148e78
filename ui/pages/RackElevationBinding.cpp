#include "RackElevationBinding.h"

#include "ClocksEventReasons.h"
#include "FleetFormat.h"
#include "LinkMarks.h"

#include "FleetStore.h"
#include "StateLabels.h"

#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {

widgets::TrayState trayState(v1::NodeState state) {
    switch (state) {
    case v1::NODE_STATE_IDLE: return widgets::TrayState::Idle;
    case v1::NODE_STATE_ALLOCATED: return widgets::TrayState::Allocated;
    case v1::NODE_STATE_DRAINING: return widgets::TrayState::Draining;
    case v1::NODE_STATE_DRAINED: return widgets::TrayState::Drained;
    case v1::NODE_STATE_DOWN: return widgets::TrayState::Down;
    default: break;
    }
    return widgets::TrayState::Unknown;
}

widgets::Reading healthReading(v1::HealthState health) {
    switch (health) {
    case v1::HEALTH_STATE_HEALTHY: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Healthy)));
    case v1::HEALTH_STATE_DEGRADED: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Degraded)));
    case v1::HEALTH_STATE_FAILED: return widgets::Reading::fresh(float(int(widgets::HealthCategory::Failed)));
    default: break;
    }
    return widgets::Reading::missing();
}

// "dcgm-exporter down", "node_exporter frozen": what a wall reads from across the room.
QString silentInWords(const v1::TelemetryHealth& telemetry) {
    QStringList words;
    for (const v1::ScrapeTarget& t : telemetry.targets())
        if (t.health() != v1::TARGET_HEALTH_UP)
            words << QStringLiteral("%1 %2").arg(QString::fromStdString(t.exporter()),
                                                 client::targetHealthLabel(t.health()));
    return words.isEmpty() ? QString::fromStdString(telemetry.reason()) : words.join(QStringLiteral(", "));
}

}  // namespace

widgets::RackElevation rackElevation(const client::FleetStore& store, EntityId rack, v1::Metric gpuMetric) {
    widgets::RackElevation e;
    const v1::Rack* info = store.rackInfo(rack);
    if (!info) return e;
    const bool live = store.endpointState(rack.endpoint) == client::ConnectionState::Live;
    auto asWidget = [&](const client::Reading& r) {
        widgets::Reading w = toWidgetReading(r);
        if (!live && !w.isMissing() && !w.isSilent()) w.freshness = widgets::Freshness::Stale;
        return w;
    };
    auto id = [&](std::uint32_t index) { return EntityId{rack.endpoint, index}; };

    e.rackId = store.name(rack);
    e.rackLabel = e.rackId;
    const int trays = std::min(info->node_indexes_size(), widgets::RackElevation::kComputeTrays);
    for (int t = 0; t < trays; ++t) {
        const EntityId node = id(info->node_indexes(t));
        const v1::Node* nodeInfo = store.nodeInfo(node);
        widgets::ComputeTray& tray = e.compute[std::size_t(t)];
        tray.id = store.name(node);
        tray.label =
            QStringLiteral("%1 · %2").arg(nodeInfo ? nodeInfo->slot() : t + 1, 2, 10, QChar(u'0')).arg(tray.id);
        tray.state = trayState(store.status(node).nodeState);
        if (const v1::TelemetryHealth* telemetry = store.trayTelemetry(node);
            telemetry && telemetry->state() == v1::TELEMETRY_STATE_SILENT) {
            tray.silent = true;
            tray.silentReason = silentInWords(*telemetry);
            tray.silentDetail = QString::fromStdString(telemetry->reason());
        }
        // The tray's most pressing rail link, at risk or on the ladder: a chip naming the port and
        // the stage, every marked link in the tooltip.
        const TrayLinkMark link = trayLinkMark(store, node);
        tray.linkMark = link.mark;
        tray.linkPort = link.port;
        tray.linkDetail = link.detail;
        // Under a silent source even a state is the last one read (the health lens has no sample).
        auto onTray = [&](widgets::Reading r) {
            if (tray.silent && !r.isMissing()) r.freshness = widgets::Freshness::Silent;
            return r;
        };
        if (!nodeInfo) continue;
        for (int g = 0; g < std::min(nodeInfo->gpu_indexes_size(), 4); ++g) {
            const EntityId gpu = id(nodeInfo->gpu_indexes(g));
            widgets::GpuCell& cell = tray.gpus[std::size_t(g)];
            const client::EntityStatus gpuStatus = store.status(gpu);
            cell.id = store.name(gpu);
            cell.value = onTray(gpuMetric == v1::METRIC_UNSPECIFIED ? healthReading(gpuStatus.health)
                                                                    : asWidget(store.reading(gpu, gpuMetric)));
            cell.down = gpuStatus.health == v1::HEALTH_STATE_FAILED;
            const client::Reading reasons = store.reading(gpu, v1::DCGM_FI_DEV_CLOCKS_EVENT_REASONS);
            cell.throttling = reasons.hasValue() && (std::uint32_t(reasons.value) & clocks_event::kThrottling) != 0;
        }
        for (int c = 0; c < std::min(nodeInfo->cpu_indexes_size(), 2); ++c) {
            const EntityId cpu = id(nodeInfo->cpu_indexes(c));
            tray.cpus[std::size_t(c)] = gpuMetric == v1::DCGM_FI_DEV_GPU_TEMP
                                            ? onTray(asWidget(store.reading(cpu, v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS)))
                                            : widgets::Reading::missing();
        }
    }
    for (int s = 0; s < std::min(info->nvswitch_tray_indexes_size(), widgets::RackElevation::kSwitchTrays); ++s) {
        const EntityId sw = id(info->nvswitch_tray_indexes(s));
        e.switches[std::size_t(s)] = {store.name(sw), store.name(sw), healthReading(store.status(sw).health)};
    }
    for (std::uint32_t shelfIndex : info->power_shelf_indexes()) {
        const EntityId shelf = id(shelfIndex);
        e.powerShelves.push_back({store.name(shelf), store.name(shelf), widgets::Reading::missing(),
                                  healthReading(store.status(shelf).health)});
    }
    const int row = store.rackRow(rack);
    e.manifold.supply_c = asWidget(store.rackReading(row, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C));
    e.manifold.return_c = asWidget(store.rackReading(row, v1::RACK_LIQUID_RETURN_TEMPERATURE_C));
    e.manifold.flow_lpm = asWidget(store.rackReading(row, v1::RACK_LIQUID_FLOW_LPM));
    const client::Reading isolation = store.rackReading(row, v1::RACK_LIQUID_ISOLATION_STATUS);
    e.manifold.isolated = isolation.hasValue() && isolation.value > 0;
    const client::Reading leaks = store.rackReading(row, v1::RACK_LEAK_DETECT);
    e.manifold.leaksDetected = leaks.hasValue() ? int(leaks.value) : 0;
    return e;
}

}  // namespace watchfloor::ui
