// The production pipeline end to end, against REAL stores on loopback: the digital twin's
// exporters (held still: the twin only moves when the test ticks it) and a real
// prometheus-node-exporter → a real Prometheus / VictoriaMetrics scraping them every second →
// fleetd's PrometheusSource polling the store → compared with the twin's ground truth: every value
// on the right entity in the right unit, sample times from the scrape (not the poll), every value
// arriving as the newest sample the store has (VictoriaMetrics as Debian runs it, with its 30 s
// latency offset, too) and the store's delivery lag learned from them, Xids as
// events with the fleet's catalogue, history answered by query_range, a host the inventory does
// not list reported once, a store that dies shown DOWN with its values kept; and fleetd's link
// watch on the IB counters the store serves (bits on active ports at the rate each reports, none
// on a down one, symbol errors the real exporter's counter gained counted on its link), and its
// NVLink5 watch on the twin's dcgm-exporter NVLink5 lines (a quiet GPU an upper bound, a burst
// proven Error, PLR ratios on the link).

#include "ExporterFields.h"
#include "LinkHealthKeeper.h"
#include "LoopbackStore.h"
#include "NodeExporterFixture.h"
#include "NvlinkHealthKeeper.h"
#include "PrometheusSource.h"
#include "QuickStorePoll.h"
#include "ScrapeConfig.h"
#include "StoreHistory.h"
#include "TwinExporterHarness.h"
#include "XidCatalog.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace watchfloor;
using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kRealHost = "r02-n05";  // its node_exporter page comes from the real exporter
constexpr const char* kXidGpu = "r01-n03-g1";
constexpr const char* kBurstLink = "r01-n02-g0-l03";  // a scripted NVLink BER burst, 10 min in

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

struct Reading {
    float value;
    std::int64_t timeMs;
};

// Everything the source handed to fleetd's tick thread so far, newest per series.
class Collected {
public:
    void take(sources::PrometheusSource& source) {
        FleetChanges changes;
        source.advanceTo(source.now(), changes);
        if (links) links->observe(changes);
        if (nvlinks) nvlinks->observe(changes);  // its verdicts are samples too, recorded below
        const std::int64_t now = wallMs();
        for (std::size_t i = 0; i < changes.samples.size(); ++i) {
            values_[{changes.samples[i].entityIndex, changes.samples[i].metric}] = {changes.samples[i].value,
                                                                                    changes.sampleTimeMs(i)};
            if (watching_ && changes.samples[i].metric == watched_) {
                ++arrivals_;
                worstArrivalAgeMs_ = std::max(worstArrivalAgeMs_, now - changes.sampleTimeMs(i));
            }
        }
        for (auto& e : changes.events) events_.push_back(e);
        for (auto& s : changes.sources) status_ = s;
        if (changes.hasFleet) fleet_ = changes.fleet;
    }
    const v1::FleetGoodput& fleet() const { return fleet_; }
    std::unique_ptr<LinkHealthKeeper> links;      // fleetd's link watch, fed what fleetd's tick thread gets
    std::unique_ptr<NvlinkHealthKeeper> nvlinks;  // and its NVLink5 watch
    std::optional<Reading> value(std::uint32_t entity, v1::Metric metric) const {
        auto it = values_.find({entity, metric});
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    // From now on, how old each arriving value of `metric` is when the source hands it over.
    void watchArrivals(v1::Metric metric) {
        watching_ = true;
        watched_ = metric;
        arrivals_ = 0;
        worstArrivalAgeMs_ = 0;
    }
    std::size_t arrivals() const { return arrivals_; }
    std::int64_t worstArrivalAgeMs() const { return worstArrivalAgeMs_; }
    const std::vector<v1::Event>& events() const { return events_; }
    const v1::SourceStatus& status() const { return status_; }
    QString describe() const {
        QString text = QString("store health %1, %2 series, error '%3'")
                           .arg(status_.health())
                           .arg(status_.series())
                           .arg(status_.last_error().c_str());
        for (const auto& w : status_.warnings()) text += "; " + QString::fromStdString(w);
        return text;
    }

private:
    std::map<std::pair<std::uint32_t, int>, Reading> values_;
    std::vector<v1::Event> events_;
    v1::SourceStatus status_;
    v1::FleetGoodput fleet_;
    bool watching_ = false;
    v1::Metric watched_ = v1::METRIC_UNSPECIFIED;
    std::size_t arrivals_ = 0;
    std::int64_t worstArrivalAgeMs_ = 0;
};

std::vector<testing::IbPortCounters> realPorts(std::uint64_t linkDowned) {
    std::vector<testing::IbPortCounters> ports;
    for (unsigned k = 0; k < 4; ++k) {
        testing::IbPortCounters p;
        p.device = "mlx5_" + std::to_string(k);
        p.linkDowned = linkDowned + k;
        p.symbolErrors = 100 * k + 7;
        p.xmitWait = 1000 + k;
        p.active = k != 2;                // rail 2 is down
        p.rateGbps = k == 1 ? 200 : 400;  // rail 1 trained down to half its rate
        ports.push_back(p);
    }
    return ports;
}

}  // namespace

