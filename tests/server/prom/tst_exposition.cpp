// The exposition parser on real pages (the format documentation's own examples, dcgm-exporter and
// OpenMetrics pages as published) and on hostile ones: every broken line is skipped and counted,
// never read as a value, and never stops the lines after it.

#include "Exposition.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace watchfloor::server::prom;

namespace {

struct Seen {
    std::string name;
    std::map<std::string, std::string> labels;
    double value;
    std::int64_t timeMs;
};

struct Parsed {
    ExpositionStats stats;
    std::vector<Seen> samples;
};

Parsed parse(std::string_view page, ExpositionFormat format = ExpositionFormat::PrometheusText) {
    ExpositionParser parser;
    Parsed out;
    out.stats = parser.parse(page, format, [&](const ExpositionSample& s) {
        Seen seen{std::string(s.name), {}, s.value, s.timeMs};
        for (const auto& l : s.labels) seen.labels[std::string(l.name)] = std::string(l.value);
        out.samples.push_back(std::move(seen));
    });
    return out;
}

// One sample line alone: its value, or nullopt when the line was refused.
std::optional<double> valueOf(const std::string& line) {
    const Parsed p = parse(line + "\n");
    if (p.samples.size() != 1 || p.stats.rejectedLines != 0) return std::nullopt;
    return p.samples.front().value;
}

bool refused(const std::string& line, ExpositionFormat format = ExpositionFormat::PrometheusText) {
    const Parsed p = parse(line + "\n" + (format == ExpositionFormat::OpenMetrics ? "# EOF\n" : ""), format);
    return p.samples.empty() && p.stats.rejectedLines == 1;
}

// Real pages, defined after the test class (moc reads this file and stops at raw strings).
extern const std::string_view kDocumentationExample, kDcgmExporterPage, kOpenMetricsPage;

}  // namespace

class TstExposition : public QObject {
    Q_OBJECT

private slots:
    void documentationExample() {
        const Parsed p = parse(kDocumentationExample);
        QCOMPARE(p.stats.rejectedLines, std::size_t(0));
        QCOMPARE(p.samples.size(), std::size_t(20));
        QCOMPARE(p.samples[0].name, std::string("http_requests_total"));
        QCOMPARE(p.samples[0].labels.at("code"), std::string("200"));
        QCOMPARE(p.samples[0].timeMs, std::int64_t(1395066363000));
        QCOMPARE(p.samples[1].value, 3.0);  // blanks before the value
        QCOMPARE(p.samples[2].labels.at("path"), std::string("C:\\DIR\\FILE.TXT"));
        QCOMPARE(p.samples[2].labels.at("error"), std::string("Cannot find file:\n\"FILE.TXT\""));
        QCOMPARE(p.samples[2].value, 1.458255915e9);
        QCOMPARE(p.samples[3].timeMs, kNoTimestamp);
        QVERIFY(std::isinf(p.samples[4].value) && p.samples[4].value > 0);
        QCOMPARE(p.samples[4].timeMs, std::int64_t(-3982045));
        QCOMPARE(p.samples[10].labels.at("le"), std::string("+Inf"));
        QCOMPARE(p.samples[19].value, 2693.0);
    }

    void dcgmExporterPage() {
        const Parsed p = parse(kDcgmExporterPage);
        QCOMPARE(p.stats.rejectedLines, std::size_t(0));
        QCOMPARE(p.samples.size(), std::size_t(2));
        QCOMPARE(p.samples[0].labels.size(), std::size_t(7));
        QCOMPARE(p.samples[0].labels.at("Hostname"), std::string("6d6d7dc3ce21"));
        QCOMPARE(p.samples[1].value, 2619.0);
    }

    void openMetricsPage() {
        const Parsed p = parse(kOpenMetricsPage, ExpositionFormat::OpenMetrics);
        QVERIFY2(p.stats.rejectedLines == 0, p.stats.firstError.c_str());
        QVERIFY(p.stats.eof);
        QCOMPARE(p.stats.exemplars, std::size_t(2));
        QCOMPARE(p.samples.size(), std::size_t(11));
        QCOMPARE(p.samples[4].name, std::string("foo"));
        QCOMPARE(p.samples[4].timeMs, std::int64_t(1520879607789));  // seconds, not milliseconds
        QCOMPARE(p.samples[8].labels.size(), std::size_t(1));        // the exemplar's labels are not the series'
        QCOMPARE(p.samples[8].value, 17.0);
    }

