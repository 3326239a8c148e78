// The per-rack roll-up the Fleet page reads (RackRollup.h): the freshness of each value decided by
// the store's one rule, at its edges. A rack's newest samples one millisecond past the stale
// threshold read stale and at the threshold fresh; an endpoint that is not Live makes every value
// and the rack's state stale, the job ratio taken from the Job message included; a rack with every
// tray silent reads silent throughout, one live tray short of that does not; ΔT is return minus
// supply and as trustworthy as the worse of the two; the job on the rack is the one holding most of
// its trays.
#include "FleetStore.h"
#include "MetricCadence.h"
#include "RackRollup.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

SyntheticFleetSpec eightRacks() {
    SyntheticFleetSpec spec;
    spec.racks = 8;
    return spec;
}

// 8 racks on one Live endpoint, as of kT0: two synthetic jobs, on the even and the odd racks.
struct Fleet {
    SyntheticFleet fleet{eightRacks()};
    FleetStore store;
    int ep = store.addEndpoint(QStringLiteral("east"));
    RackJobs jobs;

    Fleet() {
        store.apply(ep, fleet.snapshot(1, kT0));
        jobs.rebuild(store);
    }
    RackRollup rack(int row) const { return rackRollup(store, row, jobs); }
};

std::vector<Reading> metricsOf(const RackRollup& r) {
    return {r.gpusDown, r.gpusDegraded, r.gpuTempMax, r.power, r.coolantFlow, r.coolantDeltaT, r.linkErrors};
}

v1::SubscribeResponse traysTelemetry(std::uint64_t sequence, std::int64_t serverMs,
                                     const std::vector<std::uint32_t>& nodes, v1::TelemetryState state) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(serverMs);
    for (std::uint32_t node : nodes) {
        v1::EntityState& s = *m.mutable_delta()->add_states();
        s.set_entity_index(node);
        s.mutable_telemetry()->set_state(state);
        s.mutable_telemetry()->set_since_unix_ms(serverMs);
    }
    return m;
}
}  // namespace

class TestRackRollup : public QObject {
    Q_OBJECT

private slots:
    void aRackPastTheStaleThresholdReadsStale() {
        Fleet f;
        // The rack and cooling-loop metrics are reported every second, so the store's staleAfter
        // (3 s, three periods) is their threshold.
        for (v1::Metric m : {v1::RACK_GPU_TEMP_MAX_C, v1::RACK_POWER_KW, v1::RACK_LIQUID_FLOW_LPM})
            QCOMPARE(metricCadence(m).period, std::chrono::milliseconds(1000));
        const std::int64_t threshold = f.store.staleAfter().count();

        // Nothing new since kT0; the server's clock moves on.
        f.store.apply(f.ep, f.fleet.heartbeat(2, kT0 + threshold));
        RackRollup r = f.rack(3);
        for (const Reading& reading : metricsOf(r)) QCOMPARE(reading.freshness, Freshness::Fresh);
        QCOMPARE(r.gpuTempMax.age, std::chrono::milliseconds(threshold));

        f.store.apply(f.ep, f.fleet.heartbeat(3, kT0 + threshold + 1));
        r = f.rack(3);
        for (const Reading& reading : metricsOf(r)) {
            QCOMPARE(reading.freshness, Freshness::Stale);
            QVERIFY(reading.hasValue());  // the last value, drawn as such
        }
        QCOMPARE(r.gpuTempMax.value, SyntheticFleet::valueFor(v1::RACK_GPU_TEMP_MAX_C, f.fleet.rackIndex(3), kT0));
        // The rack's state has no sample time: it is as current as the Live connection.
        QCOMPARE(r.stateFreshness, Freshness::Fresh);

        // One call answers for every rack, in rack rows.
        const std::vector<RackRollup> all = rackRollups(f.store, f.jobs);
        QCOMPARE(int(all.size()), f.store.rackCount());
        for (int row = 0; row < f.store.rackCount(); ++row) {
            QCOMPARE(all[std::size_t(row)].row, row);
            QCOMPARE(all[std::size_t(row)].rack, f.store.rackAt(row));
            QCOMPARE(all[std::size_t(row)].power.freshness, Freshness::Stale);
        }

        // A new sample makes it fresh again.
        f.store.apply(f.ep, f.fleet.delta(4, kT0 + threshold + 1));
        QCOMPARE(f.rack(3).gpuTempMax.freshness, Freshness::Fresh);
    }