class TstPrometheusSourceE2e : public QObject {
    Q_OBJECT

private slots:
    // One function per store, so each has QtTest's whole per-function watchdog.
    void throughPrometheus() { endToEnd(test::StoreKind::Prometheus); }
    void throughVictoriaMetrics() { endToEnd(test::StoreKind::VictoriaMetrics); }

private:
    void endToEnd(test::StoreKind storeKind) {
        if (!test::LoopbackStore::installed(storeKind))
            QFAIL(qPrintable(
                QString("%1 is not installed (scripts/deps installs it)").arg(test::LoopbackStore::name(storeKind))));

        // The twin, 2 racks, an Xid scripted 5 simulated seconds in.
        testing::TwinExporterHarness twin;
        // Xid 31 has no sympathetic Xid after it (79 is followed by 45 in the same second, and the
        // last-Xid gauge would show only the 45).
        QVERIFY2(
            twin.start(2, QString("at 5s xid 31 gpu=%1\nat 10m ber link=%2 value=1e-9\n").arg(kXidGpu, kBurstLink)),
            qPrintable(twin.error()));
        twin.tick(2);

        // One tray's node_exporter is the real one (fake sysfs); a second real one claims a host
        // the inventory does not list.
        testing::HwmonSensor warm{"hwmon0", "coretemp", 1, 52.5}, hot{"hwmon0", "coretemp", 2, 71.25};
        testing::NodeExporterFixture realNode(realPorts(3), {warm, hot});
        QVERIFY2(realNode.ok(), qPrintable(realNode.error()));
        testing::NodeExporterFixture stranger(realPorts(0), {});
        QVERIFY2(stranger.ok(), qPrintable(stranger.error()));

        // Scrape config: the twin's pages for every tray (minus the real one's node page), and
        // the two real exporters with the instance labels a site's would have.
        QTemporaryDir dir;
        exporters::ScrapeConfigOptions scrape;
        scrape.exporterAddress = twin.exporters().address();
        scrape.scrapeInterval = std::chrono::seconds(1);
        std::vector<std::string> nodeHosts;
        for (const auto& node : twin.topology().nodes()) {
            scrape.hostnames.push_back(node.hostname());
            if (node.hostname() != kRealHost) nodeHosts.push_back(node.hostname());
        }
        std::string error;
        QVERIFY2(exporters::writeScrapeConfig(dir.path().toStdString(), scrape, &error), error.c_str());
        exporters::ScrapeConfigOptions nodeOnly = scrape;
        nodeOnly.hostnames = nodeHosts;
        std::ofstream(dir.filePath(exporters::kNodeTargetsFile).toStdString())
            << exporters::renderTargets(nodeOnly, "/node/", 9100);
        std::string config = exporters::renderPrometheusConfig(dir.path().toStdString(), scrape);
        for (auto [job, target, instance] :
             {std::tuple{"node-real", realNode.target(), std::string(kRealHost) + ":9100"},
              std::tuple{"node-stranger", stranger.target(), std::string("stranger:9100")}})
            config += std::string("  - job_name: ") + job + "\n    static_configs:\n      - targets: ['" +
                      target.toStdString() + "']\n        labels:\n          instance: '" + instance + "'\n";
        test::LoopbackStore::Options storeOptions;
        storeOptions.kind = storeKind;
        storeOptions.config = config;
        auto store = test::LoopbackStore::start(storeOptions, error);
        QVERIFY2(store, error.c_str());

        sources::PrometheusSource source(twin.topology(), watchfloor::testing::quickStorePoll(store->url()), {});
        source.start();
        Collected got;
        LinkHealthOptions linkOptions;
        linkOptions.pollMs = 1'000;  // the store is polled every second here, not every 15 s
        linkOptions.sweepMs = 1'000;
        got.links = std::make_unique<LinkHealthKeeper>(twin.topology(), linkOptions);
        NvlinkHealthOptions nvlinkOptions;
        nvlinkOptions.pollMs = 1'000;
        got.nvlinks = std::make_unique<NvlinkHealthKeeper>(twin.topology(), nvlinkOptions);

        // Every GPU's temperature arrives, and the IB counters of the real exporter's host.
        const std::uint32_t lastGpu = twin.entity("r02-n18-g3");
        const std::uint32_t realNic0 = twin.entity(std::string(kRealHost) + "-ib0");
        // Every GPU read once. A store that answers from the past (VictoriaMetrics evaluates an
        // instant query -search.latencyOffset, 30 s, before now unless asked with nocache=1) shows
        // nothing here until it has run that long.
        QElapsedTimer waited;
        waited.start();
        auto allRead = [&] {
            got.take(source);
            for (const auto& gpu : twin.topology().gpus())
                if (!got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP)) return false;
            return got.value(realNic0, v1::IB_LINK_DOWNED_COUNTER).has_value();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(allRead(), qPrintable(got.describe()), 120'000);
        qInfo("every GPU read through %s after %lld ms (%s)", test::LoopbackStore::name(storeKind), waited.elapsed(),
              qPrintable(got.describe()));
        (void)lastGpu;

        // From then on no value arrives stale: through five polls every GPU temperature the source
        // hands over is the store's newest sample, within a few scrape intervals (10 s) of now,
        // not the 31-36 s a 30 s offset makes of it. And the store's delivery lag, learned from
        // those sample times, is published with its status.
        got.watchArrivals(v1::DCGM_FI_DEV_GPU_TEMP);
        const std::uint64_t pollsBefore = source.polls();
        QTRY_VERIFY_WITH_TIMEOUT(
            (got.take(source), source.polls() >= pollsBefore + 5 &&
                                   got.arrivals() >= 5 * std::size_t(twin.topology().gpus_size()) &&
                                   got.status().has_delivery_lag_ms()),
            60'000);
        qInfo("%s: %zu temperatures arrived, the oldest %lld ms old; delivery lag %lld ms",
              test::LoopbackStore::name(storeKind), got.arrivals(), static_cast<long long>(got.worstArrivalAgeMs()),
              static_cast<long long>(got.status().delivery_lag_ms()));
        QVERIFY2(got.worstArrivalAgeMs() <= 10'000,
                 qPrintable(QString("a GPU temperature arrived %1 ms old").arg(got.worstArrivalAgeMs())));
        QVERIFY2(got.status().delivery_lag_ms() >= 0 && got.status().delivery_lag_ms() <= 10'000,
                 qPrintable(QString("delivery lag %1 ms").arg(got.status().delivery_lag_ms())));

        // 1. Ground truth: every modelled DCGM field of every GPU, on its entity, in proto units.
        int compared = 0;
        const std::int64_t now = wallMs();
        for (const auto& gpu : twin.topology().gpus()) {
            for (v1::Metric metric : {v1::DCGM_FI_DEV_GPU_TEMP, v1::DCGM_FI_DEV_POWER_USAGE, v1::DCGM_FI_DEV_SM_CLOCK,
                                      v1::DCGM_FI_DEV_MEMORY_TEMP, v1::DCGM_FI_DEV_GPU_UTIL,
                                      v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL}) {
                const double truth = twin.latest(gpu.name(), metric);
                const auto read = got.value(gpu.index(), metric);
                if (std::isnan(truth)) {
                    QVERIFY2(!read || std::isnan(read->value), qPrintable(QString::fromStdString(gpu.name())));
                    continue;
                }
                QVERIFY2(read, qPrintable(QString("%1 metric %2 never read").arg(gpu.name().c_str()).arg(metric)));
                // dcgm-exporter prints integer fields as whole numbers, ratios and power with decimals.
                const bool ratio =
                    metric == v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE || metric == v1::DCGM_FI_DEV_POWER_USAGE;
                const double tolerance = ratio ? 1e-5 * std::max(1.0, std::fabs(truth))
                                         : metric == v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL ? 1e-3
                                                                                             : 1.0;
                QVERIFY2(std::fabs(read->value - truth) <= tolerance,
                         qPrintable(QString("%1 metric %2: store says %3, twin %4")
                                        .arg(gpu.name().c_str())
                                        .arg(metric)
                                        .arg(read->value)
                                        .arg(truth)));
                // Fresh from the scrape: within a few scrape intervals of now, never in the future.
                QVERIFY2(read->timeMs <= now + 1000 && read->timeMs >= now - 10'000,
                         qPrintable(QString("sample time %1 ms from now").arg(read->timeMs - now)));
                ++compared;
            }
        }
        QVERIFY(compared >= 2 * 72 * 6);
        // The fleet line the consoles' KPIs read: every GPU read, none invented.
        QCOMPARE(got.fleet().gpus_total(), 144u);
        QCOMPARE(got.fleet().gpus_healthy() + got.fleet().gpus_degraded(), 144u);

        // 2. The real node_exporter's IB ports and hwmon, on the right tray's ports.
        for (unsigned k = 0; k < 4; ++k) {
            const std::uint32_t nic = twin.entity(std::string(kRealHost) + "-ib" + std::to_string(k));
            QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.value(nic, v1::IB_SYMBOL_ERROR_COUNTER).has_value()),
                                     10'000);
            QCOMPARE(got.value(nic, v1::IB_LINK_DOWNED_COUNTER)->value, float(3 + k));
            QCOMPARE(got.value(nic, v1::IB_SYMBOL_ERROR_COUNTER)->value, float(100 * k + 7));
            QCOMPARE(got.value(nic, v1::IB_PORT_XMIT_WAIT)->value, float(1000 + k));
            QCOMPARE(got.value(nic, v1::IB_PHY_STATE)->value, k == 2 ? 3.0f : 5.0f);
            QCOMPARE(got.value(nic, v1::IB_LINK_RATE_GBPS)->value, k == 1 ? 200.0f : 400.0f);
        }
        const std::uint32_t realNode0 = twin.entity(kRealHost);
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.value(realNode0, v1::NODE_HWMON_TEMP_MAX_C).has_value()),
                                 10'000);
        QCOMPARE(got.value(realNode0, v1::NODE_HWMON_TEMP_MAX_C)->value, 71.25f);
        // And a twin-served node page elsewhere: its IB link-downed counter as the twin has it.
        const std::string twinNic = "r01-n01-ib1";
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.value(twin.entity(twinNic), v1::IB_PHY_STATE).has_value()),
                                 10'000);
        // Link state is sent on change: never reported means up (5 = LinkUp), as the exporter says.
        const double phyTruth = twin.latest(twinNic, v1::IB_PHY_STATE);
        QCOMPARE(double(got.value(twin.entity(twinNic), v1::IB_PHY_STATE)->value),
                 std::isnan(phyTruth) ? 5.0 : phyTruth);

