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
//
// This class is the façade the pages use; the work is in parts with their own state and tests:
// FleetIngest (queues, worker-built snapshots, slices), EndpointFleet (one endpoint's state: what a
// Snapshot or Delta sets), FleetRows (global rack and job rows), FleetNames (names across
// endpoints), FleetReadings (value → Reading with freshness; aggregates), EventLog (bounded events),
// HistoryRing (chart history), FleetRankings ("worst" answers), FleetGoodputMerge (fleet numbers).

#include "ConnectionState.h"
#include "EndpointFleet.h"
#include "EndpointNames.h"
#include "EntityId.h"
#include "EventLog.h"
#include "FleetChangeSet.h"
#include "FleetIngest.h"
#include "FleetNames.h"
#include "FleetReadings.h"
#include "FleetRows.h"
#include "Freshness.h"
#include "HistoryRing.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QList>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace watchfloor::client {

class EndpointConnection;

class FleetStore : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetStore)

public:
    struct Options {
        std::chrono::milliseconds notifyInterval{33};
        std::chrono::milliseconds staleAfter{3000};  // 3 telemetry periods at 1 Hz, server clock
        int maxEvents = 10000;
        int historyPoints = 900;  // 15 min at 1 Hz
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
    int endpointCount() const { return int(m_fleets.size()); }
    QString endpointLabel(int endpoint) const;
    // A short name unique among the endpoints (EndpointNames.h): the label given, else the fleet's
    // name, else what tells its target apart. Qualifies names that exist on several endpoints.
    QString endpointDisplayName(int endpoint) const { return m_names.shortName(endpoint); }
    // "host:port" of an attached connection (empty for a data source without one).
    QString endpointTarget(int endpoint) const { return m_endpoints[std::size_t(endpoint)].identity.target; }
    // The endpoint's fleet name from its topology (empty before its first snapshot).
    QString endpointFleetName(int endpoint) const;
    ConnectionState endpointState(int endpoint) const;
    QString endpointStatus(int endpoint) const;
    void setEndpointState(int endpoint, ConnectionState state, const QString& statusText);
    const EndpointFleet& endpointFleet(int endpoint) const { return *m_fleets[std::size_t(endpoint)]; }

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
    std::size_t queuedMessages(int endpoint) const { return m_ingest.queued(endpoint); }
    bool isPreparingSnapshot(int endpoint) const { return m_ingest.isPreparing(endpoint); }
    // Queues messages of `endpoint` for the sliced, worker-assisted path attach() uses.
    void enqueue(int endpoint, std::vector<watchfloor::v1::SubscribeResponse>&& messages);
    // The last error applying data (e.g. an unusable topology), empty if none.
    QString lastError() const { return m_lastError; }

    // --- entities and navigation ----------------------------------------------------------
    QString name(EntityId id) const;
    // The name its fleetd gives it, never qualified (a rack tile's text: its band says which fleet).
    QString localName(EntityId id) const { return FleetNames::localName(m_fleets, id); }
    watchfloor::v1::EntityKind kind(EntityId id) const;
    EntityId parent(EntityId id) const;
    QList<EntityId> children(EntityId id) const;  // fleet → regions → racks → nodes,… → GPUs → links
    QList<EntityId> fleetRoots() const;           // one fleet entity per endpoint
    EntityId rackOf(EntityId id) const;           // the rack an entity is in (itself for a rack)
    bool isWithin(EntityId id, EntityId ancestor) const;  // id == ancestor, or ancestor contains id
    EntityId findByName(const QString& name) const;       // exact, case-insensitive; invalid if unknown or ambiguous
    QList<EntityId> search(const QString& query, int limit = 20) const;
    // Proto details of topology entities; nullptr if `id` is not of that kind.
    const watchfloor::v1::Rack* rackInfo(EntityId id) const;
    const watchfloor::v1::Node* nodeInfo(EntityId id) const;
    const watchfloor::v1::Gpu* gpuInfo(EntityId id) const;
    const watchfloor::v1::CoolingLoop* coolingLoopInfo(EntityId id) const;

    // --- racks (global rows: endpoint order, then server order) --------------------------------
    int rackCount() const { return m_rows.rackCount(); }
    EntityId rackAt(int row) const { return m_rows.rackAt(row); }
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
    using Aggregate = ReadingAggregate;
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
    int jobCount() const { return m_rows.jobCount(); }
    EntityId jobAt(int row) const { return m_rows.jobAt(row); }
    const watchfloor::v1::Job* job(int row) const;
    int jobRow(EntityId job) const;

    // --- events (oldest first by serial; bounded) --------------------------------------------
    int eventCount() const { return m_events.size(); }
    quint64 firstEventSerial() const { return m_events.firstSerial(); }
    quint64 nextEventSerial() const { return m_events.nextSerial(); }
    const StoredEvent* eventBySerial(quint64 serial) const { return m_events.bySerial(serial); }
    const EventLog& eventLog() const { return m_events; }
    // Forgets every stored event (announced as trimmed): a past view moving to another moment.
    void clearEvents();
    EntityId eventEntity(const StoredEvent& e) const { return EntityId{quint16(e.endpoint), e.event.entity_index()}; }

    // --- history -------------------------------------------------------------------------------
    void history(EntityId id, watchfloor::v1::Metric metric, std::vector<HistoryPoint>& out) const;
    // x = time in ms since the epoch (server clock), NaN points skipped; where fleetd restarted
    // (a new run) between two points, a point with y = NaN marks the break.
    QList<QPointF> historyPoints(EntityId id, watchfloor::v1::Metric metric) const;

    // Heap bytes of the model (topology, values, states, history, events), an estimate.
    std::size_t approximateBytes() const;

signals:
    void changed(const watchfloor::client::FleetChangeSet& changes);

private:
    // An endpoint as the store knows it besides its fleet: what it is called and how it is connected.
    struct Endpoint {
        QString label;
        EndpointIdentity identity;
        ConnectionState state = ConnectionState::Live;
        QString statusText;
    };

    // FleetIngest's sink: what a message does to the store.
    SnapshotInputs snapshotInputs(int endpoint) const;
    void adoptSnapshot(int endpoint, PreparedSnapshot&& prepared);
    void applyUpdate(int endpoint, const watchfloor::v1::SubscribeResponse& message);
    void appendEvents(int endpoint, const google::protobuf::RepeatedPtrField<watchfloor::v1::Event>& events);
    // Keeps the global rows in step after a message was applied to `endpoint`, and announces it.
    void syncRows(int endpoint);
    void announceJobsReset();
    // Recomputes the short names (after an endpoint or fleet name appears); a change renames
    // every qualified entity, so it is announced as a topology change.
    void refreshShortNames();
    void markEndpointChanged(int endpoint);
    void scheduleNotify();
    const EndpointFleet* fleetOf(EntityId id) const { return client::fleetOf(m_fleets, id); }
    ReadingRules readingRules(int endpoint) const;

    Options m_options;
    EndpointFleets m_fleets;            // by endpoint
    std::vector<Endpoint> m_endpoints;  // by endpoint
    FleetRows m_rows;
    FleetNames m_names;
    EventLog m_events;

    FleetChangeSet m_pending;
    QTimer m_notifyTimer;
    QString m_lastError;
    // Last: destroyed first, it waits for its worker before anything the worker's results touch goes away.
    FleetIngest m_ingest;
};

}  // namespace watchfloor::client