    void anEndpointNotLiveMakesEverythingStale() {
        Fleet f;
        RackRollup r = f.rack(2);
        QCOMPARE(r.stateFreshness, Freshness::Fresh);
        QVERIFY(r.jobRow >= 0);
        // The synthetic jobs send no JOB_GOODPUT_RATIO samples: the ratio is the Job message's.
        QCOMPARE(r.jobGoodput.freshness, Freshness::Fresh);
        QCOMPARE(r.jobGoodput.value, float(f.store.job(r.jobRow)->goodput_ratio()));

        f.store.setEndpointState(f.ep, ConnectionState::Reconnecting, "lost");
        r = f.rack(2);
        QCOMPARE(r.stateFreshness, Freshness::Stale);
        for (const Reading& reading : metricsOf(r)) QCOMPARE(reading.freshness, Freshness::Stale);
        QCOMPARE(r.jobGoodput.freshness, Freshness::Stale);
        QVERIFY(r.jobGoodput.hasValue());
    }

    void everyTraySilentReadsSilent() {
        Fleet f;
        std::vector<std::uint32_t> trays;
        for (int n = 0; n < SyntheticFleet::kNodesPerRack; ++n) trays.push_back(f.fleet.nodeIndex(5, n));
        const std::uint32_t last = trays.back();
        trays.pop_back();

        f.store.apply(f.ep, traysTelemetry(2, kT0 + 100, trays, v1::TELEMETRY_STATE_SILENT));
        RackRollup r = f.rack(5);
        QCOMPARE(r.trays, SyntheticFleet::kNodesPerRack);
        QCOMPARE(r.silentTrays, SyntheticFleet::kNodesPerRack - 1);
        QVERIFY(!r.everyTraySilent());
        QCOMPARE(r.stateFreshness, Freshness::Fresh);
        QCOMPARE(r.power.freshness, Freshness::Fresh);

        f.store.apply(f.ep, traysTelemetry(3, kT0 + 200, {last}, v1::TELEMETRY_STATE_SILENT));
        r = f.rack(5);
        QVERIFY(r.everyTraySilent());
        QCOMPARE(r.stateFreshness, Freshness::Silent);
        for (const Reading& reading : metricsOf(r)) {
            QCOMPARE(reading.freshness, Freshness::Silent);
            QVERIFY(reading.hasValue());
        }
        QCOMPARE(r.jobGoodput.freshness, Freshness::Silent);
        // Its neighbour is not touched.
        QCOMPARE(f.rack(4).stateFreshness, Freshness::Fresh);
    }

    void deltaTIsReturnMinusSupplyAsTrustedAsTheWorse() {
        Fleet f;
        const std::uint32_t loop = f.fleet.loopIndex(1);
        RackRollup r = f.rack(1);
        QCOMPARE(r.coolantDeltaT.freshness, Freshness::Fresh);
        QCOMPARE(r.coolantDeltaT.value, SyntheticFleet::valueFor(v1::RACK_LIQUID_RETURN_TEMPERATURE_C, loop, kT0) -
                                            SyntheticFleet::valueFor(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, loop, kT0));

        // The supply sensor reports blank: no ΔT, and not a zero one.
        v1::SubscribeResponse m;
        m.mutable_delta()->set_sequence(2);
        m.mutable_delta()->set_server_time_unix_ms(kT0 + 500);
        v1::SampleBlock& b = *m.mutable_delta()->add_samples();
        b.set_metric(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
        b.set_sample_time_unix_ms(kT0 + 500);
        b.add_entity_indexes(loop);
        b.add_values(std::numeric_limits<float>::quiet_NaN());
        f.store.apply(f.ep, m);
        r = f.rack(1);
        QCOMPARE(r.coolantDeltaT.freshness, Freshness::Blank);
        QVERIFY(!r.coolantDeltaT.hasValue());
        QVERIFY(std::isnan(r.coolantDeltaT.value));
        QCOMPARE(r.coolantFlow.freshness, Freshness::Fresh);
    }

    void theJobOnARackHoldsMostOfItsTrays() {
        Fleet f;
        QCOMPARE(f.store.jobCount(), 2);
        for (int row = 0; row < f.store.rackCount(); ++row) {
            const RackRollup r = f.rack(row);
            QVERIFY(r.jobRow >= 0);
            QCOMPARE(f.store.jobAt(r.jobRow).index, f.fleet.jobIndex(row % 2));
            QCOMPARE(f.jobs.jobRowsOnRack(f.store, row), QList<int>{r.jobRow});
        }
        QCOMPARE(f.jobs.jobNames(), (QStringList{QStringLiteral("train-1"), QStringLiteral("train-2")}));
        // Before the jobs are known there is no job on a rack, and no goodput to show for it.
        const RackJobs none;
        QCOMPARE(rackRollup(f.store, 0, none).jobRow, -1);
        QCOMPARE(rackRollup(f.store, 0, none).jobGoodput.freshness, Freshness::Missing);
    }
};

QTEST_GUILESS_MAIN(TestRackRollup)
#include "tst_rackrollup.moc"
