// The Xid filter behind the Rack page's "Recent Xids" table: only Xid events, only those on the
// scope or inside it (never another endpoint's entity with the same index), newest first,
// bounded; fleetd's catalogue row carried as sent; a bad scope or limit selects nothing.
#include "FleetStore.h"
#include "XidFilter.h"

#include "SyntheticFleet.h"

#include <QtTest>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kT0 = 1'800'000'000'000;

v1::Event xid(std::uint64_t id, std::uint32_t entity, std::uint32_t code, const char* mnemonic, bool fatal) {
    v1::Event e;
    e.set_id(id);
    e.set_time_unix_ms(kT0 + std::int64_t(id) * 1000);
    e.set_type(v1::EVENT_TYPE_XID);
    e.set_severity(fatal ? v1::SEVERITY_CRITICAL : v1::SEVERITY_WARNING);
    e.set_entity_index(entity);
    e.set_message("Xid " + std::to_string(code) + " event " + std::to_string(id));
    e.mutable_xid()->set_xid(code);
    if (mnemonic) {
        e.mutable_xid()->set_mnemonic(mnemonic);
        e.mutable_xid()->set_recommended_action(fatal ? v1::XID_ACTION_RESTART_BM : v1::XID_ACTION_IGNORE);
        e.mutable_xid()->set_fatal(fatal);
        e.mutable_xid()->set_fleet_policy(fatal ? "drain, power-cycle the node" : "monitor");
    }
    return e;
}

v1::Event other(std::uint64_t id, std::uint32_t entity, v1::EventType type) {
    v1::Event e;
    e.set_id(id);
    e.set_time_unix_ms(kT0 + std::int64_t(id) * 1000);
    e.set_type(type);
    e.set_severity(v1::SEVERITY_WARNING);
    e.set_entity_index(entity);
    return e;
}

void send(FleetStore& store, int endpoint, std::uint64_t sequence, const std::vector<v1::Event>& events) {
    v1::SubscribeResponse m;
    m.mutable_delta()->set_sequence(sequence);
    m.mutable_delta()->set_first_sequence(sequence);
    m.mutable_delta()->set_server_time_unix_ms(kT0 + std::int64_t(sequence) * 1000);
    for (const v1::Event& e : events) *m.mutable_delta()->add_events() = e;
    store.apply(endpoint, m);
}

QList<std::uint32_t> codes(const std::vector<XidRow>& rows) {
    QList<std::uint32_t> out;
    for (const XidRow& r : rows) out << r.xid;
    return out;
}
}  // namespace

class TestXidFilter : public QObject {
    Q_OBJECT

private:
    SyntheticFleet m_fleet{SyntheticFleetSpec{.racks = 3}};

private slots:
    void selectsTheScopesXidsNewestFirst() {
        FleetStore store;
        const int east = store.addEndpoint("east");
        const int west = store.addEndpoint("west");
        store.apply(east, m_fleet.snapshot(1, kT0));
        store.apply(west, m_fleet.snapshot(1, kT0));
        const std::uint32_t gpu = m_fleet.gpuIndex(0, 6, 2);  // r01-n07-g2
        send(store, east, 2,
             {xid(1, gpu, 79, "GPU_HAS_FALLEN_OFF_THE_BUS", true), other(2, gpu, v1::EVENT_TYPE_CLOCKS_EVENT),
              xid(3, m_fleet.gpuIndex(1, 0, 0), 48, "GPU_ECC_DBE", true),              // r02
              xid(4, m_fleet.nodeIndex(0, 3), 92, "EXCESSIVE_SBE_INTERRUPTS", false),  // a tray of r01
              xid(5, gpu, 45, "PREEMPTIVE_REMOVAL", false)});
        // The same entity indexes on another endpoint are other GPUs.
        send(store, west, 2, {xid(1, gpu, 13, "GR_EXCEPTION", false)});

        const EntityId r01{quint16(east), m_fleet.rackIndex(0)};
        std::vector<XidRow> rows = selectXids(store, XidFilter{r01, 50});
        QCOMPARE(codes(rows), (QList<std::uint32_t>{45, 92, 79}));
        const XidRow& first = rows.back();
        QCOMPARE(first.entity, (EntityId{quint16(east), gpu}));
        QCOMPARE(store.name(first.entity), QStringLiteral("east/r01-n07-g2"));
        QCOMPARE(first.timeUnixMs, kT0 + 1000);
        QCOMPARE(first.code(), QStringLiteral("79 GPU_HAS_FALLEN_OFF_THE_BUS"));
        QCOMPARE(first.action, v1::XID_ACTION_RESTART_BM);
        QVERIFY(first.fatal);
        QCOMPARE(first.fleetPolicy, QStringLiteral("drain, power-cycle the node"));
        QCOMPARE(first.message, QStringLiteral("Xid 79 event 1"));
        QCOMPARE(store.eventBySerial(first.serial)->event.id(), std::uint64_t(1));
        QVERIFY(!rows.front().fatal);

        // A tray or a GPU scope narrows it; the other endpoint's rack has its own.
        QCOMPARE(codes(selectXids(store, XidFilter{EntityId{quint16(east), m_fleet.nodeIndex(0, 6)}, 50})),
                 (QList<std::uint32_t>{45, 79}));
        QCOMPARE(codes(selectXids(store, XidFilter{EntityId{quint16(east), gpu}, 50})), (QList<std::uint32_t>{45, 79}));
        QCOMPARE(codes(selectXids(store, XidFilter{EntityId{quint16(west), m_fleet.rackIndex(0)}, 50})),
                 (QList<std::uint32_t>{13}));
        QVERIFY(selectXids(store, XidFilter{EntityId{quint16(east), m_fleet.rackIndex(2)}, 50}).empty());
    }