        // 2b. fleetd's link watch on the same counters: every rail link judged from its host end;
        // the real exporter's active rails carry bits at their line rate, its down rail none; the
        // 40 symbol errors its rail 0 gains are counted on that link, once, and nothing goes back.
        auto linkOf = [&](const std::string& name) {
            for (int i = 0; i < twin.topology().nic_ports_size(); ++i)
                if (twin.topology().nic_ports(i).name() == name) return std::size_t(i);
            qFatal("no NIC port %s", name.c_str());
        };
        const std::size_t rail0 = linkOf(std::string(kRealHost) + "-ib0");
        const std::size_t rail2 = linkOf(std::string(kRealHost) + "-ib2");
        const std::size_t twinRail = linkOf("r01-n01-ib1");
        const LinkWatch& watch = got.links->watch();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), watch.estimate(rail0, LinkEnd::Host).bits > 0 &&
                                                        watch.estimate(twinRail, LinkEnd::Host).bits > 0),
                                 20'000);
        auto ports = realPorts(3);
        ports[0].symbolErrors += 40;
        realNode.update(ports, {warm, hot});
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), watch.estimate(rail0, LinkEnd::Host).errors >= 40), 20'000);
        QCOMPARE(watch.estimate(rail0, LinkEnd::Host).errors, 40.0);
        QCOMPARE(watch.estimate(rail2, LinkEnd::Host).bits, 0.0);
        // Each rail's reported rate is the bits it carries: rail 1 at 200 Gb/s needs 250 min for
        // its 3e15-bit window, rail 0 at 400 Gb/s 125 min; the twin's ports report 400 Gb/s.
        const std::size_t rail1 = linkOf(std::string(kRealHost) + "-ib1");
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), watch.estimate(rail1, LinkEnd::Host).bits > 0), 20'000);
        QCOMPARE(watch.estimate(rail1, LinkEnd::Host).neededSeconds, 15'000.0);
        QCOMPARE(watch.estimate(rail0, LinkEnd::Host).neededSeconds, 7'500.0);
        QCOMPARE(got.value(twin.entity("r01-n01-ib1"), v1::IB_LINK_RATE_GBPS)->value, 400.0f);
        QCOMPARE(watch.stats().negativeRates, std::uint64_t(0));
        QCOMPARE(got.links->summary().links(), std::uint32_t(twin.topology().nic_ports_size()));
        // 40 errors in a few seconds at 400 Gb/s is far over the Error line: listed, at risk.
        QTRY_VERIFY_WITH_TIMEOUT(
            (got.take(source), got.links->listed().count(twin.topology().nic_ports(int(rail0)).index()) == 1), 10'000);
        QCOMPARE(got.links->listed().at(twin.topology().nic_ports(int(rail0)).index()).verdict(),
                 v1::LINK_VERDICT_ERROR);

        // 3. The stranger's series: one source event naming the host, once.
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), std::count_if(got.events().begin(), got.events().end(),
                                                                  [](const v1::Event& e) {
                                                                      return e.type() == v1::EVENT_TYPE_SOURCE &&
                                                                             e.message().find("'stranger'") !=
                                                                                 std::string::npos;
                                                                  }) == 1),
                                 10'000);
        QVERIFY(got.status().unmapped_series() > 0);

        // 4. History from the store: a GPU's temperature over the last minute, in range.
        // (VictoriaMetrics 1.79 answers a range's newest 30 s with the value from before them: a
        // store younger than that has no points yet, so the question is asked until it has.)
        sources::StoreHistory history(twin.topology(), watchfloor::testing::quickStorePoll(store->url()).stores,
                                      std::chrono::seconds(1));
        const std::string gpuName = "r02-n07-g3";
        sources::StoreHistory::Answer answer;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (answer = history.query(twin.entity(gpuName), v1::DCGM_FI_DEV_GPU_TEMP, wallMs() - 60'000, wallMs(), 5'000),
             answer.error.empty() && answer.result && !answer.result->points.empty()),
            answer.error.c_str(), 60'000);
        QCOMPARE(answer.result->stepMs, std::int64_t(5'000));
        for (const auto& p : answer.result->points) QVERIFY(p.count >= 1 && p.min <= p.last && p.last <= p.max);
        // The same value the source reads live (the exporter prints temperatures as whole degrees).
        QCOMPARE(answer.result->points.back().last, got.value(twin.entity(gpuName), v1::DCGM_FI_DEV_GPU_TEMP)->value);
        sources::StoreHistory::Answer rack;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (rack = history.query(twin.entity("r01"), v1::RACK_GPU_TEMP_MAX_C, wallMs() - 30'000, wallMs(), 5'000),
             rack.error.empty() && rack.result && !rack.result->points.empty()),
            rack.error.c_str(), 30'000);
        QVERIFY(!history.query(twin.entity("r01-n01-ib0"), v1::IB_PORT_RCV_ERRORS, wallMs() - 30'000, wallMs(), 5'000)
                     .result);

        // 5. An Xid on the twin becomes an Xid event on the right GPU with the catalogue's text.
        twin.tick(5);
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), std::any_of(got.events().begin(), got.events().end(),
                                                                [&](const v1::Event& e) {
                                                                    return e.type() == v1::EVENT_TYPE_XID &&
                                                                           e.entity_index() == twin.entity(kXidGpu);
                                                                })),
                                 20'000);
        for (const auto& e : got.events())
            if (e.type() == v1::EVENT_TYPE_XID) {
                QCOMPARE(e.entity_index(), twin.entity(kXidGpu));
                const XidInfo* info = findXid(31);
                QVERIFY(info);
                QCOMPARE(e.xid().xid(), 31u);
                QCOMPARE(QString::fromStdString(e.xid().mnemonic()), QString(info->mnemonic));
                QCOMPARE(e.xid().recommended_action(), info->action);
                QCOMPARE(QString::fromStdString(e.xid().fleet_policy()), QString(info->fleetPolicy));
            }

        // 5b. NVLink5 from the twin's dcgm-exporter lines (the documented CSV's spellings), through
        // the store: every GPU's symbol total as the twin's links sum it, link series on their
        // links, a quiet GPU an upper bound, the 1e-9 burst 10 min in proven Error on its GPU and
        // seen in its link's PLR ratios. The twin moves about as fast as the wall clock until the
        // burst GPU has been read twice, then jumps past the burst.
        auto lastTick = std::chrono::steady_clock::now();
        auto pace = [&] {
            if (std::chrono::steady_clock::now() - lastTick < std::chrono::milliseconds(500)) return;
            twin.tick();
            lastTick = std::chrono::steady_clock::now();
        };
        auto nvlinkValue = [&](std::uint32_t entity, v1::Metric metric) {
            const auto read = got.value(entity, metric);
            return read ? double(read->value) : std::nan("");
        };
        const std::uint32_t burstGpu = twin.entity("r01-n02-g0"), burstLink = twin.entity(kBurstLink);
        const auto& gpus = twin.topology().gpus();
        QTRY_VERIFY_WITH_TIMEOUT(
            (pace(), got.take(source),
             std::all_of(gpus.begin(), gpus.end(),
                         [&](const v1::Gpu& g) {
                             return !std::isnan(nvlinkValue(g.index(), v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL));
                         }) &&
                 got.nvlinks->gpuEstimate(burstGpu) && got.nvlinks->gpuEstimate(burstGpu)->bits > 0 &&
                 nvlinkValue(burstLink, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL) > 0),
            60'000);
        QCOMPARE(nvlinkValue(burstLink, v1::DCGM_FI_DEV_NVLINK_GET_STATE), 1.0);
        QCOMPARE(got.nvlinks->linksUp(burstGpu), 18U);
        const auto quiet = got.nvlinks->gpuEstimate(burstGpu);
        QVERIFY(quiet->upperOnly && quiet->upper > 0);
        QCOMPARE(nvlinkValue(burstGpu, v1::NVLINK5_SYMBOL_BER_VERDICT), double(v1::LINK_VERDICT_JUDGING));
        QVERIFY(nvlinkValue(burstGpu, v1::NVLINK5_SYMBOL_BER_UPPER) > 0);
        QCOMPARE(nvlinkValue(burstGpu, v1::NVLINK5_SYMBOL_BER_POINT), 0.0);
        twin.tick(600);
        QTRY_VERIFY_WITH_TIMEOUT(
            (got.take(source), nvlinkValue(burstGpu, v1::NVLINK5_SYMBOL_BER_VERDICT) == double(v1::LINK_VERDICT_ERROR)),
            30'000);
        QVERIFY(got.nvlinks->gpuEstimate(burstGpu)->errors >= 48'000);
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), nvlinkValue(burstLink, v1::NVLINK5_PLR_CODE_ERROR_RATIO) > 0),
                                 10'000);
        QVERIFY(nvlinkValue(burstLink, v1::NVLINK5_PLR_UNCORRECTABLE_RATIO) > 0);
        // The store's value is the twin's sum over the GPU's links (the same scrape's).
        double crc = 0;
        const auto gpu =
            std::find_if(gpus.begin(), gpus.end(), [&](const v1::Gpu& g) { return g.index() == burstGpu; });
        for (const std::uint32_t l : gpu->nvlink_indexes()) {
            const auto v = twin.store().latest(l, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL);
            crc += v && !std::isnan(v->value) ? v->value : 0.0;
        }
        QCOMPARE(nvlinkValue(burstGpu, v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL), crc);
        QCOMPARE(got.nvlinks->stats().clears, std::uint64_t(0));

        // 6. The store dies: DOWN with the reason, one critical source event; values are kept.
        store.reset();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.status().health() == v1::SOURCE_HEALTH_DOWN), 20'000);
        QVERIFY(!got.status().last_error().empty());
        QVERIFY(got.status().last_good_poll_unix_ms() > 0);
        QVERIFY(std::any_of(got.events().begin(), got.events().end(), [](const v1::Event& e) {
            return e.type() == v1::EVENT_TYPE_SOURCE && e.severity() == v1::SEVERITY_CRITICAL;
        }));
        source.stop();
    }
};

QTEST_GUILESS_MAIN(TstPrometheusSourceE2e)
#include "tst_prometheus_source_e2e.moc"
