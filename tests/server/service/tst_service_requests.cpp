// Every bad request gets a clear status and changes nothing; good ones answer correctly.

#include "RequestHandlers.h"
#include "TinyFleetSource.h"

#include <QtTest>

#include <set>

using namespace watchfloor::server;
using namespace watchfloor::server::service;
using watchfloor::server::testing::TinyFleetSource;
namespace v1 = watchfloor::v1;

Q_DECLARE_METATYPE(grpc::StatusCode)

namespace {
constexpr qint64 kDayMs = 86'400'000;

struct Fixture {
    TinyFleetSource source;
    FleetStateStore store{source.topology()};
    ReplayLog log{ReplayLogLimits{20, std::size_t(1) << 30}};
    HistoryStore history{store.index()};
    std::string runId = "run-a";

    explicit Fixture(int ticks) {
        for (int i = 0; i < ticks; ++i) {
            FleetChanges changes;
            source.advanceTo(source.now() + std::chrono::seconds(1), changes);
            log.append(store.apply(changes, &history));
        }
    }
};

qint64 t0() { return toUnixMs(TinyFleetSource::startTime()); }
}  // namespace

class ServiceRequestsTest : public QObject {
    Q_OBJECT
private slots:
    void badHistoryRequests_data() {
        QTest::addColumn<QString>("entity");
        QTest::addColumn<int>("metric");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<grpc::StatusCode>("code");
        QTest::addColumn<QString>("mentions");
        const int temp = v1::DCGM_FI_DEV_GPU_TEMP;
        QTest::newRow("inverted range") << "r01-n1-g0" << temp << t0() + 1000 << t0() << qint64(0)
                                        << grpc::StatusCode::INVALID_ARGUMENT << "must be after";
        QTest::newRow("empty range") << "r01-n1-g0" << temp << t0() << t0() << qint64(0)
                                     << grpc::StatusCode::INVALID_ARGUMENT << "must be after";
        QTest::newRow("range over 31 days") << "r01-n1-g0" << temp << t0() << t0() + 32 * kDayMs << qint64(0)
                                            << grpc::StatusCode::INVALID_ARGUMENT << "31-day";
        QTest::newRow("over 10000 buckets") << "r01-n1-g0" << temp << t0() << t0() + kDayMs << qint64(1000)
                                            << grpc::StatusCode::INVALID_ARGUMENT << "10000";
        QTest::newRow("negative step") << "r01-n1-g0" << temp << t0() << t0() + 1000 << qint64(-5)
                                       << grpc::StatusCode::INVALID_ARGUMENT << "negative";
        QTest::newRow("unknown entity") << "r77-n1-g0" << temp << t0() << t0() + 60'000 << qint64(0)
                                        << grpc::StatusCode::NOT_FOUND << "r77-n1-g0";
        QTest::newRow("empty entity") << "" << temp << t0() << t0() + 60'000 << qint64(0)
                                      << grpc::StatusCode::INVALID_ARGUMENT << "entity_name";
        QTest::newRow("unspecified metric")
            << "r01-n1-g0" << 0 << t0() << t0() + 60'000 << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT << "metric";
        QTest::newRow("metric not in enum") << "r01-n1-g0" << 77777 << t0() << t0() + 60'000 << qint64(0)
                                            << grpc::StatusCode::INVALID_ARGUMENT << "77777";
        QTest::newRow("metric the entity lacks") << "r01" << temp << t0() << t0() + 60'000 << qint64(0)
                                                 << grpc::StatusCode::NOT_FOUND << "DCGM_FI_DEV_GPU_TEMP";
        QTest::newRow("link series not kept")
            << "r01-n1-g0-l00" << int(v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK) << t0() << t0() + 60'000 << qint64(0)
            << grpc::StatusCode::FAILED_PRECONDITION << "no history";
    }
    void badHistoryRequests() {
        QFETCH(QString, entity);
        QFETCH(int, metric);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(qint64, step);
        QFETCH(grpc::StatusCode, code);
        QFETCH(QString, mentions);
        Fixture f(5);
        v1::GetHistoryRequest request;
        request.set_entity_name(entity.toStdString());
        request.set_metric(v1::Metric(metric));
        request.set_start_unix_ms(start);
        request.set_end_unix_ms(end);
        request.set_step_ms(step);
        v1::GetHistoryResponse response;
        const auto status = answerHistory(request, f.store, f.history, &response);
        QCOMPARE(status.error_code(), code);
        QVERIFY2(QString::fromStdString(status.error_message()).contains(mentions), status.error_message().c_str());
        QCOMPARE(response.points_size(), 0);
    }

