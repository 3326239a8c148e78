// TelemetryService over real loopback gRPC, in process, fed by the hand-built TinyFleetSource.

#include "FleetdServer.h"
#include "SanitizerBuild.h"
#include "StreamTestSupport.h"
#include "TinyFleetSource.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

using namespace watchfloor::server;
using namespace watchfloor::server::service;
using namespace watchfloor::server::testing;
using watchfloor::testing::kSanitizerSlowdown;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {
// `speed` ticks a second, kSanitizerSlowdown times fewer in a TSan build (whose reader could not
// keep up with the rates these checks assume); checks that count ticks scale with it.
FleetdOptions fastOptions(double speed) {
    FleetdOptions o;
    o.listenAddress = "127.0.0.1:0";
    o.speed = speed / kSanitizerSlowdown;
    o.serverVersion = "fleetd test";
    o.history.budgetBytes = 64 << 20;
    return o;
}

std::unique_ptr<FleetdServer> startServer(FleetSource& source, FleetdOptions options) {
    std::string error;
    auto server = FleetdServer::start(source, std::move(options), &error);
    if (!server) qFatal("cannot start fleetd service: %s", error.c_str());
    return server;
}

std::string addressOf(const FleetdServer& server) { return "127.0.0.1:" + std::to_string(server.port()); }

v1::SubscribeRequest resumeRequest(std::uint64_t after, const std::string& runId) {
    v1::SubscribeRequest r;
    r.set_resume_after_sequence(after);
    r.set_resume_run_id(runId);
    return r;
}

// One plain HTTP GET against 127.0.0.1:port; the whole reply, headers included.
std::string httpGet(int port, const std::string& path) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(std::uint16_t(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string reply;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        const std::string request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
        if (::send(fd, request.data(), request.size(), 0) == ssize_t(request.size())) {
            char buffer[4096];
            for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, std::size_t(n));
        }
    }
    ::close(fd);
    return reply;
}
}  // namespace

class ServiceStreamingTest : public QObject {
    Q_OBJECT
private slots:
    void snapshotThenStrictlyIncreasingDeltas() {
        TinyFleetSource source;
        auto server = startServer(source, fastOptions(20));
        TestStream stream(addressOf(*server), v1::SubscribeRequest{});
        v1::SubscribeResponse first;
        QVERIFY(stream.read(&first));
        QVERIFY(first.has_snapshot());
        const auto& snap = first.snapshot();
        QCOMPARE(snap.reason(), std::string("initial"));
        QCOMPARE(snap.run_id(), server->runId());
        QCOMPARE(snap.api_version(), v1::API_VERSION_1);
        QCOMPARE(snap.server_version(), std::string("fleetd test"));
        QCOMPARE(snap.topology().racks_size(), 2);
        QCOMPARE(snap.topology().nvlinks_size(), 0);  // STANDARD by default
        StreamChecker checker;
        checker.apply(first);
        QVERIFY(readDeltas(stream, checker, 30));
        QVERIFY2(checker.problem.empty(), checker.problem.c_str());
        QCOMPARE(checker.coalescedDeltas, 0);  // a reader that keeps up gets every delta as is
        QVERIFY(checker.eventsKnown);
    }

    void resumeAfterKilledConnectionHasNoGapNoDuplicate() {
        TinyFleetSource source;
        auto server = startServer(source, fastOptions(20));
        StreamChecker checker;
        {
            TestStream stream(addressOf(*server), v1::SubscribeRequest{});
            QVERIFY(readDeltas(stream, checker, 10));
            stream.cancel();  // the connection dies; the server has more to send
        }
        std::this_thread::sleep_for(300ms);  // the fleet moves on meanwhile
        TestStream resumed(addressOf(*server), resumeRequest(checker.sequence, checker.runId));
        v1::SubscribeResponse r;
        QVERIFY(resumed.read(&r));
        QVERIFY2(r.has_delta(), "a resume inside the log replays deltas, no snapshot");
        checker.apply(r);
        QVERIFY(readDeltas(resumed, checker, 20));
        QVERIFY2(checker.problem.empty(), checker.problem.c_str());
        QCOMPARE(checker.snapshots, 1);
    }

