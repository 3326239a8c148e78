// FleetStore's parts, each alone: EventLog (serials, bound, clear), FleetRows (global rack and job
// rows across endpoints), FleetNames (qualified names, lookups, search), FleetReadings (freshness,
// aggregates), chartPoints (history breaks) and the rack ranking (FleetRankings).
#include "EventLog.h"
#include "FleetNames.h"
#include "FleetRankings.h"
#include "FleetReadings.h"
#include "FleetRows.h"
#include "HistoryRing.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QtTest>

#include <cmath>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

SyntheticFleet makeFleet(int racks, std::string regionPrefix = "region") {
    SyntheticFleetSpec spec;
    spec.racks = racks;
    spec.regionPrefix = std::move(regionPrefix);
    return SyntheticFleet(spec);
}

// The fleet of `endpoint` after `synthetic`'s snapshot at kT0, built the way the store builds it.
std::unique_ptr<EndpointFleet> builtFleet(const SyntheticFleet& synthetic, quint16 endpoint) {
    v1::SubscribeResponse message = synthetic.snapshot(1, kT0);
    QString error;
    auto fleet = EndpointFleet::fromSnapshot(QStringLiteral("ep%1").arg(endpoint), 60, endpoint,
                                             std::move(*message.mutable_snapshot()), {}, &error);
    if (!fleet) qFatal("synthetic snapshot unusable: %s", qPrintable(error));
    return fleet;
}

// The next endpoint: its fleet from `synthetic`, its label and short name.
void addNamedEndpoint(EndpointFleets& fleets, FleetNames& names, const SyntheticFleet& synthetic, const QString& label,
                      const QString& shortName) {
    const int endpoint = int(fleets.size());
    fleets.push_back(builtFleet(synthetic, quint16(endpoint)));
    names.addEndpoint(label);
    names.setShortName(endpoint, shortName);
}

google::protobuf::RepeatedPtrField<v1::Event> events(int n, std::uint64_t firstId) {
    google::protobuf::RepeatedPtrField<v1::Event> out;
    for (int i = 0; i < n; ++i) {
        v1::Event* e = out.Add();
        e->set_id(firstId + std::uint64_t(i));
        e->set_message("event " + std::to_string(firstId + std::uint64_t(i)));
    }
    return out;
}

Reading reading(float value, Freshness freshness, std::int64_t sampleMs) {
    Reading r;
    r.value = value;
    r.freshness = freshness;
    r.sampleTimeUnixMs = sampleMs;
    r.age = std::chrono::milliseconds(kT0 - sampleMs);
    return r;
}

Reading noValue(Freshness freshness) {
    Reading r;
    r.freshness = freshness;
    return r;
}
}  // namespace

class TestFleetStoreParts : public QObject {
    Q_OBJECT

private slots:
    // --- EventLog ----------------------------------------------------------------------------
    void eventLogNumbersKeepsTheNewestAndSaysWhatItDropped() {
        EventLog log(3);
        QCOMPARE(log.firstSerial(), quint64(1));
        QCOMPARE(log.nextSerial(), quint64(1));
        const auto all = [](const v1::Event&) { return true; };
        const EventLog::Appended a = log.append(0, events(2, 1), all);
        QCOMPARE(a.added, 2);
        QCOMPARE(a.trimmed, 0);
        const EventLog::Appended b = log.append(1, events(3, 10), all);
        QCOMPARE(b.added, 3);
        QCOMPARE(b.trimmed, 2);
        QCOMPARE(log.size(), 3);
        QCOMPARE(log.firstSerial(), quint64(3));
        QCOMPARE(log.nextSerial(), quint64(6));
        QVERIFY(!log.bySerial(2));  // trimmed
        QVERIFY(!log.bySerial(6));  // not stored yet
        QCOMPARE(log.bySerial(3)->event.id(), std::uint64_t(10));
        QCOMPARE(log.bySerial(3)->endpoint, 1);
        QCOMPARE(log.bySerial(5)->event.id(), std::uint64_t(12));
        QVERIFY(log.bytes() > 3 * sizeof(StoredEvent));
    }

