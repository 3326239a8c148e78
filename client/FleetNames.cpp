#include "FleetNames.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

// "<label>/<name>" (folded): the name part, if `folded` is qualified with this label.
std::optional<std::string_view> withoutLabel(std::string_view folded, const std::string& label) {
    if (folded.size() > label.size() + 1 && folded.substr(0, label.size()) == label && folded[label.size()] == '/') {
        return folded.substr(label.size() + 1);
    }
    return std::nullopt;
}

}  // namespace

void FleetNames::addEndpoint(const QString& label) {
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->foldedLabel = NameIndex::fold(label.toStdString());
    m_endpoints.push_back(std::move(endpoint));
}

void FleetNames::setShortName(int endpoint, const QString& shortName) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    e.shortName = shortName;
    e.foldedShortName = NameIndex::fold(shortName.toStdString());
}

void FleetNames::jobsChanged(int endpoint) { m_endpoints[std::size_t(endpoint)]->jobNamesDirty = true; }

void FleetNames::allJobsChanged() {
    for (const auto& e : m_endpoints) e->jobNamesDirty = true;
}

QString FleetNames::localName(const EndpointFleets& fleets, EntityId id) {
    const EndpointFleet* fleet = fleetOf(fleets, id);
    if (!fleet) return {};
    const TopologyIndex::Entry* entry = fleet->topology().find(id.index);
    if (!entry) return {};
    if (entry->kind == v1::ENTITY_KIND_JOB) {
        return entry->slot < fleet->jobCount() ? QString::fromStdString(fleet->job(entry->slot).name()) : QString();
    }
    const std::string_view n = fleet->topology().name(id.index);
    return QString::fromUtf8(n.data(), qsizetype(n.size()));
}

QString FleetNames::name(const EndpointFleets& fleets, EntityId id) const {
    const QString raw = localName(fleets, id);
    if (raw.isEmpty() || fleets.size() < 2) return raw;
    // Names are unique within one fleetd, so only another endpoint can clash.
    if (existsElsewhere(fleets, NameIndex::fold(raw.toStdString()), id.endpoint)) {
        return m_endpoints[id.endpoint]->shortName + QLatin1Char('/') + raw;
    }
    return raw;
}

const NameIndex& FleetNames::jobNames(const EndpointFleets& fleets, int endpoint) const {
    const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    if (e.jobNamesDirty) {
        const EndpointFleet& fleet = *fleets[std::size_t(endpoint)];
        std::vector<NameIndex::Entry> entries;
        for (std::uint32_t slot = 0; slot < fleet.jobCount(); ++slot) {
            const v1::Job& job = fleet.job(slot);
            if (!job.name().empty())
                entries.push_back({NameIndex::fold(job.name()), EntityId{quint16(endpoint), job.index()}});
        }
        e.jobNames.rebuild(std::move(entries));
        e.jobNamesDirty = false;
    }
    return e.jobNames;
}

bool FleetNames::existsElsewhere(const EndpointFleets& fleets, const std::string& folded, int endpoint) const {
    for (int other = 0; other < int(fleets.size()); ++other) {
        if (other == endpoint) continue;
        if (fleets[std::size_t(other)]->names().find(folded).isValid() ||
            jobNames(fleets, other).find(folded).isValid()) {
            return true;
        }
    }
    return false;
}

EntityId FleetNames::findExact(const EndpointFleets& fleets, const std::string& folded) const {
    EntityId found;
    for (int endpoint = 0; endpoint < int(fleets.size()); ++endpoint) {
        for (const NameIndex* index : {&fleets[std::size_t(endpoint)]->names(), &jobNames(fleets, endpoint)}) {
            const EntityId id = index->find(folded);
            if (!id.isValid()) continue;
            if (found.isValid()) return {};  // on several endpoints: ambiguous until qualified
            found = id;
        }
    }
    return found;
}

EntityId FleetNames::find(const EndpointFleets& fleets, const QString& name) const {
    const std::string folded = NameIndex::fold(name.toStdString());
    if (const EntityId id = findExact(fleets, folded); id.isValid()) return id;
    // "<endpoint name>/<name>", the form name() shows for a clashing name (or the endpoint's label).
    for (int endpoint = 0; endpoint < int(fleets.size()); ++endpoint) {
        const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
        for (const std::string* prefix : {&e.foldedShortName, &e.foldedLabel}) {
            if (const auto rest = withoutLabel(folded, *prefix)) {
                if (const EntityId id = fleets[std::size_t(endpoint)]->names().find(*rest); id.isValid()) return id;
                if (const EntityId id = jobNames(fleets, endpoint).find(*rest); id.isValid()) return id;
            }
        }
    }
    return {};
}

QList<EntityId> FleetNames::search(const EndpointFleets& fleets, const QString& query, int limit) const {
    const std::string folded = NameIndex::fold(query.toStdString());
    const std::size_t wanted = std::size_t(std::max(limit, 0));
    std::vector<NameIndex::Hit> hits;
    for (int endpoint = 0; endpoint < int(fleets.size()); ++endpoint) {
        const NameIndex& names = fleets[std::size_t(endpoint)]->names();
        const NameIndex& jobs = jobNames(fleets, endpoint);
        names.collect(folded, wanted, hits);
        jobs.collect(folded, wanted, hits);
        const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
        for (const std::string* prefix : {&e.foldedShortName, &e.foldedLabel}) {
            if (const auto rest = withoutLabel(folded, *prefix)) {
                names.collect(*rest, wanted, hits);
                jobs.collect(*rest, wanted, hits);
                break;
            }
        }
    }
    std::sort(hits.begin(), hits.end(), NameIndex::better);
    QList<EntityId> out;
    std::unordered_set<std::uint64_t> seen;
    for (const NameIndex::Hit& hit : hits) {
        if (out.size() >= qsizetype(wanted)) break;
        if (seen.insert(hit.id.key()).second) out.append(hit.id);
    }
    return out;
}

}  // namespace watchfloor::client
