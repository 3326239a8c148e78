// Scraped trays' telemetry health in the console's store (fleetd --source scrape): a silent tray's
// readings read Freshness::Silent (apart from stale, blank and fresh), the state arrives in
// snapshots and deltas and goes when fleetd stops sending it, racks count their silent trays, the
// sources overview counts silent hosts and calls an endpoint whose scrape source hears no tray
// blind, and the models (node table, scrape targets) show it.
#include "FleetRankings.h"
#include "FleetStore.h"
#include "ModelRoles.h"
#include "NodeTableModel.h"
#include "ScrapeTargetModel.h"
#include "SourceHealth.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QSignalSpy>
#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;
constexpr int kRacks = 2;
constexpr int kTrays = kRacks * SyntheticFleet::kNodesPerRack;

SyntheticFleet smallFleet() {
    SyntheticFleetSpec spec;
    spec.racks = kRacks;
    return SyntheticFleet(spec);
}

v1::ScrapeTarget target(const std::string& exporter, v1::TargetHealth health, std::int64_t lastSuccessMs,
                        const std::string& error = {}) {
    v1::ScrapeTarget t;
    t.set_exporter(exporter);
    t.set_url("http://host:9400/metrics");
    t.set_health(health);
    t.set_since_unix_ms(kT0 - 30'000);
    t.set_last_success_unix_ms(lastSuccessMs);
    t.set_scrape_duration_s(0.012);
    t.set_last_error(error);
    t.set_series(health == v1::TARGET_HEALTH_UP ? 120 : 0);
    t.set_rejected_lines(2);
    return t;
}

// A tray's EntityState as ScrapeHealth sends it: only the index and the telemetry.
v1::EntityState trayState(std::uint32_t node, v1::TelemetryState state) {
    v1::EntityState s;
    s.set_entity_index(node);
    v1::TelemetryHealth& t = *s.mutable_telemetry();
    t.set_state(state);
    t.set_since_unix_ms(kT0);
    const bool silent = state == v1::TELEMETRY_STATE_SILENT;
    if (silent) t.set_reason("dcgm-exporter: connection refused");
    *t.add_targets() = silent ? target("dcgm-exporter", v1::TARGET_HEALTH_DOWN, kT0 - 20'000, "connection refused")
                              : target("dcgm-exporter", v1::TARGET_HEALTH_UP, kT0);
    *t.add_targets() = target("node_exporter", v1::TARGET_HEALTH_UP, kT0);
    return s;
}

v1::SourceStatus scrapeSource(v1::SourceHealth health, std::uint32_t hostsSilent) {
    v1::SourceStatus s;
    s.set_name("scrape");
    s.set_kind("scrape");
    s.set_health(health);
    s.set_last_good_poll_unix_ms(kT0);
    s.set_last_poll_unix_ms(kT0);
    s.set_targets(2 * kTrays);
    s.set_targets_up(2 * kTrays - hostsSilent);
    s.set_targets_down(hostsSilent);
    s.set_hosts_silent(hostsSilent);
    if (hostsSilent)
        s.set_last_error(std::to_string(hostsSilent) + " of " + std::to_string(2 * kTrays) + " targets not up");
    return s;
}

// A scraped fleet: every tray live, the scrape source up.
v1::SubscribeResponse scrapedSnapshot(const SyntheticFleet& fleet) {
    v1::SubscribeResponse m = fleet.snapshot(1, kT0);
    for (int r = 0; r < kRacks; ++r)
        for (int n = 0; n < SyntheticFleet::kNodesPerRack; ++n)
            *m.mutable_snapshot()->add_states() = trayState(fleet.nodeIndex(r, n), v1::TELEMETRY_STATE_LIVE);
    *m.mutable_snapshot()->add_sources() = scrapeSource(v1::SOURCE_HEALTH_UP, 0);
    return m;
}

v1::SubscribeResponse stateDelta(std::uint64_t sequence, std::int64_t serverMs, std::vector<v1::EntityState> states,
                                 std::vector<v1::SourceStatus> sources = {}) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(serverMs);
    for (auto& s : states) *m.mutable_delta()->add_states() = std::move(s);
    for (auto& s : sources) *m.mutable_delta()->add_sources() = std::move(s);
    return m;
}
}  // namespace

