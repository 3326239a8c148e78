#pragma once
// The console's model of the fleet: one or more fleetd endpoints merged into one fleet.
//
// Lives on the GUI thread. Messages arrive in batches (from EndpointConnection, or from a
// RecordedStream in tests); applying a batch only writes flat arrays and marks what is dirty.
// Views learn about changes from ONE coalesced `changed(FleetChangeSet)` signal, at most every
// `notifyInterval` (~30 Hz).
//
// The GUI thread never does O(fleet) work for a connection's stream: a snapshot (at 1,800 racks:
// topology index, name index, every value column, first history capture — hundreds of ms) is
// built into a new EndpointFleet on the store's worker thread and swapped in whole; messages that
// arrive meanwhile wait and are applied after it, in slices of at most `applySlice` per event-loop
// turn. The replaced fleet is destroyed on the worker too. apply()/applyBatch() (recorded streams,
// tests) stay synchronous: the same build and swap, on the caller's thread.
//
// Entities are addressed by EntityId (endpoint, server index). Names are fleet-unique: a name
// that exists on several endpoints is shown qualified as "<endpoint label>/<name>".
//
// Freshness: every reading carries its age (server clock) and a Freshness. Missing = never
// reported; Blank = reported as NaN (DCGM blank); Stale = older than `staleAfter` (3 telemetry
// periods by default) or the endpoint is not Live; Silent = a value of a scraped tray whose
// telemetry fleetd reports silent (its exporter stopped answering or repeats itself).
//
// History: 15 min at one point per server second for fleet, region, rack, cooling-loop and job
// metrics (see HistoryRing). Per-GPU history is fetched from fleetd on demand.

#include "client/ConnectionState.h"
#include "client/EndpointFleet.h"
#include "client/EndpointNames.h"
#include "client/EntityId.h"
#include "client/FleetChangeSet.h"
#include "client/Freshness.h"
#include "client/HistoryRing.h"
#include "client/NameIndex.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QList>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <string_view>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace watchfloor::client {

class EndpointConnection;

// One event with where it came from. `serial` increases by one per stored event, fleet-wide.
struct StoredEvent {
    quint64 serial = 0;
    int endpoint = 0;
    watchfloor::v1::Event event;
};

// Fleet numbers merged over all endpoints.
struct FleetSummary {
    double goodputRatio = std::numeric_limits<double>::quiet_NaN();  // weighted by running-job GPUs
    double ettrSliding1hRatio = std::numeric_limits<double>::quiet_NaN();
    double mfuRatio = std::numeric_limits<double>::quiet_NaN();
    quint32 gpusTotal = 0;
    quint32 gpusHealthy = 0;
    quint32 gpusDegraded = 0;
    quint32 gpusDown = 0;
    quint32 activeIncidents = 0;
    quint32 interruptions = 0;
    int endpointsReporting = 0;  // endpoints that sent fleet numbers
    int endpointsLive = 0;
    int endpointsTotal = 0;
    // The ratios are over jobs with step telemetry only: a real site's job that publishes no step
    // progress has no goodput, and counting it as 0 % would drag the fleet down for nothing.
    int jobsActive = 0;     // running, checkpointing or recovering
    int jobsInGoodput = 0;  // of those, the ones with step telemetry
    // Jobs not finished that have no productive step yet (JobProgress.h). While every job with step
    // telemetry is starting the ratios are NaN and starting() is true: no value yet, not 0 %.
    int jobsStarting = 0;

    // How much of each merged number comes from endpoints that are not Live: their last values,
    // aging. An operator must see that "720 healthy" is half last-known.
    quint32 gpusTotalStale = 0;
    quint32 gpusHealthyStale = 0;
    quint32 gpusDegradedStale = 0;
    quint32 gpusDownStale = 0;
    quint32 activeIncidentsStale = 0;
    double ratioWeightStale = 0;  // share (0..1) of the ratios' weight from endpoints not Live

    bool allLive() const { return endpointsLive == endpointsTotal; }
    bool starting() const { return std::isnan(goodputRatio) && jobsStarting > 0; }
};

