#include "EndpointFleet.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <limits>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

std::string deterministicBytes(const v1::Topology& topology) {
    std::string bytes;
    bytes.reserve(topology.ByteSizeLong());
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    topology.SerializeToCodedStream(&coded);
    coded.Trim();
    return bytes;
}

// Equal encodings mean equal topologies. At 1,800 racks this is ~10x faster than a reflective
// MessageDifferencer walk (which took ~850 ms); a false "different" only costs the chart history.
bool sameTopology(const v1::Topology& a, const v1::Topology& b) {
    if (a.racks_size() != b.racks_size() || a.nodes_size() != b.nodes_size() || a.gpus_size() != b.gpus_size() ||
        a.nvlinks_size() != b.nvlinks_size() || a.nic_ports_size() != b.nic_ports_size()) {
        return false;
    }
    return deterministicBytes(a) == deterministicBytes(b);
}

}  // namespace

EndpointFleet::EndpointFleet(QString label, int historyCapacity)
    : m_label(std::move(label)), m_history(historyCapacity), m_dirtyRack(1, 0) {}

std::unique_ptr<EndpointFleet> EndpointFleet::fromSnapshot(QString label, int historyCapacity, quint16 endpoint,
                                                           v1::Snapshot&& snapshot, const Basis& basis,
                                                           QString* error) {
    auto fleet = std::make_unique<EndpointFleet>(std::move(label), historyCapacity);
    v1::Topology incoming;
    incoming.Swap(snapshot.mutable_topology());
    std::string why;
    const auto unusable = [&] {
        if (error) {
            *error = QStringLiteral("fleetd %1 sent a topology the console cannot use: %2")
                         .arg(fleet->m_label, QString::fromStdString(why));
        }
        return nullptr;
    };
    if (basis.topology && sameTopology(*basis.topology, incoming)) {
        // A resync or restart of the same fleet: share the index inputs, keep the chart history.
        if (!fleet->m_topology.rebuild(basis.topology, &why)) return unusable();
        fleet->m_names = basis.names ? basis.names : buildNames(fleet->m_topology, endpoint);
        fleet->m_sharesPreviousTopology = true;
    } else {
        if (!fleet->m_topology.rebuild(std::move(incoming), &why)) return unusable();
        fleet->m_names = buildNames(fleet->m_topology, endpoint);
        fleet->m_changes.topologyChanged = true;
    }
    fleet->loadSnapshotValues(snapshot);
    if (!fleet->m_sharesPreviousTopology) {
        // The first capture allocates every history matrix (tens of MB at scale): here, not on
        // the owner's thread. With a shared topology continueFrom() captures into the kept ring.
        fleet->m_history.capture(fleet->m_serverTimeMs, fleet->m_columns);
    }
    return fleet;
}

std::shared_ptr<const NameIndex> EndpointFleet::buildNames(const TopologyIndex& topology, quint16 endpoint) {
    std::vector<NameIndex::Entry> entries;
    entries.reserve(topology.entries().size());
    for (std::uint32_t index = 0; index < topology.entries().size(); ++index) {
        const std::string_view name = topology.name(index);
        if (!name.empty()) entries.push_back({NameIndex::fold(name), EntityId{endpoint, index}});
    }
    auto names = std::make_shared<NameIndex>();
    names->rebuild(std::move(entries));
    return names;
}

void EndpointFleet::continueFrom(EndpointFleet& previous) {
    if (previous.m_hasSnapshot && previous.m_runId == m_runId) {
        m_maxEventId = previous.m_maxEventId;  // event ids restart with every fleetd run
    }
    m_unknownEntitySamples += previous.m_unknownEntitySamples;
    const bool newRun = previous.m_hasSnapshot && previous.m_runId != m_runId;
    m_runChange =
        newRun ? std::optional<RunChange>(RunChange{m_serverTimeMs, !m_sharesPreviousTopology}) : previous.m_runChange;
    if (m_sharesPreviousTopology) {
        m_history = std::move(previous.m_history);
        if (newRun && m_serverTimeMs <= m_history.lastCaptureMs()) {
            m_history.forget();
            m_runChange->historyCleared = true;
        } else if (newRun) {
            m_history.breakBeforeNextCapture();
        }
        m_history.capture(m_serverTimeMs, m_columns);
    }
}

