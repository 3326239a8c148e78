// EndpointConnection against a fake TelemetryService on loopback (grpc::ServerBuilder): going
// Live, resume without gap or duplicate, resync on a sequence gap, Incompatible servers, Stale
// when silent, an unreachable endpoint watched without re-subscribing, a server that comes back,
// unary deadlines, and teardown while streaming.
#include "EndpointConnection.h"
#include "FleetStore.h"

#include "ClientTestPrinters.h"
#include "SyntheticFleet.h"

#include <QSignalSpy>
#include <QtTest>

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <mutex>
#include <thread>

using namespace watchfloor::client;
using watchfloor::testing::SyntheticFleet;
using watchfloor::testing::SyntheticFleetSpec;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;

// A scripted fleetd: a snapshot (or a replay when resuming), then a delta every 20 ms.
class FakeTelemetryService final : public v1::TelemetryService::Service {
public:
    std::atomic<int> apiVersion{v1::API_VERSION_1};
    std::atomic<bool> silent{false};
    std::atomic<int> skipSequencesOnce{0};
    std::atomic<int> historyDelayMs{0};

    grpc::Status Subscribe(grpc::ServerContext* context, const v1::SubscribeRequest* request,
                           grpc::ServerWriter<v1::SubscribeResponse>* writer) override {
        {
            std::lock_guard lock(m_mutex);
            m_requests.push_back(*request);
        }
        // Sequences are the server's, shared by all streams; each stream sends every one of them
        // in order from its own cursor (as fleetd's replay log does).
        std::uint64_t cursor = m_latest.load();
        if (request->resume_after_sequence() > 0 && request->resume_run_id() == kRunId) {
            for (std::uint64_t s = request->resume_after_sequence() + 1; s <= cursor; ++s) {
                if (!writer->Write(m_fleet.delta(s, kT0 + std::int64_t(s) * 1000))) return grpc::Status::OK;
            }
        } else {
            v1::SubscribeResponse snapshot = m_fleet.snapshot(cursor, kT0 + std::int64_t(cursor) * 1000, kRunId);
            snapshot.mutable_snapshot()->set_api_version(v1::ApiVersion(apiVersion.load()));
            if (!writer->Write(snapshot)) return grpc::Status::OK;
        }
        while (!context->IsCancelled()) {
            std::this_thread::sleep_for(20ms);
            if (silent) continue;
            std::uint64_t target = m_latest.load();
            if (cursor >= target) target = ++m_latest;
            if (const int skip = skipSequencesOnce.exchange(0); skip > 0) {
                target = (m_latest += std::uint64_t(skip));
                cursor = target - 1;  // the deltas in between are "lost": a gap the client must notice
            }
            for (; cursor < target;) {
                ++cursor;
                if (!writer->Write(m_fleet.delta(cursor, kT0 + std::int64_t(cursor) * 1000))) return grpc::Status::OK;
            }
        }
        return grpc::Status::OK;
    }

    grpc::Status GetHistory(grpc::ServerContext* context, const v1::GetHistoryRequest* request,
                            v1::GetHistoryResponse* response) override {
        for (int waited = 0; waited < historyDelayMs && !context->IsCancelled(); waited += 10) {
            std::this_thread::sleep_for(10ms);
        }
        response->set_entity_name(request->entity_name());
        response->set_metric(request->metric());
        response->set_step_ms(1000);
        auto* p = response->add_points();
        p->set_time_unix_ms(request->start_unix_ms());
        p->set_mean(42.0f);
        p->set_count(1);
        return grpc::Status::OK;
    }

    std::vector<v1::SubscribeRequest> requests() {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

private:
    static constexpr const char* kRunId = "fake-run-1";
    SyntheticFleet m_fleet{SyntheticFleetSpec{}};
    std::atomic<std::uint64_t> m_latest{10};
    std::mutex m_mutex;
    std::vector<v1::SubscribeRequest> m_requests;
};

// A server on a real loopback port, so that a client's channel sees it go and come back.
std::unique_ptr<grpc::Server> startOnPort(grpc::Service* service, const QString& address, int* selectedPort) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address.toStdString(), grpc::InsecureServerCredentials(), selectedPort);
    builder.RegisterService(service);
    return builder.BuildAndStart();
}

