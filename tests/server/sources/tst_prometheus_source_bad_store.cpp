// A store that answers badly, as fleetd's Prometheus source sees it: every failure becomes the
// source's status (DOWN with a line an operator can act on, DEGRADED with the store's warnings),
// one event when it goes down and one when it comes back, nothing invented, nothing crashes, and
// a good poll after bad ones reads values again.

#include "FakeStore.h"
#include "FleetModel.h"
#include "PrometheusSource.h"

#include <QtTest>

#include <thread>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

struct Read {
    std::vector<v1::SourceStatus> statuses;
    std::vector<v1::Event> events;
    std::size_t samples = 0;
    void take(sources::PrometheusSource& source) {
        FleetChanges changes;
        source.advanceTo(source.now(), changes);
        for (auto& s : changes.sources) statuses.push_back(s);
        for (auto& e : changes.events) events.push_back(e);
        samples += changes.samples.size();
    }
    const v1::SourceStatus& last() const { return statuses.back(); }
};

// One GPU temperature series for host r01-n01 gpu 0, or nothing for the other queries.
std::string answerFor(const httplib::Request& request, const std::string& warnings = "") {
    const std::string query = request.get_param_value("query");
    const std::string tail = warnings.empty() ? "}" : ",\"warnings\":[" + warnings + "]}";
    const std::string now = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    if (query == "DCGM_FI_DEV_GPU_TEMP" || query == "timestamp(DCGM_FI_DEV_GPU_TEMP)")
        return R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"Hostname":"r01-n01","gpu":"0"},"value":[)" +
               now + ",\"" + (query == "DCGM_FI_DEV_GPU_TEMP" ? "61" : now) + "\"]}]}" + tail;
    return R"({"status":"success","data":{"resultType":"vector","result":[]})" + tail;
}

}  // namespace