// A "worst X" answer: the entity, a sortable badness score (higher is worse) and why, in words.
struct RankedEntity {
    EntityId id;
    double score = 0;
    QString why;
};

class FleetStore : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetStore)

public:
    struct Options {
        std::chrono::milliseconds notifyInterval{33};
        std::chrono::milliseconds staleAfter{3000};  // 3 telemetry periods at 1 Hz, server clock
        int maxEvents = 10000;
        int historyPoints = 900;                     // 15 min at 1 Hz
        // Longest run of stream applying per event-loop turn on an attached connection's data.
        std::chrono::milliseconds applySlice{12};
    };

    explicit FleetStore(QObject* parent = nullptr);
    explicit FleetStore(Options options, QObject* parent = nullptr);
    ~FleetStore() override;

    // --- endpoints ------------------------------------------------------------------------
    // A data source without a connection (recorded streams, tests); state starts Live.
    int addEndpoint(const QString& label);
    // The same, described as a connection would be (target, and a label only if one was given):
    // tests of what a merged console calls its endpoints.
    int addEndpoint(const QString& label, EndpointIdentity identity);
    // Follows the connection: pulls its validated messages and mirrors its state. The connection
    // must outlive the store or be destroyed with it.
    int attach(EndpointConnection* connection);
    int endpointCount() const { return int(m_endpoints.size()); }
    QString endpointLabel(int endpoint) const;
    // A short name unique among the endpoints (EndpointNames.h): the label given, else the fleet's
    // name, else what tells its target apart. Qualifies names that exist on several endpoints.
    QString endpointDisplayName(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->shortName; }
    // "host:port" of an attached connection (empty for a data source without one).
    QString endpointTarget(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->identity.target; }
    // The endpoint's fleet name from its topology (empty before its first snapshot).
    QString endpointFleetName(int endpoint) const;
    ConnectionState endpointState(int endpoint) const;
    QString endpointStatus(int endpoint) const;
    void setEndpointState(int endpoint, ConnectionState state, const QString& statusText);
    const EndpointFleet& endpointFleet(int endpoint) const { return *m_endpoints[std::size_t(endpoint)]->fleet; }

    // --- ingest ---------------------------------------------------------------------------
    void applyBatch(int endpoint, std::span<const watchfloor::v1::SubscribeResponse> messages);
    void apply(int endpoint, const watchfloor::v1::SubscribeResponse& message);
    // Owning variants: a snapshot's topology is moved into the store instead of copied.
    void applyBatch(int endpoint, std::vector<watchfloor::v1::SubscribeResponse>&& messages);
    void apply(int endpoint, watchfloor::v1::SubscribeResponse&& message);
    // Emits pending changes now instead of waiting for the timer.
    void flushChanges();
    // Stream messages of an attached endpoint that wait to be applied, and whether a snapshot of
    // it is being built on the worker thread (both for tests and diagnostics).
    std::size_t queuedMessages(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->inbox.size(); }
    bool isPreparingSnapshot(int endpoint) const { return m_endpoints[std::size_t(endpoint)]->preparing; }
    // Queues messages of `endpoint` for the sliced, worker-assisted path attach() uses.
    void enqueue(int endpoint, std::vector<watchfloor::v1::SubscribeResponse>&& messages);
    // The last error applying data (e.g. an unusable topology), empty if none.
    QString lastError() const { return m_lastError; }

    // --- entities and navigation ----------------------------------------------------------
    QString name(EntityId id) const;
    // The name its fleetd gives it, never qualified (a rack tile's text: its band says which fleet).
    QString localName(EntityId id) const { return rawName(id); }
    watchfloor::v1::EntityKind kind(EntityId id) const;
    EntityId parent(EntityId id) const;
    QList<EntityId> children(EntityId id) const;   // fleet → regions → racks → nodes,… → GPUs → links
    QList<EntityId> fleetRoots() const;            // one fleet entity per endpoint
    EntityId rackOf(EntityId id) const;            // the rack an entity is in (itself for a rack)
    bool isWithin(EntityId id, EntityId ancestor) const;  // id == ancestor, or ancestor contains id
    EntityId findByName(const QString& name) const;      // exact, case-insensitive; invalid if unknown or ambiguous
    QList<EntityId> search(const QString& query, int limit = 20) const;
    // Proto details of topology entities; nullptr if `id` is not of that kind.
    const watchfloor::v1::Rack* rackInfo(EntityId id) const;
    const watchfloor::v1::Node* nodeInfo(EntityId id) const;
    const watchfloor::v1::Gpu* gpuInfo(EntityId id) const;
    const watchfloor::v1::CoolingLoop* coolingLoopInfo(EntityId id) const;

    // --- racks (global rows: endpoint order, then server order) --------------------------------
    int rackCount() const { return int(m_rackRows.size()); }
    EntityId rackAt(int row) const { return m_rackRows[std::size_t(row)]; }
    int rackRow(EntityId rack) const;
    QString regionNameOfRack(int row) const;
    // A rack-level metric: the rack's own value, or else its cooling loop's (DSX BMS points).
    Reading rackReading(int row, watchfloor::v1::Metric metric) const;

    // --- values and states ------------------------------------------------------------------
    Reading reading(EntityId id, watchfloor::v1::Metric metric) const;
    EntityStatus status(EntityId id) const;
    QString statusReason(EntityId id) const;
    // Max / sum / mean of a metric over the GPUs of a node or rack. The result is Stale if any
    // contributing value is; Blank or Missing only if no GPU has a value.
    enum class Aggregate { Max, Sum, Mean };
    Reading gpuAggregate(EntityId nodeOrRack, watchfloor::v1::Metric metric, Aggregate how) const;
    std::chrono::milliseconds staleAfter() const { return m_options.staleAfter; }

    // --- telemetry of scraped trays (fleetd --source scrape) ------------------------------------
    // The telemetry health of the tray `id` is or is part of (a node, its GPUs, CPUs, NIC ports,
    // NVLinks); nullptr when that tray is not scraped (the twin, a store) or `id` is in no tray.
    const watchfloor::v1::TelemetryHealth* trayTelemetry(EntityId id) const;
    bool isTraySilent(EntityId id) const;
    // The lifecycle and lemon standing of the tray `id` is (or is part of); null: production, nothing flagged.
    const TrayLifecycleStatus* trayLifecycle(EntityId id) const;
    // Trays of `rack` whose telemetry is silent.
    int silentTraysInRack(EntityId rack) const;

    // --- jobs ----------------------------------------------------------------------------------
    int jobCount() const { return int(m_jobRows.size()); }
    EntityId jobAt(int row) const { return m_jobRows[std::size_t(row)]; }
    const watchfloor::v1::Job* job(int row) const;
    int jobRow(EntityId job) const;

    // --- fleet ---------------------------------------------------------------------------------
    FleetSummary fleetSummary() const;
    // How much an endpoint's fleet ratios weigh in the merged fleet: the GPUs of its active jobs
    // with step telemetry that have made a productive step; 0 when there is no such job, since
    // fleetd's ratios then describe no job at all (or read 0 % for jobs that are only starting).
    double goodputWeight(int endpoint) const;

    // --- events (oldest first by serial; bounded) --------------------------------------------
    int eventCount() const { return int(m_events.size()); }
    quint64 firstEventSerial() const { return m_events.empty() ? m_nextEventSerial : m_events.front().serial; }
    quint64 nextEventSerial() const { return m_nextEventSerial; }
    const StoredEvent* eventBySerial(quint64 serial) const;
    // Forgets every stored event (announced as trimmed): a past view moving to another moment.
    void clearEvents();
    EntityId eventEntity(const StoredEvent& e) const { return EntityId{quint16(e.endpoint), e.event.entity_index()}; }

    // --- history -------------------------------------------------------------------------------
    void history(EntityId id, watchfloor::v1::Metric metric, std::vector<HistoryPoint>& out) const;
    // x = time in ms since the epoch (server clock), NaN points skipped; where fleetd restarted
    // (a new run) between two points, a point with y = NaN marks the break.
    QList<QPointF> historyPoints(EntityId id, watchfloor::v1::Metric metric) const;

    // --- "worst" queries for the pages ----------------------------------------------------------
    std::optional<RankedEntity> worstRack() const;
    std::vector<RankedEntity> worstRacks(int n) const;
    std::optional<RankedEntity> worstLink() const;
    std::optional<RankedEntity> biggestJob() const;

    // Heap bytes of the model (topology, values, states, history, events), an estimate.
    std::size_t approximateBytes() const;

