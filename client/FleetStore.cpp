#include "client/FleetStore.h"

#include "client/EndpointConnection.h"
#include "client/FleetGoodputMerge.h"
#include "client/JobProgress.h"
#include "client/MetricCadence.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

Freshness worse(Freshness a, Freshness b) {
    auto rank = [](Freshness f) {
        switch (f) {
        case Freshness::Fresh: return 0;
        case Freshness::Stale: return 1;
        case Freshness::Silent: return 2;  // stale, and we know why: its source stopped
        case Freshness::Blank: return 3;
        case Freshness::Missing: return 4;
        }
        return 4;
    };
    return rank(a) >= rank(b) ? a : b;
}

// "<label>/<name>" (folded): the name part, if `folded` is qualified with this label.
std::optional<std::string_view> withoutLabel(std::string_view folded, const std::string& label) {
    if (folded.size() > label.size() + 1 && folded.substr(0, label.size()) == label && folded[label.size()] == '/') {
        return folded.substr(label.size() + 1);
    }
    return std::nullopt;
}

}  // namespace

FleetStore::FleetStore(QObject* parent) : FleetStore(Options{}, parent) {}

FleetStore::FleetStore(Options options, QObject* parent) : QObject(parent), m_options(options) {
    m_notifyTimer.setSingleShot(true);
    m_notifyTimer.setInterval(m_options.notifyInterval);
    connect(&m_notifyTimer, &QTimer::timeout, this, &FleetStore::flushChanges);
    m_worker.setMaxThreadCount(1);
    m_worker.setExpiryTimeout(-1);
    m_worker.setObjectName(QStringLiteral("FleetStore snapshot worker"));
}

FleetStore::~FleetStore() {
    // Tasks capture `this` to post their results; results still queued die with the object.
    m_worker.clear();
    m_worker.waitForDone();
}

// --- endpoints ---------------------------------------------------------------------------------

int FleetStore::addEndpoint(const QString& label) { return addEndpoint(label, EndpointIdentity{label, {}, {}}); }

int FleetStore::addEndpoint(const QString& label, EndpointIdentity identity) {
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->label = label;
    endpoint->foldedLabel = NameIndex::fold(label.toStdString());
    endpoint->identity = std::move(identity);
    endpoint->fleet = std::make_unique<EndpointFleet>(label, m_options.historyPoints);
    endpoint->rackRowOffset = int(m_rackRows.size());
    m_endpoints.push_back(std::move(endpoint));
    m_pending.endpointsChanged.append(int(m_endpoints.size()) - 1);
    refreshShortNames();
    scheduleNotify();
    return int(m_endpoints.size()) - 1;
}

int FleetStore::attach(EndpointConnection* connection) {
    const EndpointConfig& config = connection->config();
    const int endpoint = addEndpoint(config.displayLabel(), EndpointIdentity{config.label, config.target, {}});
    setEndpointState(endpoint, connection->state(), connection->statusText());
    connect(connection, &EndpointConnection::responsesReady, this,
            [this, connection, endpoint] { enqueue(endpoint, connection->takeResponses()); });
    connect(connection, &EndpointConnection::stateChanged, this,
            [this, endpoint](ConnectionState state, const QString& text) { setEndpointState(endpoint, state, text); });
    return endpoint;
}

void FleetStore::refreshShortNames() {
    std::vector<EndpointIdentity> identities;
    for (const auto& e : m_endpoints) identities.push_back(e->identity);
    const QStringList names = shortEndpointNames(identities);
    bool renamed = false;
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        Endpoint& e = *m_endpoints[i];
        if (e.shortName == names[qsizetype(i)]) continue;
        renamed = renamed || !e.shortName.isEmpty();
        e.shortName = names[qsizetype(i)];
        e.foldedShortName = NameIndex::fold(e.shortName.toStdString());
        if (!m_pending.endpointsChanged.contains(int(i))) m_pending.endpointsChanged.append(int(i));
    }
    if (renamed) {
        m_pending.topologyChanged = true;  // qualified names changed: maps and lists rebuild them
        scheduleNotify();
    }
}

QString FleetStore::endpointFleetName(int endpoint) const {
    const EndpointFleet& fleet = *m_endpoints[std::size_t(endpoint)]->fleet;
    return fleet.hasSnapshot() ? QString::fromStdString(fleet.topology().topology().fleet_name()) : QString();
}

QString FleetStore::endpointLabel(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->label; }
ConnectionState FleetStore::endpointState(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->state; }
QString FleetStore::endpointStatus(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->statusText; }

void FleetStore::setEndpointState(int endpoint, ConnectionState state, const QString& statusText) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    if (e.state == state && e.statusText == statusText) {
        return;
    }
    const bool freshnessChanges = (e.state == ConnectionState::Live) != (state == ConnectionState::Live);
    e.state = state;
    e.statusText = statusText;
    if (!m_pending.endpointsChanged.contains(endpoint)) {
        m_pending.endpointsChanged.append(endpoint);
    }
    m_pending.freshnessTick |= freshnessChanges;  // every value of the endpoint turns (un)stale
    scheduleNotify();
}

// --- ingest ----------------------------------------------------------------------------------------

// A snapshot built into a new EndpointFleet, ready to be swapped in.
struct FleetStore::PreparedSnapshot {
    std::unique_ptr<EndpointFleet> fleet;  // null if the snapshot was unusable (see error)
    google::protobuf::RepeatedPtrField<v1::Event> recentEvents;
    QString error;
};

void FleetStore::applyBatch(int endpoint, std::span<const v1::SubscribeResponse> messages) {
    for (const v1::SubscribeResponse& message : messages) {
        apply(endpoint, message);
    }
}