    void historyOfJobAndFleetByName() {
        Fixture f(30);
        for (const char* name : {"fleet", "tiny", "r02-loop"}) {
            v1::GetHistoryRequest request;
            request.set_entity_name(name);
            request.set_metric(std::string(name) == "r02-loop" ? v1::RACK_LIQUID_FLOW_LPM : v1::FLEET_GOODPUT_RATIO);
            request.set_start_unix_ms(t0());
            request.set_end_unix_ms(t0() + 31'000);
            v1::GetHistoryResponse response;
            const auto status = answerHistory(request, f.store, f.history, &response);
            QVERIFY2(status.ok(), status.error_message().c_str());
            std::uint32_t count = 0;
            for (const auto& p : response.points()) count += p.count();
            QCOMPARE(count, 30u);
        }
    }

    // latest_if_live_only: a live-only series answers its newest sample; entity_index names an
    // entity by index (a console below FULL detail knows NIC ports and links only so).
    void newestSampleOfALiveOnlySeriesByIndex() {
        Fixture f(5);
        const std::string link = "r01-n1-g0-l00";
        const auto index = f.store.findEntity(link);
        QVERIFY(index);
        const auto latest = f.store.latest(*index, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK);
        QVERIFY(latest);
        auto ask = [&](auto setEntity, v1::Metric metric, v1::GetHistoryResponse* response) {
            v1::GetHistoryRequest request;
            setEntity(request);
            request.set_metric(metric);
            request.set_start_unix_ms(t0());
            request.set_end_unix_ms(t0() + 1);  // before the sample: the range does not filter it
            request.set_latest_if_live_only(true);
            return answerHistory(request, f.store, f.history, response);
        };
        auto byIndex = [&](v1::GetHistoryRequest& r) { r.set_entity_index(*index); };
        v1::GetHistoryResponse response;
        auto status = ask(byIndex, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, &response);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(response.entity_name(), link);
        QCOMPARE(response.step_ms(), qint64(0));
        QCOMPARE(response.points_size(), 1);
        QCOMPARE(response.points(0).count(), 1u);
        QCOMPARE(response.points(0).time_unix_ms(), latest->sampleTimeMs);
        QCOMPARE(response.points(0).last(), latest->value);
        QCOMPARE(response.points(0).min(), latest->value);

        // A metric the link never reported: NOT_FOUND, never a zero.
        response.Clear();
        status = ask(byIndex, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, &response);
        QCOMPARE(status.error_code(), grpc::StatusCode::NOT_FOUND);
        QCOMPARE(response.points_size(), 0);
        // Both a name and an index; an index with no entity.
        status = ask(
            [&](v1::GetHistoryRequest& r) {
                r.set_entity_index(*index);
                r.set_entity_name(link);
            },
            v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, &response);
        QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY2(status.error_message().find("not both") != std::string::npos, status.error_message().c_str());
        status = ask([](v1::GetHistoryRequest& r) { r.set_entity_index(9'999'999); },
                     v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, &response);
        QCOMPARE(status.error_code(), grpc::StatusCode::NOT_FOUND);
        QVERIFY2(status.error_message().find("9999999") != std::string::npos, status.error_message().c_str());
        // A series with history: the flag changes nothing (its buckets in the range).
        response.Clear();
        status = ask([](v1::GetHistoryRequest& r) { r.set_entity_name("fleet"); }, v1::FLEET_GOODPUT_RATIO, &response);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY(response.step_ms() > 0);
    }

    void badListEventsRequests_data() {
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<int>("typeCount");
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("entity");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<grpc::StatusCode>("code");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("oversized page") << 1001 << 0 << ""
                                        << "" << qint64(0) << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT
                                        << "page_size";
        QTest::newRow("too many types") << 10 << 65 << ""
                                        << "" << qint64(0) << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT
                                        << "event types";
        QTest::newRow("garbage token") << 10 << 0 << "xyz"
                                       << "" << qint64(0) << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT
                                       << "page_token";
        QTest::newRow("token with trailing junk")
            << 10 << 0 << "before-event-5x"
            << "" << qint64(0) << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT << "page_token";
        QTest::newRow("unknown entity") << 10 << 0 << ""
                                        << "nowhere" << qint64(0) << qint64(0) << grpc::StatusCode::NOT_FOUND
                                        << "nowhere";
        QTest::newRow("inverted time range")
            << 10 << 0 << ""
            << "" << t0() + 5000 << t0() << grpc::StatusCode::INVALID_ARGUMENT << "end_unix_ms";
        QTest::newRow("negative time") << 10 << 0 << ""
                                       << "" << qint64(-1) << qint64(0) << grpc::StatusCode::INVALID_ARGUMENT
                                       << "negative";
    }
    void badListEventsRequests() {
        QFETCH(int, pageSize);
        QFETCH(int, typeCount);
        QFETCH(QString, token);
        QFETCH(QString, entity);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(grpc::StatusCode, code);
        QFETCH(QString, mentions);
        Fixture f(12);
        v1::ListEventsRequest request;
        request.set_page_size(std::uint32_t(pageSize));
        for (int i = 0; i < typeCount; ++i) request.add_types(v1::EVENT_TYPE_XID);
        request.set_page_token(token.toStdString());
        request.set_entity_name(entity.toStdString());
        request.set_start_unix_ms(start);
        request.set_end_unix_ms(end);
        v1::ListEventsResponse response;
        const auto status = answerListEvents(request, f.store, &response);
        QCOMPARE(status.error_code(), code);
        QVERIFY2(QString::fromStdString(status.error_message()).contains(mentions), status.error_message().c_str());
        QCOMPARE(response.events_size(), 0);
    }

    void listEventsPagesCoverEveryEventOnce_data() {
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<QString>("entity");
        QTest::addColumn<int>("minSeverity");
        QTest::newRow("page of 1") << 1 << "" << 0;
        QTest::newRow("page of 7") << 7 << "" << 0;
        QTest::newRow("default page") << 0 << "" << 0;
        QTest::newRow("one rack and its GPUs") << 3 << "r01" << 0;
        QTest::newRow("one region") << 4 << "region-2" << 0;
        QTest::newRow("a job (related entity)") << 5 << "job-a" << 0;
        QTest::newRow("critical only") << 2 << "" << int(v1::SEVERITY_CRITICAL);
    }
    void listEventsPagesCoverEveryEventOnce() {
        QFETCH(int, pageSize);
        QFETCH(QString, entity);
        QFETCH(int, minSeverity);
        Fixture f(90);  // 30 events
        std::set<std::uint64_t> expected;
        const std::uint32_t within =
            entity.isEmpty() ? TopologyLookup::kNone : f.store.findEntity(entity.toStdString()).value();
        for (const auto& e : f.store.journal().recent(1000, [](const v1::Event&) { return true; })) {
            const bool inside =
                within == TopologyLookup::kNone || f.store.index().isInside(e.entity_index(), within) ||
                std::count(e.related_entity_indexes().begin(), e.related_entity_indexes().end(), within);
            if (inside && e.severity() >= minSeverity) expected.insert(e.id());
        }
        QVERIFY(!expected.empty());
        if (!entity.isEmpty() || minSeverity) QVERIFY(expected.size() < 30 || entity == "job-a");

        std::vector<std::uint64_t> seen;
        std::string token;
        int pages = 0;
        do {
            v1::ListEventsRequest request;
            request.set_page_size(std::uint32_t(pageSize));
            request.set_entity_name(entity.toStdString());
            request.set_min_severity(v1::Severity(minSeverity));
            request.set_page_token(token);
            v1::ListEventsResponse response;
            const auto status = answerListEvents(request, f.store, &response);
            QVERIFY2(status.ok(), status.error_message().c_str());
            for (const auto& e : response.events()) {
                if (!seen.empty()) QVERIFY2(e.id() < seen.back(), "newest first");
                seen.push_back(e.id());
            }
            token = response.next_page_token();
            QVERIFY(++pages < 1000);
        } while (!token.empty());
        QCOMPARE(std::set<std::uint64_t>(seen.begin(), seen.end()), expected);
        QCOMPARE(seen.size(), expected.size());
    }

    void subscribePlans_data() {
        QTest::addColumn<quint64>("resumeAfter");
        QTest::addColumn<QString>("runId");
        QTest::addColumn<grpc::StatusCode>("code");
        QTest::addColumn<QString>("reason");  // "" = replay
        // Fixture: 40 ticks = 40 sequences; the log keeps the last 20 (21..40).
        QTest::newRow("fresh") << quint64(0) << "" << grpc::StatusCode::OK << "initial";
        QTest::newRow("resume in log") << quint64(30) << "run-a" << grpc::StatusCode::OK << "";
        QTest::newRow("resume at head") << quint64(40) << "run-a" << grpc::StatusCode::OK << "";
        QTest::newRow("resume at log start") << quint64(20) << "run-a" << grpc::StatusCode::OK << "";
        QTest::newRow("fell off log") << quint64(19) << "run-a" << grpc::StatusCode::OK << "resync: fell off log";
        QTest::newRow("other run") << quint64(30) << "run-b" << grpc::StatusCode::OK << "restart";
        QTest::newRow("other run, sequence from its future")
            << quint64(9999) << "run-b" << grpc::StatusCode::OK << "restart";
        QTest::newRow("sequence from the future")
            << quint64(41) << "run-a" << grpc::StatusCode::INVALID_ARGUMENT << "ahead";
    }
    void subscribePlans() {
        QFETCH(quint64, resumeAfter);
        QFETCH(QString, runId);
        QFETCH(grpc::StatusCode, code);
        QFETCH(QString, reason);
        Fixture f(40);
        v1::SubscribeRequest request;
        request.set_resume_after_sequence(resumeAfter);
        request.set_resume_run_id(runId.toStdString());
        SubscribePlan plan;
        const auto status = planSubscribe(request, f.store, f.log, f.runId, &plan);
        QCOMPARE(status.error_code(), code);
        if (code != grpc::StatusCode::OK) {
            QVERIFY2(QString::fromStdString(status.error_message()).contains(reason), status.error_message().c_str());
            return;
        }
        QCOMPARE(QString::fromStdString(plan.snapshotReason), reason);
        if (reason.isEmpty()) QCOMPARE(plan.cursor, resumeAfter);
    }

    void badSubscribeFilters_data() {
        QTest::addColumn<QStringList>("regions");
        QTest::addColumn<QStringList>("racks");
        QTest::addColumn<int>("detail");
        QTest::addColumn<grpc::StatusCode>("code");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown region") << QStringList{"mars"} << QStringList{} << 0 << grpc::StatusCode::NOT_FOUND
                                        << "\"mars\"";
        QTest::newRow("unknown rack") << QStringList{} << QStringList{"r01", "r42"} << 0 << grpc::StatusCode::NOT_FOUND
                                      << "\"r42\"";
        QTest::newRow("a GPU is not a rack")
            << QStringList{} << QStringList{"r01-n1-g0"} << 0 << grpc::StatusCode::NOT_FOUND << "r01-n1-g0";
        QStringList many;
        for (int i = 0; i < kMaxFilterNames + 1; ++i) many << "r01";
        QTest::newRow("too many racks") << QStringList{} << many << 0 << grpc::StatusCode::INVALID_ARGUMENT
                                        << "too many";
        QTest::newRow("bad detail") << QStringList{} << QStringList{} << 17 << grpc::StatusCode::INVALID_ARGUMENT
                                    << "detail";
    }
    void badSubscribeFilters() {
        QFETCH(QStringList, regions);
        QFETCH(QStringList, racks);
        QFETCH(int, detail);
        QFETCH(grpc::StatusCode, code);
        QFETCH(QString, mentions);
        Fixture f(3);
        v1::SubscribeRequest request;
        for (const auto& r : regions) request.add_region_names(r.toStdString());
        for (const auto& r : racks) request.add_rack_names(r.toStdString());
        request.set_detail(v1::DetailLevel(detail));
        SubscribePlan plan;
        const auto status = planSubscribe(request, f.store, f.log, f.runId, &plan);
        QCOMPARE(status.error_code(), code);
        QVERIFY2(QString::fromStdString(status.error_message()).contains(mentions), status.error_message().c_str());
    }

    void topologyDetail() {
        Fixture f(1);
        v1::Topology standard, full;
        v1::GetTopologyRequest request;
        QVERIFY(answerTopology(request, f.store, &standard).ok());
        request.set_detail(v1::DETAIL_LEVEL_FULL);
        QVERIFY(answerTopology(request, f.store, &full).ok());
        QCOMPARE(standard.nvlinks_size(), 0);
        QCOMPARE(full.nvlinks_size(), f.source.topology().nvlinks_size());
        QCOMPARE(standard.gpus_size(), f.source.topology().gpus_size());
        request.set_detail(v1::DetailLevel(9));
        QCOMPARE(answerTopology(request, f.store, &full).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    }
};

QTEST_GUILESS_MAIN(ServiceRequestsTest)
#include "tst_service_requests.moc"
