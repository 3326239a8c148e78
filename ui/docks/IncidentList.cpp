#include "IncidentList.h"

#include "FleetStore.h"

#include <QStringList>

#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

bool isOpen(const v1::Incident& incident) { return incident.state() != v1::INCIDENT_STATE_RESOLVED; }

std::vector<IncidentRef> incidentsInDockOrder(const client::FleetStore& store) {
    std::vector<IncidentRef> rows;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint)
        for (const auto& [id, incident] : store.endpointFleet(endpoint).incidents())
            rows.push_back({endpoint, &incident});
    std::sort(rows.begin(), rows.end(), [](const IncidentRef& a, const IncidentRef& b) {
        const bool aOpen = isOpen(*a.incident);
        const bool bOpen = isOpen(*b.incident);
        if (aOpen != bOpen) return aOpen;
        if (aOpen && a.incident->severity() != b.incident->severity())
            return a.incident->severity() > b.incident->severity();
        const auto aTime = aOpen ? a.incident->started_unix_ms() : a.incident->resolved_unix_ms();
        const auto bTime = bOpen ? b.incident->started_unix_ms() : b.incident->resolved_unix_ms();
        return aTime != bTime ? aTime > bTime : a.endpoint < b.endpoint;
    });
    return rows;
}

const v1::Incident* findIncident(const client::FleetStore& store, int endpoint, std::uint64_t id) {
    if (endpoint < 0 || endpoint >= store.endpointCount()) return nullptr;
    const auto& incidents = store.endpointFleet(endpoint).incidents();
    const auto found = incidents.find(id);
    return found == incidents.end() ? nullptr : &found->second;
}

QString incidentKey(const client::FleetStore& store, int endpoint, std::uint64_t id) {
    return store.endpointCount() < 2 ? QString::number(id)
                                     : QStringLiteral("%1/%2").arg(store.endpointDisplayName(endpoint)).arg(id);
}

std::optional<std::pair<int, std::uint64_t>> parseIncidentKey(const client::FleetStore& store, const QString& key) {
    const qsizetype slash = key.lastIndexOf(QLatin1Char('/'));
    bool ok = false;
    const std::uint64_t id = key.mid(slash + 1).trimmed().toULongLong(&ok);
    if (!ok) return std::nullopt;
    if (slash < 0) return store.endpointCount() > 0 ? std::optional{std::pair{0, id}} : std::nullopt;
    const QString endpoint = key.left(slash);
    for (int i = 0; i < store.endpointCount(); ++i)
        if (store.endpointDisplayName(i).compare(endpoint, Qt::CaseInsensitive) == 0 ||
            store.endpointLabel(i).compare(endpoint, Qt::CaseInsensitive) == 0)
            return std::pair{i, id};
    return std::nullopt;
}

QString incidentScope(const v1::BlastRadius& b) {
    QStringList parts;
    auto count = [&](std::uint32_t n, const char* one) {
        if (n) parts << QStringLiteral("%1 %2%3").arg(n).arg(QLatin1String(one)).arg(n == 1 ? "" : "s");
    };
    count(b.racks(), "rack");
    count(b.trays(), "tray");
    count(b.gpus(), "GPU");
    count(b.jobs(), "job");
    return parts.isEmpty() ? QStringLiteral("no trays") : parts.join(QStringLiteral(", "));
}

QString lifecycleWords(const v1::Incident& incident) {
    const QString owner = QString::fromStdString(incident.owner());
    switch (incident.state()) {
    case v1::INCIDENT_STATE_ACKNOWLEDGED: return QStringLiteral("acknowledged by %1").arg(owner);
    case v1::INCIDENT_STATE_MITIGATED:
        return owner.isEmpty() ? QStringLiteral("mitigated") : QStringLiteral("mitigated (%1)").arg(owner);
    case v1::INCIDENT_STATE_RESOLVED:
        return incident.resolved_by().empty()
                   ? QStringLiteral("lasted")
                   : QStringLiteral("resolved by %1, lasted").arg(QString::fromStdString(incident.resolved_by()));
    default: return QStringLiteral("open");
    }
}

QString stateWord(v1::IncidentState state) {
    QString word = QString::fromStdString(v1::IncidentState_Name(state));
    word.remove(QStringLiteral("INCIDENT_STATE_"));
    return word.toLower();
}

std::int64_t incidentAgeMs(const client::FleetStore& store, int endpoint, const v1::Incident& incident) {
    const std::int64_t end =
        isOpen(incident) ? store.endpointFleet(endpoint).serverTimeUnixMs() : incident.resolved_unix_ms();
    return std::max<std::int64_t>(0, end - incident.started_unix_ms());
}

}  // namespace watchfloor::ui
