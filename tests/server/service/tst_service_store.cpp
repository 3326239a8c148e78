// The state store, filters, replay log, coalescer and history, without gRPC.

#include "DeltaCoalescer.h"
#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "ReplayLog.h"
#include "TinyFleetSource.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace watchfloor::server;
using namespace watchfloor::server::service;
using watchfloor::server::testing::TinyFleetShape;
using watchfloor::server::testing::TinyFleetSource;
namespace v1 = watchfloor::v1;

namespace {
std::vector<DeltaPtr> tick(TinyFleetSource& source, FleetStateStore& store, SampleSink* sink = nullptr) {
    FleetChanges changes;
    source.advanceTo(source.now() + std::chrono::seconds(1), changes);
    return store.apply(changes, sink);
}

// The client's view: latest values, states, jobs and events, applied from snapshot + deltas.
struct ClientModel {
    std::map<std::pair<std::uint32_t, int>, float> values;
    std::map<std::uint32_t, std::string> states;
    std::map<std::uint32_t, std::uint64_t> jobSteps;
    std::vector<std::uint64_t> eventIds;
    std::uint64_t sequence = 0;

    void applySamples(const google::protobuf::RepeatedPtrField<v1::SampleBlock>& blocks) {
        for (const auto& b : blocks)
            for (int i = 0; i < b.entity_indexes_size(); ++i) values[{b.entity_indexes(i), b.metric()}] = b.values(i);
    }
    void apply(const v1::Delta& d) {
        QCOMPARE(d.first_sequence(), sequence + 1);
        QVERIFY(d.sequence() >= d.first_sequence());
        sequence = d.sequence();
        applySamples(d.samples());
        for (const auto& s : d.states()) states[s.entity_index()] = s.SerializeAsString();
        for (const auto& j : d.jobs()) jobSteps[j.index()] = j.step();
        for (const auto& e : d.events()) eventIds.push_back(e.id());
    }
    void apply(const v1::Snapshot& s) {
        sequence = s.sequence();
        applySamples(s.samples());
        for (const auto& st : s.states()) states[st.entity_index()] = st.SerializeAsString();
        for (const auto& j : s.jobs()) jobSteps[j.index()] = j.step();
    }
};

int countValuesOfKind(const TopologyLookup& index, const v1::Snapshot& snap, v1::EntityKind kind) {
    int n = 0;
    for (const auto& b : snap.samples())
        for (auto e : b.entity_indexes()) n += index.kind(e) == kind;
    return n;
}
}  // namespace

