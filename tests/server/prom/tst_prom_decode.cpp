// decodeInstant / decodeRange against hand-written answers shaped like the stores': vectors,
// matrices, scalars, NaN and the infinities, escaped labels, warnings, error envelopes, and every
// way an answer can be wrong (which must fail cleanly with a message, never crash).
#include "PromClient.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

using namespace watchfloor::server::prom;

namespace {

struct Sample {
    std::map<std::string, std::string> labels;
    Point point;
};

struct Decoded {
    QueryResult result;
    std::vector<Sample> samples;
};

Decoded instant(std::string_view json) {
    Decoded d;
    d.result = decodeInstant(json, [&](std::span<const Label> labels, Point point) {
        Sample s{{}, point};
        for (const Label& l : labels) s.labels.emplace(l.name, l.value);
        d.samples.push_back(std::move(s));
    });
    return d;
}

struct Series {
    std::map<std::string, std::string> labels;
    std::vector<Point> points;
};

std::pair<QueryResult, std::vector<Series>> range(std::string_view json) {
    std::vector<Series> out;
    QueryResult r = decodeRange(json, [&](std::span<const Label> labels, std::span<const Point> points) {
        Series s;
        for (const Label& l : labels) s.labels.emplace(l.name, l.value);
        s.points.assign(points.begin(), points.end());
        out.push_back(std::move(s));
    });
    return {std::move(r), std::move(out)};
}

std::string vectorOf(const std::string& results) {
    return R"({"status":"success","data":{"resultType":"vector","result":[)" + results + "]}}";
}

}  // namespace

