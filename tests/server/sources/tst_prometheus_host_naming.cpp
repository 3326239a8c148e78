// Sites name their hosts in telemetry by IP address or fully qualified name far more often than
// by the short name of their inventory. Through a REAL Prometheus on loopback, three racks of the
// twin's exporters, each scraped the way a site does it, read by fleetd's PrometheusSource with the
// site's fleet file:
//   r01 by IP address: node_exporter targets 127.0.0.11..28 (forwarders on those loopback
//       addresses), so `instance` is "127.0.0.13:PORT"; the fleet file's addresses= column;
//   r02 by FQDN: targets "b01.cluster.example:9100" (relabelled to reach the exporter server,
//       `instance` kept), the fleet file's short host names and domains=cluster.example;
//   r03 the other way: the fleet file lists FQDNs, the exporters (dcgm-exporter's Hostname too)
//       say the short name;
// and a real node_exporter labelled "b01.other.example:9100": another site's b01, which must not
// land on this fleet's b01 but be reported as an unknown host. Every tray's InfiniBand and hwmon
// values, every GPU's temperature, and GetHistory's store queries for each kind of name.

#include "LoopbackHosts.h"
#include "LoopbackStore.h"
#include "NodeExporterFixture.h"
#include "PrometheusSource.h"
#include "QuickStorePoll.h"
#include "ScrapeCollected.h"
#include "ScrapeConfig.h"
#include "StoreHistory.h"
#include "TwinExporterHarness.h"

#include "SiteFleet.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>

using namespace watchfloor;
using namespace watchfloor::server;
using testing::wallMs;
namespace v1 = watchfloor::v1;

namespace {

// The twin's fleet: the exporters' own names (dcgm-exporter's Hostname label is the host name).
constexpr const char* kTwinFleet =
    "fleet naming\nregion east\nrack r01 hosts=a[01-18]\nrack r02 hosts=b[01-18]\nrack r03 hosts=c[01-18]\n";
// The site's fleet file as fleetd reads it: the same trays, named as the site names them.
constexpr const char* kSiteFleet =
    "fleet naming\nregion east\ninventory domains=cluster.example\n"
    "rack r01 hosts=a[01-18] addresses=127.0.0.[11-28]\n"
    "rack r02 hosts=b[01-18]\n"
    "rack r03 hosts=c[01-18].cluster.example\n";

std::string twoDigits(unsigned n) { return (n < 10 ? "0" : "") + std::to_string(n); }

struct Reading {
    float value;
    std::int64_t timeMs;
};

class Collected {
public:
    void take(sources::PrometheusSource& source) {
        FleetChanges changes;
        source.advanceTo(source.now(), changes);
        for (std::size_t i = 0; i < changes.samples.size(); ++i)
            values_[{changes.samples[i].entityIndex, changes.samples[i].metric}] = {changes.samples[i].value,
                                                                                    changes.sampleTimeMs(i)};
        for (auto& e : changes.events) events_.push_back(e);
        for (auto& s : changes.sources) status_ = s;
    }
    std::optional<Reading> value(std::uint32_t entity, v1::Metric metric) const {
        auto it = values_.find({entity, metric});
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    std::vector<std::string> unknownHosts() const {
        std::vector<std::string> messages;
        for (const auto& e : events_)
            if (e.cause() == "unknown_host") messages.push_back(e.message());
        return messages;
    }
    QString describe() const {
        QString text = QString("store health %1, %2 series, %3 unmapped, error '%4'")
                           .arg(status_.health())
                           .arg(status_.series())
                           .arg(status_.unmapped_series())
                           .arg(status_.last_error().c_str());
        for (const auto& m : unknownHosts()) text += "; " + QString::fromStdString(m);
        return text;
    }

private:
    std::map<std::pair<std::uint32_t, int>, Reading> values_;
    std::vector<v1::Event> events_;
    v1::SourceStatus status_;
};

std::vector<testing::IbPortCounters> strangerPorts() {
    std::vector<testing::IbPortCounters> ports;
    for (unsigned k = 0; k < 4; ++k) {
        testing::IbPortCounters p;
        p.device = "mlx5_" + std::to_string(k);
        p.linkDowned = 900 + k;  // nothing like the twin's
        ports.push_back(p);
    }
    return ports;
}

}  // namespace

class TstPrometheusHostNaming : public QObject {
    Q_OBJECT

private slots:
    void ipFqdnAndShortNamesThroughPrometheus() {
        if (!test::LoopbackStore::installed(test::StoreKind::Prometheus))
            QFAIL("prometheus is not installed (scripts/deps installs it)");
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(3, {}, {}, kTwinFleet), qPrintable(twin.error()));
        twin.tick(12);  // every tray has reported its CPUs (every 10 s); then it holds still

