// PromClient against an in-process fake store: what goes over the wire (GET or POST, path prefix,
// tenant, bearer and basic auth, times), and every way an answer can go wrong: HTTP errors with
// and without the store's JSON, 200 with status error, a store too slow for the timeout, an
// endless body past the size cap, gzip, redirects, nobody listening.
#include "FakeStore.h"
#include "PromClient.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>

using namespace watchfloor::server::prom;
using namespace std::chrono_literals;

namespace {

const std::string kOneSample =
    R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"dcgm"},"value":[1712345678.123,"1"]}]}})";

std::string vectorWithLabel(const std::string& name, const std::string& value, int series = 1) {
    std::string results;
    for (int i = 0; i < series; ++i)
        results += (i ? "," : "") + std::string(R"({"metric":{")") + name + R"(":")" + value + R"(","i":")" +
                   std::to_string(i) + R"("},"value":[1712345678,"1"]})";
    return R"({"status":"success","data":{"resultType":"vector","result":[)" + results + "]}}";
}

QueryResult query(PromClient& client, std::string_view promql = "up", std::size_t* samples = nullptr) {
    std::size_t count = 0;
    QueryResult r = client.instantQuery(promql, std::nullopt, [&](std::span<const Label>, Point) { ++count; });
    if (samples) *samples = count;
    return r;
}

StoreOptions optionsFor(const FakeStore& store) {
    StoreOptions o;
    o.url = store.url();
    o.timeout = 5s;
    return o;
}

void writeFile(const QString& path, const std::string& text) {
    std::ofstream(path.toStdString(), std::ios::trunc) << text;
}

// A loopback port with nobody listening: bound, then closed.
int closedPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

}  // namespace