    void restartedServerSendsRestartSnapshot() {
        StreamChecker checker;
        int port = 0;
        {
            TinyFleetSource source;
            auto server = startServer(source, fastOptions(20));
            port = server->port();
            TestStream stream(addressOf(*server), v1::SubscribeRequest{});
            QVERIFY(readDeltas(stream, checker, 5));
            server->shutdown();
            QCOMPARE(stream.finish().error_code(), grpc::StatusCode::UNAVAILABLE);
        }
        TinyFleetSource source;
        auto options = fastOptions(20);
        options.listenAddress = "127.0.0.1:" + std::to_string(port);
        auto restarted = startServer(source, options);
        QVERIFY(restarted->runId() != checker.runId);
        TestStream stream(addressOf(*restarted), resumeRequest(checker.sequence, checker.runId));
        v1::SubscribeResponse r;
        QVERIFY(stream.read(&r));
        QVERIFY(r.has_snapshot());
        QCOMPARE(r.snapshot().reason(), std::string("restart"));
        QCOMPARE(r.snapshot().run_id(), restarted->runId());
    }

    void resumeBehindTheLogGetsResyncSnapshot() {
        TinyFleetSource source;
        auto options = fastOptions(50);
        options.log.maxEntries = 10;
        auto server = startServer(source, options);
        StreamChecker checker;
        {
            TestStream stream(addressOf(*server), v1::SubscribeRequest{});
            QVERIFY(readDeltas(stream, checker, 2));
        }
        QTRY_VERIFY_WITH_TIMEOUT(server->store().lastSequence() > checker.sequence + 20, 10000);
        TestStream resumed(addressOf(*server), resumeRequest(checker.sequence, checker.runId));
        v1::SubscribeResponse r;
        QVERIFY(resumed.read(&r));
        QVERIFY(r.has_snapshot());
        QCOMPARE(r.snapshot().reason(), std::string("resync: fell off log"));
        checker.apply(r);
        QVERIFY(readDeltas(resumed, checker, 5));
        QVERIFY2(checker.problem.empty(), checker.problem.c_str());
    }