void FleetStore::applyBatch(int endpoint, std::vector<v1::SubscribeResponse>&& messages) {
    for (v1::SubscribeResponse& message : messages) {
        apply(endpoint, std::move(message));
    }
}

void FleetStore::apply(int endpoint, const v1::SubscribeResponse& message) {
    if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
        v1::Snapshot copy = message.snapshot();  // the build takes the snapshot apart
        adoptSnapshot(endpoint, buildSnapshot(endpoint, std::move(copy)));
        return;
    }
    applyUpdate(endpoint, message);
}

void FleetStore::apply(int endpoint, v1::SubscribeResponse&& message) {
    if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
        adoptSnapshot(endpoint, buildSnapshot(endpoint, std::move(*message.mutable_snapshot())));
        return;
    }
    applyUpdate(endpoint, message);
}

FleetStore::PreparedSnapshot FleetStore::buildSnapshot(const SnapshotInputs& inputs, v1::Snapshot&& snapshot) {
    PreparedSnapshot out;
    out.recentEvents.Swap(snapshot.mutable_recent_events());
    out.fleet = EndpointFleet::fromSnapshot(inputs.label, inputs.historyPoints, inputs.endpoint, std::move(snapshot),
                                            inputs.basis, &out.error);
    return out;
}

FleetStore::SnapshotInputs FleetStore::snapshotInputs(int endpoint) const {
    const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    return SnapshotInputs{e.label, m_options.historyPoints, quint16(endpoint), e.fleet->basis()};
}

FleetStore::PreparedSnapshot FleetStore::buildSnapshot(int endpoint, v1::Snapshot&& snapshot) const {
    return buildSnapshot(snapshotInputs(endpoint), std::move(snapshot));
}

void FleetStore::applyUpdate(int endpoint, const v1::SubscribeResponse& message) {
    EndpointFleet& fleet = *m_endpoints[std::size_t(endpoint)]->fleet;
    switch (message.payload_case()) {
    case v1::SubscribeResponse::kDelta:
        if (!fleet.hasSnapshot()) {
            return;  // nothing to apply it to (EndpointConnection never forwards this)
        }
        fleet.applyDelta(message.delta());
        appendEvents(endpoint, message.delta().events());
        break;
    case v1::SubscribeResponse::kHeartbeat:
        fleet.applyHeartbeat(message.heartbeat());
        break;
    case v1::SubscribeResponse::kSnapshot:  // callers route snapshots to buildSnapshot()
    case v1::SubscribeResponse::PAYLOAD_NOT_SET:
        return;
    }
    syncRowsAfterApply(endpoint);
    scheduleNotify();
}

void FleetStore::adoptSnapshot(int endpoint, PreparedSnapshot&& prepared) {
    if (!prepared.fleet) {
        m_lastError = prepared.error;
        qWarning("%s", qPrintable(prepared.error));
        return;
    }
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    prepared.fleet->continueFrom(*e.fleet);
    std::swap(e.fleet, prepared.fleet);
    disposeOnWorker(std::move(prepared.fleet));
    rebuildJobRows();  // a snapshot replaces the endpoint's jobs
    if (const QString fleetName = endpointFleetName(endpoint); fleetName != e.identity.fleetName) {
        e.identity.fleetName = fleetName;
        refreshShortNames();
    }
    appendEvents(endpoint, prepared.recentEvents);
    syncRowsAfterApply(endpoint);
    scheduleNotify();
}

void FleetStore::disposeOnWorker(std::unique_ptr<EndpointFleet> fleet) {
    // A replaced fleet holds the old topology (tens of MB of small protobuf objects) and columns.
    std::shared_ptr<EndpointFleet> doomed(std::move(fleet));
    m_worker.start([doomed]() mutable { doomed.reset(); });
}

// --- the attached-connection path: queued, worker-built snapshots, sliced applying ---------

void FleetStore::enqueue(int endpoint, std::vector<v1::SubscribeResponse>&& messages) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    for (v1::SubscribeResponse& message : messages) {
        e.inbox.push_back(std::move(message));
    }
    drainInbox(endpoint);
}

void FleetStore::scheduleDrain(int endpoint) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    if (e.drainScheduled) return;
    e.drainScheduled = true;
    QMetaObject::invokeMethod(
        this,
        [this, endpoint] {
            m_endpoints[std::size_t(endpoint)]->drainScheduled = false;
            drainInbox(endpoint);
        },
        Qt::QueuedConnection);
}

void FleetStore::drainInbox(int endpoint) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    QElapsedTimer slice;
    slice.start();
    while (!e.inbox.empty() && !e.preparing) {
        v1::SubscribeResponse message = std::move(e.inbox.front());
        e.inbox.pop_front();
        if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
            prepareOnWorker(endpoint, std::move(message));
            return;
        }
        applyUpdate(endpoint, message);
        if (!e.inbox.empty() && std::chrono::milliseconds(slice.elapsed()) >= m_options.applySlice) {
            scheduleDrain(endpoint);  // let input and painting run, then go on
            return;
        }
    }
}

void FleetStore::prepareOnWorker(int endpoint, v1::SubscribeResponse&& message) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    e.preparing = true;
    struct Job {
        v1::Snapshot snapshot;
        SnapshotInputs inputs;
        PreparedSnapshot prepared;
    };
    auto job = std::make_shared<Job>();
    job->snapshot.Swap(message.mutable_snapshot());
    job->inputs = snapshotInputs(endpoint);  // the basis is shared and immutable: safe on the worker
    m_worker.start([this, endpoint, job] {
        job->prepared = buildSnapshot(job->inputs, std::move(job->snapshot));
        // Whatever is left of the message, and our hold on the old topology, is released here:
        // the GUI thread must not be the one to free tens of MB.
        job->snapshot = v1::Snapshot();
        job->inputs.basis = {};
        QMetaObject::invokeMethod(
            this,
            [this, endpoint, job] {
                Endpoint& target = *m_endpoints[std::size_t(endpoint)];
                target.preparing = false;
                adoptSnapshot(endpoint, std::move(job->prepared));
                drainInbox(endpoint);
            },
            Qt::QueuedConnection);
    });
}