EndpointFleet::Basis EndpointFleet::basis() const {
    if (!m_hasSnapshot) return {};
    return Basis{m_topology.sharedTopology(), m_names};
}

void EndpointFleet::loadSnapshotValues(const v1::Snapshot& snapshot) {
    m_dirtyRack.assign(std::size_t(m_topology.count(v1::ENTITY_KIND_RACK)) + 1, 0);
    m_states.assign(m_topology.entries().size(), EntityStatus{});
    m_telemetry.clear();
    m_lifecycles.clear();
    m_silentTrays = 0;
    m_runId = snapshot.run_id();
    m_serverVersion = snapshot.server_version();
    m_simSpeed = snapshot.sim_speed() > 0 ? snapshot.sim_speed() : 1.0;
    m_sourceCadence = SourceCadence::of(snapshot);
    m_sources.assign(snapshot.sources().begin(), snapshot.sources().end());
    m_changes.sourcesChanged = true;
    m_serverTimeMs = snapshot.server_time_unix_ms();
    m_hasSnapshot = true;

    for (const v1::SampleBlock& block : snapshot.samples()) {
        applySampleBlock(block);
    }
    for (const v1::EntityState& state : snapshot.states()) {
        applyState(state);
    }
    for (const v1::Job& job : snapshot.jobs()) {
        applyJob(job, snapshot.server_time_unix_ms());
    }
    if (snapshot.has_fleet()) {
        applyFleet(snapshot.fleet());
    }
    m_hasAutomation = snapshot.has_automation();
    m_automation = snapshot.automation();
    m_hasPaging = snapshot.has_paging();
    m_paging = snapshot.paging();
    m_hasLinkSummary = snapshot.has_link_summary();
    m_linkSummary = snapshot.link_summary();
    m_held.clear();
    fleetstate::StreamedKinds::forEach([&](auto kind) {
        using Kind = decltype(kind);
        for (const auto& record : Kind::of(snapshot)) m_held.of<Kind>().upsert(record);
        heldChanged(kind);
    });
    m_changes.jobsReset = true;
    m_changes.jobsAppended = 0;
    m_changes.serverSecondTicked = true;
    markAllDirty();
}

void EndpointFleet::applyDelta(const v1::Delta& delta) {
    for (const v1::SampleBlock& block : delta.samples()) {
        applySampleBlock(block);
    }
    for (const v1::EntityState& state : delta.states()) {
        applyState(state);
    }
    for (const v1::Job& job : delta.jobs()) {
        applyJob(job, delta.server_time_unix_ms());
    }
    if (delta.has_fleet()) {
        applyFleet(delta.fleet());
    }
    if (delta.has_automation()) {
        m_automation = delta.automation();
        m_hasAutomation = true;
        m_changes.fleetChanged = true;
    }
    if (delta.has_paging()) {
        m_paging = delta.paging();
        m_hasPaging = true;
        m_changes.fleetChanged = true;
    }
    if (delta.has_link_summary()) {
        m_linkSummary = delta.link_summary();
        m_hasLinkSummary = true;
        m_changes.linksChanged = true;
    }
    for (const v1::SourceStatus& source : delta.sources()) {
        applySource(source);
    }
    fleetstate::StreamedKinds::forEach([&](auto kind) {
        using Kind = decltype(kind);
        if (Kind::of(delta).empty()) return;
        for (const auto& record : Kind::of(delta)) m_held.of<Kind>().upsert(record);
        heldChanged(kind);
    });
    advanceServerTime(delta.server_time_unix_ms());
}

void EndpointFleet::applyHeartbeat(const v1::Heartbeat& heartbeat) {
    advanceServerTime(heartbeat.server_time_unix_ms());
}