class TestPromClient : public QObject {
    Q_OBJECT

private slots:
    void instantQuerySendsQueryAndTime() {
        FakeStore store;
        store.answerJson(200, kOneSample);
        PromClient client(optionsFor(store));
        std::vector<std::string> names;
        const QueryResult r = client.instantQuery("DCGM_FI_DEV_GPU_TEMP{Hostname=~\"n0.*\"}", 1712345678123,
                                                  [&](std::span<const Label> labels, Point point) {
                                                      for (const Label& l : labels) names.emplace_back(l.name);
                                                      QCOMPARE(point.timeMs, std::int64_t(1712345678123));
                                                  });
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.httpStatus, 200);
        QCOMPARE(r.series, std::size_t(1));
        QVERIFY(r.seconds > 0);
        QCOMPARE(names, (std::vector<std::string>{"__name__", "job"}));
        const auto seen = store.last();
        QCOMPARE(seen.method, std::string("GET"));
        QCOMPARE(seen.path, std::string("/api/v1/query"));
        QCOMPARE(seen.params.find("query")->second, std::string("DCGM_FI_DEV_GPU_TEMP{Hostname=~\"n0.*\"}"));
        QCOMPARE(seen.params.find("time")->second, std::string("1712345678.123"));
        QVERIFY(!seen.headers.count("Authorization"));
        QVERIFY(!seen.headers.count("X-Scope-OrgID"));
    }

    // VictoriaMetrics evaluates an instant query -search.latencyOffset (30 s) in the past unless it
    // carries nocache=1 (the only per-query way its 1.79 release, Debian 12's, honours): every
    // instant query carries it, GET or POST, alone or in a batch. Prometheus ignores it. Range
    // queries keep the store's cache.
    void instantQueriesAskForTheNewestSamples() {
        FakeStore store;
        store.answerJson(200, kOneSample);
        StoreOptions o = optionsFor(store);
        o.postAbove = 200;
        PromClient client(o);
        QVERIFY(query(client, "up").ok);
        QCOMPARE(store.last().method, std::string("GET"));
        QCOMPARE(store.last().params.count("nocache"), std::size_t(1));
        QCOMPARE(store.last().params.find("nocache")->second, std::string("1"));
        QVERIFY(query(client, "up{job=\"" + std::string(300, 'x') + "\"}").ok);
        QCOMPARE(store.last().method, std::string("POST"));
        QCOMPARE(store.last().params.find("nocache")->second, std::string("1"));
        const std::vector<std::string> batch{"a", "b", "c"};
        const std::size_t before = store.seen().size();
        for (const auto& r : client.instantQueries(batch, std::nullopt, [](std::size_t, auto, Point) {}))
            QVERIFY2(r.ok, r.error.c_str());
        const auto seen = store.seen();
        QCOMPARE(seen.size(), before + batch.size());
        for (std::size_t i = before; i < seen.size(); ++i)
            QCOMPARE(seen[i].params.find("nocache")->second, std::string("1"));

        // (The answer, a vector, is refused by the range decoder: only what was asked matters here.)
        (void)client.rangeQuery("up", 1'712'345'000'000, 1'712'345'060'000, 15'000, [](auto, auto) {});
        QCOMPARE(store.last().path, std::string("/api/v1/query_range"));
        QCOMPARE(store.last().params.count("nocache"), std::size_t(0));
    }

    void pathPrefixTenantAndBearerToken() {
        FakeStore store;
        store.answerJson(200, kOneSample);
        QTemporaryDir dir;
        const QString tokenFile = dir.filePath("token");
        writeFile(tokenFile, "  first-token\n");
        StoreOptions o = optionsFor(store);
        o.url = store.url() + "/prometheus/";
        o.tenant = "tenant-a";
        o.bearerTokenFile = tokenFile.toStdString();
        PromClient client(o);
        QVERIFY(query(client).ok);
        auto seen = store.last();
        QCOMPARE(seen.path, std::string("/prometheus/api/v1/query"));
        QCOMPARE(seen.headers.find("X-Scope-OrgID")->second, std::string("tenant-a"));
        QCOMPARE(seen.headers.find("Authorization")->second, std::string("Bearer first-token"));

        // A rotated token is used from the next request on.
        writeFile(tokenFile, "second-token-longer");
        QVERIFY(query(client).ok);
        QCOMPARE(store.last().headers.find("Authorization")->second, std::string("Bearer second-token-longer"));

        QFile::remove(tokenFile);
        const QueryResult missing = query(client);
        QVERIFY(!missing.ok);
        QVERIFY2(missing.error.find("bearer token") != std::string::npos, missing.error.c_str());
    }

    void basicAuth() {
        FakeStore store;
        store.answerJson(200, kOneSample);
        QTemporaryDir dir;
        writeFile(dir.filePath("password"), "s3cret\n");
        StoreOptions o = optionsFor(store);
        o.basicAuthUser = "fleetd";
        o.basicAuthPasswordFile = dir.filePath("password").toStdString();
        PromClient client(o);
        QVERIFY(query(client).ok);
        // base64("fleetd:s3cret")
        QCOMPARE(store.last().headers.find("Authorization")->second, std::string("Basic ZmxlZXRkOnMzY3JldA=="));
    }

    void longQueriesArePosted() {
        FakeStore store;
        store.answerJson(200, kOneSample);
        StoreOptions o = optionsFor(store);
        o.postAbove = 200;
        PromClient client(o);
        const std::string shortQuery = "up";
        std::string longQuery = "DCGM_FI_DEV_GPU_TEMP{Hostname=~\"";
        for (int i = 0; i < 100; ++i) longQuery += (i ? "|" : "") + std::string("node") + std::to_string(i);
        longQuery += "\"}";
        QVERIFY(query(client, shortQuery).ok);
        QCOMPARE(store.last().method, std::string("GET"));
        QVERIFY(query(client, longQuery).ok);
        const auto seen = store.last();
        QCOMPARE(seen.method, std::string("POST"));
        QCOMPARE(seen.path, std::string("/api/v1/query"));
        QCOMPARE(seen.headers.find("Content-Type")->second, std::string("application/x-www-form-urlencoded"));
        QCOMPARE(seen.params.find("query")->second, longQuery);
    }

    void rangeQueryParameters() {
        FakeStore store;
        store.answerJson(
            200,
            R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1712345670,"1"],[1712345670.5,"2"]]}]}})");
        PromClient client(optionsFor(store));
        std::vector<Point> points;
        const QueryResult r = client.rangeQuery(
            "rate(x[1m])", 1712345670000, 1712345680500, 500,
            [&](std::span<const Label>, std::span<const Point> p) { points.assign(p.begin(), p.end()); });
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(points.size(), std::size_t(2));
        QCOMPARE(points[1].timeMs, std::int64_t(1712345670500));
        const auto seen = store.last();
        QCOMPARE(seen.path, std::string("/api/v1/query_range"));
        QCOMPARE(seen.params.find("start")->second, std::string("1712345670"));
        QCOMPARE(seen.params.find("end")->second, std::string("1712345680.500"));
        QCOMPARE(seen.params.find("step")->second, std::string("0.500"));
        QVERIFY(!client.rangeQuery("x", 10, 0, 1, [](auto, auto) {}).ok);
        QVERIFY(!client.rangeQuery("x", 0, 10, 0, [](auto, auto) {}).ok);
    }

    void httpErrorWithStoreJson() {
        FakeStore store;
        store.answerJson(
            422,
            R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})");
        PromClient client(optionsFor(store));
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QCOMPARE(r.httpStatus, 422);
        QCOMPARE(r.error, std::string("HTTP 422 execution: query processing would load too many samples"));
    }

    void httpErrorWithoutJson() {
        FakeStore store;
        store.answer([](const httplib::Request&, httplib::Response& response) {
            response.status = 503;
            response.set_content("upstream\x01 connect error\nor disconnect" + std::string(100000, 'x'), "text/plain");
        });
        PromClient client(optionsFor(store));
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QCOMPARE(r.httpStatus, 503);
        const std::string expectedStart =
            "HTTP 503 from " + store.url() + "/api/v1/query: upstream  connect error or disconnect";
        QVERIFY2(r.error.rfind(expectedStart, 0) == 0, r.error.c_str());
        QVERIFY2(r.error.size() < 300, r.error.c_str());

        store.answer([](const httplib::Request&, httplib::Response& response) { response.status = 502; });
        const QueryResult empty = query(client);
        QCOMPARE(empty.httpStatus, 502);
        QVERIFY2(empty.error.find("HTTP 502") == 0, empty.error.c_str());
    }

    void okStatusWithErrorEnvelope() {
        FakeStore store;
        store.answerJson(200,
                         "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter "
                         "\\\"query\\\": 1:1: parse error\"}");
        PromClient client(optionsFor(store));
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QCOMPARE(r.httpStatus, 200);
        QCOMPARE(r.error, std::string("bad_data: invalid parameter \"query\": 1:1: parse error"));
    }

    void malformedAnswerNamesTheStore() {
        FakeStore store;
        store.answerJson(200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{})");
        PromClient client(optionsFor(store));
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("answer from " + store.url()) != std::string::npos, r.error.c_str());
    }

    void slowStoreTimesOut() {
        FakeStore store;
        store.answer([&store](const httplib::Request&, httplib::Response& response) {
            for (int i = 0; i < 200 && !store.stopping(); ++i) std::this_thread::sleep_for(50ms);  // 10 s
            response.set_content(kOneSample, "application/json");
        });
        StoreOptions o = optionsFor(store);
        o.timeout = 300ms;
        PromClient client(o);
        QElapsedTimer timer;
        timer.start();
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QVERIFY2(r.error == "timeout after 0.3 s waiting for " + store.url() + "/api/v1/query", r.error.c_str());
        // Against the store's own 10 s, not a machine-dependent budget: it did not wait for the answer.
        QVERIFY2(timer.elapsed() < 5000, std::to_string(timer.elapsed()).c_str());
        QCOMPARE(r.httpStatus, 0);
    }

    void endlessBodyHitsTheCap() {
        FakeStore store;
        store.answer([&store](const httplib::Request&, httplib::Response& response) {
            response.set_chunked_content_provider("application/json", [&store](std::size_t, httplib::DataSink& sink) {
                static const std::string chunk = "{\"status\":\"success\"," + std::string(65536, ' ');
                return !store.stopping() && sink.write(chunk.data(), chunk.size());
            });
        });
        StoreOptions o = optionsFor(store);
        o.maxResponseBytes = 256 * 1024;
        PromClient client(o);
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        // The fake store compresses what the client accepts; the message then names the encoding.
        const std::string prefix = "answer from " + store.url() + "/api/v1/query exceeds 262144 bytes";
        const std::string suffix = " (maxResponseBytes); refused";
        QVERIFY2(r.error.rfind(prefix, 0) == 0 && r.error.size() >= suffix.size() &&
                     r.error.compare(r.error.size() - suffix.size(), suffix.size(), suffix) == 0,
                 r.error.c_str());  // an endless body without the cap never returns: the test's TIMEOUT catches that
    }

    void gzipAnswerAndCapOnDecodedBytes() {
        FakeStore store;
        const std::string big = vectorWithLabel("Hostname", "node-0001", 5000);  // ~300 KB, compresses ~30x
        store.answerJson(200, big);
        StoreOptions o = optionsFor(store);
        PromClient client(o);
        std::size_t samples = 0;
        QVERIFY(query(client, "up", &samples).ok);
        QCOMPARE(samples, std::size_t(5000));
        const std::string offered = store.last().headers.find("Accept-Encoding")->second;
        QVERIFY2(offered.find("gzip") != std::string::npos, offered.c_str());

        // The cap counts decoded bytes: an answer far smaller than the cap on the wire is still
        // refused when it decodes to more.
        o.maxResponseBytes = big.size() / 2;
        PromClient capped(o);
        const QueryResult r = query(capped);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("exceeds") != std::string::npos, r.error.c_str());

        // Forced gzip, whatever the server library would choose.
        store.answer([big](const httplib::Request&, httplib::Response& response) {
            std::string compressed;
            httplib::detail::gzip_compressor gzip;
            gzip.compress(big.data(), big.size(), true, [&](const char* data, std::size_t n) {
                compressed.append(data, n);
                return true;
            });
            response.set_header("Content-Encoding", "gzip");
            response.set_content(compressed, "application/octet-stream");
        });
        samples = 0;
        const QueryResult gz = query(client, "up", &samples);
        QVERIFY2(gz.ok, gz.error.c_str());
        QCOMPARE(samples, std::size_t(5000));
        QVERIFY(!query(capped).ok);
    }

    void redirectsFollowedThenRefused() {
        FakeStore store;
        store.answer([](const httplib::Request& request, httplib::Response& response) {
            if (request.path == "/old/api/v1/query") {
                response.set_redirect("/api/v1/query", 307);
                return;
            }
            if (request.path == "/loop/api/v1/query") {
                response.set_redirect("/loop/api/v1/query", 302);
                return;
            }
            response.set_content(kOneSample, "application/json");
        });
        StoreOptions o = optionsFor(store);
        o.url = store.url() + "/old";
        o.postAbove = 0;  // every query POSTed: the redirect must keep the method and body
        PromClient moved(o);
        const QueryResult r = query(moved);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(store.last().method, std::string("POST"));
        QCOMPARE(store.last().params.find("query")->second, std::string("up"));

        o.url = store.url() + "/loop";
        PromClient looping(o);
        const QueryResult loop = query(looping);
        QVERIFY(!loop.ok);
        QVERIFY2(loop.error == "more than 3 redirects from " + store.url() + "/loop/api/v1/query", loop.error.c_str());
    }

    void nobodyListening() {
        StoreOptions o;
        o.url = "http://127.0.0.1:" + std::to_string(closedPort());
        o.timeout = 2s;
        PromClient client(o);
        const QueryResult r = query(client);
        QVERIFY(!r.ok);
        QCOMPARE(r.httpStatus, 0);
        QCOMPARE(r.error, "connection refused by " + o.url + "/api/v1/query");
        const auto batch =
            client.instantQueries(std::vector<std::string>{"a", "b"}, std::nullopt, [](auto, auto, auto) {});
        QCOMPARE(batch.size(), std::size_t(2));
        QVERIFY(!batch[0].ok && !batch[1].ok);
    }

    void manyQueriesShareConnections() {
        FakeStore store;
        store.answer([](const httplib::Request& request, httplib::Response& response) {
            const std::string q = request.get_param_value("query");
            response.set_content(vectorWithLabel("q", q, 3), "application/json");
        });
        StoreOptions o = optionsFor(store);
        o.maxConcurrentQueries = 4;
        PromClient client(o);
        std::vector<std::string> queries;
        for (int i = 0; i < 30; ++i) queries.push_back("family_" + std::to_string(i));
        for (int round = 0; round < 2; ++round) {
            std::vector<int> perQuery(queries.size());
            const auto results = client.instantQueries(queries, 1712345678000,
                                                       [&](std::size_t index, std::span<const Label> labels, Point) {
                                                           QVERIFY(index < queries.size());
                                                           QCOMPARE(std::string(labels[0].value), queries[index]);
                                                           ++perQuery[index];
                                                       });
            QCOMPARE(results.size(), queries.size());
            for (std::size_t i = 0; i < results.size(); ++i) {
                QVERIFY2(results[i].ok, results[i].error.c_str());
                QCOMPARE(results[i].series, std::size_t(3));
                QCOMPARE(perQuery[i], 3);
            }
        }
        std::set<int> connections;
        for (const auto& seen : store.seen()) connections.insert(seen.remotePort);
        QCOMPARE(store.seen().size(), std::size_t(60));
        // Keep-alive across both batches: no more connections than transfers in flight.
        QVERIFY2(connections.size() <= 4, std::to_string(connections.size()).c_str());
    }
};

QTEST_APPLESS_MAIN(TestPromClient)
#include "tst_prom_client.moc"