void FleetStore::syncRowsAfterApply(int endpoint) {
    Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    const EndpointFleet& fleet = *e.fleet;
    // Peek without consuming: flushChanges() collects the rest.
    const std::uint32_t rackCount = fleet.topology().count(v1::ENTITY_KIND_RACK);
    const int expectedNext = e.rackRowOffset + int(rackCount);
    const bool rackRowsStale =
        (std::size_t(endpoint) + 1 < m_endpoints.size() ? m_endpoints[std::size_t(endpoint) + 1]->rackRowOffset
                                                       : int(m_rackRows.size())) != expectedNext ||
        (rackCount > 0 && m_rackRows[std::size_t(e.rackRowOffset)] !=
                              EntityId{quint16(endpoint), fleet.topology().rackIndexAt(0)});
    if (rackRowsStale) {
        rebuildRackRows();
        m_pending.topologyChanged = true;
    }
    if (fleet.jobCount() < e.knownJobs) {
        rebuildJobRows();  // a snapshot replaced the jobs
    } else if (fleet.jobCount() > e.knownJobs) {
        for (std::uint32_t slot = e.knownJobs; slot < fleet.jobCount(); ++slot) {
            const EntityId id{quint16(endpoint), fleet.job(slot).index()};
            m_jobRowByKey[id.key()] = int(m_jobRows.size());
            m_jobRows.push_back(id);
        }
        m_pending.jobsAppended += int(fleet.jobCount() - e.knownJobs);
        e.knownJobs = fleet.jobCount();
        e.jobNamesDirty = true;
    }
}

void FleetStore::rebuildRackRows() {
    m_rackRows.clear();
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        Endpoint& e = *m_endpoints[i];
        e.rackRowOffset = int(m_rackRows.size());
        const TopologyIndex& topology = e.fleet->topology();
        for (const v1::Rack& rack : topology.topology().racks()) {
            m_rackRows.push_back(EntityId{quint16(i), rack.index()});
        }
    }
}

void FleetStore::rebuildJobRows() {
    m_jobRows.clear();
    m_jobRowByKey.clear();
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        Endpoint& e = *m_endpoints[i];
        for (std::uint32_t slot = 0; slot < e.fleet->jobCount(); ++slot) {
            const EntityId id{quint16(i), e.fleet->job(slot).index()};
            m_jobRowByKey[id.key()] = int(m_jobRows.size());
            m_jobRows.push_back(id);
        }
        e.knownJobs = e.fleet->jobCount();
        e.jobNamesDirty = true;
    }
    m_pending.jobsReset = true;
    m_pending.jobsAppended = 0;
}

void FleetStore::appendEvents(int endpoint, const google::protobuf::RepeatedPtrField<v1::Event>& events) {
    EndpointFleet& fleet = *m_endpoints[std::size_t(endpoint)]->fleet;
    for (const v1::Event& event : events) {
        if (!fleet.acceptEvent(event)) {
            continue;  // already shown (a resync snapshot repeats recent events)
        }
        m_events.push_back(StoredEvent{m_nextEventSerial++, endpoint, event});
        ++m_pending.eventsAdded;
    }
    while (int(m_events.size()) > m_options.maxEvents) {
        m_events.pop_front();
        ++m_pending.eventsTrimmed;
    }
}

void FleetStore::clearEvents() {
    m_pending.eventsTrimmed += int(m_events.size());
    m_events.clear();
    scheduleNotify();
}

void FleetStore::scheduleNotify() {
    if (!m_notifyTimer.isActive()) {
        m_notifyTimer.start();
    }
}

void FleetStore::flushChanges() {
    m_notifyTimer.stop();
    FleetChangeSet out = std::move(m_pending);
    m_pending = FleetChangeSet{};
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        const Endpoint& e = *m_endpoints[i];
        if (!e.fleet->hasChanges()) {
            continue;
        }
        EndpointFleet::Changes c = e.fleet->takeChanges();
        out.topologyChanged |= c.topologyChanged;  // also when racks stay (e.g. links added)
        out.fleetChanged |= c.fleetChanged;
        out.freshnessTick |= c.serverSecondTicked;
        out.sourcesChanged |= c.sourcesChanged;
        out.incidentsChanged |= c.incidentsChanged;
        out.telemetryChanged |= c.telemetryChanged;
        for (std::uint32_t slot : c.dirtyRackSlots) {
            out.dirtyRackRows.push_back(e.rackRowOffset + int(slot));
        }
        for (std::uint32_t slot : c.dirtyJobSlots) {
            const auto it = m_jobRowByKey.find(EntityId{quint16(i), e.fleet->job(slot).index()}.key());
            if (it != m_jobRowByKey.end()) {
                out.dirtyJobRows.push_back(it->second);
            }
        }
    }
    if (out.jobsReset) {
        out.jobsAppended = 0;
        out.dirtyJobRows.clear();
    }
    std::sort(out.dirtyRackRows.begin(), out.dirtyRackRows.end());
    std::sort(out.dirtyJobRows.begin(), out.dirtyJobRows.end());
    if (!out.isEmpty()) {
        emit changed(out);
    }
}

// --- entities ----------------------------------------------------------------------------------------