void EndpointFleet::advanceServerTime(std::int64_t serverTimeMs) {
    if (serverTimeMs <= m_serverTimeMs) {
        return;
    }
    const bool newSecond = serverTimeMs / 1000 != m_serverTimeMs / 1000;
    m_serverTimeMs = serverTimeMs;
    if (newSecond) {
        m_changes.serverSecondTicked = true;
        if (m_history.size() == 0 || serverTimeMs / 1000 > m_history.lastCaptureMs() / 1000) {
            m_history.capture(serverTimeMs, m_columns);
        }
    }
}

void EndpointFleet::applySampleBlock(const v1::SampleBlock& block) {
    const int n = std::min(block.entity_indexes_size(), block.values_size());
    const std::uint32_t* indexes = block.entity_indexes().data();
    const float* values = block.values().data();
    const std::uint32_t stamp = m_columns.stampFor(block.sample_time_unix_ms());
    const v1::Metric metric = block.metric();
    const auto& entries = m_topology.entries();
    const std::size_t entryCount = entries.size();
    std::uint8_t* dirtyRack = m_dirtyRack.data();
    const std::uint32_t noRackSlot = std::uint32_t(m_dirtyRack.size() - 1);

    MetricColumn* column = nullptr;
    std::uint8_t columnKind = v1::ENTITY_KIND_UNSPECIFIED;
    float* columnValues = nullptr;
    std::uint32_t* columnStamps = nullptr;
    std::size_t columnSize = 0;
    bool touchedJobs = false;
    bool touchedFleet = false;

    for (int i = 0; i < n; ++i) {
        const std::uint32_t index = indexes[i];
        if (index >= entryCount || entries[index].kind == v1::ENTITY_KIND_UNSPECIFIED) [[unlikely]] {
            ++m_unknownEntitySamples;
            continue;
        }
        const TopologyIndex::Entry& entry = entries[index];
        if (entry.kind != columnKind || entry.slot >= columnSize) [[unlikely]] {
            // Blocks are per metric, normally of one kind: this runs once per block.
            columnKind = entry.kind;
            const auto kind = v1::EntityKind(columnKind);
            column = &m_columns.obtain(kind, metric, m_topology.count(kind));
            columnValues = column->values.data();
            columnStamps = column->stamps.data();
            columnSize = column->values.size();
            touchedJobs |= kind == v1::ENTITY_KIND_JOB;
            touchedFleet |= kind == v1::ENTITY_KIND_FLEET;
            if (entry.slot >= columnSize) {
                continue;  // a job index the store has no Job message for yet
            }
        }
        columnValues[entry.slot] = values[i];
        columnStamps[entry.slot] = stamp;
        dirtyRack[std::min(entry.rackSlot, noRackSlot)] = 1;
    }
    if (touchedJobs) {
        for (int i = 0; i < n; ++i) {
            const auto* entry = m_topology.find(indexes[i]);
            if (entry && entry->kind == v1::ENTITY_KIND_JOB && entry->slot < m_dirtyJob.size()) {
                m_dirtyJob[entry->slot] = 1;
            }
        }
    }
    m_changes.fleetChanged |= touchedFleet;
}

void EndpointFleet::writeValue(v1::EntityKind kind, std::uint32_t slot, v1::Metric metric, double value,
                               std::int64_t timeMs) {
    MetricColumn& column = m_columns.obtain(kind, metric, std::max<std::size_t>(m_topology.count(kind), slot + 1));
    column.values[slot] = float(value);
    column.stamps[slot] = m_columns.stampFor(timeMs);
}

void EndpointFleet::applyState(const v1::EntityState& state) {
    const TopologyIndex::Entry* entry = m_topology.find(state.entity_index());
    if (!entry) {
        return;
    }
    if (state.entity_index() >= m_states.size()) {
        m_states.resize(std::size_t(state.entity_index()) + 1);
    }
    EntityStatus& s = m_states[state.entity_index()];
    s.health = state.health();
    s.nodeState = state.node_state();
    s.rackState = state.rack_state();
    s.linkState = state.link_state();
    s.sinceUnixMs = state.since_unix_ms();
    if (state.reason().empty()) {
        m_reasons.erase(state.entity_index());
    } else {
        m_reasons[state.entity_index()] = state.reason();
    }
    if (entry->kind == v1::ENTITY_KIND_NODE) {
        applyTelemetry(state.entity_index(), state);
        // Whole states each time: a tray without an owner is back in service.
        if (state.has_drain_owner())
            m_drainOwners[state.entity_index()] = state.drain_owner();
        else
            m_drainOwners.erase(state.entity_index());
        applyLifecycle(state.entity_index(), state);
    }
    m_dirtyRack[std::min<std::size_t>(entry->rackSlot, m_dirtyRack.size() - 1)] = 1;
    if (entry->kind == v1::ENTITY_KIND_FLEET || entry->kind == v1::ENTITY_KIND_REGION) {
        m_changes.fleetChanged = true;
    }
}