    void boundedToTheNewest() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, m_fleet.snapshot(1, kT0));
        const std::uint32_t gpu = m_fleet.gpuIndex(0, 0, 0);
        std::vector<v1::Event> events;
        for (std::uint64_t i = 1; i <= 60; ++i) events.push_back(xid(i, gpu, std::uint32_t(100 + i), "X", false));
        send(store, ep, 2, events);
        const EntityId rack{quint16(ep), m_fleet.rackIndex(0)};
        const std::vector<XidRow> rows = selectXids(store, XidFilter{rack, 50});
        QCOMPARE(int(rows.size()), 50);
        QCOMPARE(rows.front().xid, 160u);
        QCOMPARE(rows.back().xid, 111u);
        QCOMPARE(int(selectXids(store, XidFilter{rack, 3}).size()), 3);
    }

    void eventsTheStoreDroppedAreGone() {
        FleetStore::Options options;
        options.maxEvents = 4;
        FleetStore store(options);
        const int ep = store.addEndpoint("east");
        store.apply(ep, m_fleet.snapshot(1, kT0));
        const std::uint32_t gpu = m_fleet.gpuIndex(0, 0, 0);
        send(store, ep, 2,
             {xid(1, gpu, 79, "A", true), xid(2, gpu, 48, "B", true), other(3, gpu, v1::EVENT_TYPE_CLOCKS_EVENT),
              other(4, gpu, v1::EVENT_TYPE_CLOCKS_EVENT), xid(5, gpu, 94, "C", false)});
        QCOMPARE(codes(selectXids(store, XidFilter{EntityId{quint16(ep), m_fleet.rackIndex(0)}, 50})),
                 (QList<std::uint32_t>{94, 48}));
    }

    void withoutACatalogueRowTheCodeStandsAlone() {
        XidRow row;
        row.xid = 167;
        QCOMPARE(row.code(), QStringLiteral("167"));
        row.mnemonic = QStringLiteral("SOMETHING_NEW");
        QCOMPARE(row.code(), QStringLiteral("167 SOMETHING_NEW"));
    }

    void badScopeOrLimitSelectsNothing() {
        FleetStore store;
        const int ep = store.addEndpoint("east");
        store.apply(ep, m_fleet.snapshot(1, kT0));
        send(store, ep, 2, {xid(1, m_fleet.gpuIndex(0, 0, 0), 79, "A", true)});
        const EntityId rack{quint16(ep), m_fleet.rackIndex(0)};
        QVERIFY(selectXids(store, XidFilter{EntityId{}, 50}).empty());
        QVERIFY(selectXids(store, XidFilter{rack, 0}).empty());
        QVERIFY(selectXids(store, XidFilter{rack, -1}).empty());
        QVERIFY(selectXids(store, XidFilter{EntityId{9, m_fleet.rackIndex(0)}, 50}).empty());  // no such endpoint
        QVERIFY(selectXids(store, XidFilter{EntityId{quint16(ep), 9'999'999}, 50}).empty());   // no such entity
        QCOMPARE(int(selectXids(store, XidFilter{rack, 50}).size()), 1);
    }
};

QTEST_GUILESS_MAIN(TestXidFilter)
#include "tst_xidfilter.moc"