class TestTrayTelemetry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<FleetChangeSet>(); }

    void silentTrayReadsSilentNotStaleOrFailed() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, scrapedSnapshot(fleet));
        const EntityId silentNode{quint16(ep), fleet.nodeIndex(1, 3)};
        const EntityId silentGpu{quint16(ep), fleet.gpuIndex(1, 3, 2)};
        const EntityId liveGpu{quint16(ep), fleet.gpuIndex(1, 4, 0)};
        QCOMPARE(store.reading(silentGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        QVERIFY(!store.isTraySilent(silentNode));
        QCOMPARE(store.trayTelemetry(silentGpu)->state(), v1::TELEMETRY_STATE_LIVE);

        store.flushChanges();
        QSignalSpy spy(&store, &FleetStore::changed);
        store.apply(ep, stateDelta(2, kT0 + 500, {trayState(silentNode.index, v1::TELEMETRY_STATE_SILENT)}));
        store.flushChanges();
        QCOMPARE(spy.count(), 1);
        const FleetChangeSet c = spy.last().at(0).value<FleetChangeSet>();
        QVERIFY(c.telemetryChanged);
        QCOMPARE(c.dirtyRackRows, std::vector<int>{1});

        // Values of the tray and its GPUs keep their number but read silent, even while young.
        const Reading gpu = store.reading(silentGpu, v1::DCGM_FI_DEV_GPU_TEMP);
        QCOMPARE(gpu.freshness, Freshness::Silent);
        QVERIFY(gpu.hasValue());
        QCOMPARE(gpu.value, SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, silentGpu.index, kT0));
        QCOMPARE(store.gpuAggregate(silentNode, v1::DCGM_FI_DEV_POWER_USAGE, FleetStore::Aggregate::Sum).freshness,
                 Freshness::Silent);
        // Neighbours and the rack's own values are not touched; the rack's aggregate over its GPUs
        // is as trusted as its least trusted GPU.
        QCOMPARE(store.reading(liveGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        QCOMPARE(store.rackReading(1, v1::RACK_POWER_KW).freshness, Freshness::Fresh);
        QCOMPARE(store.gpuAggregate(store.rackAt(1), v1::DCGM_FI_DEV_GPU_TEMP, FleetStore::Aggregate::Max).freshness,
                 Freshness::Silent);
        // Silence is not a health: the tray's state is whatever fleetd said (nothing here).
        QCOMPARE(store.status(silentNode).health, v1::HEALTH_STATE_UNSPECIFIED);
        QVERIFY(store.isTraySilent(silentGpu));
        QCOMPARE(store.silentTraysInRack(store.rackAt(1)), 1);
        QCOMPARE(store.silentTraysInRack(store.rackAt(0)), 0);
        const v1::TelemetryHealth* t = store.trayTelemetry(silentGpu);
        QVERIFY(t);
        QCOMPARE(t->reason(), std::string("dcgm-exporter: connection refused"));
        QCOMPARE(t->targets_size(), 2);
        QCOMPARE(t->targets(0).health(), v1::TARGET_HEALTH_DOWN);
        QCOMPARE(displayName(gpu.freshness), QStringLiteral("Source silent"));
        // Worst racks name it.
        const auto worst = worstRacks(store, 2);
        const auto rack1 =
            std::find_if(worst.begin(), worst.end(), [&](const RankedEntity& r) { return r.id == store.rackAt(1); });
        QVERIFY(rack1 != worst.end());
        QVERIFY2(rack1->why.contains(QStringLiteral("telemetry silent on 1 tray")), qPrintable(rack1->why));
        const auto rack0 =
            std::find_if(worst.begin(), worst.end(), [&](const RankedEntity& r) { return r.id == store.rackAt(0); });
        QVERIFY(rack0 == worst.end() || !rack0->why.contains(QStringLiteral("silent")));

        // Live again: fresh again, rack clean.
        store.apply(ep, stateDelta(3, kT0 + 900, {trayState(silentNode.index, v1::TELEMETRY_STATE_LIVE)}));
        QCOMPARE(store.reading(silentGpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Fresh);
        QCOMPARE(store.silentTraysInRack(store.rackAt(1)), 0);
    }

    void oldSilentValueStaysSilentAndBlankStaysBlank() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, scrapedSnapshot(fleet));
        const EntityId node{quint16(ep), fleet.nodeIndex(0, 0)};
        const EntityId gpu{quint16(ep), fleet.gpuIndex(0, 0, 1)};
        v1::SubscribeResponse m = stateDelta(2, kT0 + 60'000, {trayState(node.index, v1::TELEMETRY_STATE_SILENT)});
        auto* blank = m.mutable_delta()->add_samples();
        blank->set_metric(v1::DCGM_FI_DEV_MEM_COPY_UTIL);
        blank->set_sample_time_unix_ms(kT0);
        blank->add_entity_indexes(gpu.index);
        blank->add_values(std::numeric_limits<float>::quiet_NaN());
        store.apply(ep, m);
        // A minute old: stale by age, but the store knows why, and says so.
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_GPU_TEMP).freshness, Freshness::Silent);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_MEM_COPY_UTIL).freshness, Freshness::Blank);
        QCOMPARE(store.reading(gpu, v1::DCGM_FI_DEV_FB_USED).freshness, Freshness::Missing);
    }

    void snapshotCarriesSilenceAndAStateWithoutTelemetryEndsIt() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        v1::SubscribeResponse snap = scrapedSnapshot(fleet);
        const EntityId node{quint16(ep), fleet.nodeIndex(0, 5)};
        *snap.mutable_snapshot()->add_states() = trayState(node.index, v1::TELEMETRY_STATE_SILENT);  // the later wins
        store.apply(ep, snap);
        QVERIFY(store.isTraySilent(node));
        QCOMPARE(store.endpointFleet(ep).silentTrays(), 1u);
        // fleetd sends whole states: one without telemetry means the tray is no longer scraped.
        v1::EntityState plain;
        plain.set_entity_index(node.index);
        plain.set_node_state(v1::NODE_STATE_IDLE);
        store.apply(ep, stateDelta(2, kT0 + 1000, {plain}));
        QVERIFY(!store.isTraySilent(node));
        QVERIFY(!store.trayTelemetry(node));
        QCOMPARE(store.endpointFleet(ep).silentTrays(), 0u);
        QCOMPARE(store.status(node).nodeState, v1::NODE_STATE_IDLE);
        // A resync snapshot without the silence clears it too.
        store.apply(ep, stateDelta(3, kT0 + 1500, {trayState(node.index, v1::TELEMETRY_STATE_SILENT)}));
        QVERIFY(store.isTraySilent(node));
        store.apply(ep, fleet.snapshot(4, kT0 + 2000, "run-1", "resync"));
        QVERIFY(!store.isTraySilent(node));
        QVERIFY(store.endpointFleet(ep).telemetryByTray().empty());
    }

    void twinHasNoTelemetry() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("twin");
        store.apply(ep, fleet.snapshot(1, kT0));
        const SourcesOverview o = overviewOfSources(store);
        QCOMPARE(o.hostsScraped, 0u);
        QVERIFY(silentHostsText(o).isEmpty());
        QVERIFY(!store.trayTelemetry(EntityId{quint16(ep), fleet.gpuIndex(0, 0, 0)}));
        QCOMPARE(store.silentTraysInRack(store.rackAt(0)), 0);
    }

    void overviewCountsSilentHostsAndBlindEndpoints() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, scrapedSnapshot(fleet));
        SourcesOverview o = overviewOfSources(store);
        QCOMPARE(o.hostsScraped, quint32(kTrays));
        QCOMPARE(o.hostsSilent, 0u);
        QCOMPARE(silentHostsText(o), QStringLiteral("0 of 36 hosts silent"));
        QVERIFY(o.blindEndpoints.isEmpty());

        // Three trays silent: degraded, not blind; the headline counts the hosts.
        store.apply(ep, stateDelta(2, kT0 + 1000, {}, {scrapeSource(v1::SOURCE_HEALTH_DEGRADED, 3)}));
        o = overviewOfSources(store);
        QCOMPARE(o.hostsSilent, 3u);
        QVERIFY(o.blindEndpoints.isEmpty());
        QVERIFY2(sourcesHeadline(store, o).contains(QStringLiteral("3 of 36 hosts silent")),
                 qPrintable(sourcesHeadline(store, o)));
        QVERIFY(!sourcesHeadline(store, o).contains(QStringLiteral("no live telemetry")));

        // Every tray silent while some exporter still answers (node_exporter up, every
        // dcgm-exporter down): the source is only degraded, but the endpoint is blind.
        store.apply(ep, stateDelta(3, kT0 + 2000, {}, {scrapeSource(v1::SOURCE_HEALTH_DEGRADED, kTrays)}));
        o = overviewOfSources(store);
        QCOMPARE(o.blindEndpoints, QList<int>{ep});
        QVERIFY2(sourcesHeadline(store, o).contains(QStringLiteral("no live telemetry")),
                 qPrintable(sourcesHeadline(store, o)));

        // No target answers at all: down, blind.
        store.apply(ep, stateDelta(4, kT0 + 3000, {}, {scrapeSource(v1::SOURCE_HEALTH_DOWN, kTrays)}));
        o = overviewOfSources(store);
        QCOMPARE(o.down, 1);
        QCOMPARE(o.blindEndpoints, QList<int>{ep});
    }

    void scrapeTargetsModelListsEveryTarget() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, scrapedSnapshot(fleet));
        ScrapeTargetModel model(store);
        QCOMPARE(model.rowCount(), 2 * kTrays);
        QCOMPARE(model.counts().up, 2 * kTrays);
        const EntityId node{quint16(ep), fleet.nodeIndex(1, 3)};
        store.apply(ep, stateDelta(2, kT0 + 40'000, {trayState(node.index, v1::TELEMETRY_STATE_SILENT)}));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 2 * kTrays);
        const ScrapeTargetModel::Counts c = model.counts();
        QCOMPARE(c.down, 1);
        QCOMPARE(c.up, 2 * kTrays - 1);
        int downRow = -1;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.index(row, ScrapeTargetModel::State).data().toString() == QStringLiteral("down")) downRow = row;
        QVERIFY(downRow >= 0);
        auto cell = [&](int column, int role = Qt::DisplayRole) { return model.index(downRow, column).data(role); };
        QCOMPARE(cell(ScrapeTargetModel::Host).toString(), store.name(node));
        QCOMPARE(cell(0, EntityIdRole).value<EntityId>(), node);
        QCOMPARE(cell(ScrapeTargetModel::Exporter).toString(), QStringLiteral("dcgm-exporter"));
        QCOMPARE(cell(ScrapeTargetModel::LastSuccess).toString(), QStringLiteral("60 s ago"));  // server clock
        QCOMPARE(cell(ScrapeTargetModel::Since).toString(), QStringLiteral("70 s ago"));
        QCOMPARE(cell(ScrapeTargetModel::Duration).toString(), QStringLiteral("0.012 s"));
        QCOMPARE(cell(ScrapeTargetModel::Series).toString(), QStringLiteral("0"));
        QCOMPARE(cell(ScrapeTargetModel::Rejected).toString(), QStringLiteral("2"));
        QCOMPARE(cell(ScrapeTargetModel::LastError).toString(), QStringLiteral("connection refused"));
        QCOMPARE(cell(ScrapeTargetModel::Url).toString(), QStringLiteral("http://host:9400/metrics"));
        QCOMPARE(cell(ScrapeTargetModel::State, FreshnessRole).toInt(), int(Freshness::Silent));
        QCOMPARE(model.index(downRow == 0 ? 1 : 0, ScrapeTargetModel::State).data(FreshnessRole).toInt(),
                 int(Freshness::Fresh));
        // Down sorts above up.
        QVERIFY(cell(ScrapeTargetModel::State, SortRole).toInt() >
                model.index(downRow == 0 ? 1 : 0, ScrapeTargetModel::State).data(SortRole).toInt());
    }

    void nodeTableShowsTelemetry() {
        const SyntheticFleet fleet = smallFleet();
        FleetStore store;
        const int ep = store.addEndpoint("site");
        store.apply(ep, scrapedSnapshot(fleet));
        NodeTableModel nodes(store);
        nodes.setRack(store.rackAt(1));
        store.apply(ep, stateDelta(2, kT0 + 500, {trayState(fleet.nodeIndex(1, 3), v1::TELEMETRY_STATE_SILENT)}));
        store.flushChanges();
        QCOMPARE(nodes.index(3, NodeTableModel::Telemetry).data().toString(),
                 QStringLiteral("silent: dcgm-exporter: connection refused"));
        QCOMPARE(nodes.index(3, NodeTableModel::Telemetry).data(FreshnessRole).toInt(), int(Freshness::Silent));
        QCOMPARE(nodes.index(3, NodeTableModel::GpuPowerW).data(FreshnessRole).toInt(), int(Freshness::Silent));
        QCOMPARE(nodes.index(4, NodeTableModel::Telemetry).data().toString(), QStringLiteral("live"));
        QCOMPARE(nodes.index(4, NodeTableModel::Telemetry).data(FreshnessRole).toInt(), int(Freshness::Fresh));
        QCOMPARE(nodes.index(4, NodeTableModel::GpuPowerW).data(FreshnessRole).toInt(), int(Freshness::Fresh));
    }
};

QTEST_GUILESS_MAIN(TestTrayTelemetry)
#include "tst_traytelemetry.moc"