const EndpointFleet* FleetStore::fleetOf(EntityId id) const {
    return id.isValid() && id.endpoint < m_endpoints.size() ? m_endpoints[id.endpoint]->fleet.get() : nullptr;
}

QString FleetStore::rawName(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return {};
    const TopologyIndex::Entry* entry = fleet->topology().find(id.index);
    if (!entry) return {};
    if (entry->kind == v1::ENTITY_KIND_JOB) {
        return entry->slot < fleet->jobCount() ? QString::fromStdString(fleet->job(entry->slot).name()) : QString();
    }
    const std::string_view n = fleet->topology().name(id.index);
    return QString::fromUtf8(n.data(), qsizetype(n.size()));
}

QString FleetStore::name(EntityId id) const {
    const QString raw = rawName(id);
    if (raw.isEmpty() || m_endpoints.size() < 2) return raw;
    // Names are unique within one fleetd, so only another endpoint can clash.
    if (nameExistsElsewhere(NameIndex::fold(raw.toStdString()), id.endpoint)) {
        return m_endpoints[id.endpoint]->shortName + QLatin1Char('/') + raw;
    }
    return raw;
}

const NameIndex& FleetStore::jobNames(int endpoint) const {
    const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
    if (e.jobNamesDirty) {
        std::vector<NameIndex::Entry> entries;
        for (std::uint32_t slot = 0; slot < e.fleet->jobCount(); ++slot) {
            const v1::Job& job = e.fleet->job(slot);
            if (!job.name().empty()) entries.push_back({NameIndex::fold(job.name()), EntityId{quint16(endpoint), job.index()}});
        }
        e.jobNames.rebuild(std::move(entries));
        e.jobNamesDirty = false;
    }
    return e.jobNames;
}

bool FleetStore::nameExistsElsewhere(const std::string& folded, int endpoint) const {
    for (int other = 0; other < endpointCount(); ++other) {
        if (other == endpoint) continue;
        if (m_endpoints[std::size_t(other)]->fleet->names().find(folded).isValid() ||
            jobNames(other).find(folded).isValid()) {
            return true;
        }
    }
    return false;
}

EntityId FleetStore::findExact(const std::string& folded) const {
    EntityId found;
    for (int endpoint = 0; endpoint < endpointCount(); ++endpoint) {
        for (const NameIndex* index : {&m_endpoints[std::size_t(endpoint)]->fleet->names(), &jobNames(endpoint)}) {
            const EntityId id = index->find(folded);
            if (!id.isValid()) continue;
            if (found.isValid()) return {};  // on several endpoints: ambiguous until qualified
            found = id;
        }
    }
    return found;
}

v1::EntityKind FleetStore::kind(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    return fleet ? fleet->topology().kind(id.index) : v1::ENTITY_KIND_UNSPECIFIED;
}

EntityId FleetStore::parent(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return {};
    const std::uint32_t p = fleet->topology().parent(id.index);
    return p == TopologyIndex::kNone || !fleet->topology().find(p) ? EntityId{} : EntityId{id.endpoint, p};
}

QList<EntityId> FleetStore::children(EntityId id) const {
    QList<EntityId> out;
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return out;
    for (std::uint32_t c : fleet->topology().children(id.index)) {
        out.append(EntityId{id.endpoint, c});
    }
    return out;
}

QList<EntityId> FleetStore::fleetRoots() const {
    QList<EntityId> out;
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        const TopologyIndex& topology = m_endpoints[i]->fleet->topology();
        if (m_endpoints[i]->fleet->hasSnapshot()) {
            out.append(EntityId{quint16(i), topology.topology().fleet_index()});
        }
    }
    return out;
}

EntityId FleetStore::rackOf(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return {};
    const TopologyIndex::Entry* entry = fleet->topology().find(id.index);
    if (!entry || entry->rackSlot == TopologyIndex::kNone) return {};
    return EntityId{id.endpoint, fleet->topology().rackIndexAt(entry->rackSlot)};
}

bool FleetStore::isWithin(EntityId id, EntityId ancestor) const {
    for (int depth = 0; id.isValid() && depth < 8; ++depth) {
        if (id == ancestor) return true;
        id = parent(id);
    }
    return false;
}

EntityId FleetStore::findByName(const QString& name) const {
    const std::string folded = NameIndex::fold(name.toStdString());
    if (const EntityId id = findExact(folded); id.isValid()) return id;
    // "<endpoint name>/<name>", the form name() shows for a clashing name (or the endpoint's label).
    for (int endpoint = 0; endpoint < endpointCount(); ++endpoint) {
        const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
        for (const std::string* prefix : {&e.foldedShortName, &e.foldedLabel}) {
            if (const auto rest = withoutLabel(folded, *prefix)) {
                if (const EntityId id = e.fleet->names().find(*rest); id.isValid()) return id;
                if (const EntityId id = jobNames(endpoint).find(*rest); id.isValid()) return id;
            }
        }
    }
    return {};
}