// fleetd sends a tray's whole EntityState every time: one without telemetry means the tray is no
// longer scraped (or never was), so its old telemetry goes.
void EndpointFleet::applyTelemetry(std::uint32_t nodeIndex, const v1::EntityState& state) {
    const auto it = m_telemetry.find(nodeIndex);
    const bool wasSilent = it != m_telemetry.end() && it->second.state() == v1::TELEMETRY_STATE_SILENT;
    if (!state.has_telemetry()) {
        if (it == m_telemetry.end()) return;
        m_telemetry.erase(it);
    } else if (it == m_telemetry.end()) {
        m_telemetry.emplace(nodeIndex, state.telemetry());
    } else {
        it->second = state.telemetry();
    }
    const bool silent = state.has_telemetry() && state.telemetry().state() == v1::TELEMETRY_STATE_SILENT;
    if (silent != wasSilent) m_silentTrays = silent ? m_silentTrays + 1 : m_silentTrays - 1;
    m_changes.telemetryChanged = true;
}

void EndpointFleet::applyLifecycle(std::uint32_t nodeIndex, const v1::EntityState& state) {
    const bool anything = state.lifecycle() != v1::TRAY_LIFECYCLE_UNSPECIFIED || state.lemon() ||
                          state.recent_failures() > 0 || state.proposed_lifecycle() != v1::TRAY_LIFECYCLE_UNSPECIFIED;
    if (!anything) {
        m_lifecycles.erase(nodeIndex);
        return;
    }
    m_lifecycles[nodeIndex] = {state.lifecycle(),          state.lifecycle_set_by(),
                               state.lifecycle_reason(),   state.lifecycle_since_unix_ms(),
                               state.recent_failures(),    state.lemon(),
                               state.proposed_lifecycle(), state.proposal_reason()};
}

const TrayLifecycleStatus* EndpointFleet::trayLifecycle(std::uint32_t nodeIndex) const {
    const auto it = m_lifecycles.find(nodeIndex);
    return it == m_lifecycles.end() ? nullptr : &it->second;
}

const v1::DrainOwner* EndpointFleet::drainOwner(std::uint32_t nodeIndex) const {
    const auto it = m_drainOwners.find(nodeIndex);
    return it == m_drainOwners.end() ? nullptr : &it->second;
}

const v1::TelemetryHealth* EndpointFleet::telemetry(std::uint32_t nodeIndex) const {
    const auto it = m_telemetry.find(nodeIndex);
    return it == m_telemetry.end() ? nullptr : &it->second;
}

bool EndpointFleet::inSilentTray(std::uint32_t index) const {
    if (m_silentTrays == 0) return false;
    const std::uint32_t tray = m_topology.trayOf(index);
    if (tray == TopologyIndex::kNone) return false;
    const v1::TelemetryHealth* t = telemetry(tray);
    return t && t->state() == v1::TELEMETRY_STATE_SILENT;
}

std::string_view EndpointFleet::statusReason(std::uint32_t index) const {
    const auto it = m_reasons.find(index);
    return it == m_reasons.end() ? std::string_view{} : std::string_view(it->second);
}

