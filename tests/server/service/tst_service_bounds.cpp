// What clients choose must not grow fleetd's memory (issue 13 item 7): the pump's per-filter
// snapshot cache stays within PumpOptions::maxCachedFilters however many distinct filters
// Subscribe calls bring. WATCHFLOOR_TEST_SCALE=full runs 10,000 filters (CTest label `long`).
#include "LruCache.h"
#include "ReplayLog.h"
#include "StreamTestSupport.h"
#include "SubscriptionPump.h"
#include "TelemetryService.h"
#include "TinyFleetSource.h"

#include <QTest>

#include <grpcpp/grpcpp.h>

using namespace watchfloor::server::service;
using watchfloor::server::testing::TinyFleetShape;
using watchfloor::server::testing::TinyFleetSource;
namespace v1 = watchfloor::v1;

namespace {
bool fullScale() { return qEnvironmentVariable("WATCHFLOOR_TEST_SCALE") == "full"; }
}  // namespace

class ServiceBoundsTest : public QObject {
    Q_OBJECT

private slots:
    void lruCacheKeepsTheMostRecentlyUsed() {
        LruCache<int> cache(256);
        for (int i = 0; i < 10'000; ++i) {
            cache[std::to_string(i)] = i;
            cache["0"];  // keeps "0" the most recently used
            QVERIFY(cache.size() <= 256);
        }
        QCOMPARE(cache.size(), std::size_t(256));
        QCOMPARE(cache["0"], 0);
        QCOMPARE(cache["9999"], 9999);
        QCOMPARE(cache["1"], 0);  // long forgotten: a fresh, empty entry
    }

    void snapshotCacheIsBoundedPerDistinctFilter() {
        // 16 racks: every non-empty subset is a distinct filter.
        TinyFleetSource source(TinyFleetShape{2, 8, 1, 1});
        FleetStateStore store(source.topology());
        watchfloor::server::FleetChanges changes;
        source.advanceTo(source.now() + std::chrono::seconds(1), changes);
        ReplayLog log;
        log.append(store.apply(changes));
        HistoryStore history(store.index());
        PumpOptions options;
        options.maxCachedFilters = 8;
        SubscriptionPump pump(store, log, ServerIdentity{"run-1", "test", 1.0}, options);
        TelemetryService service(store, log, history, pump);
        int port = 0;
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
        builder.RegisterService(&service);
        auto server = builder.BuildAndStart();
        QVERIFY(server && port > 0);
        const std::string address = "127.0.0.1:" + std::to_string(port);

        std::vector<std::string> racks;
        for (const auto& rack : source.topology().racks()) racks.push_back(rack.name());
        QCOMPARE(racks.size(), std::size_t(16));
        const int filters = fullScale() ? 10'000 : 400;  // past the store's 256 cached topologies
        auto channel = watchfloor::server::testing::dedicatedChannel(address);
        auto stub = v1::TelemetryService::NewStub(channel);
        for (int mask = 1; mask <= filters; ++mask) {
            v1::SubscribeRequest request;
            for (std::size_t r = 0; r < racks.size(); ++r)
                if (mask & (1 << r)) request.add_rack_names(racks[r]);
            grpc::ClientContext context;
            context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
            auto reader = stub->Subscribe(&context, request);
            v1::SubscribeResponse first;
            QVERIFY2(reader->Read(&first), qPrintable(QString("no snapshot for filter %1").arg(mask)));
            QVERIFY(first.has_snapshot());
            context.TryCancel();
            while (reader->Read(&first)) {}
            reader->Finish();
            QVERIFY2(pump.cachedFilters() <= options.maxCachedFilters,
                     qPrintable(QString("%1 filters cached after %2").arg(pump.cachedFilters()).arg(mask)));
            // The store's per-filter topologies are bounded too (they were kept for good).
            QVERIFY2(store.cachedTopologies() <= 256,
                     qPrintable(QString("%1 topologies cached after %2").arg(store.cachedTopologies()).arg(mask)));
        }
        QCOMPARE(pump.cachedFilters(), options.maxCachedFilters);
        pump.finishAll(grpc::Status(grpc::StatusCode::UNAVAILABLE, "test over"));
        server->Shutdown();
        pump.stop();
    }
};

QTEST_GUILESS_MAIN(ServiceBoundsTest)
#include "tst_service_bounds.moc"