        // The site's fleet file, read as fleetd reads it: the same entities, other names.
        QTemporaryDir dir;
        const testing::SiteFleet site(kSiteFleet);
        const v1::Topology& topology = site.topology();
        QCOMPARE(topology.nodes_size(), twin.topology().nodes_size());

        const testing::LoopbackHosts r01(std::uint16_t(twin.exporters().port()), 11, 18);
        QVERIFY2(r01.ok(), r01.error().c_str());
        testing::NodeExporterFixture stranger(strangerPorts(), {});
        QVERIFY2(stranger.ok(), qPrintable(stranger.error()));

        // dcgm-exporter of every tray as the twin's scrape config has it (Hostname = a01.., c01..);
        // node_exporter of each rack as its site scrapes it.
        exporters::ScrapeConfigOptions scrape;
        scrape.exporterAddress = twin.exporters().address();
        scrape.scrapeInterval = std::chrono::seconds(1);
        for (const auto& node : twin.topology().nodes()) scrape.hostnames.push_back(node.hostname());
        std::string error;
        QVERIFY2(exporters::writeScrapeConfig(dir.path().toStdString(), scrape, &error), error.c_str());
        exporters::ScrapeConfigOptions shortNames = scrape;
        shortNames.hostnames.clear();
        for (unsigned n = 1; n <= 18; ++n) shortNames.hostnames.push_back("c" + twoDigits(n));
        std::ofstream(dir.filePath(exporters::kNodeTargetsFile).toStdString())
            << exporters::renderTargets(shortNames, "/node/", 9100);  // r03: instance c01:9100
        std::string config = exporters::renderPrometheusConfig(dir.path().toStdString(), scrape);
        config += "  - job_name: node-by-ip\n    static_configs:\n";
        for (unsigned n = 1; n <= 18; ++n)
            config += "      - targets: ['" + r01.ip(n - 1) + ":" + std::to_string(r01.port()) +
                      "']\n        labels: {__metrics_path__: '/node/a" + twoDigits(n) + "/metrics'}\n";
        // Targets named by FQDN; the exporter server is reached by relabelling __address__, the
        // instance label keeps the name (Prometheus's multi-target exporter pattern).
        config += "  - job_name: node-by-fqdn\n    static_configs:\n";
        for (unsigned n = 1; n <= 18; ++n)
            config += "      - targets: ['b" + twoDigits(n) +
                      ".cluster.example:9100']\n        labels: {__metrics_path__: '/node/b" + twoDigits(n) +
                      "/metrics'}\n";
        config +=
            "    relabel_configs:\n      - source_labels: [__address__]\n        target_label: instance\n"
            "      - target_label: __address__\n        replacement: '" +
            twin.exporters().address() + "'\n";
        config += "  - job_name: node-elsewhere\n    static_configs:\n      - targets: ['" +
                  stranger.target().toStdString() + "']\n        labels: {instance: 'b01.other.example:9100'}\n";
        test::LoopbackStore::Options storeOptions;
        storeOptions.config = config;
        auto store = test::LoopbackStore::start(storeOptions, error);
        QVERIFY2(store, error.c_str());

