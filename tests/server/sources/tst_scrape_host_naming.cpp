// fleetd scraping exporters itself (--source scrape) the way sites address their hosts, and
// judging them alive the way exporters really behave:
//   - targets from the inventory's addresses= column: one rack by IP address (forwarders on
//     127.0.0.31..48, the exporter server's port), one by FQDN (a01.cluster.localhost: names
//     under "localhost" resolve to loopback without DNS, RFC 6761, as libcurl does it); every
//     tray's values on its own entities, every target's URL the address one;
//   - an idle tray (a real prometheus-node-exporter whose InfiniBand counters never move and
//     which has no hwmon sensor) stays LIVE long past --scrape-frozen-after: its page moves
//     (node_time_seconds of the time collector, on by default, and its collectors' durations);
//   - an exporter serving the same old page (a real node_exporter's page, captured once and served
//     unchanged, as a stale cache would) is FROZEN and its tray SILENT, the reason naming how far
//     behind the page's node_time_seconds is.

#include "LoopbackHosts.h"
#include "NodeExporterFixture.h"
#include "ScrapeCollected.h"
#include "ScrapeSource.h"
#include "TwinExporterHarness.h"

#include "SiteFleet.h"

#include <httplib.h>

#include <QtTest>

#include <cmath>
#include <fstream>
#include <thread>

using namespace watchfloor;
using namespace watchfloor::server;
namespace v1 = watchfloor::v1;
using Collected = testing::ScrapeCollected;

namespace {

std::string twoDigits(unsigned n) { return (n < 10 ? "0" : "") + std::to_string(n); }

sources::ScrapeSourceOptions quickOptions() {
    sources::ScrapeSourceOptions options;
    options.interval = std::chrono::seconds(1);
    options.http.timeout = std::chrono::seconds(2);
    options.http.connectTimeout = std::chrono::seconds(1);
    options.http.maxConcurrent = 4;  // one exporter server answers for every host
    options.flushEvery = std::chrono::milliseconds(50);
    return options;
}

// A fixed page, forever, with node_exporter's Content-Type: an exporter (or a cache in front of
// one) that repeats itself.
class StalePage {
public:
    explicit StalePage(std::string page) : page_(std::move(page)) {
        server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
            response.set_content(page_, "text/plain; version=0.0.4; charset=utf-8");
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });  // the socket listens already
    }
    ~StalePage() {
        server_.stop();
        thread_.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

private:
    std::string page_;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

}  // namespace

class TstScrapeHostNaming : public QObject {
    Q_OBJECT

private slots:
    void targetsByIpAddressAndFqdn() {
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(2, {}, {}, "region east\nrack r01 hosts=a[01-18]\nrack r02 hosts=b[01-18]\n"),
                 qPrintable(twin.error()));
        twin.tick(12);  // every tray has reported its CPUs (every 10 s)
        const std::uint16_t port = std::uint16_t(twin.exporters().port());
        const testing::LoopbackHosts r01(port, 31, 18, port);
        QVERIFY2(r01.ok(), r01.error().c_str());
        const testing::SiteFleet site(
            "region east\ninventory domains=cluster.localhost\n"
            "rack r01 hosts=a[01-18] addresses=127.0.0.[31-48]\n"
            "rack r02 hosts=b[01-18] addresses=b[01-18].cluster.localhost\n");