    void eventLogStoresOnlyWhatIsAccepted() {
        EventLog log(10);
        // A resync repeats events: the caller accepts the new ones only; a refused one takes no serial.
        const EventLog::Appended a = log.append(0, events(4, 1), [](const v1::Event& e) { return e.id() % 2 == 0; });
        QCOMPARE(a.added, 2);
        QCOMPARE(log.nextSerial(), quint64(3));
        QCOMPARE(log.bySerial(1)->event.id(), std::uint64_t(2));
        QCOMPARE(log.bySerial(2)->event.id(), std::uint64_t(4));
    }

    void eventLogClearKeepsCountingSerials() {
        EventLog log(10);
        (void)log.append(0, events(4, 1), [](const v1::Event&) { return true; });
        QCOMPARE(log.clear(), 4);
        QCOMPARE(log.size(), 0);
        QCOMPARE(log.firstSerial(), quint64(5));  // = next: a model sees nothing to show
        QVERIFY(!log.bySerial(4));
        (void)log.append(0, events(1, 9), [](const v1::Event&) { return true; });
        QCOMPARE(log.firstSerial(), quint64(5));  // never reuses a serial a model may have shown
        QCOMPARE(log.clear(), 1);
        QCOMPARE(log.clear(), 0);
    }

    // --- FleetRows ---------------------------------------------------------------------------
    void rowsFollowEachEndpointsRacksAndJobs() {
        const SyntheticFleet west = makeFleet(3), east = makeFleet(7);
        EndpointFleets fleets;
        FleetRows rows;
        for (int i = 0; i < 2; ++i) {
            fleets.push_back(std::make_unique<EndpointFleet>(QStringLiteral("ep%1").arg(i), 60));
            rows.addEndpoint();
        }
        QCOMPARE(rows.sync(fleets, 0).racksRebuilt, false);  // nothing yet, nothing to redo

        fleets[1] = builtFleet(east, 1);
        FleetRows::Sync sync = rows.sync(fleets, 1);
        QVERIFY(sync.racksRebuilt);
        QCOMPARE(sync.jobsAppended, east.jobCount());
        QCOMPARE(rows.rackCount(), 7);
        QCOMPARE(rows.rackAt(0), (EntityId{1, east.rackIndex(0)}));
        QCOMPARE(rows.jobRow(EntityId{1, east.jobIndex(0)}), 0);

        // The first endpoint's racks arrive later: they come first, the second's move down.
        fleets[0] = builtFleet(west, 0);
        sync = rows.sync(fleets, 0);
        QVERIFY(sync.racksRebuilt);
        QCOMPARE(rows.rackCount(), 10);
        QCOMPARE(rows.rackAt(0), (EntityId{0, west.rackIndex(0)}));
        QCOMPARE(rows.rackAt(3), (EntityId{1, east.rackIndex(0)}));
        QCOMPARE(rows.rackRow(1, 2), 5);
        // Jobs are appended in arrival order until a rebuild puts them in endpoint order.
        QCOMPARE(rows.jobCount(), east.jobCount() + west.jobCount());
        QCOMPARE(rows.jobAt(east.jobCount()), (EntityId{0, west.jobIndex(0)}));

        const FleetRows::Sync again = rows.sync(fleets, 0);
        QVERIFY(!again.racksRebuilt && !again.jobsReset && again.jobsAppended == 0);

        // A snapshot with fewer jobs (here: none) resets the job rows.
        fleets[1] = std::make_unique<EndpointFleet>(QStringLiteral("ep1"), 60);
        sync = rows.sync(fleets, 1);
        QVERIFY(sync.racksRebuilt);
        QVERIFY(sync.jobsReset);
        QCOMPARE(rows.rackCount(), 3);
        QCOMPARE(rows.jobCount(), west.jobCount());
        QCOMPARE(rows.jobRow(EntityId{0, west.jobIndex(0)}), 0);
        QCOMPARE(rows.jobRow(EntityId{1, east.jobIndex(0)}), -1);
    }