        sources::PrometheusSource source(topology, watchfloor::testing::quickStorePoll(store->url()), {});
        source.start();
        Collected got;

        // Every tray's node_exporter values and every GPU's temperature arrive on their entities.
        auto everyTrayRead = [&] {
            got.take(source);
            for (const auto& gpu : topology.gpus())
                if (!got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP)) return false;
            for (const auto& node : topology.nodes())
                if (!got.value(node.index(), v1::NODE_HWMON_TEMP_MAX_C)) return false;
            for (const auto& port : topology.nic_ports())
                if (!got.value(port.index(), v1::IB_LINK_DOWNED_COUNTER)) return false;
            return true;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(everyTrayRead(), qPrintable(got.describe()), 60'000);

        // The values are each tray's own: the twin's, not a neighbour's or the stranger's.
        for (const auto& node : topology.nodes()) {
            double hottest = std::nan("");
            for (const auto& cpu : twin.topology().cpus())
                if (cpu.node_index() == node.index()) {
                    const double t = twin.latest(cpu.name(), v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS);
                    if (!std::isnan(t) && !(t <= hottest)) hottest = t;
                }
            const float read = got.value(node.index(), v1::NODE_HWMON_TEMP_MAX_C)->value;
            QVERIFY2(std::fabs(read - hottest) < 0.01,
                     qPrintable(QString("%1: hwmon %2, twin %3").arg(node.name().c_str()).arg(read).arg(hottest)));
        }
        for (const auto& port : topology.nic_ports()) {
            const double truth = twin.latest(port.name(), v1::IB_LINK_DOWNED_COUNTER);
            const float read = got.value(port.index(), v1::IB_LINK_DOWNED_COUNTER)->value;
            QVERIFY2(read == float(std::isnan(truth) ? 0.0 : truth),
                     qPrintable(QString("%1: link downed %2, twin %3").arg(port.name().c_str()).arg(read).arg(truth)));
        }
        // The other site's b01 is reported once by its name, and is the only unknown host.
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), got.unknownHosts().size() == 1), qPrintable(got.describe()),
                                  10'000);
        QVERIFY2(got.unknownHosts().front().find("'b01.other.example'") != std::string::npos,
                 got.unknownHosts().front().c_str());

        // GetHistory asks the store by every name a tray has: its IP, its FQDN, its short name.
        sources::StoreHistory history(topology, watchfloor::testing::quickStorePoll(store->url()).stores,
                                      std::chrono::seconds(1));
        auto entity = [&](const std::string& name) { return site.entity(name); };
        for (const std::string tray : {"r01-n03", "r02-n03", "r03-n03"}) {
            const auto answer =
                history.query(entity(tray), v1::NODE_HWMON_TEMP_MAX_C, wallMs() - 60'000, wallMs(), 2'000);
            QVERIFY2(answer.error.empty(), answer.error.c_str());
            QVERIFY2(answer.result && !answer.result->points.empty(), tray.c_str());
            QCOMPARE(answer.result->points.back().last, got.value(entity(tray), v1::NODE_HWMON_TEMP_MAX_C)->value);
        }
        for (const std::string gpu : {"r01-n03-g1", "r03-n03-g1"}) {
            const auto answer =
                history.query(entity(gpu), v1::DCGM_FI_DEV_GPU_TEMP, wallMs() - 60'000, wallMs(), 2'000);
            QVERIFY2(answer.error.empty() && answer.result && !answer.result->points.empty(), gpu.c_str());
            QCOMPARE(answer.result->points.back().last, got.value(entity(gpu), v1::DCGM_FI_DEV_GPU_TEMP)->value);
        }
        source.stop();
    }
};

QTEST_GUILESS_MAIN(TstPrometheusHostNaming)
#include "tst_prometheus_host_naming.moc"
