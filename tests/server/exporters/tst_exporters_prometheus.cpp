// A real Prometheus (/usr/bin/prometheus) scrapes the twin's exporters every second through the
// scrape configuration fleetd writes: every target comes up, and what Prometheus stored equals
// the twin's values (a GPU temperature by Hostname and gpu label, an InfiniBand counter by
// instance, device and port), including after the twin moves on.

#include "FleetdProcess.h"
#include "ScrapeConfig.h"
#include "TwinExporterHarness.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sys/prctl.h>

#include <cmath>
#include <csignal>
#include <optional>

using namespace watchfloor::server;
using namespace watchfloor::server::exporters;
using watchfloor::testing::TwinExporterHarness;
namespace v1 = watchfloor::v1;

namespace {

constexpr int kWaitMs = 30'000;

// One Prometheus for one test, gone with the test however it ends: killed in the destructor,
// and by the kernel (PR_SET_PDEATHSIG) when the test process dies first.
class PrometheusProcess {
public:
    ~PrometheusProcess() {
        if (process_.state() == QProcess::NotRunning) return;
        process_.terminate();
        if (!process_.waitForFinished(10'000)) {
            process_.kill();
            process_.waitForFinished(5'000);
        }
    }

    bool start(const QString& config, const QString& storage, QString* error) {
        for (int attempt = 0; attempt < 3; ++attempt) {  // another process may take the free port first
            port_ = watchfloor::testing::freeLoopbackPort();
            process_.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
            process_.setProcessChannelMode(QProcess::MergedChannels);
            process_.start("prometheus",
                           {"--config.file=" + config, "--storage.tsdb.path=" + storage,
                            "--web.listen-address=127.0.0.1:" + QString::number(port_), "--log.level=warn"});
            if (!process_.waitForStarted(10'000)) return *error = "prometheus: " + process_.errorString(), false;
            QElapsedTimer timer;
            timer.start();
            while (timer.elapsed() < kWaitMs && process_.state() == QProcess::Running) {
                httplib::Client client("127.0.0.1", port_);
                client.set_connection_timeout(1, 0);
                if (auto ready = client.Get("/-/ready"); ready && ready->status == 200) return true;
                process_.waitForFinished(200);
            }
            *error = "prometheus did not become ready: " + QString::fromUtf8(process_.readAll());
            if (process_.state() == QProcess::Running) return false;
        }
        return false;
    }

    // An instant query's result vector; empty on any failure.
    QJsonArray query(const std::string& promql) {
        httplib::Client client("127.0.0.1", port_);
        client.set_connection_timeout(2, 0);
        client.set_read_timeout(5, 0);
        auto response = client.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
        if (!response || response->status != 200) return {};
        const QJsonObject body = QJsonDocument::fromJson(QByteArray::fromStdString(response->body)).object();
        return body.value("data").toObject().value("result").toArray();
    }

    // The single sample's value, once the query returns exactly one series.
    std::optional<double> scalar(const std::string& promql) {
        const QJsonArray result = query(promql);
        if (result.size() != 1) return std::nullopt;
        return result[0].toObject().value("value").toArray().at(1).toString().toDouble();
    }

    // Polls until `promql`'s single value satisfies `done` or the wait runs out; the last value.
    template <typename Done>
    std::optional<double> waitUntil(const std::string& promql, Done done) {
        QElapsedTimer timer;
        timer.start();
        std::optional<double> value;
        while (timer.elapsed() < kWaitMs) {
            value = scalar(promql);
            if (value && done(*value)) break;
            QThread::msleep(200);
        }
        return value;
    }
    std::optional<double> waitFor(const std::string& promql, double expected) {
        return waitUntil(promql, [expected](double value) { return value == expected; });
    }

private:
    QProcess process_;
    int port_ = 0;
};

}  // namespace

class TestExportersPrometheus : public QObject {
    Q_OBJECT

private slots:
    void prometheusScrapesTheTwin() {
        QElapsedTimer total;
        total.start();
        TwinExporterHarness twin;
        QVERIFY2(twin.start(1, "at 2s link-flap nic=r01-n01-ib2 count=3\n"), qPrintable(twin.error()));
        twin.tick(12);

        ScrapeConfigOptions options;
        options.exporterAddress = twin.exporters().address();
        options.scrapeInterval = std::chrono::seconds(1);
        for (const auto& host : twin.exporters().trays().hosts()) options.hostnames.push_back(host.hostname);
        std::string error;
        QVERIFY2(writeScrapeConfig(twin.path("scrape").toStdString(), options, &error), error.c_str());

        PrometheusProcess prometheus;
        QString startError;
        QVERIFY2(prometheus.start(twin.path("scrape/prometheus.yml"), twin.path("tsdb"), &startError),
                 qPrintable(startError));

        // Every tray's two exporters are up: 18 dcgm and 18 node targets.
        QCOMPARE(prometheus.waitFor("count(up == 1)", 36).value_or(-1), 36.0);
        QCOMPARE(prometheus.scalar("count(up)").value_or(-1), 36.0);
        QCOMPARE(prometheus.scalar("count(up{job=\"dcgm\"} == 1)").value_or(-1), 18.0);
        qInfo("all 36 targets up after %lld ms", static_cast<long long>(total.elapsed()));

        // A GPU temperature as the exporter writes it (whole degrees), selected as a dashboard
        // would, with the instance a real site's series carries.
        const std::string gpuTemp = R"(DCGM_FI_DEV_GPU_TEMP{Hostname="r01-n03",gpu="2"})";
        const double twinTemp = std::llround(twin.latest("r01-n03-g2", v1::DCGM_FI_DEV_GPU_TEMP));
        QCOMPARE(prometheus.waitFor(gpuTemp, twinTemp).value_or(-1), twinTemp);
        const QJsonArray series = prometheus.query(gpuTemp);
        QCOMPARE(series.size(), 1);
        const QJsonObject labels = series[0].toObject().value("metric").toObject();
        QCOMPARE(labels.value("instance").toString(), QString("r01-n03:9400"));
        QCOMPARE(labels.value("job").toString(), QString("dcgm"));
        QCOMPARE(labels.value("modelName").toString(), QString::fromStdString(twin.topology().gpus(0).model_name()));

        // An InfiniBand counter of the flapped port.
        const std::string downed =
            R"(node_infiniband_link_downed_total{instance="r01-n01:9100",device="mlx5_2",port="1"})";
        const double twinDowned = twin.latest("r01-n01-ib2", v1::IB_LINK_DOWNED_COUNTER);
        QVERIFY2(twinDowned > 0, "the link flap should have counted link-downed events");
        QCOMPARE(prometheus.waitFor(downed, twinDowned).value_or(-1), twinDowned);
        const std::string symbols =
            R"(node_infiniband_symbol_error_total{instance="r01-n01:9100",device="mlx5_2",port="1"})";
        const double twinSymbols = twin.latest("r01-n01-ib2", v1::IB_SYMBOL_ERROR_COUNTER);
        QCOMPARE(prometheus.waitFor(symbols, std::isnan(twinSymbols) ? 0.0 : twinSymbols).value_or(-1),
                 std::isnan(twinSymbols) ? 0.0 : twinSymbols);

        // The twin moves on until the exporter's whole-degree reading changes; Prometheus follows
        // within a few scrapes.
        double next = twinTemp;
        for (int i = 0; i < 60 && next == twinTemp; ++i) {
            twin.tick();
            next = std::llround(twin.latest("r01-n03-g2", v1::DCGM_FI_DEV_GPU_TEMP));
        }
        QCOMPARE(prometheus.waitFor(gpuTemp, next).value_or(-1), next);
        // The integrated octet counter grew with the simulated seconds that passed.
        const std::string octets =
            R"(node_infiniband_port_data_transmitted_bytes_total{instance="r01-n01:9100",device="mlx5_0"})";
        QVERIFY(prometheus.waitUntil(octets, [](double value) { return value > 0; }).value_or(0) > 0);
        qInfo("done after %lld ms", static_cast<long long>(total.elapsed()));
    }

    // The same through fleetd's own flags: the announced address serves pages, the files exist.
    void fleetdServesExportersFromItsFlags() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        watchfloor::testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--racks", "1", "--serve-exporters", "127.0.0.1:0", "--exporters-config",
                               dir.filePath("scrape"), "--exporters-scrape-interval", "1s"}),
                 qPrintable(fleetd.errorString()));
        const auto announced = fleetd.waitForLog(QRegularExpression(R"(exporters listening on (\S+):(\d+))"), 30'000);
        QVERIFY2(announced.hasMatch(), fleetd.log().constData());
        httplib::Client client(announced.captured(1).toStdString(), announced.captured(2).toInt());
        client.set_read_timeout(10, 0);
        auto page = client.Get("/dcgm/r01-n01/metrics");
        QVERIFY(page);
        QCOMPARE(page->status, 200);
        QVERIFY(page->body.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",") != std::string::npos);
        QFile yml(dir.filePath("scrape/prometheus.yml"));
        QVERIFY(yml.open(QIODevice::ReadOnly));
        QVERIFY(yml.readAll().contains("scrape_interval: 1s"));
        QVERIFY(QFile::exists(dir.filePath("scrape/dcgm-targets.json")));
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestExportersPrometheus)
#include "tst_exporters_prometheus.moc"