    void contentTypes() {
        QCOMPARE(expositionFormatOf("text/plain; version=0.0.4; charset=utf-8"), ExpositionFormat::PrometheusText);
        QCOMPARE(expositionFormatOf("text/plain"), ExpositionFormat::PrometheusText);
        QCOMPARE(expositionFormatOf(""), ExpositionFormat::PrometheusText);
        QCOMPARE(expositionFormatOf("Application/OpenMetrics-Text; version=1.0.0; charset=utf-8"),
                 ExpositionFormat::OpenMetrics);
        QVERIFY(!expositionFormatOf("text/html; charset=utf-8"));
        QVERIFY(!expositionFormatOf("application/json"));
        QVERIFY(!expositionFormatOf(
            "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"));
    }

    void valuesAsGoReadsThem() {
        QCOMPARE(valueOf("m 42"), 42.0);
        QCOMPARE(valueOf("m -0.5"), -0.5);
        QCOMPARE(valueOf("m +7"), 7.0);
        QCOMPARE(valueOf("m .5"), 0.5);
        QCOMPARE(valueOf("m 1e-3"), 1e-3);
        QCOMPARE(valueOf("m 9223372036854775792"), 9223372036854775792.0);  // DCGM's int64 blank
        QCOMPARE(valueOf("m 0x1p-2"), 0.25);
        QVERIFY(std::isnan(*valueOf("m NaN")));
        QVERIFY(std::isnan(*valueOf("m nan")));
        QCOMPARE(*valueOf("m -Inf"), -HUGE_VAL);
        QCOMPARE(*valueOf("m +inf"), HUGE_VAL);
        QCOMPARE(*valueOf("m Infinity"), HUGE_VAL);
        for (const char* bad :
             {"m 1.2.3", "m 12abc", "m 1e999", "m --1", "m +-1", "m 0x", "m nan(1)", "m one", "m 1,5", "m 0x+1p2", "m"})
            QVERIFY2(!valueOf(bad), bad);
    }

    void timestamps() {
        QCOMPARE(parse("m 1 1700000000123\n").samples.at(0).timeMs, std::int64_t(1700000000123));
        QVERIFY(refused("m 1 1700000000.5"));  // seconds are OpenMetrics', not the text format's
        QVERIFY(refused("m 1 soon"));
        QVERIFY(refused("m 1 99999999999999999999"));
        QVERIFY(refused("m 1 2 3"));
        const Parsed om = parse("m 1 1700000000.5\n# EOF\n", ExpositionFormat::OpenMetrics);
        QCOMPARE(om.samples.at(0).timeMs, std::int64_t(1700000000500));
        QVERIFY(refused("m 1 Inf", ExpositionFormat::OpenMetrics));
    }