class TestPromDecode : public QObject {
    Q_OBJECT

private slots:
    void vectorWithLabelsAndValues() {
        const Decoded d = instant(R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"0","Hostname":"n001"},"value":[1712345678.123,"41"]},
            {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"1","Hostname":"n001"},"value":[1712345678.123,"43.5"]}]}})");
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.result.series, std::size_t(2));
        QCOMPARE(d.samples.size(), std::size_t(2));
        QCOMPARE(d.samples[0].labels.at("__name__"), std::string("DCGM_FI_DEV_GPU_TEMP"));
        QCOMPARE(d.samples[0].labels.at("gpu"), std::string("0"));
        QCOMPARE(d.samples[1].labels.at("Hostname"), std::string("n001"));
        QCOMPARE(d.samples[0].point.value, 41.0);
        QCOMPARE(d.samples[1].point.value, 43.5);
        QVERIFY(d.result.warnings.empty());
    }

    void timestampsRoundToMilliseconds() {
        // 1712345678.123 is 1712345678.12299990654 as a double: truncation would give ...122.
        const Decoded d = instant(vectorOf(R"({"metric":{},"value":[1712345678.123,"1"]},)"
                                           R"({"metric":{},"value":[1712345678,"1"]},)"
                                           R"({"metric":{},"value":[1712345678.9995,"1"]},)"
                                           R"({"metric":{},"value":[0.001,"1"]})"));
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples[0].point.timeMs, std::int64_t(1712345678123));
        QCOMPARE(d.samples[1].point.timeMs, std::int64_t(1712345678000));
        QCOMPARE(d.samples[2].point.timeMs, std::int64_t(1712345679000));
        QCOMPARE(d.samples[3].point.timeMs, std::int64_t(1));
    }

    void specialAndHugeValues() {
        const Decoded d = instant(vectorOf(R"({"metric":{"v":"nan"},"value":[1,"NaN"]},)"
                                           R"({"metric":{"v":"pinf"},"value":[1,"+Inf"]},)"
                                           R"({"metric":{"v":"minf"},"value":[1,"-Inf"]},)"
                                           R"({"metric":{"v":"blank"},"value":[1,"9223372036854775792"]},)"
                                           R"({"metric":{"v":"exp"},"value":[1,"1.5e+300"]},)"
                                           R"({"metric":{"v":"overflow"},"value":[1,"1e999"]},)"
                                           R"({"metric":{"v":"negative"},"value":[1,"-0.25"]},)"
                                           R"({"metric":{"v":"tiny"},"value":[1,"4.9e-324"]})"));
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples.size(), std::size_t(8));
        QVERIFY(std::isnan(d.samples[0].point.value));
        QCOMPARE(d.samples[1].point.value, std::numeric_limits<double>::infinity());
        QCOMPARE(d.samples[2].point.value, -std::numeric_limits<double>::infinity());
        QCOMPARE(d.samples[3].point.value, 9223372036854775792.0);
        QCOMPARE(d.samples[4].point.value, 1.5e300);
        QCOMPARE(d.samples[5].point.value, std::numeric_limits<double>::infinity());
        QCOMPARE(d.samples[6].point.value, -0.25);
        QVERIFY(d.samples[7].point.value > 0 && d.samples[7].point.value < 1e-320);
    }

    void escapedLabelsAreUnescaped() {
        const Decoded d =
            instant(vectorOf("{\"metric\":{\"path\":\"C:\\\\dir "
                             "\\\"q\\\"\\nnext\",\"plain\":\"x\",\"uni\":\"\\u00e9t\\u00e9\",\"we\\\"ird\":\"k\"},"
                             "\"value\":[1,\"7\"]}"));
        QVERIFY2(d.result.ok, d.result.error.c_str());
        const auto& labels = d.samples.at(0).labels;
        QCOMPARE(labels.at("path"), std::string("C:\\dir \"q\"\nnext"));
        QCOMPARE(labels.at("plain"), std::string("x"));
        QCOMPARE(labels.at("uni"), std::string("\xc3\xa9t\xc3\xa9"));
        QCOMPARE(labels.at("we\"ird"), std::string("k"));
    }

    void labelViewsStayValidForTheWholeCallback() {
        // The escaped value is unescaped after the plain one was read: both must be intact.
        std::vector<std::pair<std::string, std::string>> seen;
        const auto r = decodeInstant(
            vectorOf("{\"metric\":{\"a\":\"plain\",\"b\":\"t\\tab\",\"c\":\"more\\\\\"},\"value\":[1,\"1\"]}"),
            [&](std::span<const Label> labels, Point) {
                for (const Label& l : labels) seen.emplace_back(l.name, l.value);
            });
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(seen.size(), std::size_t(3));
        QCOMPARE(seen[0].second, std::string("plain"));
        QCOMPARE(seen[1].second, std::string("t\tab"));
        QCOMPARE(seen[2].second, std::string("more\\"));
    }

    void emptyResultIsSuccess() {
        const Decoded d = instant(vectorOf(""));
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.result.series, std::size_t(0));
    }

    void whitespaceAndStoreExtrasAreAccepted() {
        // VictoriaMetrics adds isPartial and stats; pretty-printed answers have whitespace everywhere.
        const Decoded d = instant(R"(  {
          "status" : "success", "isPartial": false,
          "data" : { "resultType" : "vector", "result" : [
            { "metric" : { "job" : "dcgm" } , "value" : [ 1712345678.5 , "2" ] }
          ] },
          "stats": {"seriesFetched": "1"}
        }
        )");
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples.at(0).labels.at("job"), std::string("dcgm"));
        QCOMPARE(d.samples.at(0).point.timeMs, std::int64_t(1712345678500));
        QCOMPARE(d.samples.at(0).point.value, 2.0);
    }

    void resultBeforeResultType() {
        const Decoded d = instant(
            R"({"status":"success","data":{"result":[{"metric":{"a":"b"},"value":[1,"3"]}],"resultType":"vector"}})");
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples.size(), std::size_t(1));
    }

    void warningsAreKeptAndBounded() {
        std::string many;
        for (int i = 0; i < 40; ++i) many += (i ? "," : "") + std::string("\"w") + std::to_string(i) + "\"";
        const Decoded d = instant(
            "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]},\"warnings\":[\"partial "
            "\\nresponse\", " +
            many + R"(],"infos":["an info"]})");
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.result.warnings.front(), std::string("partial  response"));
        QVERIFY(d.result.warnings.size() <= 18);
        QVERIFY(d.result.warnings.back().find("more warnings not kept") != std::string::npos);

        const std::string longWarning(5000, 'x');
        const Decoded l = instant(R"({"status":"success","data":{"resultType":"vector","result":[]},"warnings":[")" +
                                  longWarning + R"("]})");
        QVERIFY(l.result.ok);
        QVERIFY(l.result.warnings.at(0).size() < 500);
    }

    void scalarIsOneUnlabelledSample() {
        const Decoded d =
            instant(R"({"status":"success","data":{"resultType":"scalar","result":[1712345678.25,"42"]}})");
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples.size(), std::size_t(1));
        QVERIFY(d.samples[0].labels.empty());
        QCOMPARE(d.samples[0].point.timeMs, std::int64_t(1712345678250));
        QCOMPARE(d.samples[0].point.value, 42.0);
    }

    void matrixAndStringRefusedForInstant() {
        const Decoded m = instant(R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
        QVERIFY(!m.result.ok);
        QVERIFY2(m.result.error.find("matrix") != std::string::npos, m.result.error.c_str());
        const Decoded s = instant(R"({"status":"success","data":{"resultType":"string","result":[1,"x"]}})");
        QVERIFY(!s.result.ok);
        QVERIFY2(s.result.error.find("string") != std::string::npos, s.result.error.c_str());
    }

    void matrix() {
        auto [r, series] = range(R"({"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","job":"a"},"values":[[1712345670,"1"],[1712345680.5,"0"],[1712345690,"NaN"]]},
            {"metric":{"__name__":"up","job":"b"},"values":[]}]}})");
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.series, std::size_t(2));
        QCOMPARE(series.at(0).labels.at("job"), std::string("a"));
        QCOMPARE(series[0].points.size(), std::size_t(3));
        QCOMPARE(series[0].points[1].timeMs, std::int64_t(1712345680500));
        QCOMPARE(series[0].points[1].value, 0.0);
        QVERIFY(std::isnan(series[0].points[2].value));
        QVERIFY(series.at(1).points.empty());

        auto [v, none] = range(vectorOf(""));
        QVERIFY(!v.ok);
        QVERIFY2(v.error.find("vector") != std::string::npos, v.error.c_str());
    }

    void nativeHistogramsAreSkippedWithAWarning() {
        const Decoded d = instant(vectorOf(
            R"({"metric":{"a":"1"},"histogram":[1,{"count":"2","sum":"3","buckets":[]}]},{"metric":{"a":"2"},"value":[1,"5"]})"));
        QVERIFY2(d.result.ok, d.result.error.c_str());
        QCOMPARE(d.samples.size(), std::size_t(1));
        QCOMPARE(d.result.warnings.size(), std::size_t(1));
        QVERIFY(d.result.warnings[0].find("native-histogram") != std::string::npos);
    }

    void errorEnvelope() {
        const Decoded d = instant(
            "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse error: unexpected \\\"}\\\"\"}");
        QVERIFY(!d.result.ok);
        QCOMPARE(d.result.error, std::string("bad_data: 1:5: parse error: unexpected \"}\""));
        QVERIFY(d.samples.empty());
        // An error status wins over data that came first, and over data that follows.
        const Decoded late = instant(
            R"({"data":{"resultType":"vector","result":[]},"status":"error","errorType":"execution","error":"boom"})");
        QVERIFY(!late.result.ok);
        QCOMPARE(late.result.error, std::string("execution: boom"));
        const Decoded early = instant(
            R"({"status":"error","errorType":"timeout","error":"t","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}})");
        QVERIFY(!early.result.ok);
        QVERIFY(early.samples.empty());
    }

    void wrongShapes_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("mentions");
        auto row = [](const char* name, const std::string& json, const char* mentions) {
            QTest::newRow(name) << QString::fromStdString(json) << QString(mentions);
        };
        row("empty", "", "empty");
        row("not JSON", "<html>bad gateway</html>", "not JSON (starts with \"<html>bad");
        row("top-level array", "[1,2]", "got an array");
        row("missing status", R"({"data":{"resultType":"vector","result":[]}})", "status");
        row("unknown status", R"({"status":"maybe","data":{}})", "maybe");
        row("missing data", R"({"status":"success"})", "data");
        row("data not object", R"({"status":"success","data":[1]})", "data: expected object");
        row("missing resultType", R"({"status":"success","data":{"result":[]}})", "resultType");
        row("missing result", R"({"status":"success","data":{"resultType":"vector"}})", "data.result");
        row("result not array", R"({"status":"success","data":{"resultType":"vector","result":{}}})", "data.result");
        row("series not object", vectorOf("[1]"), "data.result[0]");
        row("missing metric", vectorOf(R"({"value":[1,"1"]})"), "data.result[0].metric");
        row("missing value", vectorOf(R"({"metric":{}})"), "data.result[0].value");
        row("metric not object", vectorOf(R"({"metric":[],"value":[1,"1"]})"), "metric: expected object");
        row("label value number", vectorOf(R"({"metric":{"a":1},"value":[1,"1"]})"), "expected string");
        row("value not array", vectorOf(R"({"metric":{},"value":"1"})"), "value: expected array");
        row("value as number", vectorOf(R"({"metric":{},"value":[1,1]})"), "value[1]");
        row("time as string", vectorOf(R"({"metric":{},"value":["1","1"]})"), "value[0]");
        row("three elements", vectorOf(R"({"metric":{},"value":[1,"1","2"]})"), "3 elements");
        row("one element", vectorOf(R"({"metric":{},"value":[1]})"), "1 elements");
        row("value not a number", vectorOf(R"({"metric":{},"value":[1,"41abc"]})"), "not a number");
        row("empty value", vectorOf(R"({"metric":{},"value":[1,""]})"), "not a number");
        row("huge time", vectorOf(R"({"metric":{},"value":[1e300,"1"]})"), "out of range");
        row("second series bad", vectorOf(R"({"metric":{},"value":[1,"1"]},{"metric":{},"value":[1,true]})"),
            "data.result[1]");
        row("trailing garbage", vectorOf("") + " {}", "");
    }
    void wrongShapes() {
        QFETCH(QString, json);
        QFETCH(QString, mentions);
        const Decoded d = instant(json.toStdString());
        QVERIFY2(!d.result.ok, "a wrong answer decoded as success");
        QVERIFY(!d.result.error.empty());
        QVERIFY2(d.result.error.find('\n') == std::string::npos, d.result.error.c_str());
        QVERIFY2(d.result.error.find(mentions.toStdString()) != std::string::npos, d.result.error.c_str());
        QCOMPARE(d.samples.size(), d.result.series);
    }

    void truncatedAnswersFailAtEveryCut() {
        // Every prefix of a valid answer must fail (never crash, never claim success), and say how
        // many series it delivered before it stopped.
        const std::string whole = vectorOf(
            "{\"metric\":{\"__name__\":\"a\",\"l\":\"x\\\"y\"},\"value\":[1712345678.123,\"41\"]},"
            R"({"metric":{"__name__":"b"},"value":[1712345678.123,"NaN"]})");
        QVERIFY(instant(whole).result.ok);
        for (std::size_t cut = 0; cut < whole.size(); ++cut) {
            const Decoded d = instant(std::string_view(whole).substr(0, cut));
            if (d.result.ok) QFAIL(("prefix of " + std::to_string(cut) + " bytes decoded as success").c_str());
            QCOMPARE(d.samples.size(), d.result.series);
            QVERIFY(d.result.series <= 2);
        }
    }

    void malformedMessageNamesAByteOffset() {
        const Decoded d = instant(vectorOf(R"({"metric":{},"value":[1,"1"]})").substr(0, 60));
        QVERIFY(!d.result.ok);
        QVERIFY2(
            d.result.error.find("byte") != std::string::npos || d.result.error.find("unexpected") != std::string::npos,
            d.result.error.c_str());
    }

    void rangeStepKeepsUnderThePointCap() {
        QCOMPARE(rangeStepFor(0, 3600'000, 15'000), std::int64_t(15'000));
        QCOMPARE(rangeStepFor(0, 0, 15'000), std::int64_t(15'000));
        QCOMPARE(rangeStepFor(0, 1000, 0), std::int64_t(1));
        for (const std::int64_t span :
             {std::int64_t(11'000'000), std::int64_t(30LL * 86400'000), std::int64_t(10'999'999),
              std::int64_t(11'000'001), std::int64_t(365LL * 86400'000)}) {
            const std::int64_t step = rangeStepFor(1712345678000, 1712345678000 + span, 1000);
            QVERIFY(step >= 1000);
            QVERIFY2(span / step + 1 <= 11000, std::to_string(span).c_str());
            // ...and not coarser than needed.
            if (step > 1000) QVERIFY(span / (step - 1) + 1 > 11000);
        }
        QCOMPARE(rangeStepFor(0, 100'000, 1, 11), std::int64_t(9'091));  // 100000 / 9091 = 10 intervals, 11 points
    }
};

QTEST_APPLESS_MAIN(TestPromDecode)
#include "tst_prom_decode.moc"
