// Item models over FleetStore: QAbstractItemModelTester on each, one dataChanged per contiguous
// dirty range with value roles, one insert per event batch and one remove per trim.
#include "EventFilterProxyModel.h"
#include "EventListModel.h"
#include "FleetStore.h"
#include "JobTableModel.h"
#include "ModelRoles.h"
#include "NodeTableModel.h"
#include "RackTableModel.h"
#include "ValueFormat.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;
constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

v1::SubscribeResponse oneGpuSample(const SyntheticFleet& f, std::uint64_t seq, std::int64_t t,
                                   std::initializer_list<int> racks) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(seq);
    m.mutable_delta()->set_server_time_unix_ms(t);
    auto* b = m.mutable_delta()->add_samples();
    b->set_metric(v1::DCGM_FI_DEV_GPU_TEMP);
    b->set_sample_time_unix_ms(t);
    for (int r : racks) {
        b->add_entity_indexes(f.gpuIndex(r, 0, 0));
        b->add_values(80.0f);
    }
    return m;
}
}  // namespace

class TestModels : public QObject {
    Q_OBJECT

    SyntheticFleet m_fleet{[] {
        SyntheticFleetSpec s;
        s.racks = 12;
        return s;
    }()};

private slots:
    void rackModelDataChangedPerContiguousRange() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        RackTableModel model(store);
        QAbstractItemModelTester tester(&model, kFatal);
        store.apply(ep, m_fleet.snapshot(1, kT0));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 12);
        QCOMPARE(model.columnCount(), int(RackTableModel::ColumnCount));
        QCOMPARE(model.index(2, RackTableModel::Name).data().toString(), QStringLiteral("r03"));
        QCOMPARE(model.index(2, RackTableModel::State).data().toString(), QStringLiteral("in service"));
        QCOMPARE(model.index(0, RackTableModel::PowerKw).data(FreshnessRole).toInt(), int(Freshness::Fresh));
        QVERIFY(model.index(0, RackTableModel::PowerKw).data().toString().endsWith(" kW"));
        QCOMPARE(model.index(0, RackTableModel::SupplyTemp).data(ValueRole).toDouble(),
                 double(SyntheticFleet::valueFor(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, m_fleet.loopIndex(0), kT0)));

        QSignalSpy spy(&model, &QAbstractItemModel::dataChanged);
        // Same server second (no freshness tick): racks 1, 2, 3 and 7, 8 change.
        store.apply(ep, oneGpuSample(m_fleet, 2, kT0 + 100, {1, 2, 3, 7, 8}));
        store.flushChanges();
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(0).at(0).toModelIndex().row(), 1);
        QCOMPARE(spy.at(0).at(1).toModelIndex().row(), 3);
        QCOMPARE(spy.at(0).at(1).toModelIndex().column(), int(RackTableModel::ColumnCount) - 1);
        QCOMPARE(spy.at(1).at(0).toModelIndex().row(), 7);
        QCOMPARE(spy.at(1).at(1).toModelIndex().row(), 8);
        const auto roles = spy.at(0).at(2).value<QList<int>>();
        QVERIFY(roles.contains(Qt::DisplayRole) && roles.contains(FreshnessRole));
        QVERIFY(!roles.contains(Qt::DecorationRole));

        // A new server second ages everything: one signal for the whole table.
        spy.clear();
        store.apply(ep, m_fleet.heartbeat(2, kT0 + 4000));
        store.flushChanges();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(1).toModelIndex().row(), 11);
        QCOMPARE(model.index(0, RackTableModel::PowerKw).data(FreshnessRole).toInt(), int(Freshness::Stale));

        // A second endpoint resets the model with all racks.
        const int ep2 = store.addEndpoint("west");
        store.apply(ep2, m_fleet.snapshot(1, kT0));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 24);
        QCOMPARE(model.index(12, RackTableModel::Name).data().toString(), QStringLiteral("west/r01"));
    }

    void missingAndBlankAreNotZero() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        RackTableModel model(store);
        QAbstractItemModelTester tester(&model, kFatal);
        v1::SubscribeResponse s = m_fleet.snapshot(1, kT0);
        // Rack 0's power is blank; no rack reports link errors at all.
        for (auto& block : *s.mutable_snapshot()->mutable_samples()) {
            if (block.metric() == v1::RACK_POWER_KW) block.set_values(0, std::numeric_limits<float>::quiet_NaN());
            if (block.metric() == v1::RACK_LINK_ERRORS_PER_MIN) block.set_metric(v1::METRIC_UNSPECIFIED);
        }
        store.apply(ep, s);
        store.flushChanges();
        QCOMPARE(model.index(0, RackTableModel::PowerKw).data().toString(), QStringLiteral("n/a"));
        QCOMPARE(model.index(0, RackTableModel::PowerKw).data(FreshnessRole).toInt(), int(Freshness::Blank));
        QVERIFY(std::isnan(model.index(0, RackTableModel::PowerKw).data(ValueRole).toDouble()));
        QCOMPARE(model.index(0, RackTableModel::LinkErrorsPerMin).data().toString(), QStringLiteral("—"));
        QCOMPARE(model.index(0, RackTableModel::LinkErrorsPerMin).data(FreshnessRole).toInt(), int(Freshness::Missing));
    }

    // One wording for a reading everywhere (issue 15 item 5: "—" in tables, "n/a" on pages before).
    void oneFormatterForTablesAndPages() {
        using namespace std::chrono_literals;
        auto reading = [](float value, Freshness freshness, std::chrono::milliseconds age) {
            Reading r;
            r.value = value;
            r.freshness = freshness;
            r.age = age;
            r.sampleTimeUnixMs = freshness == Freshness::Missing ? 0 : 1;
            return r;
        };
        const Reading never = reading(0.0f, Freshness::Missing, 0ms);
        const Reading blank = reading(std::nanf(""), Freshness::Blank, 3s);
        const Reading fresh = reading(42.06f, Freshness::Fresh, 1s);
        const Reading stale = reading(42.06f, Freshness::Stale, 12s);
        const Reading silent = reading(42.06f, Freshness::Silent, 180s);
        for (ReadingText text : {ReadingText::WithFreshness, ReadingText::ValueOnly}) {
            QCOMPARE(formatReading(never, QStringLiteral("°C"), 1, text), QStringLiteral("—"));
            QCOMPARE(formatReading(blank, QStringLiteral("°C"), 1, text), QStringLiteral("n/a"));
            QCOMPARE(formatReading(fresh, QStringLiteral("°C"), 1, text), QStringLiteral("42.1 °C"));
        }
        QCOMPARE(formatReading(stale, QStringLiteral("°C")), QStringLiteral("42.1 °C (stale 12 s)"));
        QCOMPARE(formatReading(silent, {}, 0), QStringLiteral("42 (last read 3 min, source silent)"));
        QCOMPARE(formatReading(stale, QStringLiteral("°C"), 1, ReadingText::ValueOnly), QStringLiteral("42.1 °C"));
        QCOMPARE(formatAge(never), QStringLiteral("never reported"));
        QCOMPARE(formatAge(stale), QStringLiteral("12 s ago"));
        QCOMPARE(formatDuration(5400), QStringLiteral("90 min"));
        QCOMPARE(formatDuration(9000), QStringLiteral("2 h 30 min"));
        QCOMPARE(formatRatioPercent(0.873), QStringLiteral("87.3 %"));
        QCOMPARE(formatValue(std::nan(""), QStringLiteral("kW")), QStringLiteral("n/a"));
    }

    void nodeModelFollowsItsRack() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, m_fleet.snapshot(1, kT0));
        store.flushChanges();
        NodeTableModel model(store);
        QAbstractItemModelTester tester(&model, kFatal);
        model.setRack(store.rackAt(4));
        QCOMPARE(model.rowCount(), 18);
        QCOMPARE(model.index(6, NodeTableModel::Name).data().toString(), QStringLiteral("r05-n07"));
        QCOMPARE(model.index(6, NodeTableModel::GpuPowerW).data(FreshnessRole).toInt(), int(Freshness::Fresh));

        QSignalSpy spy(&model, &QAbstractItemModel::dataChanged);
        store.apply(ep, oneGpuSample(m_fleet, 2, kT0 + 100, {1}));  // another rack
        store.flushChanges();
        QCOMPARE(spy.count(), 0);
        store.apply(ep, oneGpuSample(m_fleet, 3, kT0 + 200, {4}));
        store.flushChanges();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(model.index(0, NodeTableModel::GpuTempMax).data(ValueRole).toDouble(), 80.0);

        // A restart with the same topology keeps the rack; the model re-finds it by name.
        store.apply(ep, m_fleet.snapshot(1, kT0 + 9000, "run-2", "restart"));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 18);
    }

    void jobModelAppendsAndResets() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        JobTableModel model(store);
        QAbstractItemModelTester tester(&model, kFatal);
        store.apply(ep, m_fleet.snapshot(1, kT0));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, JobTableModel::State).data().toString(), QStringLiteral("running"));
        QCOMPARE(model.index(0, JobTableModel::Gpus).data(ValueRole).toDouble(), 4.0 * 18 * 4);
        QCOMPARE(model.index(0, JobTableModel::Goodput).data().toString(), QStringLiteral("90.0 %"));

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        v1::SubscribeResponse d = m_fleet.delta(2, kT0 + 1000);
        v1::Job extra = d.delta().jobs(0);
        extra.set_index(900000);
        extra.set_name("eval-7");
        *d.mutable_delta()->add_jobs() = extra;
        extra.set_index(900001);
        extra.set_name("eval-8");
        *d.mutable_delta()->add_jobs() = extra;
        store.apply(ep, d);
        store.flushChanges();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 3);
        QCOMPARE(inserted.at(0).at(2).toInt(), 4);
        QCOMPARE(model.index(4, JobTableModel::Name).data().toString(), QStringLiteral("eval-8"));
        QCOMPARE(store.findByName("eval-8"), model.entityAt(4));

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        store.apply(ep, m_fleet.snapshot(5, kT0 + 5000, "run-1", "resync"));
        store.flushChanges();
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 3);
    }

    void eventModelNewestFirstWithOneInsertAndOneTrim() {
        FleetStore::Options options;
        options.maxEvents = 50;
        FleetStore store(options);
        const int ep = store.addEndpoint("east");
        EventListModel model(store);
        QAbstractItemModelTester tester(&model, kFatal);
        store.apply(ep, m_fleet.snapshot(1, kT0));
        store.flushChanges();
        QCOMPARE(model.rowCount(), 0);

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        store.apply(ep, m_fleet.delta(2, kT0 + 1000, 20));
        store.apply(ep, m_fleet.delta(3, kT0 + 2000, 20));
        store.flushChanges();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(removed.count(), 0);
        QCOMPARE(model.rowCount(), 40);
        QCOMPARE(model.index(0, 0).data(EventSerialRole).toULongLong(), quint64(40));  // newest on top
        QCOMPARE(model.index(0, EventListModel::Severity).data().toString(), QStringLiteral("info"));
        QCOMPARE(model.index(0, EventListModel::Type).data().toString(), QStringLiteral("clocks event"));
        QVERIFY(model.index(0, EventListModel::Entity).data().toString().startsWith("r"));

        store.apply(ep, m_fleet.delta(4, kT0 + 3000, 30));
        store.flushChanges();
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(removed.count(), 1);               // 70 > 50: the oldest 20 leave in one remove
        QCOMPARE(removed.at(0).at(1).toInt(), 20);  // trimmed before the insert: rows 20..39 of 40
        QCOMPARE(removed.at(0).at(2).toInt(), 39);
        QCOMPARE(model.rowCount(), 50);
        QCOMPARE(model.index(49, 0).data(EventSerialRole).toULongLong(), quint64(21));

        EventFilterProxyModel proxy(store);
        proxy.setSourceModel(&model);
        QAbstractItemModelTester proxyTester(&proxy, kFatal);
        proxy.setMinimumSeverity(v1::SEVERITY_WARNING);
        int warnings = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            warnings += model.index(r, 0).data(SeverityRole).toInt() == v1::SEVERITY_WARNING ? 1 : 0;
        QCOMPARE(proxy.rowCount(), warnings);
        QVERIFY(warnings > 0 && warnings < 50);
        proxy.setMinimumSeverity(0);
        proxy.setEntity(store.findByName("r01"));
        QVERIFY(proxy.rowCount() > 0);
        for (int r = 0; r < proxy.rowCount(); ++r) {
            const auto id = proxy.index(r, 0).data(EntityIdRole).value<EntityId>();
            QCOMPARE(store.rackOf(id), store.findByName("r01"));
        }
        proxy.setEntity({});
        proxy.setTypes({v1::EVENT_TYPE_XID});
        QCOMPARE(proxy.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