    // A subscriber that stops reading must not hold back a live one; when it reads again it gets
    // a coalesced delta or a resync snapshot, never a silent gap.
    void stalledSubscriberDoesNotSlowLiveOne_data() {
        QTest::addColumn<int>("logEntries");
        QTest::addColumn<bool>("expectResync");
        QTest::newRow("falls off a short log: resync snapshot") << 150 << true;
        QTest::newRow("stays in a long log: coalesced deltas") << 100'000 << false;
    }
    void stalledSubscriberDoesNotSlowLiveOne() {
        QFETCH(int, logEntries);
        QFETCH(bool, expectResync);
        TinyFleetSource source(TinyFleetShape{2, 10, 18, 4});  // 1,440 GPUs: ~40 KB per tick
        auto options = fastOptions(100);
        options.speed = 100;  // not slowed down under TSan: the stalled stream must fill its buffers
        options.log.maxEntries = std::size_t(logEntries);
        auto server = startServer(source, options);
        const std::string address = addressOf(*server);
        TestStream stalled(address, v1::SubscribeRequest{});
        TestStream live(address, v1::SubscribeRequest{});
        StreamChecker liveChecker;
        // At least 4 s, and for the short log until fleetd has made three logs' worth of ticks
        // (a TSan build beside another test ticks slower than asked, and the stalled stream's
        // buffers absorb some: it must have fallen off for sure).
        const auto start = std::chrono::steady_clock::now();
        auto stalledLongEnough = [&] {
            const auto elapsed = std::chrono::steady_clock::now() - start;
            if (elapsed > 30s) return true;  // the streams' deadline is 40 s
            return elapsed >= 4s && (!expectResync || server->store().lastSequence() >= 3 * std::uint64_t(logEntries));
        };
        v1::SubscribeResponse r;
        std::uint64_t worstLag = 0;
        while (!stalledLongEnough()) {
            QVERIFY(live.read(&r));
            liveChecker.apply(r);
            if (liveChecker.deltas > 50)
                worstLag = std::max(worstLag, server->store().lastSequence() - liveChecker.sequence);
        }
        QVERIFY2(liveChecker.problem.empty(), liveChecker.problem.c_str());
        // ~100 ticks/s; a TSan build reads kSanitizerSlowdown times fewer (and coalesces the rest)
        QVERIFY2(liveChecker.deltas > 200 / kSanitizerSlowdown, std::to_string(liveChecker.deltas).c_str());
        QVERIFY2(worstLag < 100, std::to_string(worstLag).c_str());

        StreamChecker stalledChecker;
        bool recovered = false;
        for (int i = 0; i < 5000 && !recovered; ++i) {
            QVERIFY(stalled.read(&r));
            stalledChecker.apply(r);
            // A short log may also show a coalesced delta first (sent before the stall set in).
            recovered = expectResync ? (r.has_snapshot() && r.snapshot().reason() == "resync: fell off log")
                                     : stalledChecker.coalescedDeltas > 0;
        }
        QVERIFY2(recovered, "the stalled reader should be coalesced or resynced");
        qInfo("live: %d deltas, worst lag %llu; stalled: %d snapshots (last \"%s\"), %d coalesced deltas",
              liveChecker.deltas, static_cast<unsigned long long>(worstLag), stalledChecker.snapshots,
              stalledChecker.lastReason.c_str(), stalledChecker.coalescedDeltas);
        QVERIFY2(stalledChecker.problem.empty(), stalledChecker.problem.c_str());
        if (!expectResync) QCOMPARE(stalledChecker.snapshots, 1);  // caught up from the log alone
        QVERIFY(readDeltas(stalled, stalledChecker, 20));
        QVERIFY2(stalledChecker.problem.empty(), stalledChecker.problem.c_str());
    }

