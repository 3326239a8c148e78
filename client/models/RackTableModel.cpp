#include "RackTableModel.h"

#include "FleetStore.h"
#include "StateLabels.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

EntityColumn rackMetric(QString title, v1::Metric metric, int decimals, QString unit) {
    return numberColumn(
        std::move(title), [metric](const FleetStore& s, EntityId id) { return s.rackReading(s.rackRow(id), metric); },
        decimals, std::move(unit));
}

std::vector<EntityColumn> rackColumns() {
    std::vector<EntityColumn> c;
    c.push_back(textColumn(QStringLiteral("Rack"), [](const FleetStore& s, EntityId id) { return s.name(id); }));
    c.push_back(textColumn(QStringLiteral("Region"),
                           [](const FleetStore& s, EntityId id) { return s.regionNameOfRack(s.rackRow(id)); }));
    c.push_back(textColumn(QStringLiteral("State"), &describeStatus));
    c.push_back(rackMetric(QStringLiteral("GPUs healthy"), v1::RACK_GPUS_HEALTHY, 0, {}));
    c.push_back(rackMetric(QStringLiteral("GPUs degraded"), v1::RACK_GPUS_DEGRADED, 0, {}));
    c.push_back(rackMetric(QStringLiteral("GPUs down"), v1::RACK_GPUS_DOWN, 0, {}));
    c.push_back(rackMetric(QStringLiteral("GPU max"), v1::RACK_GPU_TEMP_MAX_C, 1, QStringLiteral("°C")));
    c.push_back(rackMetric(QStringLiteral("Power"), v1::RACK_POWER_KW, 1, QStringLiteral("kW")));
    c.push_back(rackMetric(QStringLiteral("Supply"), v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, 1, QStringLiteral("°C")));
    c.push_back(rackMetric(QStringLiteral("Return"), v1::RACK_LIQUID_RETURN_TEMPERATURE_C, 1, QStringLiteral("°C")));
    c.push_back(rackMetric(QStringLiteral("Flow"), v1::RACK_LIQUID_FLOW_LPM, 0, QStringLiteral("L/min")));
    c.push_back(rackMetric(QStringLiteral("Leaks"), v1::RACK_LEAK_DETECT, 0, {}));
    c.push_back(rackMetric(QStringLiteral("Link errors"), v1::RACK_LINK_ERRORS_PER_MIN, 0, QStringLiteral("/min")));
    return c;
}

QString stateWord(const EntityStatus& st, v1::EntityKind kind) {
    if (kind == v1::ENTITY_KIND_RACK && st.rackState != v1::RACK_STATE_UNSPECIFIED) return rackStateLabel(st.rackState);
    if (kind == v1::ENTITY_KIND_NODE && st.nodeState != v1::NODE_STATE_UNSPECIFIED) return nodeStateLabel(st.nodeState);
    if ((kind == v1::ENTITY_KIND_NVLINK || kind == v1::ENTITY_KIND_NIC_PORT) &&
        st.linkState != v1::LINK_STATE_UNSPECIFIED)
        return linkStateLabel(st.linkState);
    return healthLabel(st.health);
}

}  // namespace

QString describeStatus(const FleetStore& store, EntityId id) {
    const QString word = stateWord(store.status(id), store.kind(id));
    const QString reason = store.statusReason(id);
    return reason.isEmpty() ? word : word + QStringLiteral(": ") + reason;
}

RackTableModel::RackTableModel(const FleetStore& store, QObject* parent)
    : EntityTableModel(store, rackColumns(), parent) {
    resetRows();
}

std::vector<EntityId> RackTableModel::currentRows() const {
    std::vector<EntityId> rows;
    rows.reserve(std::size_t(m_store.rackCount()));
    for (int r = 0; r < m_store.rackCount(); ++r) rows.push_back(m_store.rackAt(r));
    return rows;
}

void RackTableModel::onStoreChanged(const FleetChangeSet& changes) {
    if (changes.topologyChanged) {
        resetRows();
    } else if (changes.freshnessTick || !changes.endpointsChanged.isEmpty()) {
        allRowsChanged();  // ages moved on everywhere; one signal covers the dirty rows too
    } else {
        rowsChanged(changes.dirtyRackRows);
    }
}

}  // namespace watchfloor::client