signals:
    void changed(const watchfloor::client::FleetChangeSet& changes);

private:
    struct Endpoint {
        QString label;
        std::string foldedLabel;
        EndpointIdentity identity;
        QString shortName;             // see endpointDisplayName()
        std::string foldedShortName;
        std::unique_ptr<EndpointFleet> fleet;
        ConnectionState state = ConnectionState::Live;
        QString statusText;
        int rackRowOffset = 0;
        std::uint32_t knownJobs = 0;  // job slots already given a global row
        mutable NameIndex jobNames;   // small (jobs only); rebuilt on the GUI thread when jobs change
        mutable bool jobNamesDirty = true;
        std::deque<watchfloor::v1::SubscribeResponse> inbox;  // enqueued, not applied yet
        bool preparing = false;        // a snapshot is being built on the worker; the inbox waits
        bool drainScheduled = false;
    };
    struct PreparedSnapshot;
    // Everything building a snapshot needs, copied so a worker can use it.
    struct SnapshotInputs {
        QString label;
        int historyPoints = 0;
        quint16 endpoint = 0;
        EndpointFleet::Basis basis;
    };

    void applyUpdate(int endpoint, const watchfloor::v1::SubscribeResponse& message);
    void adoptSnapshot(int endpoint, PreparedSnapshot&& prepared);
    SnapshotInputs snapshotInputs(int endpoint) const;
    static PreparedSnapshot buildSnapshot(const SnapshotInputs& inputs, watchfloor::v1::Snapshot&& snapshot);
    PreparedSnapshot buildSnapshot(int endpoint, watchfloor::v1::Snapshot&& snapshot) const;
    void prepareOnWorker(int endpoint, watchfloor::v1::SubscribeResponse&& message);
    void drainInbox(int endpoint);
    void scheduleDrain(int endpoint);
    void disposeOnWorker(std::unique_ptr<EndpointFleet> fleet);
    const EndpointFleet* fleetOf(EntityId id) const;
    Reading readingFrom(const EndpointFleet& fleet, int endpoint, watchfloor::v1::EntityKind kind,
                        std::uint32_t slot, watchfloor::v1::Metric metric) const;
    void appendEvents(int endpoint, const google::protobuf::RepeatedPtrField<watchfloor::v1::Event>& events);
    // Recomputes the short names (after an endpoint or fleet name appears); a change renames
    // every qualified entity, so it is announced as a topology change.
    void refreshShortNames();
    void rebuildRackRows();
    void rebuildJobRows();
    void syncRowsAfterApply(int endpoint);
    QString rawName(EntityId id) const;
    const NameIndex& jobNames(int endpoint) const;
    bool nameExistsElsewhere(const std::string& folded, int endpoint) const;
    EntityId findExact(const std::string& folded) const;
    void scheduleNotify();
    RankedEntity rankRack(int row) const;

    Options m_options;
    std::vector<std::unique_ptr<Endpoint>> m_endpoints;
    std::vector<EntityId> m_rackRows;
    std::vector<EntityId> m_jobRows;
    std::unordered_map<std::uint64_t, int> m_jobRowByKey;
    std::deque<StoredEvent> m_events;
    quint64 m_nextEventSerial = 1;

    FleetChangeSet m_pending;
    QTimer m_notifyTimer;
    QString m_lastError;
    // One thread, FIFO: builds snapshots and destroys replaced fleets. The destructor waits for
    // its tasks before any member they touch goes away.
    QThreadPool m_worker;
};

}  // namespace watchfloor::client
