// promtool (Prometheus' own linter and parser) over every exporter page of a running twin, and
// both scrapers' config checkers over the written scrape configuration. The twin runs a Xid 79
// (a GPU answering blanks), a flapping NIC port and an isolated rack (trays without power).

#include "ScrapeConfig.h"
#include "TwinExporterHarness.h"

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <limits>
#include <tuple>

using namespace watchfloor::server;
using namespace watchfloor::server::exporters;
using watchfloor::testing::TwinExporterHarness;

namespace {

struct ToolRun {
    int exitCode = -1;
    QString output;
};

ToolRun runTool(const QString& program, const QStringList& args, const QByteArray& input = {}) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    if (!process.waitForStarted(10'000)) return {-1, program + " did not start: " + process.errorString()};
    if (!input.isEmpty()) process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished(5'000);
        return {-1, program + " timed out"};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput())};
}

// promtool's verdict: 0 clean, 3 lint findings only, 1 unparsable. dcgm-exporter's own pages get
// exactly these findings (camelCase labels such as modelName; counters without _total; the
// PCIE_REPLAY_COUNTER name containing its type), so they are expected; anything else is not.
QString promtoolProblems(const std::string& page) {
    const ToolRun run = runTool("promtool", {"check", "metrics"}, QByteArray::fromStdString(page));
    if (run.exitCode != 0 && run.exitCode != 3) return QString("exit %1: %2").arg(run.exitCode).arg(run.output);
    static const QRegularExpression expected(
        R"(^DCGM_FI_\w+ (label names should be written in 'snake_case' not 'camelCase'|counter metrics should have "_total" suffix|metric name should not include type 'counter')$)");
    QStringList unexpected;
    for (const QString& line : run.output.split('\n', Qt::SkipEmptyParts))
        if (!expected.match(line).hasMatch()) unexpected << line;
    return unexpected.join('\n');
}

}  // namespace

class TestExportersPromtool : public QObject {
    Q_OBJECT

private slots:
    void everyPageOfARunningTwinParses() {
        TwinExporterHarness twin;
        QVERIFY2(twin.start(2,
                            "at 2s xid 79 gpu=r01-n02-g1\n"
                            "at 2s link-flap nic=r01-n01-ib2 count=3\n"
                            "at 2s isolate rack=r02\n"),
                 qPrintable(twin.error()));
        twin.tick(12);  // CPU and NIC values arrive every 10 s, staggered by tray
        int checked = 0, dark = 0;
        for (const auto& host : twin.exporters().trays().hosts()) {
            const bool isolated = host.hostname.rfind("r02-", 0) == 0;
            for (const std::string exporter : {"dcgm", "node"}) {
                const auto [status, body] = twin.get("/" + exporter + "/" + host.hostname + "/metrics");
                if (isolated) {
                    QCOMPARE(status, 503);
                    ++dark;
                    continue;
                }
                QCOMPARE(status, 200);
                const QString problems = promtoolProblems(body);
                QVERIFY2(problems.isEmpty(),
                         qPrintable(QString::fromStdString(host.hostname + " " + exporter + ": ") + problems));
                ++checked;
            }
        }
        QCOMPARE(checked, 36);
        QCOMPARE(dark, 36);

        // The last Xid with dcgm-exporter's code and text (79 is followed by the sympathetic 45).
        const auto xid = std::llround(twin.latest("r01-n02-g1", watchfloor::v1::DCGM_FI_DEV_XID_ERRORS));
        QVERIFY(xid > 0);
        auto [status, page] = twin.get("/dcgm/r01-n02/metrics");
        QCOMPARE(status, 200);
        const std::string xidLine = ",err_code=\"" + std::to_string(xid) + "\",err_msg=\"" +
                                    std::string(xidErrorText(xid)) + "\"} " + std::to_string(xid) + "\n";
        QVERIFY2(page.find(xidLine) != std::string::npos, xidLine.c_str());

        // A GPU whose readings turn blank (as DCGM reports a GPU off the bus) drops out of the page.
        const float blank = std::numeric_limits<float>::quiet_NaN();
        const std::uint32_t gpu = twin.entity("r01-n02-g1");
        twin.inject({{gpu, watchfloor::v1::DCGM_FI_DEV_GPU_TEMP, blank},
                     {gpu, watchfloor::v1::DCGM_FI_DEV_POWER_USAGE, blank},
                     {gpu, watchfloor::v1::DCGM_FI_DEV_GPU_UTIL, blank}});
        std::tie(status, page) = twin.get("/dcgm/r01-n02/metrics");
        QCOMPARE(status, 200);
        QVERIFY(page.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",") == std::string::npos);
        QVERIFY(page.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",") != std::string::npos);
        QVERIFY(promtoolProblems(page).isEmpty());

        // Written as sentinels instead, the page still parses.
        DcgmPageOptions sentinels;
        sentinels.blanks = BlankValues::Sentinel;
        ExporterPages withSentinels(twin.store(), sentinels);
        const ExporterPage sentinelPage = withSentinels.page(Exporter::Dcgm, "r01-n02");
        QCOMPARE(sentinelPage.status, 200);
        QVERIFY(sentinelPage.body.find("} 9223372036854775792\n") != std::string::npos);
        const QString problems = promtoolProblems(sentinelPage.body);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    void scrapeConfigPassesPrometheusAndVictoriaMetricsChecks() {
        TwinExporterHarness twin;
        QVERIFY2(twin.start(1, {}), qPrintable(twin.error()));
        ScrapeConfigOptions options;
        options.exporterAddress = twin.exporters().address();
        options.scrapeInterval = std::chrono::seconds(1);
        for (const auto& host : twin.exporters().trays().hosts()) options.hostnames.push_back(host.hostname);
        std::string error;
        QVERIFY2(writeScrapeConfig(twin.path("scrape").toStdString(), options, &error), error.c_str());
        const QString config = twin.path("scrape/prometheus.yml");

        const ToolRun promtool = runTool("promtool", {"check", "config", config});
        QVERIFY2(promtool.exitCode == 0, qPrintable(promtool.output));
        QVERIFY2(promtool.output.contains("SUCCESS"), qPrintable(promtool.output));

        // VictoriaMetrics refuses unknown fields by default (-promscrape.config.strictParse).
        const ToolRun victoria = runTool(
            "victoria-metrics", {"-promscrape.config=" + config, "-promscrape.config.dryRun", "-loggerLevel=ERROR"});
        QVERIFY2(victoria.exitCode == 0, qPrintable(victoria.output));
    }
};

QTEST_GUILESS_MAIN(TestExportersPromtool)
#include "tst_exporters_promtool.moc"
