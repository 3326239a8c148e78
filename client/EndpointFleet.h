#pragma once
// Everything the console knows about one fleetd endpoint: its topology, latest values, entity
// states, jobs, fleet goodput and chart history, plus what changed since the last notification.
// FleetStore merges several of these into one fleet; this class knows nothing of the others.
//
// A snapshot is turned into a whole new EndpointFleet by fromSnapshot(), which touches nothing but
// its arguments and so runs on a worker thread (at 1,800 racks that is the topology index, the
// name index, every value column and the first history capture: hundreds of ms). The owner then
// swaps it in on its own thread and calls continueFrom() with the fleet it replaces.

#include "FleetStateKinds.h"
#include "HistoryRing.h"
#include "MetricCadence.h"
#include "MetricColumns.h"
#include "NameIndex.h"
#include "TopologyIndex.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::client {

// The state of one entity, compact (one per entity, 129,600 GPUs and more).
struct EntityStatus {
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_UNSPECIFIED;
    watchfloor::v1::NodeState nodeState = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    watchfloor::v1::RackState rackState = watchfloor::v1::RACK_STATE_UNSPECIFIED;
    watchfloor::v1::LinkState linkState = watchfloor::v1::LINK_STATE_UNSPECIFIED;
    std::int64_t sinceUnixMs = 0;
};

// A compute tray's lifecycle and lemon standing as fleetd last sent it (fleet.proto EntityState
// 41-48); kept only for trays where anything is set.
struct TrayLifecycleStatus {
    watchfloor::v1::TrayLifecycle state = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;  // = production
    std::string setBy;
    std::string reason;
    std::int64_t sinceUnixMs = 0;
    std::uint32_t recentFailures = 0;
    bool lemon = false;
    watchfloor::v1::TrayLifecycle proposed = watchfloor::v1::TRAY_LIFECYCLE_UNSPECIFIED;
    std::string proposalReason;
};

class EndpointFleet {
public:
    // What changed since takeChanges(); cleared by it.
    struct Changes {
        bool topologyChanged = false;
        bool jobsReset = false;
        bool fleetChanged = false;
        bool serverSecondTicked = false;
        bool sourcesChanged = false;
        bool incidentsChanged = false;
        bool repairsChanged = false;                // some repair case opened, took a step or closed
        bool linksChanged = false;                  // some link's health or the link summary changed
        bool telemetryChanged = false;              // some tray's telemetry health (EntityState.telemetry) changed
        std::vector<std::uint32_t> dirtyRackSlots;  // sorted
        std::vector<std::uint32_t> dirtyJobSlots;   // sorted
        std::uint32_t jobsAppended = 0;
    };

    // What a snapshot is compared with: the topology (and its name index) the endpoint shows now.
    // Immutable and shared, so it may be handed to another thread.
    struct Basis {
        std::shared_ptr<const watchfloor::v1::Topology> topology;  // null: no snapshot yet
        std::shared_ptr<const NameIndex> names;
    };

    // The last time the endpoint's fleetd started a new run (restarted) while the console watched.
    struct RunChange {
        std::int64_t serverTimeMs = 0;  // the new run's first snapshot
        // The chart history before it was dropped: the new run's clock did not continue the old
        // one (a twin starts its clock over), so old and new points would interleave. Otherwise
        // the history is kept with a break at the restart.
        bool historyCleared = false;
    };

    EndpointFleet(QString label, int historyCapacity);

    // A fleet built from `snapshot` (its topology is taken, not copied). If the topology equals
    // `basis.topology` the index and names are shared and the history is left for continueFrom()
    // to carry over. Returns null with a message when the topology is unusable. Thread-safe: reads
    // only its arguments. `endpoint` is the number the name index puts into its EntityIds.
    static std::unique_ptr<EndpointFleet> fromSnapshot(QString label, int historyCapacity, quint16 endpoint,
                                                       watchfloor::v1::Snapshot&& snapshot, const Basis& basis,
                                                       QString* error);
    // On the owner's thread, once this fleet replaces `previous`: keeps the chart history when the
    // topology is the same and event deduplication within one server run.
    void continueFrom(EndpointFleet& previous);
    Basis basis() const;
    void applyDelta(const watchfloor::v1::Delta& delta);
    void applyHeartbeat(const watchfloor::v1::Heartbeat& heartbeat);
    void applySampleBlock(const watchfloor::v1::SampleBlock& block);
    // True if the event is new for this server run (resync snapshots repeat recent events).
    bool acceptEvent(const watchfloor::v1::Event& event);

    Changes takeChanges();
    bool hasChanges() const;