QList<EntityId> FleetStore::search(const QString& query, int limit) const {
    const std::string folded = NameIndex::fold(query.toStdString());
    const std::size_t wanted = std::size_t(std::max(limit, 0));
    std::vector<NameIndex::Hit> hits;
    for (int endpoint = 0; endpoint < endpointCount(); ++endpoint) {
        const NameIndex& names = m_endpoints[std::size_t(endpoint)]->fleet->names();
        names.collect(folded, wanted, hits);
        jobNames(endpoint).collect(folded, wanted, hits);
        const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
        for (const std::string* prefix : {&e.foldedShortName, &e.foldedLabel}) {
            if (const auto rest = withoutLabel(folded, *prefix)) {
                names.collect(*rest, wanted, hits);
                jobNames(endpoint).collect(*rest, wanted, hits);
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

namespace {
template <typename T, typename List>
const T* slotted(const TopologyIndex& topology, std::uint32_t index, v1::EntityKind kind, const List& list) {
    const TopologyIndex::Entry* e = topology.find(index);
    return e && e->kind == kind ? &list.Get(int(e->slot)) : nullptr;
}
}  // namespace

const v1::Rack* FleetStore::rackInfo(EntityId id) const {
    const EndpointFleet* f = fleetOf(id);
    return f ? slotted<v1::Rack>(f->topology(), id.index, v1::ENTITY_KIND_RACK, f->topology().topology().racks())
             : nullptr;
}
const v1::Node* FleetStore::nodeInfo(EntityId id) const {
    const EndpointFleet* f = fleetOf(id);
    return f ? slotted<v1::Node>(f->topology(), id.index, v1::ENTITY_KIND_NODE, f->topology().topology().nodes())
             : nullptr;
}
const v1::Gpu* FleetStore::gpuInfo(EntityId id) const {
    const EndpointFleet* f = fleetOf(id);
    return f ? slotted<v1::Gpu>(f->topology(), id.index, v1::ENTITY_KIND_GPU, f->topology().topology().gpus())
             : nullptr;
}
const v1::CoolingLoop* FleetStore::coolingLoopInfo(EntityId id) const {
    const EndpointFleet* f = fleetOf(id);
    return f ? slotted<v1::CoolingLoop>(f->topology(), id.index, v1::ENTITY_KIND_COOLING_LOOP,
                                        f->topology().topology().cooling_loops())
             : nullptr;
}

// --- racks -----------------------------------------------------------------------------------------------

int FleetStore::rackRow(EntityId rack) const {
    const EndpointFleet* fleet = fleetOf(rack);
    if (!fleet) return -1;
    const TopologyIndex::Entry* entry = fleet->topology().find(rack.index);
    if (!entry || entry->kind != v1::ENTITY_KIND_RACK) return -1;
    return m_endpoints[rack.endpoint]->rackRowOffset + int(entry->slot);
}

QString FleetStore::regionNameOfRack(int row) const {
    const EntityId rack = rackAt(row);
    const v1::Rack* info = rackInfo(rack);
    return info ? name(EntityId{rack.endpoint, info->region_index()}) : QString();
}

Reading FleetStore::rackReading(int row, v1::Metric metric) const {
    const EntityId rack = rackAt(row);
    Reading r = reading(rack, metric);
    if (r.freshness == Freshness::Missing) {
        if (const v1::Rack* info = rackInfo(rack)) {
            r = reading(EntityId{rack.endpoint, info->cooling_loop_index()}, metric);
        }
    }
    return r;
}

// --- values ------------------------------------------------------------------------------------------------

Reading FleetStore::readingFrom(const EndpointFleet& fleet, int endpoint, v1::EntityKind kind, std::uint32_t slot,
                                v1::Metric metric) const {
    Reading r;
    const MetricCadence cadence = metricCadence(metric, fleet.sourceCadence());
    const bool live = m_endpoints[std::size_t(endpoint)]->state == ConnectionState::Live;
    const MetricColumn* column = fleet.column(kind, metric);
    if (!column || slot >= column->values.size() || column->stamps[slot] == 0) {
        if (cadence.reporting == MetricReporting::OnChange && fleet.hasSnapshot()) {
            // Sent on change only: never sent means unchanged since the server run began.
            r.value = 0.0f;
            r.freshness = live ? Freshness::Fresh : Freshness::Stale;
        }
        return r;  // Missing otherwise
    }
    r.value = column->values[slot];
    r.sampleTimeUnixMs = fleet.sampleTimeOf(*column, slot);
    r.age = std::chrono::milliseconds(std::max<std::int64_t>(0, fleet.serverTimeUnixMs() - r.sampleTimeUnixMs));
    const auto staleAfter = std::max<std::chrono::milliseconds>(m_options.staleAfter, 3 * cadence.period);
    const bool aged = cadence.reporting == MetricReporting::Periodic && r.age > staleAfter;
    if (std::isnan(r.value)) {
        r.freshness = Freshness::Blank;
    } else if (!live || aged) {
        r.freshness = Freshness::Stale;
    } else {
        r.freshness = Freshness::Fresh;
    }
    return r;
}

Reading FleetStore::reading(EntityId id, v1::Metric metric) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return {};
    const TopologyIndex::Entry* entry = fleet->topology().find(id.index);
    if (!entry) return {};
    Reading r = readingFrom(*fleet, id.endpoint, v1::EntityKind(entry->kind), entry->slot, metric);
    // A silent tray's values are the last read: whatever their age says, they are not current.
    if ((r.freshness == Freshness::Fresh || r.freshness == Freshness::Stale) && fleet->inSilentTray(id.index)) {
        r.freshness = Freshness::Silent;
    }
    return r;
}

const v1::TelemetryHealth* FleetStore::trayTelemetry(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet || fleet->telemetryByTray().empty()) return nullptr;
    const std::uint32_t tray = fleet->topology().trayOf(id.index);
    return tray == TopologyIndex::kNone ? nullptr : fleet->telemetry(tray);
}

const TrayLifecycleStatus* FleetStore::trayLifecycle(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet || fleet->trayLifecycles().empty()) return nullptr;
    const std::uint32_t tray = fleet->topology().trayOf(id.index);
    return tray == TopologyIndex::kNone ? nullptr : fleet->trayLifecycle(tray);
}

bool FleetStore::isTraySilent(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    return fleet && fleet->inSilentTray(id.index);
}

int FleetStore::silentTraysInRack(EntityId rack) const {
    const EndpointFleet* fleet = fleetOf(rack);
    const v1::Rack* info = rackInfo(rack);
    if (!fleet || !info || fleet->silentTrays() == 0) return 0;
    int silent = 0;
    for (const std::uint32_t node : info->node_indexes()) silent += fleet->inSilentTray(node) ? 1 : 0;
    return silent;
}

EntityStatus FleetStore::status(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    return fleet ? fleet->status(id.index) : EntityStatus{};
}

QString FleetStore::statusReason(EntityId id) const {
    const EndpointFleet* fleet = fleetOf(id);
    if (!fleet) return {};
    const std::string_view r = fleet->statusReason(id.index);
    return QString::fromUtf8(r.data(), qsizetype(r.size()));
}

Reading FleetStore::gpuAggregate(EntityId nodeOrRack, v1::Metric metric, Aggregate how) const {
    std::vector<EntityId> gpus;
    auto addNode = [&](EntityId node) {
        if (const v1::Node* n = nodeInfo(node)) {
            for (std::uint32_t g : n->gpu_indexes()) gpus.push_back(EntityId{node.endpoint, g});
        }
    };
    if (const v1::Rack* rack = rackInfo(nodeOrRack)) {
        for (std::uint32_t n : rack->node_indexes()) addNode(EntityId{nodeOrRack.endpoint, n});
    } else {
        addNode(nodeOrRack);
    }
    Reading out;
    int contributing = 0;
    bool anyBlank = false;
    double acc = how == Aggregate::Max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (EntityId gpu : gpus) {
        const Reading r = reading(gpu, metric);
        if (!r.hasValue()) {
            anyBlank |= r.freshness == Freshness::Blank;
            continue;
        }
        acc = how == Aggregate::Max ? std::max(acc, double(r.value)) : acc + double(r.value);
        out.freshness = contributing == 0 ? r.freshness : worse(out.freshness, r.freshness);
        if (contributing == 0 || r.sampleTimeUnixMs < out.sampleTimeUnixMs) {
            out.sampleTimeUnixMs = r.sampleTimeUnixMs;
            out.age = r.age;
        }
        ++contributing;
    }
    if (contributing == 0) {
        out.freshness = anyBlank ? Freshness::Blank : Freshness::Missing;
        return out;
    }
    out.value = float(how == Aggregate::Mean ? acc / contributing : acc);
    return out;
}

// --- jobs --------------------------------------------------------------------------------------------------

const v1::Job* FleetStore::job(int row) const {
    if (row < 0 || row >= int(m_jobRows.size())) return nullptr;
    const EntityId id = m_jobRows[std::size_t(row)];
    const EndpointFleet* fleet = fleetOf(id);
    const TopologyIndex::Entry* entry = fleet ? fleet->topology().find(id.index) : nullptr;
    if (!entry || entry->kind != v1::ENTITY_KIND_JOB || entry->slot >= fleet->jobCount()) return nullptr;
    return &fleet->job(entry->slot);
}

int FleetStore::jobRow(EntityId job) const {
    const auto it = m_jobRowByKey.find(job.key());
    return it == m_jobRowByKey.end() ? -1 : it->second;
}

// --- fleet ---------------------------------------------------------------------------------------------------

FleetSummary FleetStore::fleetSummary() const {
    FleetSummary s;
    s.endpointsTotal = endpointCount();
    for (int endpoint = 0; endpoint < endpointCount(); ++endpoint) {
        const Endpoint& e = *m_endpoints[std::size_t(endpoint)];
        const bool live = e.state == ConnectionState::Live;
        s.endpointsLive += live ? 1 : 0;
        for (std::uint32_t slot = 0; slot < e.fleet->jobCount(); ++slot) {
            const v1::Job& j = e.fleet->job(slot);
            s.jobsStarting += jobIsStarting(j) ? 1 : 0;
            if (!jobIsActive(j)) continue;
            ++s.jobsActive;
            s.jobsInGoodput += j.no_step_telemetry() ? 0 : 1;
        }
        // The KPI counts the incidents the dock lists: the same list, the same count.
        const std::uint32_t openIncidents = e.fleet->openIncidentCount();
        s.activeIncidents += openIncidents;
        s.activeIncidentsStale += live ? 0 : openIncidents;
        const v1::FleetGoodput* f = e.fleet->fleetGoodput();
        if (!f) continue;
        ++s.endpointsReporting;
        s.gpusTotal += f->gpus_total();
        s.gpusHealthy += f->gpus_healthy();
        s.gpusDegraded += f->gpus_degraded();
        s.gpusDown += f->gpus_down();
        s.interruptions += f->interruptions();
        if (!live) {
            s.gpusTotalStale += f->gpus_total();
            s.gpusHealthyStale += f->gpus_healthy();
            s.gpusDegradedStale += f->gpus_degraded();
            s.gpusDownStale += f->gpus_down();
        }
    }
    // The ratios: the one merge the Goodput page shows too.
    const MergedFleetGoodput merged = mergeFleetGoodput(*this);
    s.goodputRatio = merged.goodput;
    s.ettrSliding1hRatio = merged.ettr1h;
    s.mfuRatio = merged.mfu;
    s.ratioWeightStale = merged.weightStale;
    return s;
}

double FleetStore::goodputWeight(int endpoint) const {
    const EndpointFleet& fleet = *m_endpoints[std::size_t(endpoint)]->fleet;
    const v1::FleetGoodput* f = fleet.fleetGoodput();
    if (!f) return 0;
    double measuredGpus = 0;
    int measured = 0;
    for (std::uint32_t slot = 0; slot < fleet.jobCount(); ++slot) {
        const v1::Job& j = fleet.job(slot);
        if (!jobIsActive(j) || j.no_step_telemetry() || jobIsStarting(j)) continue;
        ++measured;
        measuredGpus += j.gpu_count();
    }
    // No job to average (none running, none publishing its steps, or all still starting): no goodput
    // to show, rather than the 0 % an empty average reads as.
    if (measured == 0) return 0.0;
    return measuredGpus > 0 ? measuredGpus : double(f->gpus_total());
}

// --- events ----------------------------------------------------------------------------------------------------

const StoredEvent* FleetStore::eventBySerial(quint64 serial) const {
    if (m_events.empty() || serial < m_events.front().serial || serial > m_events.back().serial) return nullptr;
    return &m_events[std::size_t(serial - m_events.front().serial)];
}

// --- history ---------------------------------------------------------------------------------------------------

void FleetStore::history(EntityId id, v1::Metric metric, std::vector<HistoryPoint>& out) const {
    out.clear();
    const EndpointFleet* fleet = fleetOf(id);
    const TopologyIndex::Entry* entry = fleet ? fleet->topology().find(id.index) : nullptr;
    if (!entry) return;
    fleet->history().series(v1::EntityKind(entry->kind), metric, entry->slot, out);
}

QList<QPointF> FleetStore::historyPoints(EntityId id, v1::Metric metric) const {
    std::vector<HistoryPoint> points;
    history(id, metric, points);
    QList<QPointF> out;
    out.reserve(qsizetype(points.size()));
    const EndpointFleet* fleet = fleetOf(id);
    const std::deque<std::int64_t> noBreaks;
    const std::deque<std::int64_t>& breaks = fleet ? fleet->history().breaks() : noBreaks;
    auto nextBreak = breaks.begin();
    for (const HistoryPoint& p : points) {
        // A fleetd restart between two points: a NaN point, which charts draw as a break.
        bool crossed = false;
        for (; nextBreak != breaks.end() && *nextBreak <= p.timeUnixMs; ++nextBreak) crossed = true;
        if (crossed && !out.isEmpty() && !std::isnan(out.last().y())) {
            out.append(QPointF(double(p.timeUnixMs) - 0.5, std::numeric_limits<double>::quiet_NaN()));
        }
        if (!std::isnan(p.value)) out.append(QPointF(double(p.timeUnixMs), double(p.value)));
    }
    return out;
}

// --- worst -------------------------------------------------------------------------------------------------------

RankedEntity FleetStore::rankRack(int row) const {
    RankedEntity r{rackAt(row), 0, {}};
    QStringList why;
    const EntityStatus st = status(r.id);
    auto value = [&](v1::Metric m) {
        const Reading x = rackReading(row, m);
        return x.hasValue() ? double(x.value) : 0.0;
    };
    if (st.rackState == v1::RACK_STATE_ISOLATED) { r.score += 1e6; why << QStringLiteral("isolated"); }
    if (st.health == v1::HEALTH_STATE_FAILED) { r.score += 5e5; why << QStringLiteral("failed"); }
    if (const double leaks = value(v1::RACK_LEAK_DETECT); leaks > 0) {
        r.score += 4e5; why << QStringLiteral("%1 leak sensor(s) wet").arg(leaks);
    }
    if (st.rackState == v1::RACK_STATE_DEGRADED || st.health == v1::HEALTH_STATE_DEGRADED) {
        r.score += 1e5; why << QStringLiteral("degraded");
    }
    // Silent trays may be fine, but nobody can tell: above GPU counts, below a known fault.
    if (const int silent = silentTraysInRack(rackAt(row)); silent > 0) {
        r.score += 5e2 * silent; why << QStringLiteral("telemetry silent on %1 tray(s)").arg(silent);
    }
    if (const double down = value(v1::RACK_GPUS_DOWN); down > 0) { r.score += 1e3 * down; why << QStringLiteral("%1 GPU(s) down").arg(down); }
    if (const double deg = value(v1::RACK_GPUS_DEGRADED); deg > 0) { r.score += 1e2 * deg; why << QStringLiteral("%1 GPU(s) degraded").arg(deg); }
    if (const double t = value(v1::RACK_GPU_TEMP_MAX_C); t > 0) {
        r.score += t;  // the tie-breaker between otherwise healthy racks
        if (t >= 85) why << QStringLiteral("GPU max %1 °C").arg(t, 0, 'f', 0);
    }
    if (const double e = value(v1::RACK_LINK_ERRORS_PER_MIN); e > 0) { r.score += std::min(e, 1e3) * 0.5; why << QStringLiteral("%1 link errors/min").arg(e); }
    r.why = why.isEmpty() ? QStringLiteral("healthy") : why.join(QStringLiteral(", "));
    return r;
}

std::vector<RankedEntity> FleetStore::worstRacks(int n) const {
    std::vector<RankedEntity> all;
    all.reserve(m_rackRows.size());
    for (int row = 0; row < rackCount(); ++row) all.push_back(rankRack(row));
    // Recent warnings and criticals (last 15 min of server time) count against their rack.
    std::unordered_map<std::uint64_t, std::pair<int, int>> alerts;
    for (const StoredEvent& e : m_events) {
        const EndpointFleet& fleet = *m_endpoints[std::size_t(e.endpoint)]->fleet;
        if (e.event.time_unix_ms() < fleet.serverTimeUnixMs() - 15 * 60 * 1000) continue;
        const EntityId rack = rackOf(eventEntity(e));
        if (!rack.isValid()) continue;
        if (e.event.severity() == v1::SEVERITY_CRITICAL) ++alerts[rack.key()].first;
        if (e.event.severity() == v1::SEVERITY_WARNING) ++alerts[rack.key()].second;
    }
    for (RankedEntity& r : all) {
        const auto it = alerts.find(r.id.key());
        if (it == alerts.end()) continue;
        r.score += 50.0 * it->second.first + 10.0 * it->second.second;
        QStringList counts;
        if (it->second.first > 0) counts << QStringLiteral("%1 critical").arg(it->second.first);
        if (it->second.second > 0) counts << QStringLiteral("%1 warning").arg(it->second.second);
        const QString a = QStringLiteral("alerts in 15 min: %1").arg(counts.join(QStringLiteral(", ")));
        r.why = r.why == QStringLiteral("healthy") ? a : r.why + QStringLiteral(", ") + a;
    }
    const auto keep = std::min<std::size_t>(all.size(), std::size_t(std::max(n, 0)));
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(keep), all.end(),
                      [](const RankedEntity& a, const RankedEntity& b) { return a.score > b.score; });
    all.resize(keep);
    return all;
}