class TstPrometheusSourceBadStore : public QObject {
    Q_OBJECT

private slots:
    void failuresBecomeStatusAndEvents() {
        const FleetModel model(generatedFleetSpec(1, 1), 0);
        FakeStore store;
        sources::PrometheusSourceOptions options;
        prom::StoreOptions connection;
        connection.url = store.url();
        connection.timeout = std::chrono::milliseconds(500);
        connection.maxResponseBytes = 1 << 20;
        options.stores = {connection};
        options.poll = std::chrono::milliseconds(1000);
        options.firstPollWait = std::chrono::milliseconds(0);

        struct Case {
            const char* name;
            FakeStore::Answer answer;
            v1::SourceHealth health;
            const char* errorContains;
        };
        const std::vector<Case> cases = {
            {"good",
             [](const httplib::Request& q, httplib::Response& r) { r.set_content(answerFor(q), "application/json"); },
             v1::SOURCE_HEALTH_UP, ""},
            {"503 text",
             [](const httplib::Request&, httplib::Response& r) {
                 r.status = 503;
                 r.set_content("overloaded\x1b[31m", "text/plain");
             },
             v1::SOURCE_HEALTH_DOWN, "HTTP 503"},
            {"error envelope",
             [](const httplib::Request&, httplib::Response& r) {
                 r.status = 422;
                 r.set_content(
                     R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})",
                     "application/json");
             },
             v1::SOURCE_HEALTH_DOWN, "too many samples"},
            {"malformed",
             [](const httplib::Request&, httplib::Response& r) {
                 r.set_content("{\"status\":\"success\",\"data\":{\"resu", "application/json");
             },
             v1::SOURCE_HEALTH_DOWN, "JSON"},
            {"slow",
             [&store](const httplib::Request&, httplib::Response& r) {
                 for (int i = 0; i < 15 && !store.stopping(); ++i)
                     std::this_thread::sleep_for(std::chrono::milliseconds(100));
                 r.set_content("{}", "application/json");
             },
             v1::SOURCE_HEALTH_DOWN, "timeout"},
            {"huge",
             [](const httplib::Request&, httplib::Response& r) {
                 r.set_content(std::string(2 << 20, ' '), "application/json");
             },
             v1::SOURCE_HEALTH_DOWN, "exceeds"},
            {"warnings",
             [](const httplib::Request& q, httplib::Response& r) {
                 r.set_content(answerFor(q, "\"partial response: store-b is down\""), "application/json");
             },
             v1::SOURCE_HEALTH_DEGRADED, ""},
            {"good again",
             [](const httplib::Request& q, httplib::Response& r) { r.set_content(answerFor(q), "application/json"); },
             v1::SOURCE_HEALTH_UP, ""},
        };
        store.answer(cases[0].answer);
        sources::PrometheusSource source(model.topology(), options, {});
        source.start();
        Read read;
        std::uint64_t polls = 0;
        for (const auto& c : cases) {
            store.answer(c.answer);
            // At least three polls: the one under way when the answer changed, one that may still
            // meet the previous case's stalled handlers (1.5 s each); on a loaded machine the
            // stalled handlers can hold the store's threads longer, so wait for this case's outcome.
            polls = source.polls();
            QTRY_VERIFY_WITH_TIMEOUT(source.polls() >= polls + 3, 30'000);
            const auto matches = [&] {
                read.take(source);
                return !read.statuses.empty() && read.last().health() == c.health &&
                       QString::fromStdString(read.last().last_error()).contains(c.errorContains);
            };
            QTRY_VERIFY2_WITH_TIMEOUT(
                matches(),
                qPrintable(QString("%1: health %2, error '%3'")
                               .arg(c.name)
                               .arg(read.statuses.empty() ? -1 : int(read.last().health()))
                               .arg(read.statuses.empty() ? "" : read.last().last_error().c_str())),
                30'000);
            const auto& status = read.last();
            // One line an operator can read: bounded, no terminal escapes from the store.
            QVERIFY2(status.last_error().size() < 2000 && status.last_error().find('\x1b') == std::string::npos,
                     c.name);
            if (c.health == v1::SOURCE_HEALTH_DEGRADED)
                QVERIFY(std::any_of(status.warnings().begin(), status.warnings().end(), [](const std::string& w) {
                    return w.find("store-b is down") != std::string::npos;
                }));
            if (c.health == v1::SOURCE_HEALTH_DOWN) QVERIFY(status.last_good_poll_unix_ms() > 0);  // kept from "good"
        }
        // Down once (503 ... huge are one outage) and back once; values only from good answers.
        const auto count = [&](v1::Severity severity) {
            return std::count_if(read.events.begin(), read.events.end(), [&](const v1::Event& e) {
                return e.type() == v1::EVENT_TYPE_SOURCE && e.severity() == severity;
            });
        };
        QCOMPARE(count(v1::SEVERITY_CRITICAL), 1);
        QCOMPARE(count(v1::SEVERITY_INFO), 1);
        QVERIFY(read.samples > 0);
        source.stop();
    }

    void unreachableStoreIsDownFromTheStart() {
        const FleetModel model(generatedFleetSpec(1, 1), 0);
        sources::PrometheusSourceOptions options;
        prom::StoreOptions connection;
        connection.url = "http://127.0.0.1:1";  // nothing listens on port 1
        connection.timeout = std::chrono::milliseconds(500);
        options.stores = {connection};
        options.poll = std::chrono::milliseconds(1000);
        sources::PrometheusSource source(model.topology(), options, {});
        source.start();
        Read read;
        QTRY_VERIFY_WITH_TIMEOUT(
            (read.take(source), !read.statuses.empty() && read.last().health() == v1::SOURCE_HEALTH_DOWN), 10'000);
        QVERIFY2(QString::fromStdString(read.last().last_error()).contains("refused"),
                 read.last().last_error().c_str());
        QCOMPARE(read.last().last_good_poll_unix_ms(), std::int64_t(0));
        QCOMPARE(read.samples, std::size_t(0));
        source.stop();
    }
};

QTEST_GUILESS_MAIN(TstPrometheusSourceBadStore)
#include "tst_prometheus_source_bad_store.moc"