    void labelsEdgeCases() {
        Parsed p = parse("m{} 1\nm{a=\"x\",} 2\nm { a = \"x\" , b=\"\" } 3\nm\t{a=\"\\a\\\\\"} 4\n");
        QVERIFY2(p.stats.rejectedLines == 0, p.stats.firstError.c_str());
        QCOMPARE(p.samples.size(), std::size_t(4));
        QCOMPARE(p.samples[0].labels.size(), std::size_t(0));
        QCOMPARE(p.samples[1].labels.at("a"), std::string("x"));
        QCOMPARE(p.samples[2].labels.at("b"), std::string());
        QCOMPARE(p.samples[3].labels.at("a"), std::string("\\a\\"));  // an unknown escape keeps its backslash
        // A NUL byte and multi-byte UTF-8 are label text like any other.
        const char withNul[] = "m{a=\"x\0y\",b=\"Grüße ✓\"} 1\n";
        p = parse(std::string(withNul, sizeof withNul - 1));
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.samples[0].labels.at("a"), std::string("x\0y", 3));
        // Views stay valid across many escaped values on one line (the scratch never moves).
        std::string line = "m{";
        for (int i = 0; i < 40; ++i) line += "l" + std::to_string(i) + "=\"v\\\"" + std::to_string(i) + "\",";
        p = parse(line + "} 1\n");
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.samples[0].labels.at("l0"), std::string("v\"0"));
        QCOMPARE(p.samples[0].labels.at("l39"), std::string("v\"39"));
    }

    void hostileLinesAreRefusedOneByOne_data() {
        QTest::addColumn<QByteArray>("line");
        const char* lines[] = {
            "m{a=\"x} 1",            // never closes
            "m{a=\"x\\\"} 1",        // the closing quote is escaped
            "m{a=x} 1",              // unquoted
            "m{a=\"1\",a=\"2\"} 1",  // the same label twice
            "m{1a=\"x\"} 1",         // label names do not start with a digit
            "m{a-b=\"x\"} 1",
            "m{a=\"x\" b=\"y\"} 1",  // no comma
            "m{a=\"x\"",             // no closing brace
            "m{,} 1",
            "m-x 1",  // '-' is no metric name character
            "9m 1",
            "{a=\"x\"} 1",        // no name
            "{\"utf8.name\"} 1",  // Prometheus 3's quoted names: not read
            "m 1 1 1",
            "m 1 # no exemplar labels",
            "m 1 # {a=\"x\"}",  // exemplar without a value
            "m 1 # {a=\"x\"} 2 soon",
            "m 1 # {a=\"x\"} 2 3 4",
            "<html><body>not metrics</body></html>",
            "HTTP/1.1 200 OK",
            "m\x01 1",
            "# TYPE m gauge extra",
            "# TYPE m",
            "# TYPE m sometimes",
            "# TYPE 9m gauge",
            "# HELP",
        };
        for (const char* line : lines) QTest::newRow(line) << QByteArray(line);
        QTest::newRow("invalid UTF-8") << QByteArray("m{a=\"\xff\xfe\"} 1");
        QTest::newRow("overlong UTF-8") << QByteArray("m{a=\"\xc0\xaf\"} 1");
        QTest::newRow("UTF-8 surrogate") << QByteArray("m{a=\"\xed\xa0\x80\"} 1");
        QTest::newRow("UTF-8 cut short") << QByteArray("m{a=\"\xe2\x9c\"} 1");
    }
    void hostileLinesAreRefusedOneByOne() {
        QFETCH(QByteArray, line);
        // Between two good lines: refused alone, counted, and the lines around it still read.
        const std::string page = "good 1\n" + line.toStdString() + "\ngood 2\n";
        const Parsed p = parse(page);
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
        QCOMPARE(p.samples.size(), std::size_t(2));
        QCOMPARE(p.samples[1].value, 2.0);
        QVERIFY2(p.stats.firstError.rfind("line 2: ", 0) == 0, p.stats.firstError.c_str());
        for (const char c : p.stats.firstError) QVERIFY(static_cast<unsigned char>(c) >= 0x20);  // one clean line
    }

    void metadataRules() {
        // Duplicates are refused; the samples still count.
        Parsed p = parse("# TYPE m gauge\n# TYPE m counter\n# HELP m one\n# HELP m two\nm 1\n");
        QCOMPARE(p.stats.rejectedLines, std::size_t(2));
        QCOMPARE(p.samples.size(), std::size_t(1));
        // Other comments are comments in the text format, errors in OpenMetrics.
        p = parse("# just a note\n#\n# HELP m with \\\\ and \\n escapes\nm 1\n");
        QCOMPARE(p.stats.rejectedLines, std::size_t(0));
        p = parse("# just a note\nm 1\n# EOF\n", ExpositionFormat::OpenMetrics);
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
        QCOMPARE(p.samples.size(), std::size_t(1));
        // OpenMetrics' types and UNIT are not the text format's.
        QVERIFY(refused("# TYPE m stateset"));
        QVERIFY(!refused("# TYPE m stateset", ExpositionFormat::OpenMetrics));
        QVERIFY(refused("# UNIT m_seconds seconds extra", ExpositionFormat::OpenMetrics));
    }

    void cutShortPages() {
        // The last line has no line feed: it may be a number cut short ("12" of "1234"), so it is refused.
        Parsed p = parse("a 1\nb 1234");
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
        QVERIFY2(p.stats.firstError.find("cut short") != std::string::npos, p.stats.firstError.c_str());
        // OpenMetrics ends in # EOF, with or without its line feed; without it the page is cut short.
        p = parse("a 1\n# EOF", ExpositionFormat::OpenMetrics);
        QCOMPARE(p.stats.rejectedLines, std::size_t(0));
        QVERIFY(p.stats.eof);
        p = parse("a 1\n", ExpositionFormat::OpenMetrics);
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
        QVERIFY2(p.stats.firstError.find("# EOF") != std::string::npos, p.stats.firstError.c_str());
        // Nothing after # EOF counts.
        p = parse("a 1\n# EOF\nb 2\n", ExpositionFormat::OpenMetrics);
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
    }

    void blanksTabsAndCarriageReturns() {
        const Parsed p = parse("  \t\n\tm{a=\"x\"}\t 5 \t\r\n\r\nn 6\r\n");
        QVERIFY2(p.stats.rejectedLines == 0, p.stats.firstError.c_str());
        QCOMPARE(p.samples.size(), std::size_t(2));
        QCOMPARE(p.samples[1].value, 6.0);
    }

    void emptyAndBinaryPages() {
        QCOMPARE(parse("").stats.lines, std::size_t(0));
        QCOMPARE(parse("\n\n\n").stats.rejectedLines, std::size_t(0));
        std::string binary;
        for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 7919) & 0xff);
        const Parsed p = parse(binary);
        QVERIFY(p.samples.size() + p.stats.rejectedLines <= p.stats.lines);
        QVERIFY(p.stats.rejectedLines > 0);
    }

    void hugeLinesAndManyLabels() {
        // A 4 MiB label value is read (it is valid), and a line with more labels than the cap is not.
        std::string big = "m{a=\"" + std::string(4 << 20, 'x') + "\"} 1\n";
        Parsed p = parse(big);
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.samples[0].labels.at("a").size(), std::size_t(4 << 20));
        std::string many = "m{";
        for (std::size_t i = 0; i <= ExpositionParser::kMaxLabels; ++i) many += "l" + std::to_string(i) + "=\"v\",";
        p = parse(many + "} 1\nok 1\n");
        QCOMPARE(p.samples.size(), std::size_t(1));
        QCOMPARE(p.stats.rejectedLines, std::size_t(1));
    }

    void manyGarbageLinesFirstErrorOnly() {
        std::string page;
        for (int i = 0; i < 10'000; ++i) page += "garbage " + std::to_string(i) + " here\n";
        page += "real 1\n";
        const Parsed p = parse(page);
        QCOMPARE(p.stats.rejectedLines, std::size_t(10'000));
        QCOMPARE(p.samples.size(), std::size_t(1));
        QVERIFY(p.stats.firstError.rfind("line 1: ", 0) == 0);
        QVERIFY(p.stats.firstError.size() < 300);
    }
};

namespace {

// The text-format example of Prometheus's "Exposition formats" documentation, as published.
const std::string_view kDocumentationExample = R"(# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="0.1"} 33444
http_request_duration_seconds_bucket{le="0.2"} 100392
http_request_duration_seconds_bucket{le="0.5"} 129389
http_request_duration_seconds_bucket{le="1"} 133988
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320

# Finally a summary, which has a complex representation, too:
# HELP telemetry_requests_metrics_latency_microseconds A summary of the response latency.
# TYPE telemetry_requests_metrics_latency_microseconds summary
telemetry_requests_metrics_latency_microseconds{quantile="0.01"} 3102
telemetry_requests_metrics_latency_microseconds{quantile="0.05"} 3272
telemetry_requests_metrics_latency_microseconds{quantile="0.5"} 4773
telemetry_requests_metrics_latency_microseconds{quantile="0.9"} 9001
telemetry_requests_metrics_latency_microseconds{quantile="0.99"} 76656
telemetry_requests_metrics_latency_microseconds_sum 1.7560473e+07
telemetry_requests_metrics_latency_microseconds_count 2693
)";

// The start of a dcgm-exporter page as NVIDIA's documentation shows it (an H100 behind Docker, so
// Hostname is a container id, not the host's name).
const std::string_view kDcgmExporterPage = R"(# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-927d7444-b45a-7c49-8402-5e686e46a026",pci_bus_id="00000000:00:09.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="6d6d7dc3ce21",DCGM_FI_DRIVER_VERSION="535.183.01"} 345
# HELP DCGM_FI_DEV_MEM_CLOCK Memory clock frequency (in MHz).
# TYPE DCGM_FI_DEV_MEM_CLOCK gauge
DCGM_FI_DEV_MEM_CLOCK{gpu="0",UUID="GPU-927d7444-b45a-7c49-8402-5e686e46a026",pci_bus_id="00000000:00:09.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="6d6d7dc3ce21",DCGM_FI_DRIVER_VERSION="535.183.01"} 2619
)";

// OpenMetrics 1.0's complete example, plus the spec's gauge, counter and exemplar forms.
const std::string_view kOpenMetricsPage = R"(# TYPE acme_http_router_request_seconds summary
# UNIT acme_http_router_request_seconds seconds
# HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.
acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32
acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0
acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0
# TYPE go_goroutines gauge
# HELP go_goroutines Number of goroutines that currently exist.
go_goroutines 69
# TYPE foo gauge
foo{a="b"} 17.0 1520879607.789
# TYPE process_cpu_seconds counter
# UNIT process_cpu_seconds seconds
# HELP process_cpu_seconds Total user and system CPU time spent in seconds.
process_cpu_seconds_total 4.20072246e+06
# TYPE bar_seconds histogram
bar_seconds_bucket{le="0.01"} 0
bar_seconds_bucket{le="0.1"} 8 # {trace_id="KOO5S4vxi0o"} 0.67
bar_seconds_bucket{le="+Inf"} 17 # {trace_id="oHg5SJYRHA0"} 9.8 1520879607.789
bar_seconds_count 17
bar_seconds_sum 324789.3
# EOF
)";

}  // namespace

QTEST_APPLESS_MAIN(TstExposition)
#include "tst_exposition.moc"