std::optional<RankedEntity> FleetStore::worstRack() const {
    auto v = worstRacks(1);
    return v.empty() ? std::nullopt : std::optional<RankedEntity>(v.front());
}

std::optional<RankedEntity> FleetStore::worstLink() const {
    // Links are scored when subscribed (DETAIL_LEVEL_FULL); otherwise GPUs by their summed NVLink
    // counters, which is what STANDARD detail carries.
    struct Term {
        v1::EntityKind kind;
        v1::Metric metric;
        bool isBer;
        const char* label;
    };
    static constexpr Term kTerms[] = {
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, true, "BER"},
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, false, "CRC errors"},
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, false, "recoveries"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_EFFECTIVE_BER, true, "effective BER"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_SYMBOL_ERROR_COUNTER, false, "symbol errors"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_LINK_DOWNED_COUNTER, false, "link downed"},
        {v1::ENTITY_KIND_GPU, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL, false, "NVLink CRC errors"},
        {v1::ENTITY_KIND_GPU, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL, false, "NVLink recoveries"},
    };
    std::optional<RankedEntity> best;
    for (std::size_t ep = 0; ep < m_endpoints.size(); ++ep) {
        const EndpointFleet& fleet = *m_endpoints[ep]->fleet;
        const bool haveLinks = fleet.topology().count(v1::ENTITY_KIND_NVLINK) + fleet.topology().count(v1::ENTITY_KIND_NIC_PORT) > 0;
        std::unordered_map<std::uint32_t, RankedEntity> scored;  // by server index
        for (const Term& term : kTerms) {
            if (haveLinks == (term.kind == v1::ENTITY_KIND_GPU)) continue;
            const MetricColumn* column = fleet.column(term.kind, term.metric);
            if (!column) continue;
            for (std::uint32_t slot = 0; slot < column->values.size(); ++slot) {
                const float v = column->values[slot];
                if (column->stamps[slot] == 0 || std::isnan(v) || v <= 0) continue;
                const double score = term.isBer ? 1e3 * std::max(0.0, 15.0 + std::log10(double(v))) : std::min(double(v), 1e4);
                const std::uint32_t index = fleet.topology().indexAt(term.kind, slot);
                RankedEntity& r = scored[index];
                r.id = EntityId{quint16(ep), index};
                r.score += score;
                const QString part = term.isBer ? QStringLiteral("%1 %2").arg(QLatin1String(term.label)).arg(double(v), 0, 'g', 2)
                                                : QStringLiteral("%1 %2").arg(double(v)).arg(QLatin1String(term.label));
                r.why = r.why.isEmpty() ? part : r.why + QStringLiteral(", ") + part;
            }
        }
        if (haveLinks) {
            for (v1::EntityKind kind : {v1::ENTITY_KIND_NVLINK, v1::ENTITY_KIND_NIC_PORT}) {
                for (std::uint32_t slot = 0; slot < fleet.topology().count(kind); ++slot) {
                    const std::uint32_t index = fleet.topology().indexAt(kind, slot);
                    const v1::LinkState ls = fleet.status(index).linkState;
                    if (ls != v1::LINK_STATE_DOWN && ls != v1::LINK_STATE_FLAPPING) continue;
                    RankedEntity& r = scored[index];
                    r.id = EntityId{quint16(ep), index};
                    r.score += ls == v1::LINK_STATE_DOWN ? 1e6 : 5e5;
                    const QString part = ls == v1::LINK_STATE_DOWN ? QStringLiteral("down") : QStringLiteral("flapping");
                    r.why = r.why.isEmpty() ? part : part + QStringLiteral(", ") + r.why;
                }
            }
        }
        for (auto& [index, r] : scored) {
            if (!best || r.score > best->score) best = r;
        }
    }
    return best;
}

std::optional<RankedEntity> FleetStore::biggestJob() const {
    std::optional<RankedEntity> best;
    for (int row = 0; row < jobCount(); ++row) {
        const v1::Job* j = job(row);
        if (!j || !jobIsActive(*j)) continue;
        if (!best || j->gpu_count() > best->score) {
            best = RankedEntity{jobAt(row), double(j->gpu_count()),
                                QStringLiteral("%1 GPUs on %2 nodes").arg(j->gpu_count()).arg(j->node_indexes_size())};
        }
    }
    return best;
}

std::size_t FleetStore::approximateBytes() const {
    std::size_t total = 0;
    for (const auto& e : m_endpoints) total += e->fleet->bytes();
    for (const StoredEvent& e : m_events) total += sizeof(StoredEvent) + std::size_t(e.event.SpaceUsedLong());
    total += m_rackRows.capacity() * sizeof(EntityId) + m_jobRows.capacity() * sizeof(EntityId);
    return total;
}

}  // namespace watchfloor::client