class ServiceStoreTest : public QObject {
    Q_OBJECT
private slots:
    void deltasHaveIncreasingSequencesAndEventIds() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        std::uint64_t lastSeq = 0, lastEvent = 0;
        for (int i = 0; i < 12; ++i)
            for (const auto& d : tick(source, store)) {
                QCOMPARE(d->sequence(), lastSeq + 1);
                QCOMPARE(d->first_sequence(), d->sequence());
                lastSeq = d->sequence();
                for (const auto& e : d->events()) {
                    QCOMPARE(e.id(), lastEvent + 1);
                    lastEvent = e.id();
                }
            }
        QCOMPARE(store.lastSequence(), lastSeq);
        QCOMPARE(lastEvent, std::uint64_t(4));  // ticks 3, 6, 9, 12
    }

    void largeTickIsSplitUnderTheByteBudget() {
        TinyFleetSource source(TinyFleetShape{2, 4, 18, 4});
        StoreLimits limits;
        limits.maxDeltaBytes = 2048;
        FleetStateStore store(source.topology(), limits);
        FleetChanges changes;
        source.advanceTo(source.now() + std::chrono::seconds(1), changes);
        const std::size_t samples = changes.samples.size();
        const auto deltas = store.apply(changes);
        QVERIFY2(deltas.size() > 3, "a tick bigger than the budget must span several deltas");
        std::size_t seen = 0;
        for (const auto& d : deltas) {
            QVERIFY2(d->ByteSizeLong() <= limits.maxDeltaBytes + 1024, std::to_string(d->ByteSizeLong()).c_str());
            for (const auto& b : d->samples()) seen += b.entity_indexes_size();
        }
        QCOMPARE(seen, samples);
    }

    // A source reports its series in the same order every tick, except samples sent only on a
    // change (counters) or by a device that stopped: one such sample early in a 1,800-rack tick
    // used to cost a hash lookup for every sample after it (the tick thread's largest cost, and
    // the deltas wait for it). Now it costs a lookup for itself and one to find the order again.
    void sampleInsertedOrDroppedCostsOneLookupNotTheRest() {
        TinyFleetSource source(TinyFleetShape{2, 4, 18, 4});
        FleetStateStore store(source.topology());
        const std::uint32_t entities = store.index().indexLimit();
        auto tickOf = [&](int second, bool withCounter, float base) {
            FleetChanges changes;
            changes.time = UnixTime(std::chrono::seconds(second));
            for (std::uint32_t e = 0; e < entities; ++e) {
                changes.samples.push_back({e, v1::DCGM_FI_DEV_GPU_TEMP, base + float(e)});
                // Entity 1's counter changed: reported between entity 1 and 2, early in the tick.
                if (withCounter && e == 1) changes.samples.push_back({1, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, base});
                changes.samples.push_back({e, v1::DCGM_FI_DEV_POWER_USAGE, base - float(e)});
            }
            return changes;
        };
        auto applyTick = [&](int second, bool withCounter, float base) {
            FleetChanges changes = tickOf(second, withCounter, base);
            store.apply(changes);
            for (std::uint32_t e = 0; e < entities; ++e) {
                QCOMPARE(store.latest(e, v1::DCGM_FI_DEV_GPU_TEMP)->value, base + float(e));
                QCOMPARE(store.latest(e, v1::DCGM_FI_DEV_POWER_USAGE)->value, base - float(e));
            }
        };
        QVERIFY(entities > 100);
        applyTick(1, false, 10);
        QCOMPARE(store.seriesLookedUpLastApply(), std::size_t(2 * entities));  // all new
        applyTick(2, false, 20);
        QCOMPARE(store.seriesLookedUpLastApply(), std::size_t(0));
        applyTick(3, true, 30);  // one sample inserted
        QVERIFY2(store.seriesLookedUpLastApply() <= 2, std::to_string(store.seriesLookedUpLastApply()).c_str());
        QCOMPARE(store.latest(1, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL)->value, 30.0f);
        applyTick(4, false, 40);  // and gone again
        QVERIFY2(store.seriesLookedUpLastApply() <= 2, std::to_string(store.seriesLookedUpLastApply()).c_str());
        QCOMPARE(store.latest(1, v1::DCGM_FI_DEV_ECC_DBE_VOL_TOTAL)->value, 30.0f);  // kept, not reported
        applyTick(5, false, 50);
        QCOMPARE(store.seriesLookedUpLastApply(), std::size_t(0));
    }

    void snapshotDetailLevels_data() {
        QTest::addColumn<int>("detail");
        QTest::addColumn<bool>("gpuValues");
        QTest::addColumn<bool>("linkValues");
        QTest::addColumn<bool>("linkTopology");
        QTest::newRow("summary") << int(v1::DETAIL_LEVEL_SUMMARY) << false << false << false;
        QTest::newRow("unspecified=standard") << int(v1::DETAIL_LEVEL_UNSPECIFIED) << true << false << false;
        QTest::newRow("standard") << int(v1::DETAIL_LEVEL_STANDARD) << true << false << false;
        QTest::newRow("full") << int(v1::DETAIL_LEVEL_FULL) << true << true << true;
    }
    void snapshotDetailLevels() {
        QFETCH(int, detail);
        QFETCH(bool, gpuValues);
        QFETCH(bool, linkValues);
        QFETCH(bool, linkTopology);
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        tick(source, store);
        SubscriptionFilter filter;
        FilterError error;
        QVERIFY(SubscriptionFilter::resolve(store.index(), {}, {}, v1::DetailLevel(detail), &filter, &error));
        const auto snap = store.snapshot(filter);
        QCOMPARE(snap.sequence(), store.lastSequence());
        QCOMPARE(countValuesOfKind(store.index(), snap, v1::ENTITY_KIND_RACK), 2);
        QCOMPARE(countValuesOfKind(store.index(), snap, v1::ENTITY_KIND_COOLING_LOOP), 2);
        QCOMPARE(countValuesOfKind(store.index(), snap, v1::ENTITY_KIND_GPU) > 0, gpuValues);
        QCOMPARE(countValuesOfKind(store.index(), snap, v1::ENTITY_KIND_NVLINK) > 0, linkValues);
        QCOMPARE(countValuesOfKind(store.index(), snap, v1::ENTITY_KIND_NIC_PORT) > 0, linkValues);
        QCOMPARE(store.topologyFor(filter)->nvlinks_size() > 0, linkTopology);
        QCOMPARE(snap.jobs_size(), 1);
        QVERIFY(snap.has_fleet());
        for (const auto& b : snap.samples()) QCOMPARE(b.entity_indexes_size(), b.values_size());
    }

    void rackFilterKeepsOnlyThatRack() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        for (int i = 0; i < 6; ++i) tick(source, store);
        SubscriptionFilter filter;
        FilterError error;
        QVERIFY(SubscriptionFilter::resolve(store.index(), {}, {"r02"}, v1::DETAIL_LEVEL_FULL, &filter, &error));
        const auto r02 = *store.index().findRack("r02");
        const auto snap = store.snapshot(filter);
        for (const auto& b : snap.samples())
            for (auto e : b.entity_indexes()) {
                const auto rack = store.index().rackOf(e);
                QVERIFY(rack == r02 || rack == TopologyLookup::kNone);
            }
        const auto topology = store.topologyFor(filter);
        QCOMPARE(topology->racks_size(), 1);
        QCOMPARE(topology->racks(0).name(), std::string("r02"));
        QCOMPARE(topology->regions_size(), 1);
        QCOMPARE(topology->regions(0).name(), std::string("region-2"));
        for (const auto& e : snap.recent_events()) QCOMPARE(store.index().rackOf(e.entity_index()), r02);
    }

    void unknownFilterNamesAreNamedInTheError() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        SubscriptionFilter filter;
        FilterError error;
        QVERIFY(!SubscriptionFilter::resolve(store.index(), {"atlantis"}, {"r01", "r99"}, v1::DETAIL_LEVEL_FULL,
                                             &filter, &error));
        QVERIFY(error.kind == FilterError::Kind::NotFound);
        QVERIFY2(error.message.find("\"atlantis\"") != std::string::npos, error.message.c_str());
        QVERIFY2(error.message.find("\"r99\"") != std::string::npos, error.message.c_str());
        QVERIFY2(error.message.find("\"r01\"") == std::string::npos, error.message.c_str());
    }

    void replayLogIsBoundedByCountAndBytes() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        ReplayLog byCount(ReplayLogLimits{10, std::size_t(1) << 30});
        for (int i = 0; i < 25; ++i) byCount.append(tick(source, store));
        QCOMPARE(byCount.size(), std::size_t(10));
        QCOMPARE(byCount.lastSequence(), store.lastSequence());
        QCOMPARE(byCount.firstSequence(), store.lastSequence() - 9);
        QVERIFY(byCount.canResumeAfter(store.lastSequence() - 10));
        QVERIFY(!byCount.canResumeAfter(store.lastSequence() - 11));
        QVERIFY(byCount.canResumeAfter(store.lastSequence()));

        const std::size_t oneDelta = tick(source, store).front()->ByteSizeLong();
        ReplayLog byBytes(ReplayLogLimits{1000, 2 * oneDelta * 5});
        for (int i = 0; i < 30; ++i) byBytes.append(tick(source, store));
        QVERIFY(byBytes.bytes() <= 2 * oneDelta * 5 + 2 * oneDelta);
        QVERIFY(byBytes.size() <= 6);
        QVERIFY(byBytes.size() >= 3);
    }

    // Whatever the budget, applying coalesced deltas until caught up gives the same picture as
    // applying every delta, and keeps every event exactly once, in order.
    void coalescedCatchUpEqualsFullReplay_data() {
        QTest::addColumn<int>("maxSamples");
        QTest::newRow("all in one") << 1'000'000;
        QTest::newRow("tight budget") << 40;
        QTest::newRow("one tick's worth") << 150;
    }
    void coalescedCatchUpEqualsFullReplay() {
        QFETCH(int, maxSamples);
        TinyFleetSource source(TinyFleetShape{2, 2, 3, 2});
        StoreLimits limits;
        limits.maxDeltaBytes = 400;  // several deltas per tick
        FleetStateStore store(source.topology(), limits);
        ReplayLog log;
        const auto everything = SubscriptionFilter::everything();
        ClientModel direct, coalesced;
        for (int i = 0; i < 40; ++i) {
            auto deltas = tick(source, store);
            log.append(deltas);
            for (const auto& d : deltas) direct.apply(*d);
        }
        int messages = 0;
        while (coalesced.sequence < log.lastSequence()) {
            auto pending = log.after(coalesced.sequence, 1000);
            auto merged = coalesce(pending, everything, store.index(), std::size_t(maxSamples));
            QVERIFY(merged.entriesCovered >= 1);
            coalesced.apply(merged.delta);
            ++messages;
            QVERIFY(messages < 10'000);
        }
        QCOMPARE(coalesced.values, direct.values);
        QCOMPARE(coalesced.states, direct.states);
        QCOMPARE(coalesced.jobSteps, direct.jobSteps);
        QCOMPARE(coalesced.eventIds, direct.eventIds);
        if (maxSamples == 1'000'000) QCOMPARE(messages, 1);
    }

    // Source statuses reach every subscriber in deltas, alone or coalesced (newest per source):
    // they were dropped, so a console's Sources view only changed with a snapshot.
    void sourceStatusesTravelInDeltas() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        ReplayLog log;
        auto status = [](const char* name, v1::SourceHealth health, std::uint32_t hostsSilent) {
            v1::SourceStatus s;
            s.set_name(name);
            s.set_health(health);
            s.set_hosts_silent(hostsSilent);
            return s;
        };
        for (int i = 0; i < 3; ++i) {
            FleetChanges changes;
            source.advanceTo(source.now() + std::chrono::seconds(1), changes);
            changes.sources.push_back(
                status("scrape", i == 2 ? v1::SOURCE_HEALTH_DOWN : v1::SOURCE_HEALTH_DEGRADED, i + 1));
            if (i == 0) changes.sources.push_back(status("slurm", v1::SOURCE_HEALTH_UP, 0));
            log.append(store.apply(changes, nullptr));
        }
        const auto one = coalesce(log.after(0, 1), SubscriptionFilter::everything(), store.index(), 100'000);
        QCOMPARE(one.delta.sources_size(), 2);
        QCOMPARE(one.delta.sources(0).hosts_silent(), 1u);
        const auto merged = coalesce(log.after(0, 100), SubscriptionFilter::everything(), store.index(), 100'000);
        QCOMPARE(merged.entriesCovered, std::size_t(3));
        QCOMPARE(merged.delta.sources_size(), 2);
        QCOMPARE(merged.delta.sources(0).name(), std::string("scrape"));
        QCOMPARE(merged.delta.sources(0).health(), v1::SOURCE_HEALTH_DOWN);
        QCOMPARE(merged.delta.sources(0).hosts_silent(), 3u);
        QCOMPARE(merged.delta.sources(1).name(), std::string("slurm"));
    }

    void coalescingKeepsNewestValue() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        ReplayLog log;
        for (int i = 0; i < 4; ++i) log.append(tick(source, store));  // ticks 1..4
        const auto merged = coalesce(log.after(0, 100), SubscriptionFilter::everything(), store.index(), 100'000);
        QCOMPARE(merged.delta.first_sequence(), std::uint64_t(1));
        QCOMPARE(merged.delta.sequence(), std::uint64_t(4));
        const auto gpu = source.gpus().front();
        int found = 0;
        for (const auto& b : merged.delta.samples())
            for (int i = 0; i < b.entity_indexes_size(); ++i)
                if (b.metric() == v1::DCGM_FI_DEV_GPU_TEMP && b.entity_indexes(i) == gpu) {
                    QCOMPARE(b.values(i), TinyFleetSource::gpuTempC(4, gpu));
                    ++found;
                }
        QCOMPARE(found, 1);
        QCOMPARE(merged.delta.events_size(), 1);  // tick 3's event
        QCOMPARE(merged.delta.jobs_size(), 1);
        QCOMPARE(merged.delta.jobs(0).step(), std::uint64_t(4));
    }

    // One tick can carry two records of a key: a node's DRAINING and then DRAINED when the job
    // left within the tick, a job reported twice, a value read at two instants. A subscriber
    // several ticks behind got the first of them from the coalescer and kept a node DRAINING
    // that every fresh snapshot showed DRAINED (found by tst_controlclient_fleetd under TSan,
    // where the test's stream fell three ticks behind).
    void coalescingKeepsTheLastRecordOfAKeyWithinOneTick() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        ReplayLog log;
        ClientModel direct;
        const auto everything = SubscriptionFilter::everything();
        const std::uint32_t node = source.topology().nodes(1).index();
        const std::uint32_t gpu = source.gpus().front();
        for (int i = 0; i < 4; ++i) {
            FleetChanges changes;
            source.advanceTo(source.now() + std::chrono::seconds(1), changes);
            if (i == 1) {
                for (const auto nodeState : {v1::NODE_STATE_DRAINING, v1::NODE_STATE_DRAINED}) {
                    auto& state = changes.states.emplace_back();
                    state.set_entity_index(node);
                    state.set_node_state(nodeState);
                }
                QVERIFY(!changes.jobs.empty());
                changes.jobs.push_back(changes.jobs.front());
                changes.jobs.back().set_step(changes.jobs.front().step() + 7);
                const std::int64_t nowMs = toUnixMs(changes.time);
                changes.sampleTimesMs.assign(changes.samples.size(), nowMs);
                for (const std::int64_t at : {nowMs - 500, nowMs}) {
                    changes.samples.push_back({gpu, v1::DCGM_FI_DEV_SM_CLOCK, float(at - nowMs + 1980)});
                    changes.sampleTimesMs.push_back(at);
                }
            }
            const auto deltas = store.apply(changes, nullptr);
            log.append(deltas);
            for (const auto& d : deltas) direct.apply(*d);
        }
        ClientModel coalesced;
        coalesced.apply(coalesce(log.after(0, 100), everything, store.index(), 1'000'000).delta);
        QCOMPARE(coalesced.sequence, log.lastSequence());
        QCOMPARE(coalesced.states, direct.states);
        v1::EntityState seen;
        QVERIFY(seen.ParseFromString(coalesced.states.at(node)));
        QCOMPARE(seen.node_state(), v1::NODE_STATE_DRAINED);
        QCOMPARE(coalesced.jobSteps, direct.jobSteps);
        QCOMPARE(coalesced.values, direct.values);
        QCOMPARE(coalesced.values.at({gpu, int(v1::DCGM_FI_DEV_SM_CLOCK)}), 1980.0f);
    }

    void historyDownsamplesKnownInput() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        HistoryStore history(store.index());
        for (int i = 0; i < 120; ++i) tick(source, store, &history);  // ticks 1..120, one per second
        const auto gpu = source.gpus().at(1);
        const auto series = store.findSeries(gpu, v1::DCGM_FI_DEV_GPU_TEMP);
        QVERIFY(series && history.keeps(*series));
        // Device series keep 1-minute buckets: a 60 s step over the two minutes.
        const std::int64_t start = toUnixMs(TinyFleetSource::startTime());
        const auto result = history.query(*series, start, start + 121'000, 60'000);
        QCOMPARE(result.stepMs, std::int64_t(60'000));
        QCOMPARE(result.points.size(), std::size_t(3));  // ticks 1..59, 60..119, 120
        auto expect = [&](std::size_t point, std::uint64_t firstTick, std::uint64_t lastTick) {
            double sum = 0;
            float lo = 1e9f, hi = -1e9f;
            for (auto t = firstTick; t <= lastTick; ++t) {
                const float v = TinyFleetSource::gpuTempC(t, gpu);
                sum += v;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            const auto& p = result.points[point];
            QCOMPARE(p.count, std::uint32_t(lastTick - firstTick + 1));
            QCOMPARE(p.min, lo);
            QCOMPARE(p.max, hi);
            QCOMPARE(p.last, TinyFleetSource::gpuTempC(lastTick, gpu));
            QVERIFY(std::abs(p.mean - float(sum / double(lastTick - firstTick + 1))) < 1e-3f);
        };
        expect(0, 1, 59);
        expect(1, 60, 119);
        expect(2, 120, 120);

        // Rack series keep 1-second buckets: a 10 s step is exact.
        const auto rack = *store.index().findRack("r01");
        const auto rackSeries = store.findSeries(rack, v1::RACK_POWER_KW);
        const auto fine = history.query(*rackSeries, start + 10'000, start + 30'000, 10'000);
        QCOMPARE(fine.stepMs, std::int64_t(10'000));
        QCOMPARE(fine.points.size(), std::size_t(2));
        for (std::size_t p = 0; p < 2; ++p) {
            const std::uint64_t first = 10 + 10 * p;  // tick t is sampled at start + t s
            double sum = 0;
            for (auto t = first; t < first + 10; ++t) sum += 100.0 + double(t % 7);
            QCOMPARE(fine.points[p].startMs, start + std::int64_t(first) * 1000);
            QCOMPARE(fine.points[p].count, std::uint32_t(10));
            QCOMPARE(fine.points[p].mean, float(sum / 10));
            QCOMPARE(fine.points[p].last, 100.0f + float((first + 9) % 7));
        }
    }

    void historyKeepsNoLinkSeries() {
        TinyFleetSource source;
        FleetStateStore store(source.topology());
        HistoryStore history(store.index());
        tick(source, store, &history);
        const auto link = source.topology().nvlinks(0).index();
        const auto series = store.findSeries(link, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK);
        QVERIFY(series);
        QVERIFY(!history.keeps(*series));
    }

    void historyMemoryShrinksForHugeFleets() {
        v1::Topology big;
        big.set_fleet_index(0);
        for (std::uint32_t i = 1; i <= 200'000; ++i) {
            auto* gpu = big.add_gpus();
            gpu->set_index(i);
            gpu->set_name("g" + std::to_string(i));
        }
        TopologyLookup index(big);
        HistoryPlan plan;
        plan.budgetBytes = std::size_t(64) << 20;
        HistoryStore history(index, plan);
        QVERIFY(history.describeRetention().find("not planned") != std::string::npos);
        std::vector<Sample> samples;
        std::vector<std::uint32_t> ids;
        for (std::uint32_t i = 1; i <= 200'000; ++i) {
            samples.push_back({i, v1::DCGM_FI_DEV_GPU_TEMP, 50.0f});
            ids.push_back(i - 1);
        }
        history.onSamples(TinyFleetSource::startTime(), samples, ids);
        const std::string retention = history.describeRetention();
        QVERIFY2(retention.find("device (") != std::string::npos, retention.c_str());
        QVERIFY2(retention.find("1minx6h") == std::string::npos, retention.c_str());  // shrunk to fit
        QVERIFY(history.keeps(0));
    }
};

QTEST_GUILESS_MAIN(ServiceStoreTest)
#include "tst_service_store.moc"