    const QString& label() const { return m_label; }
    const TopologyIndex& topology() const { return m_topology; }
    // Topology names (not jobs), folded and sorted; empty before the first snapshot.
    const NameIndex& names() const { return *m_names; }
    bool hasSnapshot() const { return m_hasSnapshot; }
    std::int64_t serverTimeUnixMs() const { return m_serverTimeMs; }
    const std::string& runId() const { return m_runId; }
    const std::string& serverVersion() const { return m_serverVersion; }
    double simSpeed() const { return m_simSpeed; }
    const SourceCadence& sourceCadence() const { return m_sourceCadence; }
    // fleetd's telemetry sources (empty for the digital twin), in the order first reported.
    const std::vector<watchfloor::v1::SourceStatus>& sources() const { return m_sources; }

    const MetricColumn* column(watchfloor::v1::EntityKind kind, watchfloor::v1::Metric metric) const {
        return m_columns.find(kind, metric);
    }
    std::int64_t sampleTimeOf(const MetricColumn& column, std::uint32_t slot) const {
        return m_columns.timeOf(column.stamps[slot]);
    }
    EntityStatus status(std::uint32_t index) const {
        return index < m_states.size() ? m_states[index] : EntityStatus{};
    }
    std::string_view statusReason(std::uint32_t index) const;

    // Scraped trays (fleetd --source scrape): each tray's telemetry health as last sent, by node
    // index. Empty for the twin and a store, whose EntityStates carry none.
    const watchfloor::v1::TelemetryHealth* telemetry(std::uint32_t nodeIndex) const;
    const std::unordered_map<std::uint32_t, watchfloor::v1::TelemetryHealth>& telemetryByTray() const {
        return m_telemetry;
    }
    std::uint32_t silentTrays() const { return m_silentTrays; }
    // Who holds a tray out of service, as last sent (null: in service, or the source does not say).
    const watchfloor::v1::DrainOwner* drainOwner(std::uint32_t nodeIndex) const;
    const std::unordered_map<std::uint32_t, watchfloor::v1::DrainOwner>& drainOwners() const { return m_drainOwners; }
    // A tray's lifecycle and lemon standing (null: in production, nothing flagged or proposed).
    const TrayLifecycleStatus* trayLifecycle(std::uint32_t nodeIndex) const;
    const std::unordered_map<std::uint32_t, TrayLifecycleStatus>& trayLifecycles() const { return m_lifecycles; }
    // fleetd's automation and its breaker; null when fleetd sends none (operator actions off).
    const watchfloor::v1::AutomationStatus* automation() const { return m_hasAutomation ? &m_automation : nullptr; }
    // fleetd's pager (--alertmanager) and whether it gets through; null when fleetd pages nowhere.
    const watchfloor::v1::PagingStatus* paging() const { return m_hasPaging ? &m_paging : nullptr; }
    // True when `index` is a tray, or a GPU, CPU, NIC port or NVLink of a tray, whose telemetry is
    // silent: its values are the last ones read. O(1), and free while no tray is silent.
    bool inSilentTray(std::uint32_t index) const;

    std::uint32_t jobCount() const { return std::uint32_t(m_jobs.size()); }
    const watchfloor::v1::Job& job(std::uint32_t slot) const { return m_jobs[slot]; }
    const watchfloor::v1::FleetGoodput* fleetGoodput() const { return m_hasFleet ? &m_fleet : nullptr; }
    // fleetd's incidents by id: every open one and the newest resolved ones, as fleetd holds them
    // (FleetStateKinds.h).
    const std::map<std::uint64_t, watchfloor::v1::Incident>& incidents() const {
        return m_held.of<fleetstate::Incidents>().byKey();
    }
    std::uint32_t openIncidentCount() const;
    // fleetd's maintenance windows, scheduled and active, by id.
    const std::map<std::string, watchfloor::v1::MaintenanceWindow>& maintenanceWindows() const {
        return m_held.of<fleetstate::MaintenanceWindows>().byKey();
    }
    // The active window that covers the whole rack (rack, row or hall scope), or null; a node
    // window covers only its tray (nodesInMaintenance).
    const watchfloor::v1::MaintenanceWindow* rackMaintenance(std::uint32_t rackIndex) const;
    int nodesInMaintenance(std::uint32_t rackIndex) const;
    // fleetd's newest shift handoffs (Snapshot/Delta handoffs), newest first (FleetStateKinds.h).
    std::vector<const watchfloor::v1::ShiftHandoff*> handoffs() const {
        return m_held.of<fleetstate::ShiftHandoffs>().newestFirst();
    }
    // fleetd's repair cases by id: every open one and the newest closed ones (FleetStateKinds.h).
    const std::map<std::uint64_t, watchfloor::v1::RepairCase>& repairCases() const {
        return m_held.of<fleetstate::RepairCases>().byKey();
    }
    // fleetd's listed rail links by NIC port index: at risk, above a line or on the ladder
    // (FleetStateKinds.h); a link not listed is Normal or not judged.
    const std::map<std::uint32_t, watchfloor::v1::LinkHealth>& linkHealth() const {
        return m_held.of<fleetstate::LinkHealths>().byKey();
    }
    // fleetd's link summary; null when fleetd judges no links.
    const watchfloor::v1::LinkHealthSummary* linkSummary() const { return m_hasLinkSummary ? &m_linkSummary : nullptr; }
    const HistoryRing& history() const { return m_history; }
    const std::optional<RunChange>& lastRunChange() const { return m_runChange; }