        sources::ScrapeSourceOptions options = quickOptions();
        const std::string base = "http://{address}:" + std::to_string(port);
        options.targets.dcgmUrl = base + "/dcgm/{host}/metrics";
        options.targets.nodeUrl = base + "/node/{host}/metrics";
        std::string error;
        auto source = sources::ScrapeSource::create(site.topology(), options, {}, &error);
        QVERIFY2(source, error.c_str());
        source->start();
        Collected got;
        auto everyTrayRead = [&] {
            twin.tick();
            got.take(*source);
            for (const auto& gpu : site.topology().gpus())
                if (!got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP)) return false;
            for (const auto& node : site.topology().nodes())
                if (!got.value(node.index(), v1::NODE_HWMON_TEMP_MAX_C)) return false;
            for (const auto& nic : site.topology().nic_ports())
                if (!got.value(nic.index(), v1::IB_LINK_DOWNED_COUNTER)) return false;
            return got.status().targets_up() == 72;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(everyTrayRead(), qPrintable(got.describe()), 60'000);

        for (unsigned n = 1; n <= 18; ++n) {
            const std::uint32_t a = twin.entity("r01-n" + twoDigits(n)), b = twin.entity("r02-n" + twoDigits(n));
            QCOMPARE(QString::fromStdString(got.target(a, "node_exporter")->url()),
                     QString("http://127.0.0.%1:%2/node/a%3/metrics").arg(30 + n).arg(port).arg(twoDigits(n).c_str()));
            QCOMPARE(QString::fromStdString(got.target(b, "dcgm-exporter")->url()),
                     QString("http://b%1.cluster.localhost:%2/dcgm/b%1/metrics").arg(twoDigits(n).c_str()).arg(port));
            for (const std::uint32_t tray : {a, b})
                QCOMPARE(got.state(tray)->telemetry().state(), v1::TELEMETRY_STATE_LIVE);
        }
        // Each tray's own values: the twin's, once it has held still for two whole rounds.
        const std::uint64_t still = source->rounds();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(*source), source->rounds() >= still + 2), 30'000);
        for (const auto& cpu : twin.topology().cpus()) {
            if (!cpu.name().ends_with("-c0")) continue;
            const double c0 = twin.latest(cpu.name(), v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS);
            const double c1 =
                twin.latest(cpu.name().substr(0, cpu.name().size() - 1) + "1", v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS);
            const float read = got.value(cpu.node_index(), v1::NODE_HWMON_TEMP_MAX_C)->first;
            QVERIFY2(std::fabs(read - std::max(c0, c1)) < 0.01, cpu.name().c_str());
        }
        source->stop();
    }

    void anIdleHostStaysLiveAndAStalePageFreezes() {
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(1, {}), qPrintable(twin.error()));
        twin.tick(3);
        // An idle tray: no traffic, no errors (its counters never move), no hwmon sensors.
        std::vector<testing::IbPortCounters> idle(4);
        for (unsigned k = 0; k < 4; ++k) idle[k].device = "mlx5_" + std::to_string(k);
        testing::NodeExporterFixture real(idle, {});
        QVERIFY2(real.ok(), qPrintable(real.error()));
        // The page a site's node_exporter serves carries its clock (the time collector is on by default).
        const std::string captured = real.scrape().toStdString();
        QVERIFY2(captured.find("\nnode_time_seconds ") != std::string::npos, captured.c_str());
        // The same page, captured once and served unchanged: a cache in front of a dead exporter.
        const StalePage stale(captured);

        const QString targets = twin.path("targets");
        std::ofstream(targets.toStdString()) << "host r01-n05 node=http://" << real.target().toStdString()
                                             << "/metrics\nhost r01-n06 node=" << stale.url() << "\n";
        sources::ScrapeSourceOptions options = quickOptions();
        const std::string base = "http://" + twin.exporters().address();
        options.targets.dcgmUrl = base + "/dcgm/{host}/metrics";
        options.targets.nodeUrl = base + "/node/{host}/metrics";
        options.targets.targetsFile = targets.toStdString();
        options.frozenAfter = std::chrono::seconds(3);
        std::string error;
        auto source = sources::ScrapeSource::create(twin.topology(), options, {}, &error);
        QVERIFY2(source, error.c_str());
        source->start();
        Collected got;
        const std::uint32_t idleTray = twin.entity("r01-n05"), staleTray = twin.entity("r01-n06");

        // The idle tray: live, three times --scrape-frozen-after and more (the twin moves, ticked).
        const std::uint64_t rounds = source->rounds();
        QTRY_VERIFY_WITH_TIMEOUT((twin.tick(), got.take(*source), source->rounds() >= rounds + 9), 60'000);
        const auto* idleTarget = got.target(idleTray, "node_exporter");
        QVERIFY(idleTarget);
        QVERIFY2(idleTarget->health() == v1::TARGET_HEALTH_UP, idleTarget->last_error().c_str());
        QCOMPARE(got.state(idleTray)->telemetry().state(), v1::TELEMETRY_STATE_LIVE);
        for (const auto& e : got.events("source_silent")) QVERIFY2(e.entity_index() != idleTray, e.message().c_str());
        // The stale page froze after --scrape-frozen-after (3 s): its tray silent, the reason saying how old.
        QTRY_VERIFY2_WITH_TIMEOUT((twin.tick(), got.take(*source),
                                   got.target(staleTray, "node_exporter") &&
                                       got.target(staleTray, "node_exporter")->health() == v1::TARGET_HEALTH_FROZEN),
                                  qPrintable(got.describe()), 30'000);
        const std::string reason = got.state(staleTray)->telemetry().reason();
        QCOMPARE(got.state(staleTray)->telemetry().state(), v1::TELEMETRY_STATE_SILENT);
        QVERIFY2(reason.starts_with("node_exporter: answers, but no value on its page has changed for ") &&
                     reason.find("its node_time_seconds is ") != std::string::npos,
                 reason.c_str());

        QCOMPARE(got.events("source_silent").size(), std::size_t(1));  // the stale page's tray only
        QCOMPARE(got.status().targets_frozen(), 1u);
        // Its values are read: counters at 0 on its ports.
        QCOMPARE(got.value(twin.entity("r01-n05-ib2"), v1::IB_LINK_DOWNED_COUNTER)->first, 0.0f);
        source->stop();
    }
};

QTEST_MAIN(TstScrapeHostNaming)
#include "tst_scrape_host_naming.moc"