    // --- FleetNames --------------------------------------------------------------------------
    void namesQualifyOnlyWhatClashes() {
        const SyntheticFleet a = makeFleet(2, "region"), b = makeFleet(2, "zone");
        EndpointFleets fleets;
        FleetNames names;
        addNamedEndpoint(fleets, names, a, QStringLiteral("us-east.example:50551"), QStringLiteral("east"));
        addNamedEndpoint(fleets, names, b, QStringLiteral("eu-west.example:50551"), QStringLiteral("west"));

        const EntityId westRack{1, b.rackIndex(0)};
        QCOMPARE(FleetNames::localName(fleets, westRack), QStringLiteral("r01"));
        QCOMPARE(names.name(fleets, westRack), QStringLiteral("west/r01"));
        const EntityId zone{1, b.topology().regions(0).index()};
        QCOMPARE(names.name(fleets, zone), QStringLiteral("zone-1"));  // only one endpoint has it
        QCOMPARE(names.find(fleets, QStringLiteral("ZONE-1")), zone);

        QVERIFY(!names.find(fleets, QStringLiteral("r01")).isValid());  // on both: ambiguous
        QCOMPARE(names.find(fleets, QStringLiteral("west/r01")), westRack);
        QCOMPARE(names.find(fleets, QStringLiteral("eu-west.example:50551/R01")), westRack);  // the label given
        QVERIFY(!names.find(fleets, QStringLiteral("north/r01")).isValid());
        QVERIFY(!names.find(fleets, QStringLiteral("")).isValid());
        QVERIFY(!names.find(fleets, QStringLiteral("west/")).isValid());

        // Unknown ids have no name; nothing is invented.
        QVERIFY(names.name(fleets, EntityId{}).isEmpty());
        QVERIFY(names.name(fleets, EntityId{7, 1}).isEmpty());
        QVERIFY(names.name(fleets, EntityId{0, 9'999'999}).isEmpty());
    }

    void jobNamesAreIndexedAfterTheJobsChange() {
        const SyntheticFleet a = makeFleet(4);
        EndpointFleets fleets;
        FleetNames names;
        addNamedEndpoint(fleets, names, a, QStringLiteral("east"), QStringLiteral("east"));
        QCOMPARE(names.find(fleets, QStringLiteral("train-1")), (EntityId{0, a.jobIndex(0)}));

        v1::Delta delta;
        delta.set_server_time_unix_ms(kT0 + 1000);
        v1::Job* job = delta.add_jobs();
        job->set_index(a.jobIndex(0) + 100);
        job->set_name("finetune-7");
        fleets[0]->applyDelta(delta);
        names.jobsChanged(0);
        QCOMPARE(names.find(fleets, QStringLiteral("finetune-7")), (EntityId{0, a.jobIndex(0) + 100}));
        QCOMPARE(names.name(fleets, EntityId{0, a.jobIndex(0) + 100}), QStringLiteral("finetune-7"));
        QCOMPARE(names.search(fleets, QStringLiteral("fine"), 5).front(), (EntityId{0, a.jobIndex(0) + 100}));
    }

    void searchRanksAcrossEndpointsAndHonoursTheLimit() {
        const SyntheticFleet a = makeFleet(2), b = makeFleet(2);
        EndpointFleets fleets;
        FleetNames names;
        addNamedEndpoint(fleets, names, a, QStringLiteral("east"), QStringLiteral("east"));
        addNamedEndpoint(fleets, names, b, QStringLiteral("west"), QStringLiteral("west"));

        const QList<EntityId> both = names.search(fleets, QStringLiteral("r02-n03-g1"), 5);
        QCOMPARE(both.size(), 2);  // the exact name on each endpoint, nothing weaker above them
        QVERIFY(both.contains(EntityId{0, a.gpuIndex(1, 2, 1)}));
        QVERIFY(both.contains(EntityId{1, b.gpuIndex(1, 2, 1)}));
        const QList<EntityId> qualified = names.search(fleets, QStringLiteral("west/r02-n03-g1"), 5);
        QCOMPARE(qualified.front(), (EntityId{1, b.gpuIndex(1, 2, 1)}));
        QCOMPARE(names.search(fleets, QStringLiteral("r0"), 3).size(), 3);
        QVERIFY(names.search(fleets, QStringLiteral("r0"), 0).isEmpty());
        QVERIFY(names.search(fleets, QStringLiteral("r0"), -4).isEmpty());
        QVERIFY(names.search(fleets, QStringLiteral("no-such-thing"), 5).isEmpty());
    }

