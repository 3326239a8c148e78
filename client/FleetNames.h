#pragma once
// Names across the endpoints of a merged fleet. Each endpoint's topology names are indexed with its
// snapshot (EndpointFleet::names()); its job names (a few hundred, appearing one by one) are indexed
// here, lazily, after its jobs changed. Names are unique within one fleetd, so a name is qualified as
// "<short name>/<name>" only when another endpoint has it too, found per lookup: no index is rebuilt
// on the GUI thread when a job appears. Lookups accept both the short name and the label given.

#include "EndpointFleet.h"
#include "EntityId.h"
#include "NameIndex.h"

#include <QList>
#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace watchfloor::client {

class FleetNames {
public:
    // A new endpoint at the end of the fleets; `label` as given (its short name comes later).
    void addEndpoint(const QString& label);
    // The endpoint's short name (EndpointNames.h), which qualifies its clashing names.
    void setShortName(int endpoint, const QString& shortName);
    const QString& shortName(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->shortName; }
    // The jobs of `endpoint` (or of every endpoint) changed: its job names are indexed again when next asked.
    void jobsChanged(int endpoint);
    void allJobsChanged();

    // The name its fleetd gives `id` (a job's name for a job), never qualified; empty if unknown.
    static QString localName(const EndpointFleets& fleets, EntityId id);
    // The name to show: qualified when another endpoint has the same name.
    QString name(const EndpointFleets& fleets, EntityId id) const;
    // Exact, case-insensitive, short or qualified; invalid if unknown or on several endpoints unqualified.
    EntityId find(const EndpointFleets& fleets, const QString& name) const;
    // The Ctrl+K search over every endpoint (NameIndex ranking), at most `limit` entities.
    QList<EntityId> search(const EndpointFleets& fleets, const QString& query, int limit) const;

private:
    struct Endpoint {
        std::string foldedLabel;
        QString shortName;
        std::string foldedShortName;
        mutable NameIndex jobNames;
        mutable bool jobNamesDirty = true;
    };
    const NameIndex& jobNames(const EndpointFleets& fleets, int endpoint) const;
    bool existsElsewhere(const EndpointFleets& fleets, const std::string& folded, int endpoint) const;
    EntityId findExact(const EndpointFleets& fleets, const std::string& folded) const;

    std::vector<std::unique_ptr<Endpoint>> m_endpoints;
};

}  // namespace watchfloor::client