    void streamThatStopsReadingIsCancelledAfterTheTimeout() {
        TinyFleetSource source(TinyFleetShape{2, 10, 18, 4});
        auto options = fastOptions(100);
        options.pump.stalledWriteTimeout = 1500ms;
        auto server = startServer(source, options);
        TestStream stalled(addressOf(*server), v1::SubscribeRequest{});
        QTRY_COMPARE_WITH_TIMEOUT(server->subscriberCount(), std::size_t(1), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(server->subscriberCount(), std::size_t(0), 15000);
        const auto status = stalled.finish();  // what was buffered, then the end
        QVERIFY(!status.ok());
    }

    void idleStreamGetsHeartbeats() {
        TinyFleetSource source;
        auto options = fastOptions(0.05);  // one tick per 20 s
        options.pump.heartbeatInterval = 200ms;
        auto server = startServer(source, options);
        TestStream stream(addressOf(*server), v1::SubscribeRequest{});
        StreamChecker checker;
        v1::SubscribeResponse r;
        while (checker.heartbeats < 3) {
            QVERIFY(stream.read(&r));
            checker.apply(r);
        }
        QVERIFY2(checker.problem.empty(), checker.problem.c_str());
    }

    void shutdownEndsEveryStreamUnavailable() {
        TinyFleetSource source;
        auto server = startServer(source, fastOptions(20));
        TestStream a(addressOf(*server), v1::SubscribeRequest{});
        v1::SubscribeRequest summary;
        summary.set_detail(v1::DETAIL_LEVEL_SUMMARY);
        TestStream b(addressOf(*server), summary);
        StreamChecker ca, cb;
        QVERIFY(readDeltas(a, ca, 2));
        QVERIFY(readDeltas(b, cb, 2));
        auto stopped = std::async(std::launch::async, [&] { server->shutdown(); });
        for (TestStream* s : {&a, &b}) {
            const auto status = s->finish();
            QCOMPARE(status.error_code(), grpc::StatusCode::UNAVAILABLE);
            QCOMPARE(status.error_message(), std::string("fleetd shutting down"));
        }
        QVERIFY(stopped.wait_for(10s) == std::future_status::ready);
    }

    void badSubscribeOverTheWire_data() {
        QTest::addColumn<QString>("rack");
        QTest::addColumn<quint64>("resumeAfter");
        QTest::addColumn<grpc::StatusCode>("code");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown rack") << "r99" << quint64(0) << grpc::StatusCode::NOT_FOUND << "\"r99\"";
        QTest::newRow("sequence from the future")
            << "" << quint64(1'000'000) << grpc::StatusCode::INVALID_ARGUMENT << "ahead";
    }
    void badSubscribeOverTheWire() {
        QFETCH(QString, rack);
        QFETCH(quint64, resumeAfter);
        QFETCH(grpc::StatusCode, code);
        QFETCH(QString, mentions);
        TinyFleetSource source;
        auto server = startServer(source, fastOptions(1));
        auto request = resumeRequest(resumeAfter, server->runId());
        if (!rack.isEmpty()) request.add_rack_names(rack.toStdString());
        TestStream stream(addressOf(*server), request);
        const auto status = stream.finish();
        QCOMPARE(status.error_code(), code);
        QVERIFY2(QString::fromStdString(status.error_message()).contains(mentions), status.error_message().c_str());
    }

    void prometheusMetricsEndpoint() {
        TinyFleetSource source;
        auto options = fastOptions(20);
        options.metricsListen = "127.0.0.1:0";
        auto server = startServer(source, options);
        QVERIFY(server->metricsPort() > 0);
        TestStream stream(addressOf(*server), v1::SubscribeRequest{});
        StreamChecker checker;
        QVERIFY(readDeltas(stream, checker, 3));
        const std::string reply = httpGet(server->metricsPort(), "/metrics");
        QVERIFY2(reply.rfind("HTTP/1.1 200 OK", 0) == 0, reply.c_str());
        QVERIFY2(reply.find("# TYPE fleetd_ticks_total counter\nfleetd_ticks_total ") != std::string::npos,
                 reply.c_str());
        QVERIFY2(reply.find("\nfleetd_subscribers 1\n") != std::string::npos, reply.c_str());
        const std::string other = httpGet(server->metricsPort(), "/");
        QVERIFY2(other.rfind("HTTP/1.1 404", 0) == 0, other.c_str());
    }

    void healthIsServingAndQueriesAnswer() {
        TinyFleetSource source;
        auto server = startServer(source, fastOptions(20));
        QCOMPARE(healthStatus(addressOf(*server)), 1);
        QCOMPARE(healthStatus(addressOf(*server), "watchfloor.v1.TelemetryService"), 1);
        QTRY_VERIFY_WITH_TIMEOUT(server->ticks() >= 10, 5000);
        auto stub = v1::TelemetryService::NewStub(dedicatedChannel(addressOf(*server)));
        grpc::ClientContext context;
        context.set_deadline(deadlineIn(5s));
        v1::GetHistoryRequest request;
        request.set_entity_name("r01");
        request.set_metric(v1::RACK_POWER_KW);
        request.set_start_unix_ms(toUnixMs(TinyFleetSource::startTime()));
        request.set_end_unix_ms(toUnixMs(TinyFleetSource::startTime()) + 3'600'000);
        v1::GetHistoryResponse response;
        const auto status = stub->GetHistory(&context, request, &response);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY(response.points_size() > 0);
        QVERIFY(response.step_ms() >= 1000);
    }
};

QTEST_GUILESS_MAIN(ServiceStreamingTest)
#include "tst_service_streaming.moc"
