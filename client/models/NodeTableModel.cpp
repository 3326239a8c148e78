#include "NodeTableModel.h"

#include "FleetStore.h"
#include "RackTableModel.h"
#include "StateLabels.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

EntityColumn gpuAggregate(QString title, v1::Metric metric, FleetStore::Aggregate how, int decimals, QString unit) {
    return numberColumn(
        std::move(title), [metric, how](const FleetStore& s, EntityId id) { return s.gpuAggregate(id, metric, how); },
        decimals, std::move(unit));
}

std::vector<EntityColumn> nodeColumns() {
    std::vector<EntityColumn> c;
    c.push_back(textColumn(QStringLiteral("Node"), [](const FleetStore& s, EntityId id) { return s.name(id); }));
    c.push_back(textColumn(QStringLiteral("Slot"), [](const FleetStore& s, EntityId id) {
        const v1::Node* n = s.nodeInfo(id);
        return n ? QString::number(n->slot()) : QString();
    }));
    c.push_back(textColumn(QStringLiteral("State"), &describeStatus));
    EntityColumn telemetry = textColumn(QStringLiteral("Telemetry"), [](const FleetStore& s, EntityId id) {
        return describeTelemetry(s.trayTelemetry(id));
    });
    telemetry.textFreshness = [](const FleetStore& s, EntityId id) {
        return s.isTraySilent(id) ? Freshness::Silent : Freshness::Fresh;
    };
    c.push_back(std::move(telemetry));
    EntityColumn lifecycle = textColumn(QStringLiteral("Lifecycle"), [](const FleetStore& s, EntityId id) {
        return describeLifecycle(s.trayLifecycle(id));
    });
    lifecycle.tooltip = [](const FleetStore& s, EntityId id) { return lifecycleTooltip(s.trayLifecycle(id)); };
    c.push_back(std::move(lifecycle));
    c.push_back(gpuAggregate(QStringLiteral("GPU max"), v1::DCGM_FI_DEV_GPU_TEMP, FleetStore::Aggregate::Max, 0,
                             QStringLiteral("°C")));
    c.push_back(gpuAggregate(QStringLiteral("GPU power"), v1::DCGM_FI_DEV_POWER_USAGE, FleetStore::Aggregate::Sum, 0,
                             QStringLiteral("W")));
    c.push_back(gpuAggregate(QStringLiteral("GPU util"), v1::DCGM_FI_DEV_GPU_UTIL, FleetStore::Aggregate::Mean, 0,
                             QStringLiteral("%")));
    c.push_back(
        gpuAggregate(QStringLiteral("Last Xid"), v1::DCGM_FI_DEV_XID_ERRORS, FleetStore::Aggregate::Max, 0, {}));
    return c;
}

}  // namespace

NodeTableModel::NodeTableModel(const FleetStore& store, QObject* parent)
    : EntityTableModel(store, nodeColumns(), parent) {}

void NodeTableModel::setRack(EntityId rack) {
    m_rack = rack;
    m_rackName = m_store.name(rack);
    resetRows();
}

std::vector<EntityId> NodeTableModel::currentRows() const {
    std::vector<EntityId> rows;
    if (const v1::Rack* rack = m_store.rackInfo(m_rack)) {
        for (std::uint32_t n : rack->node_indexes()) rows.push_back(EntityId{m_rack.endpoint, n});
    }
    return rows;
}

void NodeTableModel::onStoreChanged(const FleetChangeSet& changes) {
    if (changes.topologyChanged) {
        // Indexes are stable across a restart of the same fleet; the name is the fallback.
        if (!m_store.rackInfo(m_rack)) {
            m_rack = m_store.findByName(m_rackName);
        }
        if (m_rack.isValid()) {
            m_rackName = m_store.name(m_rack);
        }
        resetRows();
        return;
    }
    const int rackRow = m_store.rackRow(m_rack);
    const bool dirty = changes.freshnessTick || changes.telemetryChanged || !changes.endpointsChanged.isEmpty() ||
                       std::binary_search(changes.dirtyRackRows.begin(), changes.dirtyRackRows.end(), rackRow);
    if (dirty) {
        allRowsChanged();
    }
}

}  // namespace watchfloor::client