// The fake on a loopback port rather than an in-process channel: the in-process transport hands
// the server's serialized bytes to the client parser as they are, a sharing no real connection
// has (and one ThreadSanitizer reports, as gRPC core orders it out of its sight).
struct LoopbackServer {
    explicit LoopbackServer(grpc::Service* service)
        : server(startOnPort(service, QStringLiteral("127.0.0.1:0"), &port)) {}
    ~LoopbackServer() { server->Shutdown(std::chrono::system_clock::now() + 1s); }
    std::shared_ptr<grpc::Channel> channel() const {
        return grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
    }
    int port = 0;  // before `server`: startOnPort writes it while `server` is built
    std::unique_ptr<grpc::Server> server;
};

EndpointConfig fakeConfig() {
    EndpointConfig c;
    c.target = QStringLiteral("fake-endpoint");
    c.label = QStringLiteral("fake");
    return c;
}

}  // namespace

class TestEndpointConnection : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<ConnectionState>(); }

    void goesLiveAndFeedsTheStore() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        EndpointConnection connection(fakeConfig(), server.channel());
        FleetStore store;
        const int ep = store.attach(&connection);
        QSignalSpy states(&connection, &EndpointConnection::stateChanged);
        connection.start();
        QCOMPARE(connection.state(), ConnectionState::Connecting);
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(store.rackCount(), 7, 5000);
        QCOMPARE(store.endpointState(ep), ConnectionState::Live);
        QVERIFY(connection.statusText().startsWith("Live"));
        const quint64 first = connection.lastSequence();
        QTRY_VERIFY_WITH_TIMEOUT(connection.lastSequence() > first + 5, 5000);
        QCOMPARE(connection.stats().snapshots, quint64(1));
        QCOMPARE(connection.stats().sequenceGaps, quint64(0));
        QCOMPARE(store.reading(store.rackAt(0), v1::RACK_POWER_KW).freshness, Freshness::Fresh);
        connection.stop();
        QCOMPARE(connection.state(), ConnectionState::Disconnected);
        QCOMPARE(store.endpointState(ep), ConnectionState::Disconnected);
        QCOMPARE(store.reading(store.rackAt(0), v1::RACK_POWER_KW).freshness, Freshness::Stale);
    }

    void resumeHasNoGapOrDuplicate() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        EndpointConnection connection(fakeConfig(), server.channel());
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(connection.stats().deltas > 5, 5000);
        connection.reconnectNow();
        const quint64 resumedFrom = connection.lastSequence();
        QTRY_VERIFY_WITH_TIMEOUT(connection.lastSequence() > resumedFrom + 5, 5000);
        QCOMPARE(connection.state(), ConnectionState::Live);
        const auto requests = service.requests();
        QCOMPARE(int(requests.size()), 2);
        QCOMPARE(requests[1].resume_after_sequence(), resumedFrom);
        QCOMPARE(requests[1].resume_run_id(), std::string("fake-run-1"));
        QCOMPARE(requests[1].client_api_version(), v1::API_VERSION_1);
        QCOMPARE(connection.stats().snapshots, quint64(1));
        QCOMPARE(connection.stats().resumedWithoutSnapshot, quint64(1));
        QCOMPARE(connection.stats().sequenceGaps, quint64(0));
        QCOMPARE(connection.stats().duplicateDeltasDropped, quint64(0));
    }

    void blockedGuiThreadGetsOneBatch() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        EndpointConnection connection(fakeConfig(), server.channel());
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(connection.stats().deltas > 2, 5000);
        connection.takeResponses();
        std::vector<std::vector<v1::SubscribeResponse>> batches;
        QObject context;
        connect(&connection, &EndpointConnection::responsesReady, &context,
                [&] { batches.push_back(connection.takeResponses()); });
        QThread::msleep(600);  // the GUI is busy; the stream keeps arriving (a delta per 20 ms)
        QTRY_VERIFY_WITH_TIMEOUT(!batches.empty(), 2000);
        const auto& first = batches.front();  // the whole backlog, in one hand-over
        QVERIFY2(first.size() >= 10, qPrintable(QString::number(first.size())));
        for (std::size_t i = 1; i < first.size(); ++i) {
            QCOMPARE(first[i].delta().sequence(), first[i - 1].delta().sequence() + 1);
        }
    }

    void sequenceGapResyncs() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        EndpointConnection connection(fakeConfig(), server.channel());
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        service.skipSequencesOnce = 5;
        QTRY_COMPARE_WITH_TIMEOUT(connection.stats().sequenceGaps, quint64(1), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(connection.stats().snapshots, quint64(2), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        const auto requests = service.requests();
        QCOMPARE(requests.back().resume_after_sequence(), quint64(0));  // asked for a fresh snapshot
    }

    void incompatibleApiVersionIsNamed() {
        FakeTelemetryService service;
        service.apiVersion = 2;
        LoopbackServer server(&service);
        EndpointConnection connection(fakeConfig(), server.channel());
        FleetStore store;
        store.attach(&connection);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Incompatible, 5000);
        QVERIFY2(connection.statusText().contains("API v2"), qPrintable(connection.statusText()));
        QVERIFY(connection.statusText().contains("v1"));
        QTest::qWait(1500);  // no retry storm against a server we cannot talk to
        QCOMPARE(connection.state(), ConnectionState::Incompatible);
        QCOMPARE(connection.stats().streamsOpened, quint64(1));
        QCOMPARE(store.rackCount(), 0);  // nothing of its data was applied
    }

    void serverWithoutTheServiceIsIncompatible() {
        // The generated base class answers every method with UNIMPLEMENTED, like a server that
        // is not fleetd (or an older one without the method).
        v1::TelemetryService::Service notFleetd;
        LoopbackServer server(&notFleetd);
        EndpointConnection connection(fakeConfig(), server.channel());
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Incompatible, 5000);
        QVERIFY2(connection.statusText().contains("does not implement"), qPrintable(connection.statusText()));
    }

    void silentStreamGoesStale() {
        FakeTelemetryService service;
        service.silent = true;
        LoopbackServer server(&service);
        EndpointConfig config = fakeConfig();
        config.staleAfter = 400ms;
        EndpointConnection connection(config, server.channel());
        FleetStore store;
        store.attach(&connection);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(store.rackCount(), 7, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Stale, 3000);
        QVERIFY2(connection.statusText().contains("No data from fleetd"), qPrintable(connection.statusText()));
        QCOMPARE(store.reading(store.rackAt(0), v1::RACK_POWER_KW).freshness, Freshness::Stale);
        service.silent = false;
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 3000);
    }

    // Issue 14, item 1: while fleetd cannot be reached the console watches the channel (whose
    // connection attempts are a TCP connect about every second) and never re-subscribes; the old
    // schedule re-subscribed at 1 s × 1.6ⁿ and waited up to 30 s between tries.
    void unreachableEndpointIsProbedNotResubscribed() {
        EndpointConfig config;
        config.target = QStringLiteral("127.0.0.1:1");  // nothing listens on port 1
        EndpointConnection connection(config);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Reconnecting, 5000);
        QVERIFY2(connection.statusText().contains("Cannot reach fleetd at 127.0.0.1:1"),
                 qPrintable(connection.statusText()));
        // The first stream failed before any data: one backoff delay, then the channel is watched.
        QTRY_VERIFY_WITH_TIMEOUT(connection.isWaitingForChannel(), 3000);
        QVERIFY2(connection.statusText().contains("as soon as it answers"), qPrintable(connection.statusText()));
        QTest::qWait(4000);
        QCOMPARE(connection.stats().streamsOpened, quint64(1));
        QVERIFY(connection.isWaitingForChannel());
        QCOMPARE(connection.state(), ConnectionState::Reconnecting);
    }

    // A fleetd that goes away and comes back on the same port: no Subscribe while it is away,
    // exactly one once it listens, Live again (timing is bench/console/reconnect_bench's job).
    void returningServerGetsOneSubscribe() {
        FakeTelemetryService service;
        int port = 0;
        auto first = startOnPort(&service, QStringLiteral("127.0.0.1:0"), &port);
        QVERIFY(first && port > 0);
        EndpointConfig config;
        config.target = QStringLiteral("127.0.0.1:%1").arg(port);
        EndpointConnection connection(config);
        connection.start();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 5000);
        QCOMPARE(connection.stats().streamsOpened, quint64(1));
        QTest::qWait(2500);  // a working subscription, not one that ended right away

        first->Shutdown(std::chrono::system_clock::now() + 200ms);
        first.reset();
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Reconnecting, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(connection.isWaitingForChannel(), 1000);  // at once: the stream had worked
        QTest::qWait(3000);
        QCOMPARE(connection.stats().streamsOpened, quint64(1));
        const auto requestsBefore = service.requests().size();

        auto second = startOnPort(&service, config.target, nullptr);
        QVERIFY(second);
        QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ConnectionState::Live, 10000);
        QCOMPARE(connection.stats().streamsOpened, quint64(2));
        QCOMPARE(service.requests().size(), requestsBefore + 1);
        QVERIFY(!connection.isWaitingForChannel());
        second->Shutdown(std::chrono::system_clock::now() + 200ms);
    }

    void unaryCallsHaveDeadlines() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        EndpointConfig config = fakeConfig();
        config.unaryDeadline = 300ms;
        EndpointConnection connection(config, server.channel());
        v1::GetHistoryRequest request;
        request.set_entity_name("r01");
        request.set_metric(v1::RACK_POWER_KW);
        request.set_start_unix_ms(kT0);

        QObject receiver;
        std::optional<RpcOutcome<v1::GetHistoryResponse>> result;
        connection.getHistory(request, &receiver, [&](RpcOutcome<v1::GetHistoryResponse> r) {
            QCOMPARE(QThread::currentThread(), receiver.thread());
            result = std::move(r);
        });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 3000);
        QVERIFY(result->ok());
        QCOMPARE(result->value().points(0).mean(), 42.0f);

        service.historyDelayMs = 2000;
        result.reset();
        QElapsedTimer timer;
        timer.start();
        connection.getHistory(request, &receiver, [&](RpcOutcome<v1::GetHistoryResponse> r) { result = std::move(r); });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 3000);
        // Against the service's own 2 s, not a machine-dependent budget: the deadline ended the call.
        QVERIFY2(timer.elapsed() < service.historyDelayMs, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(!result->ok());
        QCOMPARE(result->code(), grpc::StatusCode::DEADLINE_EXCEEDED);
        QVERIFY2(result->error().contains("no answer within 0.3 s"), qPrintable(result->error()));

        // A receiver that dies first is never called back.
        bool called = false;
        service.historyDelayMs = 100;
        {
            QObject shortLived;
            connection.getHistory(request, &shortLived, [&](RpcOutcome<v1::GetHistoryResponse>) { called = true; });
        }
        QTest::qWait(400);
        QVERIFY(!called);
    }

    void destroyWhileStreaming() {
        FakeTelemetryService service;
        LoopbackServer server(&service);
        for (int i = 0; i < 5; ++i) {
            auto connection = std::make_unique<EndpointConnection>(fakeConfig(), server.channel());
            connection->start();
            QTRY_COMPARE_WITH_TIMEOUT(connection->state(), ConnectionState::Live, 5000);
            // Cancels, waits for OnDone; queued callbacks are discarded. A reset that waited for the
            // stream to end by itself would never return: the test's timeout catches that, no
            // machine-dependent budget here.
            connection.reset();
            QTest::qWait(30);
        }
    }
};

QTEST_GUILESS_MAIN(TestEndpointConnection)
#include "tst_endpointconnection.moc"