    // --- FleetReadings -----------------------------------------------------------------------
    void readingsCarryTheirFreshness() {
        const SyntheticFleet a = makeFleet(1);
        auto fleet = builtFleet(a, 0);
        const std::uint32_t gpu = a.gpuIndex(0, 0, 0);
        const ReadingRules live{true, std::chrono::milliseconds(3000)};
        Reading r = readingOf(*fleet, gpu, v1::DCGM_FI_DEV_GPU_TEMP, live);
        QCOMPARE(r.freshness, Freshness::Fresh);
        QCOMPARE(r.value, SyntheticFleet::valueFor(v1::DCGM_FI_DEV_GPU_TEMP, gpu, kT0));
        QCOMPARE(r.sampleTimeUnixMs, kT0);
        QCOMPARE(readingOf(*fleet, gpu, v1::DCGM_FI_DEV_GPU_TEMP, ReadingRules{false, live.staleAfter}).freshness,
                 Freshness::Stale);
        // An unknown entity and a metric never sent read Missing, not 0.
        QCOMPARE(readingOf(*fleet, 9'999'999, v1::DCGM_FI_DEV_GPU_TEMP, live).freshness, Freshness::Missing);
        QCOMPARE(readingOf(*fleet, gpu, v1::DCGM_FI_DEV_FB_USED, live).freshness, Freshness::Missing);
        // A counter sent on change that was never sent: unchanged since the run began.
        r = readingOf(*fleet, gpu, v1::DCGM_FI_DEV_XID_ERRORS, live);
        QCOMPARE(r.freshness, Freshness::Fresh);
        QCOMPARE(r.value, 0.0f);

        // The server's clock moves on without new values: older than 3 s is stale; NaN is blank.
        v1::Delta delta;
        delta.set_server_time_unix_ms(kT0 + 4000);
        v1::SampleBlock* block = delta.add_samples();
        block->set_metric(v1::DCGM_FI_DEV_POWER_USAGE);
        block->set_sample_time_unix_ms(kT0 + 4000);
        block->add_entity_indexes(gpu);
        block->add_values(std::nanf(""));
        fleet->applyDelta(delta);
        r = readingOf(*fleet, gpu, v1::DCGM_FI_DEV_GPU_TEMP, live);
        QCOMPARE(r.freshness, Freshness::Stale);
        QCOMPARE(r.age, std::chrono::milliseconds(4000));
        QCOMPARE(readingOf(*fleet, gpu, v1::DCGM_FI_DEV_POWER_USAGE, live).freshness, Freshness::Blank);
        QCOMPARE(readingOf(*fleet, gpu, v1::DCGM_FI_DEV_GPU_TEMP, ReadingRules{true, std::chrono::milliseconds(5000)})
                     .freshness,
                 Freshness::Fresh);
    }

    void freshnessOrder() {
        QCOMPARE(worseFreshness(Freshness::Fresh, Freshness::Stale), Freshness::Stale);
        QCOMPARE(worseFreshness(Freshness::Silent, Freshness::Stale), Freshness::Silent);
        QCOMPARE(worseFreshness(Freshness::Blank, Freshness::Silent), Freshness::Blank);
        QCOMPARE(worseFreshness(Freshness::Blank, Freshness::Missing), Freshness::Missing);
        QCOMPARE(worseFreshness(Freshness::Fresh, Freshness::Fresh), Freshness::Fresh);
    }

    void aggregatesTakeTheWorstAndTheOldest() {
        const std::vector<Reading> rs{reading(60, Freshness::Fresh, kT0 - 1000),
                                      reading(80, Freshness::Stale, kT0 - 9000), noValue(Freshness::Blank),
                                      reading(70, Freshness::Fresh, kT0 - 500)};
        Reading max = aggregate(rs, ReadingAggregate::Max);
        QCOMPARE(max.value, 80.0f);
        QCOMPARE(max.freshness, Freshness::Stale);
        QCOMPARE(max.sampleTimeUnixMs, kT0 - 9000);
        QCOMPARE(max.age, std::chrono::milliseconds(9000));
        QCOMPARE(aggregate(rs, ReadingAggregate::Sum).value, 210.0f);
        QCOMPARE(aggregate(rs, ReadingAggregate::Mean).value, 70.0f);  // over the 3 with a value

        const std::vector<Reading> silent{reading(1, Freshness::Silent, kT0), reading(2, Freshness::Stale, kT0)};
        QCOMPARE(aggregate(silent, ReadingAggregate::Sum).freshness, Freshness::Silent);
        // Negative values are values: the max of two negatives is not 0 or -inf.
        const std::vector<Reading> negative{reading(-3, Freshness::Fresh, kT0), reading(-1, Freshness::Fresh, kT0)};
        QCOMPARE(aggregate(negative, ReadingAggregate::Max).value, -1.0f);

        const std::vector<Reading> blanks{noValue(Freshness::Blank), noValue(Freshness::Missing)};
        const Reading none = aggregate(blanks, ReadingAggregate::Max);
        QCOMPARE(none.freshness, Freshness::Blank);
        QVERIFY(std::isnan(none.value));
        QCOMPARE(aggregate(std::vector<Reading>{}, ReadingAggregate::Mean).freshness, Freshness::Missing);
        QCOMPARE(aggregate(std::vector<Reading>{noValue(Freshness::Missing)}, ReadingAggregate::Sum).freshness,
                 Freshness::Missing);
    }