    std::uint64_t unknownEntitySamples() const { return m_unknownEntitySamples; }
    std::size_t bytes() const;

private:
    void loadSnapshotValues(const watchfloor::v1::Snapshot& snapshot);
    static std::shared_ptr<const NameIndex> buildNames(const TopologyIndex& topology, quint16 endpoint);
    void applyState(const watchfloor::v1::EntityState& state);
    void applyTelemetry(std::uint32_t nodeIndex, const watchfloor::v1::EntityState& state);
    void applyLifecycle(std::uint32_t nodeIndex, const watchfloor::v1::EntityState& state);
    void applyJob(const watchfloor::v1::Job& job, std::int64_t timeMs);
    void applyFleet(const watchfloor::v1::FleetGoodput& fleet);
    void applySource(const watchfloor::v1::SourceStatus& source);
    // What a change of each fleet-wide kind marks for the views.
    void heldChanged(fleetstate::Incidents);
    void heldChanged(fleetstate::MaintenanceWindows);
    void heldChanged(fleetstate::ShiftHandoffs);
    void heldChanged(fleetstate::RepairCases);
    void heldChanged(fleetstate::LinkHealths);
    void writeValue(watchfloor::v1::EntityKind kind, std::uint32_t slot, watchfloor::v1::Metric metric, double value,
                    std::int64_t timeMs);
    void advanceServerTime(std::int64_t serverTimeMs);
    void markAllDirty();
    std::size_t telemetryBytes() const;

    QString m_label;
    TopologyIndex m_topology;
    std::shared_ptr<const NameIndex> m_names = std::make_shared<const NameIndex>();
    bool m_sharesPreviousTopology = false;
    MetricColumns m_columns;
    HistoryRing m_history;
    std::vector<EntityStatus> m_states;
    std::unordered_map<std::uint32_t, std::string> m_reasons;
    std::unordered_map<std::uint32_t, watchfloor::v1::TelemetryHealth> m_telemetry;
    std::uint32_t m_silentTrays = 0;
    std::unordered_map<std::uint32_t, watchfloor::v1::DrainOwner> m_drainOwners;
    std::unordered_map<std::uint32_t, TrayLifecycleStatus> m_lifecycles;
    watchfloor::v1::AutomationStatus m_automation;
    bool m_hasAutomation = false;
    watchfloor::v1::PagingStatus m_paging;
    bool m_hasPaging = false;
    watchfloor::v1::LinkHealthSummary m_linkSummary;
    bool m_hasLinkSummary = false;
    std::vector<watchfloor::v1::Job> m_jobs;
    std::unordered_map<std::uint32_t, std::uint32_t> m_jobSlotByIndex;
    watchfloor::v1::FleetGoodput m_fleet;
    bool m_hasFleet = false;

    bool m_hasSnapshot = false;
    std::string m_runId;
    std::string m_serverVersion;
    double m_simSpeed = 1.0;
    SourceCadence m_sourceCadence;
    std::vector<watchfloor::v1::SourceStatus> m_sources;
    fleetstate::HeldState m_held;  // incidents, maintenance windows, handoffs
    std::int64_t m_serverTimeMs = 0;
    std::optional<RunChange> m_runChange;
    std::uint64_t m_maxEventId = 0;
    std::uint64_t m_unknownEntitySamples = 0;

    // Dirty tracking. m_dirtyRack has one extra slot that absorbs entities outside any rack,
    // so the hot loop marks without a branch.
    std::vector<std::uint8_t> m_dirtyRack;
    std::vector<std::uint8_t> m_dirtyJob;
    Changes m_changes;
};

// The endpoints' fleets in endpoint order (EntityId::endpoint indexes it): what FleetStore's
// parts read.
using EndpointFleets = std::vector<std::unique_ptr<EndpointFleet>>;

// The fleet `id` belongs to; null for an invalid id or an unknown endpoint.
inline const EndpointFleet* fleetOf(const EndpointFleets& fleets, EntityId id) {
    return id.isValid() && id.endpoint < fleets.size() ? fleets[id.endpoint].get() : nullptr;
}

}  // namespace watchfloor::client