void EndpointFleet::applyJob(const v1::Job& job, std::int64_t timeMs) {
    auto [it, inserted] = m_jobSlotByIndex.try_emplace(job.index(), std::uint32_t(m_jobs.size()));
    const std::uint32_t slot = it->second;
    if (inserted) {
        m_jobs.push_back(job);
        m_dirtyJob.push_back(1);
        m_topology.addJob(job.index(), slot);
        ++m_changes.jobsAppended;
    } else {
        m_jobs[slot] = job;
        m_dirtyJob[slot] = 1;
    }
    // Job numbers also go into metric columns so charts and freshness treat them like any metric.
    if (job.no_step_telemetry()) {
        // fleetd computed none of them (its zeros are not readings): blank, so no chart, lens or
        // table draws a 0 % goodput, and the job's other fields still count as current.
        constexpr double kNotComputed = std::numeric_limits<double>::quiet_NaN();
        for (v1::Metric metric : {v1::JOB_GOODPUT_RATIO, v1::JOB_ETTR_SLIDING_1H_RATIO, v1::JOB_MFU_RATIO,
                                  v1::JOB_STEP_TIME_S, v1::JOB_CHECKPOINT_AGE_S}) {
            writeValue(v1::ENTITY_KIND_JOB, slot, metric, kNotComputed, timeMs);
        }
        return;
    }
    writeValue(v1::ENTITY_KIND_JOB, slot, v1::JOB_GOODPUT_RATIO, job.goodput_ratio(), timeMs);
    writeValue(v1::ENTITY_KIND_JOB, slot, v1::JOB_ETTR_SLIDING_1H_RATIO, job.ettr_sliding_1h_ratio(), timeMs);
    writeValue(v1::ENTITY_KIND_JOB, slot, v1::JOB_MFU_RATIO, job.mfu_ratio(), timeMs);
    writeValue(v1::ENTITY_KIND_JOB, slot, v1::JOB_STEP_TIME_S, job.step_time_s(), timeMs);
    if (job.last_checkpoint_unix_ms() > 0 && timeMs >= job.last_checkpoint_unix_ms()) {
        writeValue(v1::ENTITY_KIND_JOB, slot, v1::JOB_CHECKPOINT_AGE_S,
                   double(timeMs - job.last_checkpoint_unix_ms()) / 1000.0, timeMs);
    }
}

