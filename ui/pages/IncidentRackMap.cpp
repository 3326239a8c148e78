#include "IncidentRackMap.h"

#include "FleetStore.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

IncidentRackMap::IncidentRackMap(const client::FleetStore& store, QWidget* parent)
    : widgets::RackMapWidget(parent), m_store(store) {
    setObjectName(QStringLiteral("incidentRackMap"));
    setMaxTilesPerLine(12);
    setTooltipProvider([this](int tile) {
        if (tile < 0 || std::size_t(tile) >= m_touch.size()) return QString();
        const QString how = m_touch[std::size_t(tile)] == RootCause       ? QStringLiteral("root cause here")
                            : m_touch[std::size_t(tile)] == InBlastRadius ? QStringLiteral("in the blast radius")
                                                                          : QStringLiteral("not affected");
        const QStringList& trays = m_trays[std::size_t(tile)];
        return QStringLiteral("<b>%1</b>: %2%3")
            .arg(rack(tile).label, how,
                 trays.isEmpty() ? QString() : QStringLiteral("<br>Trays: %1").arg(trays.join(QStringLiteral(", "))));
    });
}

void IncidentRackMap::applyTheme(const widgets::Theme& theme) {
    setTheme(theme);
    const widgets::ThemeColors& c = theme.colors();
    setColorScale(
        widgets::ColorScale::categorical(QStringLiteral("Incident"), {{QStringLiteral("not affected"), c.panelRaised},
                                                                      {QStringLiteral("blast radius"), c.warn},
                                                                      {QStringLiteral("root cause"), c.crit}}));
}

void IncidentRackMap::setIncident(int endpoint, const v1::Incident& incident) {
    // The root cause's rack: of its entity (a loop's or a shelf's rack too), else none (a CDU, a leaf).
    const v1::ProbableCause& cause = incident.root_cause();
    const client::EntityId causeRack = cause.has_entity()
                                           ? m_store.rackOf(client::EntityId{quint16(endpoint), cause.entity_index()})
                                           : client::EntityId{};
    const auto& blast = incident.blast_radius();
    std::unordered_map<std::uint32_t, QStringList> traysByRack;
    for (std::uint32_t node : blast.node_indexes()) {
        const client::EntityId id{quint16(endpoint), node};
        traysByRack[m_store.rackOf(id).index] << m_store.localName(id);
    }
    // Only the regions it touches (all of the endpoint's when it names no rack): the tiles stay
    // large enough to carry their names in a small map.
    std::unordered_set<std::uint32_t> regions;
    auto regionOf = [&](std::uint32_t rackIndex) {
        const v1::Rack* info = m_store.rackInfo(client::EntityId{quint16(endpoint), rackIndex});
        return info ? info->region_index() : 0u;
    };
    for (std::uint32_t rack : blast.rack_indexes()) regions.insert(regionOf(rack));
    for (const auto& [rack, trays] : traysByRack) regions.insert(regionOf(rack));
    if (causeRack.isValid()) regions.insert(regionOf(causeRack.index));
    std::vector<widgets::RackPlacement> placements;
    std::vector<widgets::RackStatus> statuses;
    m_touch.clear();
    m_trays.clear();
    for (int row = 0; row < m_store.rackCount(); ++row) {
        const client::EntityId rackId = m_store.rackAt(row);
        if (rackId.endpoint != endpoint) continue;
        const v1::Rack* info = m_store.rackInfo(rackId);
        if (!regions.empty() && (!info || !regions.count(info->region_index()))) continue;
        const client::EntityId region{rackId.endpoint, info ? info->region_index() : 0u};
        placements.push_back({m_store.name(rackId), m_store.localName(rackId), m_store.localName(region),
                              info ? QStringLiteral("Hall %1").arg(QString::fromStdString(info->hall())) : QString(),
                              info ? QStringLiteral("Row %1").arg(info->row()) : QString()});
        const bool listed = std::find(blast.rack_indexes().begin(), blast.rack_indexes().end(), rackId.index) !=
                            blast.rack_indexes().end();
        const auto trays = traysByRack.find(rackId.index);
        const Touch touch = rackId == causeRack                    ? RootCause
                            : listed || trays != traysByRack.end() ? InBlastRadius
                                                                   : NotAffected;
        m_touch.push_back(touch);
        m_trays.push_back(trays == traysByRack.end() ? QStringList() : trays->second);
        widgets::RackStatus status;
        status.value = widgets::Reading::fresh(float(touch));
        status.alertCount = int(m_trays.back().size());
        statuses.push_back(status);
    }
    const QString selected = selectedRackId();
    setRacks(std::move(placements));
    setStatuses(std::move(statuses));
    if (!selected.isEmpty()) setSelectedRack(selected);
}

IncidentRackMap::Touch IncidentRackMap::touchOf(const QString& rackName) const {
    const int tile = indexOfRack(rackName);
    return tile >= 0 && std::size_t(tile) < m_touch.size() ? m_touch[std::size_t(tile)] : NotAffected;
}

int IncidentRackMap::affectedTrays(const QString& rackName) const {
    const int tile = indexOfRack(rackName);
    return tile >= 0 && std::size_t(tile) < m_trays.size() ? int(m_trays[std::size_t(tile)].size()) : 0;
}

}  // namespace watchfloor::ui
