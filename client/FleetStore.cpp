#include "FleetStore.h"

#include "EndpointConnection.h"

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

FleetStore::FleetStore(QObject* parent) : FleetStore(Options{}, parent) {}

FleetStore::FleetStore(Options options, QObject* parent)
    : QObject(parent),
      m_options(options),
      m_events(options.maxEvents),
      m_ingest(FleetIngest::Sink{
                   [this](int endpoint) { return snapshotInputs(endpoint); },
                   [this](int endpoint, PreparedSnapshot&& prepared) { adoptSnapshot(endpoint, std::move(prepared)); },
                   [this](int endpoint, const v1::SubscribeResponse& message) { applyUpdate(endpoint, message); }},
               options.applySlice) {
    m_notifyTimer.setSingleShot(true);
    m_notifyTimer.setInterval(m_options.notifyInterval);
    connect(&m_notifyTimer, &QTimer::timeout, this, &FleetStore::flushChanges);
}

FleetStore::~FleetStore() = default;

// --- endpoints ---------------------------------------------------------------------------------

int FleetStore::addEndpoint(const QString& label) { return addEndpoint(label, EndpointIdentity{label, {}, {}}); }

int FleetStore::addEndpoint(const QString& label, EndpointIdentity identity) {
    const int endpoint = endpointCount();
    m_fleets.push_back(std::make_unique<EndpointFleet>(label, m_options.historyPoints));
    m_endpoints.push_back(Endpoint{label, std::move(identity), ConnectionState::Live, {}});
    m_rows.addEndpoint();
    m_names.addEndpoint(label);
    m_ingest.addEndpoint();
    markEndpointChanged(endpoint);
    refreshShortNames();
    scheduleNotify();
    return endpoint;
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

void FleetStore::markEndpointChanged(int endpoint) {
    if (!m_pending.endpointsChanged.contains(endpoint)) m_pending.endpointsChanged.append(endpoint);
}

void FleetStore::refreshShortNames() {
    std::vector<EndpointIdentity> identities;
    for (const Endpoint& e : m_endpoints) identities.push_back(e.identity);
    const QStringList names = shortEndpointNames(identities);
    bool renamed = false;
    for (int i = 0; i < endpointCount(); ++i) {
        if (m_names.shortName(i) == names[i]) continue;
        renamed = renamed || !m_names.shortName(i).isEmpty();
        m_names.setShortName(i, names[i]);
        markEndpointChanged(i);
    }
    if (renamed) {
        m_pending.topologyChanged = true;  // qualified names changed: maps and lists rebuild them
        scheduleNotify();
    }
}

QString FleetStore::endpointFleetName(int endpoint) const {
    const EndpointFleet& fleet = endpointFleet(endpoint);
    return fleet.hasSnapshot() ? QString::fromStdString(fleet.topology().topology().fleet_name()) : QString();
}

QString FleetStore::endpointLabel(int endpoint) const { return m_endpoints[std::size_t(endpoint)].label; }
ConnectionState FleetStore::endpointState(int endpoint) const { return m_endpoints[std::size_t(endpoint)].state; }
QString FleetStore::endpointStatus(int endpoint) const { return m_endpoints[std::size_t(endpoint)].statusText; }

void FleetStore::setEndpointState(int endpoint, ConnectionState state, const QString& statusText) {
    Endpoint& e = m_endpoints[std::size_t(endpoint)];
    if (e.state == state && e.statusText == statusText) {
        return;
    }
    const bool freshnessChanges = (e.state == ConnectionState::Live) != (state == ConnectionState::Live);
    e.state = state;
    e.statusText = statusText;
    markEndpointChanged(endpoint);
    m_pending.freshnessTick |= freshnessChanges;  // every value of the endpoint turns (un)stale
    scheduleNotify();
}

// --- ingest ------------------------------------------------------------------------------------
// The queues and the worker are FleetIngest's; what a message does is here. State an endpoint's
// Snapshot or Delta carries belongs in EndpointFleet (loadSnapshotValues / applyDelta), which the
// build and applyDelta() below reach; only fleet-wide consequences (rows, names, events, what to
// announce) are handled in adoptSnapshot() and applyUpdate().

void FleetStore::applyBatch(int endpoint, std::span<const v1::SubscribeResponse> messages) {
    for (const v1::SubscribeResponse& message : messages) m_ingest.apply(endpoint, message);
}

void FleetStore::applyBatch(int endpoint, std::vector<v1::SubscribeResponse>&& messages) {
    for (v1::SubscribeResponse& message : messages) m_ingest.apply(endpoint, std::move(message));
}

void FleetStore::apply(int endpoint, const v1::SubscribeResponse& message) { m_ingest.apply(endpoint, message); }

void FleetStore::apply(int endpoint, v1::SubscribeResponse&& message) { m_ingest.apply(endpoint, std::move(message)); }

void FleetStore::enqueue(int endpoint, std::vector<v1::SubscribeResponse>&& messages) {
    m_ingest.enqueue(endpoint, std::move(messages));
}

SnapshotInputs FleetStore::snapshotInputs(int endpoint) const {
    return SnapshotInputs{endpointLabel(endpoint), m_options.historyPoints, quint16(endpoint),
                          endpointFleet(endpoint).basis()};
}

void FleetStore::applyUpdate(int endpoint, const v1::SubscribeResponse& message) {
    EndpointFleet& fleet = *m_fleets[std::size_t(endpoint)];
    switch (message.payload_case()) {
    case v1::SubscribeResponse::kDelta:
        if (!fleet.hasSnapshot()) {
            return;  // nothing to apply it to (EndpointConnection never forwards this)
        }
        fleet.applyDelta(message.delta());
        appendEvents(endpoint, message.delta().events());
        break;
    case v1::SubscribeResponse::kHeartbeat: fleet.applyHeartbeat(message.heartbeat()); break;
    case v1::SubscribeResponse::kSnapshot:  // FleetIngest routes snapshots to adoptSnapshot()
    case v1::SubscribeResponse::PAYLOAD_NOT_SET: return;
    }
    syncRows(endpoint);
    scheduleNotify();
}

void FleetStore::adoptSnapshot(int endpoint, PreparedSnapshot&& prepared) {
    if (!prepared.fleet) {
        m_lastError = prepared.error;
        qWarning("%s", qPrintable(prepared.error));
        return;
    }
    std::unique_ptr<EndpointFleet>& current = m_fleets[std::size_t(endpoint)];
    prepared.fleet->continueFrom(*current);
    std::swap(current, prepared.fleet);
    m_ingest.dispose(std::move(prepared.fleet));
    m_rows.rebuildJobs(m_fleets);  // a snapshot replaces the endpoint's jobs
    announceJobsReset();
    Endpoint& e = m_endpoints[std::size_t(endpoint)];
    if (const QString fleetName = endpointFleetName(endpoint); fleetName != e.identity.fleetName) {
        e.identity.fleetName = fleetName;
        refreshShortNames();
    }
    appendEvents(endpoint, prepared.recentEvents);
    syncRows(endpoint);
    scheduleNotify();
}

void FleetStore::syncRows(int endpoint) {
    const FleetRows::Sync sync = m_rows.sync(m_fleets, endpoint);
    m_pending.topologyChanged |= sync.racksRebuilt;
    if (sync.jobsReset) {
        announceJobsReset();
    } else if (sync.jobsAppended > 0) {
        m_pending.jobsAppended += sync.jobsAppended;
        m_names.jobsChanged(endpoint);
    }
}

void FleetStore::announceJobsReset() {
    m_names.allJobsChanged();
    m_pending.jobsReset = true;
    m_pending.jobsAppended = 0;
}

void FleetStore::appendEvents(int endpoint, const google::protobuf::RepeatedPtrField<v1::Event>& events) {
    EndpointFleet& fleet = *m_fleets[std::size_t(endpoint)];
    // A resync snapshot repeats recent events: the fleet keeps only what is new for its server run.
    const EventLog::Appended appended =
        m_events.append(endpoint, events, [&fleet](const v1::Event& event) { return fleet.acceptEvent(event); });
    m_pending.eventsAdded += appended.added;
    m_pending.eventsTrimmed += appended.trimmed;
}

void FleetStore::clearEvents() {
    m_pending.eventsTrimmed += m_events.clear();
    scheduleNotify();
}

// --- notifications -----------------------------------------------------------------------------

void FleetStore::scheduleNotify() {
    if (!m_notifyTimer.isActive()) {
        m_notifyTimer.start();
    }
}

void FleetStore::flushChanges() {
    m_notifyTimer.stop();
    FleetChangeSet out = std::move(m_pending);
    m_pending = FleetChangeSet{};
    for (int i = 0; i < endpointCount(); ++i) {
        EndpointFleet& fleet = *m_fleets[std::size_t(i)];
        if (!fleet.hasChanges()) {
            continue;
        }
        EndpointFleet::Changes c = fleet.takeChanges();
        out.topologyChanged |= c.topologyChanged;  // also when racks stay (e.g. links added)
        out.fleetChanged |= c.fleetChanged;
        out.freshnessTick |= c.serverSecondTicked;
        out.sourcesChanged |= c.sourcesChanged;
        out.incidentsChanged |= c.incidentsChanged;
        out.repairsChanged |= c.repairsChanged;
        out.linksChanged |= c.linksChanged;
        out.telemetryChanged |= c.telemetryChanged;
        for (std::uint32_t slot : c.dirtyRackSlots) {
            out.dirtyRackRows.push_back(m_rows.rackRow(i, slot));
        }
        for (std::uint32_t slot : c.dirtyJobSlots) {
            if (const int row = m_rows.jobRow(EntityId{quint16(i), fleet.job(slot).index()}); row >= 0) {
                out.dirtyJobRows.push_back(row);
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

// --- entities ----------------------------------------------------------------------------------

QString FleetStore::name(EntityId id) const { return m_names.name(m_fleets, id); }
EntityId FleetStore::findByName(const QString& name) const { return m_names.find(m_fleets, name); }
QList<EntityId> FleetStore::search(const QString& query, int limit) const {
    return m_names.search(m_fleets, query, limit);
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
    for (int i = 0; i < endpointCount(); ++i) {
        const EndpointFleet& fleet = endpointFleet(i);
        if (fleet.hasSnapshot()) out.append(EntityId{quint16(i), fleet.topology().topology().fleet_index()});
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

// --- racks -------------------------------------------------------------------------------------

int FleetStore::rackRow(EntityId rack) const {
    const EndpointFleet* fleet = fleetOf(rack);
    if (!fleet) return -1;
    const TopologyIndex::Entry* entry = fleet->topology().find(rack.index);
    if (!entry || entry->kind != v1::ENTITY_KIND_RACK) return -1;
    return m_rows.rackRow(rack.endpoint, entry->slot);
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

// --- values ------------------------------------------------------------------------------------

ReadingRules FleetStore::readingRules(int endpoint) const {
    return ReadingRules{endpointState(endpoint) == ConnectionState::Live, m_options.staleAfter};
}

Reading FleetStore::reading(EntityId id, v1::Metric metric) const {
    const EndpointFleet* fleet = fleetOf(id);
    return fleet ? readingOf(*fleet, id.index, metric, readingRules(id.endpoint)) : Reading{};
}

Reading FleetStore::gpuAggregate(EntityId nodeOrRack, v1::Metric metric, Aggregate how) const {
    std::vector<Reading> readings;
    auto addNode = [&](EntityId node) {
        if (const v1::Node* n = nodeInfo(node)) {
            for (std::uint32_t g : n->gpu_indexes()) readings.push_back(reading(EntityId{node.endpoint, g}, metric));
        }
    };
    if (const v1::Rack* rack = rackInfo(nodeOrRack)) {
        for (std::uint32_t n : rack->node_indexes()) addNode(EntityId{nodeOrRack.endpoint, n});
    } else {
        addNode(nodeOrRack);
    }
    return aggregate(readings, how);
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

// --- jobs --------------------------------------------------------------------------------------

const v1::Job* FleetStore::job(int row) const {
    if (row < 0 || row >= jobCount()) return nullptr;
    const EntityId id = jobAt(row);
    const EndpointFleet* fleet = fleetOf(id);
    const TopologyIndex::Entry* entry = fleet ? fleet->topology().find(id.index) : nullptr;
    if (!entry || entry->kind != v1::ENTITY_KIND_JOB || entry->slot >= fleet->jobCount()) return nullptr;
    return &fleet->job(entry->slot);
}

int FleetStore::jobRow(EntityId job) const { return m_rows.jobRow(job); }

// --- history and rankings ----------------------------------------------------------------------

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
    const EndpointFleet* fleet = fleetOf(id);
    return fleet ? chartPoints(points, fleet->history().breaks()) : QList<QPointF>{};
}

std::size_t FleetStore::approximateBytes() const {
    std::size_t total = m_events.bytes() + m_rows.bytes();
    for (const auto& fleet : m_fleets) total += fleet->bytes();
    return total;
}

}  // namespace watchfloor::client