void EndpointFleet::applyFleet(const v1::FleetGoodput& fleet) {
    m_fleet = fleet;
    m_hasFleet = true;
    m_changes.fleetChanged = true;
    const std::int64_t t = fleet.time_unix_ms() > 0 ? fleet.time_unix_ms() : m_serverTimeMs;
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_GOODPUT_RATIO, fleet.goodput_ratio(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_ETTR_SLIDING_1H_RATIO, fleet.ettr_sliding_1h_ratio(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_MFU_RATIO, fleet.mfu_ratio(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_GPUS_HEALTHY, fleet.gpus_healthy(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_GPUS_DEGRADED, fleet.gpus_degraded(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_GPUS_DOWN, fleet.gpus_down(), t);
    writeValue(v1::ENTITY_KIND_FLEET, 0, v1::FLEET_ACTIVE_INCIDENTS, fleet.active_incidents(), t);
}

void EndpointFleet::applySource(const v1::SourceStatus& source) {
    // A delta carries whole statuses keyed by name: replace, or append a source seen first now.
    const auto same = std::find_if(m_sources.begin(), m_sources.end(),
                                   [&](const v1::SourceStatus& s) { return s.name() == source.name(); });
    if (same != m_sources.end()) {
        *same = source;
    } else {
        m_sources.push_back(source);
    }
    m_sourceCadence.learnDeliveryLag(m_sources);
    m_changes.sourcesChanged = true;
}

void EndpointFleet::heldChanged(fleetstate::Incidents) {
    m_changes.incidentsChanged = true;
    m_changes.fleetChanged = true;  // the fleet's open-incident count is this list's
}

void EndpointFleet::heldChanged(fleetstate::MaintenanceWindows) {
    markAllDirty();  // the rack map tints what it covers; windows change a few times a day
}

void EndpointFleet::heldChanged(fleetstate::ShiftHandoffs) {
    m_changes.fleetChanged = true;  // the handoff banner follows fleet changes
}

void EndpointFleet::heldChanged(fleetstate::LinkHealths) {
    m_changes.linksChanged = true;  // the Links page's at-risk list and the rack map's marks follow this
}

void EndpointFleet::heldChanged(fleetstate::RepairCases) {
    m_changes.fleetChanged = true;    // the Fleet page's repair numbers and the Repairs view follow fleet changes
    m_changes.repairsChanged = true;  // the cases' own views rebuild on this, not on every fleet change
}

const v1::MaintenanceWindow* EndpointFleet::rackMaintenance(std::uint32_t rackIndex) const {
    for (const auto& [id, window] : maintenanceWindows()) {
        if (window.state() != v1::MAINTENANCE_STATE_ACTIVE || window.scope() == v1::MAINTENANCE_SCOPE_NODE) continue;
        if (std::find(window.rack_indexes().begin(), window.rack_indexes().end(), rackIndex) !=
            window.rack_indexes().end())
            return &window;
    }
    return nullptr;
}

int EndpointFleet::nodesInMaintenance(std::uint32_t rackIndex) const {
    int nodes = 0;
    for (const auto& [id, window] : maintenanceWindows())
        if (window.state() == v1::MAINTENANCE_STATE_ACTIVE && window.scope() == v1::MAINTENANCE_SCOPE_NODE &&
            window.rack_indexes_size() > 0 && window.rack_indexes(0) == rackIndex)
            nodes += window.node_indexes_size();
    return nodes;
}

std::uint32_t EndpointFleet::openIncidentCount() const {
    return std::uint32_t(m_held.of<fleetstate::Incidents>().live());
}

bool EndpointFleet::acceptEvent(const v1::Event& event) {
    if (event.id() == 0) {
        return true;
    }
    if (event.id() <= m_maxEventId) {
        return false;
    }
    m_maxEventId = event.id();
    return true;
}

void EndpointFleet::markAllDirty() {
    std::fill(m_dirtyRack.begin(), m_dirtyRack.end(), 1);
    m_dirtyJob.assign(m_jobs.size(), 1);
    m_changes.fleetChanged = true;
}

bool EndpointFleet::hasChanges() const {
    if (m_changes.topologyChanged || m_changes.jobsReset || m_changes.fleetChanged || m_changes.serverSecondTicked ||
        m_changes.sourcesChanged || m_changes.incidentsChanged || m_changes.repairsChanged || m_changes.linksChanged ||
        m_changes.telemetryChanged || m_changes.jobsAppended > 0) {
        return true;
    }
    return std::find(m_dirtyRack.begin(), m_dirtyRack.end() - 1, 1) != m_dirtyRack.end() - 1 ||
           std::find(m_dirtyJob.begin(), m_dirtyJob.end(), 1) != m_dirtyJob.end();
}

EndpointFleet::Changes EndpointFleet::takeChanges() {
    Changes out = std::move(m_changes);
    m_changes = Changes{};
    out.dirtyRackSlots.clear();
    for (std::size_t slot = 0; slot + 1 < m_dirtyRack.size(); ++slot) {
        if (m_dirtyRack[slot]) out.dirtyRackSlots.push_back(std::uint32_t(slot));
    }
    std::fill(m_dirtyRack.begin(), m_dirtyRack.end(), 0);
    for (std::size_t slot = 0; slot < m_dirtyJob.size(); ++slot) {
        if (m_dirtyJob[slot]) out.dirtyJobSlots.push_back(std::uint32_t(slot));
    }
    std::fill(m_dirtyJob.begin(), m_dirtyJob.end(), 0);
    return out;
}

std::size_t EndpointFleet::telemetryBytes() const {
    std::size_t bytes = m_telemetry.bucket_count() * sizeof(void*);
    for (const auto& [node, health] : m_telemetry) bytes += sizeof(node) + std::size_t(health.SpaceUsedLong());
    return bytes;
}

std::size_t EndpointFleet::bytes() const {
    return std::size_t(m_topology.topology().SpaceUsedLong()) +
           m_topology.entries().capacity() * sizeof(TopologyIndex::Entry) + m_columns.bytes() + m_history.bytes() +
           m_states.capacity() * sizeof(EntityStatus) + m_names->bytes() + telemetryBytes();
}

}  // namespace watchfloor::client