    // --- history -----------------------------------------------------------------------------
    void chartPointsSkipBlanksAndBreakAtRestarts() {
        const float nan = std::nanf("");
        const std::vector<HistoryPoint> points{{1000, 1}, {2000, nan}, {3000, 3}, {4000, 4}, {5000, 5}, {6000, 6}};
        QList<QPointF> out = chartPoints(points, {});
        QCOMPARE(out.size(), 5);
        QCOMPARE(out[1], QPointF(3000, 3));

        // Restarts before 4000 (twice: one gap) and before the first point (no gap before nothing).
        out = chartPoints(points, {500, 3500, 3600});
        QCOMPARE(out.size(), 6);
        QCOMPARE(out[0], QPointF(1000, 1));
        QCOMPARE(out[2].x(), 3999.5);
        QVERIFY(std::isnan(out[2].y()));
        QCOMPARE(out[3], QPointF(4000, 4));
        QVERIFY(chartPoints({}, {1000}).isEmpty());
    }

    // --- rankings ----------------------------------------------------------------------------
    void rackRankOrdersKnownFaultsFirst() {
        const EntityId rack{0, 7};
        const RankedEntity healthy = rankRack(rack, RackFacts{.gpuTempMaxC = 70});
        QCOMPARE(healthy.why, QStringLiteral("healthy"));
        QCOMPARE(healthy.score, 70.0);
        QCOMPARE(healthy.id, rack);

        const double isolated = rankRack(rack, RackFacts{.isolated = true}).score;
        const double failed = rankRack(rack, RackFacts{.failed = true}).score;
        const double wet = rankRack(rack, RackFacts{.leaksWet = 1}).score;
        const double degraded = rankRack(rack, RackFacts{.degraded = true}).score;
        const double manyDown = rankRack(rack, RackFacts{.gpusDown = 72}).score;
        const double silent = rankRack(rack, RackFacts{.silentTrays = 1}).score;
        const double oneDown = rankRack(rack, RackFacts{.gpusDown = 1}).score;
        const double oneDegraded = rankRack(rack, RackFacts{.gpusDegraded = 1}).score;
        QVERIFY(isolated > failed && failed > wet && wet > degraded && degraded > manyDown);
        QVERIFY(oneDown > silent && silent > oneDegraded && oneDegraded > healthy.score);
        // Link errors count, but a burst cannot outweigh a GPU down.
        QVERIFY(rankRack(rack, RackFacts{.linkErrorsPerMin = 1e9}).score < oneDown);

        const RankedEntity hot = rankRack(rack, RackFacts{.leaksWet = 2, .gpusDown = 4, .gpuTempMaxC = 91});
        QCOMPARE(hot.why, QStringLiteral("2 leak sensor(s) wet, 4 GPU(s) down, GPU max 91 °C"));
    }

    void recentAlertsCountAgainstTheRack() {
        RankedEntity r = rankRack(EntityId{0, 1}, RackFacts{.gpuTempMaxC = 60});
        addRecentAlerts(r, 0, 0);
        QCOMPARE(r.why, QStringLiteral("healthy"));
        QCOMPARE(r.score, 60.0);
        addRecentAlerts(r, 2, 3);
        QCOMPARE(r.score, 60.0 + 100 + 30);
        QCOMPARE(r.why, QStringLiteral("alerts in 15 min: 2 critical, 3 warning"));
        RankedEntity d = rankRack(EntityId{0, 1}, RackFacts{.degraded = true});
        addRecentAlerts(d, 0, 1);
        QCOMPARE(d.why, QStringLiteral("degraded, alerts in 15 min: 1 warning"));
    }
};

QTEST_GUILESS_MAIN(TestFleetStoreParts)
#include "tst_fleetstore_parts.moc"
