// PromClient against real stores on loopback: Prometheus and VictoriaMetrics (Debian's packages)
// scrape a small fixed exposition from an in-process server every second; instantQuery,
// rangeQuery and instantQueries must return exactly those labels and values, and a bad PromQL the
// store's own error.
#include "LoopbackStore.h"
#include "PromClient.h"

#include <httplib.h>

#include <QTest>

#include <cmath>
#include <map>
#include <thread>

using namespace watchfloor::server::prom;
using watchfloor::test::LoopbackStore;
using watchfloor::test::StoreKind;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(StoreKind)

namespace {

// Label values with every escape the text format has: backslash, quote, newline.
const char* const kExposition =
    "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-0a\",Hostname=\"node-a\",modelName=\"NVIDIA GB200\"} 41\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-1b\",Hostname=\"node-a\",modelName=\"NVIDIA GB200\"} 43.5\n"
    "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0a\",Hostname=\"node-a\",modelName=\"NVIDIA GB200\"} NaN\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-1b\",Hostname=\"node-a\",modelName=\"NVIDIA GB200\"} 612.25\n"
    "# TYPE wf_fixture_escaped gauge\n"
    "wf_fixture_escaped{path=\"C:\\\\dir \\\"q\\\"\\nnext\"} -7\n";

const char* const kAllFamilies = "{__name__=~\"DCGM_FI_DEV_GPU_TEMP|DCGM_FI_DEV_POWER_USAGE|wf_fixture_escaped\"}";

using LabelSet = std::map<std::string, std::string>;

LabelSet toMap(std::span<const Label> labels) {
    LabelSet out;
    for (const Label& l : labels) out.emplace(l.name, l.value);
    return out;
}

class Exporter {
public:
    Exporter() {
        server_.Get("/metrics", [](const httplib::Request&, httplib::Response& response) {
            response.set_content(kExposition, "text/plain; version=0.0.4");
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(2ms);
    }
    ~Exporter() {
        server_.stop();
        thread_.join();
    }
    std::string target() const { return "127.0.0.1:" + std::to_string(port_); }

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

struct Fixture {
    Exporter exporter;
    std::unique_ptr<LoopbackStore> store;
    std::unique_ptr<PromClient> client;
    std::map<LabelSet, double> expected;  // every sample, labels as the store adds them
};

std::unique_ptr<Fixture> startFixture(StoreKind kind, std::string& error, std::vector<std::string> extraArgs = {}) {
    auto f = std::make_unique<Fixture>();
    LoopbackStore::Options options;
    options.kind = kind;
    options.extraArgs = std::move(extraArgs);
    options.config = LoopbackStore::scrapeConfig("wf_fixture", f->exporter.target(), 1s);
    f->store = LoopbackStore::start(options, error);
    if (!f->store) return nullptr;
    StoreOptions storeOptions;
    storeOptions.url = f->store->url();
    storeOptions.timeout = 5s;
    f->client = std::make_unique<PromClient>(storeOptions);
    const LabelSet common{{"instance", f->exporter.target()}, {"job", "wf_fixture"}};
    auto gpu = [&](const char* name, const char* index, const char* uuid) {
        LabelSet l = common;
        l.insert({{"__name__", name},
                  {"gpu", index},
                  {"UUID", uuid},
                  {"Hostname", "node-a"},
                  {"modelName", "NVIDIA GB200"}});
        return l;
    };
    f->expected[gpu("DCGM_FI_DEV_GPU_TEMP", "0", "GPU-0a")] = 41;
    f->expected[gpu("DCGM_FI_DEV_GPU_TEMP", "1", "GPU-1b")] = 43.5;
    f->expected[gpu("DCGM_FI_DEV_POWER_USAGE", "0", "GPU-0a")] = std::nan("");
    f->expected[gpu("DCGM_FI_DEV_POWER_USAGE", "1", "GPU-1b")] = 612.25;
    LabelSet escaped = common;
    escaped.insert({{"__name__", "wf_fixture_escaped"}, {"path", "C:\\dir \"q\"\nnext"}});
    f->expected[escaped] = -7;
    return f;
}

// Scrapes take a second or two to show; bounded.
std::map<LabelSet, double> waitForAllSeries(Fixture& f, std::size_t wanted, QueryResult& last) {
    std::map<LabelSet, double> got;
    for (int attempt = 0; attempt < 60; ++attempt) {
        got.clear();
        last = f.client->instantQuery(kAllFamilies, std::nullopt, [&](std::span<const Label> labels, Point point) {
            got[toMap(labels)] = point.value;
        });
        if (last.ok && got.size() >= wanted) break;
        std::this_thread::sleep_for(500ms);
    }
    return got;
}

bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

class TestPromLoopback : public QObject {
    Q_OBJECT

private:
    void addStores() {
        QTest::addColumn<StoreKind>("kind");
        QTest::newRow("prometheus") << StoreKind::Prometheus;
        QTest::newRow("victoria-metrics") << StoreKind::VictoriaMetrics;
    }

private slots:
    void scrapedSamplesComeBackExactly_data() { addStores(); }
    void scrapedSamplesComeBackExactly() {
        QFETCH(StoreKind, kind);
        std::string error;
        auto f = startFixture(kind, error);
        QVERIFY2(f, error.c_str());

        // VictoriaMetrics does not keep NaN samples (it stores them as gaps): its answer has no
        // series for the NaN gauge. Prometheus returns it as "NaN".
        std::map<LabelSet, double> expected = f->expected;
        if (kind == StoreKind::VictoriaMetrics)
            std::erase_if(expected, [](const auto& entry) { return std::isnan(entry.second); });

        QueryResult r;
        const auto got = waitForAllSeries(*f, expected.size(), r);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.httpStatus, 200);
        QCOMPARE(r.series, expected.size());
        QCOMPARE(got.size(), expected.size());
        for (const auto& [labels, value] : expected) {
            const auto it = got.find(labels);
            QVERIFY2(it != got.end(), labels.at("__name__").c_str());
            QVERIFY2(sameValue(it->second, value), (labels.at("__name__") + " " + std::to_string(it->second)).c_str());
        }

        // The same through the batch path, each answer tagged with its query.
        const std::vector<std::string> queries{"DCGM_FI_DEV_GPU_TEMP", "wf_fixture_escaped", "DCGM_FI_DEV_POWER_USAGE"};
        std::vector<std::vector<LabelSet>> perQuery(queries.size());
        const auto results = f->client->instantQueries(
            queries, std::nullopt,
            [&](std::size_t q, std::span<const Label> labels, Point) { perQuery[q].push_back(toMap(labels)); });
        for (std::size_t q = 0; q < queries.size(); ++q) {
            QVERIFY2(results[q].ok, results[q].error.c_str());
            QVERIFY(!perQuery[q].empty());
            for (const auto& labels : perQuery[q]) QCOMPARE(labels.at("__name__"), queries[q]);
        }
        QCOMPARE(perQuery[0].size(), std::size_t(2));
        QCOMPARE(perQuery[1].at(0).at("path"), std::string("C:\\dir \"q\"\nnext"));
    }

    void rangeQueryReturnsEveryStep_data() { addStores(); }
    void rangeQueryReturnsEveryStep() {
        QFETCH(StoreKind, kind);
        std::string error;
        // VictoriaMetrics 1.79 answers the newest 30 s of a range (-search.latencyOffset) with the
        // value from before them, and a store a few seconds old has none: this test is about the
        // step grid, so that store is told to answer with what it has.
        auto f = startFixture(kind, error,
                              kind == StoreKind::VictoriaMetrics ? std::vector<std::string>{"-search.latencyOffset=0s"}
                                                                 : std::vector<std::string>{});
        QVERIFY2(f, error.c_str());
        QueryResult r;
        waitForAllSeries(*f, 4, r);
        std::this_thread::sleep_for(3s);  // a few more scrapes to span
        const auto now =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        const std::int64_t start = now - 3000, end = now, step = rangeStepFor(start, end, 1000);
        QCOMPARE(step, std::int64_t(1000));
        std::map<std::string, std::vector<Point>> series;
        r = f->client->rangeQuery("DCGM_FI_DEV_GPU_TEMP", start, end, step,
                                  [&](std::span<const Label> labels, std::span<const Point> points) {
                                      series[toMap(labels).at("gpu")].assign(points.begin(), points.end());
                                  });
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(series.size(), std::size_t(2));
        for (const auto& [gpu, points] : series) {
            QVERIFY2(points.size() >= 3 && points.size() <= 4, std::to_string(points.size()).c_str());
            for (std::size_t i = 0; i < points.size(); ++i) {
                QCOMPARE(points[i].value, gpu == "0" ? 41.0 : 43.5);
                QVERIFY(points[i].timeMs >= start && points[i].timeMs <= end);
                if (i > 0) QCOMPARE(points[i].timeMs - points[i - 1].timeMs, step);
            }
        }
    }

    void badPromqlGivesTheStoresError_data() { addStores(); }
    void badPromqlGivesTheStoresError() {
        QFETCH(StoreKind, kind);
        std::string error;
        auto f = startFixture(kind, error);
        QVERIFY2(f, error.c_str());
        const QueryResult r =
            f->client->instantQuery("sum(rate(DCGM_FI_DEV_GPU_TEMP[1m]", std::nullopt, [](auto, auto) {});
        QVERIFY(!r.ok);
        qInfo("%s: %s", LoopbackStore::name(kind), r.error.c_str());
        QVERIFY2(r.httpStatus == 400 || r.httpStatus == 422, std::to_string(r.httpStatus).c_str());
        // The store's JSON envelope was read: its errorType and message, not a raw body.
        const std::string prefix = "HTTP " + std::to_string(r.httpStatus);
        QVERIFY2(r.error.rfind(prefix, 0) == 0, r.error.c_str());
        QVERIFY2(r.error.find(" from http") == std::string::npos, r.error.c_str());
        if (kind == StoreKind::Prometheus) QVERIFY2(r.error.rfind("HTTP 400 bad_data: ", 0) == 0, r.error.c_str());
        // VictoriaMetrics' errorType is the status itself, said once.
        if (kind == StoreKind::VictoriaMetrics) QVERIFY2(r.error.rfind("HTTP 422: ", 0) == 0, r.error.c_str());
        QVERIFY2(r.error.find("parse") != std::string::npos || r.error.find("unexpected") != std::string::npos ||
                     r.error.find("cannot") != std::string::npos,
                 r.error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestPromLoopback)
#include "tst_prom_loopback.moc"
