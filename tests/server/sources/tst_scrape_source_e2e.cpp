// fleetd scraping exporters itself (--source scrape), end to end over HTTP on loopback: the
// digital twin's dcgm-exporter and node_exporter pages (held still: the twin only moves when the
// test ticks it) → ScrapeSource → compared with the twin's ground truth (every GPU's fields, on
// the right entity, stamped with the scrape's own time). Then silence, both kinds: a host whose
// exporter does not answer, and every host answering with the same values for longer than
// --scrape-frozen-after. Each is one source event per tray (never one per metric), the tray's
// telemetry state SILENT with the reason, and the source's counts of targets and silent hosts. A
// real node_exporter whose values hold still (an idle host) stays live: its page still moves; and
// fleetd's link watch on the scraped IB counters (bits on active rails, none on a down one, a
// one-ended link_downed rise never a confirmed link-down, a rail's reported rate its bits); and the
// NVLink5 lines of the twin's dcgm-exporter pages judged per GPU and per link.

#include "NodeExporterFixture.h"
#include "ScrapeCollected.h"
#include "ScrapeSource.h"
#include "TwinExporterHarness.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <signal.h>

using namespace watchfloor;
using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kDeadHost = "r02-n05";  // its dcgm-exporter is a closed port
constexpr const char* kRealHost = "r02-n07";  // its node_exporter is a real prometheus-node-exporter

// Four rails with counters apart from each other (and from the twin's), rail 2 down, rail 1 at 200 Gb/s.
std::vector<testing::IbPortCounters> railsWith(std::uint64_t linkDowned) {
    std::vector<testing::IbPortCounters> rails;
    for (unsigned k = 0; k < 4; ++k) {
        testing::IbPortCounters p;
        p.device = "mlx5_" + std::to_string(k);
        p.linkDowned = linkDowned + k;
        p.symbolErrors = 300 + 11 * k;
        p.linkErrorRecovery = 20 + k;
        p.rcvErrors = 40 + k;
        p.xmitDiscards = 60 + k;
        p.xmitWait = 5000 + k;
        p.active = k != 2;
        p.rateGbps = k == 1 ? 200 : 400;  // rail 1 trained down to half its rate
        rails.push_back(p);
    }
    return rails;
}

using testing::wallMs;
using Collected = testing::ScrapeCollected;

sources::ScrapeSourceOptions optionsFor(testing::TwinExporterHarness& twin) {
    sources::ScrapeSourceOptions options;
    const std::string base = "http://" + twin.exporters().address();
    options.targets.dcgmUrl = base + "/dcgm/{host}/metrics";
    options.targets.nodeUrl = base + "/node/{host}/metrics";
    options.interval = std::chrono::seconds(1);
    options.http.timeout = std::chrono::seconds(2);
    options.http.connectTimeout = std::chrono::seconds(1);
    // Every host's pages come from one server here (a site has one exporter per host), whose
    // listen backlog drops connects beyond a handful at once: scrape as many at a time as its
    // pool answers.
    options.http.maxConcurrent = 4;
    options.flushEvery = std::chrono::milliseconds(50);
    return options;
}

}  // namespace

class TstScrapeSourceE2e : public QObject {
    Q_OBJECT

private slots:
    void everyValueOnItsEntityAndOneEventPerSilentHost() {
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(2, {}), qPrintable(twin.error()));
        twin.tick(3);

        // One host's dcgm-exporter answers nowhere: a port nothing listens on.
        const QString targets = twin.path("targets");
        std::ofstream(targets.toStdString())
            << "# the dead exporter\nhost " << kDeadHost << " dcgm=http://127.0.0.1:1/metrics\n";
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.targets.targetsFile = targets.toStdString();
        std::vector<std::string> log;
        std::string error;
        auto source = sources::ScrapeSource::create(
            twin.topology(), options, [&](const std::string& line) { log.push_back(line); }, &error);
        QVERIFY2(source, error.c_str());
        QCOMPARE(source->targetCount(), std::size_t(2 * 2 * 18));
        source->start();
        Collected got;

        const std::uint32_t deadTray = twin.entity(kDeadHost);
        auto allRead = [&] {
            got.take(*source);
            const std::int64_t now = wallMs();
            for (const auto& gpu : twin.topology().gpus()) {
                if (gpu.name().rfind(std::string(kDeadHost) + "-", 0) == 0) continue;
                const auto read = got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP);
                if (!read || read->second < now - 5'000) return false;
            }
            return got.status().hosts_silent() == 1 && got.status().targets_up() == 71;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(allRead(), qPrintable(got.describe()), 30'000);

        // 1. Ground truth: every modelled DCGM field of every answering GPU, in proto units,
        // stamped with the scrape's time (the twin holds still, so each read is its latest).
        int compared = 0;
        const std::int64_t now = wallMs();
        for (const auto& gpu : twin.topology().gpus()) {
            const bool dead = gpu.name().rfind(std::string(kDeadHost) + "-", 0) == 0;
            for (v1::Metric metric :
                 {v1::DCGM_FI_DEV_GPU_TEMP, v1::DCGM_FI_DEV_POWER_USAGE, v1::DCGM_FI_DEV_SM_CLOCK,
                  v1::DCGM_FI_DEV_MEMORY_TEMP, v1::DCGM_FI_DEV_GPU_UTIL, v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE}) {
                const auto read = got.value(gpu.index(), metric);
                if (dead) {
                    QVERIFY2(!read, qPrintable(QString("%1 read from a dead exporter").arg(gpu.name().c_str())));
                    continue;
                }
                const double truth = twin.latest(gpu.name(), metric);
                if (std::isnan(truth)) continue;
                QVERIFY2(read, qPrintable(QString("%1 metric %2 never read").arg(gpu.name().c_str()).arg(metric)));
                const bool ratio =
                    metric == v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE || metric == v1::DCGM_FI_DEV_POWER_USAGE;
                const double tolerance = ratio ? 1e-5 * std::max(1.0, std::fabs(truth)) : 1.0;
                QVERIFY2(std::fabs(read->first - truth) <= tolerance,
                         qPrintable(QString("%1 metric %2: scraped %3, twin %4")
                                        .arg(gpu.name().c_str())
                                        .arg(metric)
                                        .arg(read->first)
                                        .arg(truth)));
                QVERIFY2(read->second <= now + 1000 && read->second >= now - 5'000,
                         qPrintable(QString("sample time %1 ms from now").arg(read->second - now)));
                ++compared;
            }
        }
        QVERIFY2(compared >= (2 * 72 - 4) * 5, qPrintable(QString::number(compared)));

        // 2. The dead exporter: its tray SILENT with the reason, one event naming the host, the
        // other trays LIVE, and the counts.
        const v1::EntityState* dead = got.state(deadTray);
        QVERIFY(dead);
        QCOMPARE(dead->telemetry().state(), v1::TELEMETRY_STATE_SILENT);
        QVERIFY2(QString::fromStdString(dead->telemetry().reason()).startsWith("dcgm-exporter: "),
                 dead->telemetry().reason().c_str());
        const auto silent = got.events("source_silent");
        QCOMPARE(silent.size(), std::size_t(1));
        QCOMPARE(silent.front().entity_index(), deadTray);
        QVERIFY2(silent.front().message().find(kDeadHost) != std::string::npos, silent.front().message().c_str());
        const v1::EntityState* live = got.state(twin.entity("r01-n01"));
        QVERIFY(live);
        QCOMPARE(live->telemetry().state(), v1::TELEMETRY_STATE_LIVE);
        QCOMPARE(got.status().targets(), 72u);
        QVERIFY2(got.status().targets_down() == 1 && got.status().targets_up() == 71, qPrintable(got.describe()));
        source->stop();
    }

    void aRealNodeExporterMappedFrozenAndKilled() {
        // One tray's node_exporter is Debian's prometheus-node-exporter reading a fake sysfs tree
        // (InfiniBand ports, hwmon sensors); every other page is the twin's, which moves: the test
        // ticks it at each check. The real exporter's tree holds still: an idle host, still live.
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(2, {}), qPrintable(twin.error()));
        twin.tick(3);
        const testing::HwmonSensor warm{"hwmon0", "coretemp", 1, 48.5}, hot{"hwmon0", "coretemp", 2, 77.75};
        testing::NodeExporterFixture real(railsWith(3), {warm, hot});
        QVERIFY2(real.ok(), qPrintable(real.error()));
        const std::string realUrl = "http://" + real.target().toStdString() + "/metrics";

        const QString targets = twin.path("targets");
        std::ofstream(targets.toStdString()) << "host " << kRealHost << " node=" << realUrl << "\n";
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.targets.targetsFile = targets.toStdString();
        options.frozenAfter = std::chrono::seconds(4);
        std::string error;
        auto source = sources::ScrapeSource::create(twin.topology(), options, {}, &error);
        QVERIFY2(source, error.c_str());
        source->start();
        Collected got;
        LinkHealthOptions linkOptions;
        linkOptions.pollMs = 1'000;  // scraped every second here, not every 15 s
        linkOptions.sweepMs = 1'000;
        got.links = std::make_unique<LinkHealthKeeper>(twin.topology(), linkOptions);
        const std::uint32_t tray = twin.entity(kRealHost);
        auto nic = [&](unsigned k) { return twin.entity(std::string(kRealHost) + "-ib" + std::to_string(k)); };
        auto value = [&](std::uint32_t entity, v1::Metric metric) {
            const auto read = got.value(entity, metric);
            return read ? double(read->first) : std::nan("");
        };

        // 1. Mapped: each rail's counters on that tray's port of the same rail, the hottest
        // sensor on the tray; the neighbours' ports keep the twin's values.
        QTRY_VERIFY2_WITH_TIMEOUT(
            (twin.tick(), got.take(*source),
             value(nic(3), v1::IB_PORT_XMIT_WAIT) == 5003 && value(tray, v1::NODE_HWMON_TEMP_MAX_C) == 77.75),
            qPrintable(got.describe()), 30'000);
        for (unsigned k = 0; k < 4; ++k) {
            QCOMPARE(value(nic(k), v1::IB_LINK_DOWNED_COUNTER), double(3 + k));
            QCOMPARE(value(nic(k), v1::IB_SYMBOL_ERROR_COUNTER), double(300 + 11 * k));
            QCOMPARE(value(nic(k), v1::IB_LINK_ERROR_RECOVERY_COUNTER), double(20 + k));
            QCOMPARE(value(nic(k), v1::IB_PORT_RCV_ERRORS), double(40 + k));
            QCOMPARE(value(nic(k), v1::IB_PORT_XMIT_DISCARDS), double(60 + k));
            QCOMPARE(value(nic(k), v1::IB_PORT_XMIT_WAIT), double(5000 + k));
            QCOMPARE(value(nic(k), v1::IB_PHY_STATE), k == 2 ? 3.0 : 5.0);
            QCOMPARE(value(nic(k), v1::IB_LINK_RATE_GBPS), k == 1 ? 200.0 : 400.0);
        }
        for (const char* neighbour : {"r02-n06", "r02-n08"}) {
            const std::string port = std::string(neighbour) + "-ib0";
            QTRY_VERIFY_WITH_TIMEOUT((got.take(*source), got.value(twin.entity(port), v1::IB_SYMBOL_ERROR_COUNTER)),
                                     10'000);
            // A counter the twin never moved is 0 on its page.
            const double truth = twin.latest(port, v1::IB_SYMBOL_ERROR_COUNTER);
            QCOMPARE(value(twin.entity(port), v1::IB_SYMBOL_ERROR_COUNTER), std::isnan(truth) ? 0.0 : truth);
        }
        const auto* realTarget = got.target(tray, "node_exporter");
        QVERIFY(realTarget);
        QCOMPARE(QString::fromStdString(realTarget->url()), QString::fromStdString(realUrl));

        // 2. Idle: its tree never changes (no traffic, no errors, the same temperatures), yet the
        // exporter is alive and its page moves (node_time_seconds): past --scrape-frozen-after it
        // is still UP and its tray LIVE, without an event.
        const std::uint64_t roundsIdle = source->rounds();
        QTRY_VERIFY_WITH_TIMEOUT((twin.tick(), got.take(*source), source->rounds() >= roundsIdle + 10), 30'000);
        QVERIFY2(got.target(tray, "node_exporter")->health() == v1::TARGET_HEALTH_UP,
                 got.target(tray, "node_exporter")->last_error().c_str());
        QCOMPARE(got.state(tray)->telemetry().state(), v1::TELEMETRY_STATE_LIVE);
        QVERIFY(got.events("source_silent").empty());
        QCOMPARE(got.status().targets_frozen(), 0u);

        // Its counters move: the new values on the same ports.
        real.update(railsWith(10), {warm, hot});
        QVERIFY2(real.ok(), qPrintable(real.error()));
        QTRY_VERIFY2_WITH_TIMEOUT((twin.tick(), got.take(*source), value(nic(0), v1::IB_LINK_DOWNED_COUNTER) == 10),
                                  qPrintable(got.describe()), 30'000);
        QCOMPARE(value(nic(3), v1::IB_LINK_DOWNED_COUNTER), 13.0);

        // fleetd's link watch on the scraped counters: the real exporter's active rails carry bits
        // at their line rate, its down rail none; its link_downed rose at the host end alone (no
        // source has the switch side here), which is a counter event, never a confirmed link-down.
        auto linkOf = [&](unsigned k) {
            for (int i = 0; i < twin.topology().nic_ports_size(); ++i)
                if (twin.topology().nic_ports(i).index() == nic(k)) return std::size_t(i);
            qFatal("no NIC port %u", k);
        };
        const LinkWatch& watch = got.links->watch();
        QTRY_VERIFY_WITH_TIMEOUT(
            (twin.tick(), got.take(*source),
             watch.estimate(linkOf(0), LinkEnd::Host).bits > 0 && watch.estimate(linkOf(3), LinkEnd::Host).bits > 0),
            20'000);
        QCOMPARE(watch.estimate(linkOf(2), LinkEnd::Host).bits, 0.0);
        // The rate each rail reports is the bits it carries: rail 1's 3e15-bit window at 200 Gb/s
        // takes 250 min, rail 0's at 400 Gb/s 125 min.
        QTRY_VERIFY_WITH_TIMEOUT((twin.tick(), got.take(*source), watch.estimate(linkOf(1), LinkEnd::Host).bits > 0),
                                 20'000);
        QCOMPARE(watch.estimate(linkOf(1), LinkEnd::Host).neededSeconds, 15'000.0);
        QCOMPARE(watch.estimate(linkOf(0), LinkEnd::Host).neededSeconds, 7'500.0);
        QCOMPARE(watch.estimate(linkOf(0), LinkEnd::Host).errors, 0.0);  // the counter held still at 300
        QCOMPARE(watch.stats().confirmedDowns, std::uint64_t(0));
        QCOMPARE(watch.stats().negativeRates, std::uint64_t(0));
        QVERIFY(watch.cable(linkOf(0)).oneEndSeen);
        QCOMPARE(got.links->summary().links(), std::uint32_t(twin.topology().nic_ports_size()));

        // 3. Killed: silent before the second full round after the kill has finished (rounds,
        // not milliseconds: a loaded machine stretches the interval, not the count), the values
        // kept.
        const std::uint64_t roundsAtKill = source->rounds();
        const std::int64_t killedMs = wallMs();
        QCOMPARE(::kill(pid_t(real.pid()), SIGKILL), 0);
        auto killedSilent = [&] {
            got.take(*source);
            const auto* t = got.target(tray, "node_exporter");
            return t && t->health() == v1::TARGET_HEALTH_DOWN;
        };
        QTRY_VERIFY_WITH_TIMEOUT((twin.tick(), killedSilent() || source->rounds() >= roundsAtKill + 3), 30'000);
        QVERIFY2(killedSilent(), qPrintable(QString("not silent %1 rounds after the kill: %2")
                                                .arg(source->rounds() - roundsAtKill)
                                                .arg(got.describe())));
        QCOMPARE(got.state(tray)->telemetry().state(), v1::TELEMETRY_STATE_SILENT);
        QCOMPARE(QString::fromStdString(got.target(tray, "node_exporter")->last_error()),
                 QString::fromStdString("connection refused by " + realUrl));
        QCOMPARE(got.events("source_silent").size(), std::size_t(1));
        qInfo("killed exporter silent %lld ms after SIGKILL (interval 1 s)",
              static_cast<long long>(got.state(tray)->telemetry().since_unix_ms() - killedMs));
        QCOMPARE(value(nic(0), v1::IB_LINK_DOWNED_COUNTER), 10.0);  // kept, aging
        source->stop();
    }

    void nvlink5FromTheDcgmPagesJudgedPerGpuAndPerLink() {
        // The twin's dcgm-exporter pages carry the NVLink5 lines a site adds to its CSV (older
        // spellings, link series with nvlink="<i>"); a scripted BER burst of 1e-9 on one link
        // (48,000 CRC errors in one step) moves its GPU's symbol total and its PLR counters.
        const std::string burstLink = "r01-n02-g0-l03";
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(1, QString("at 10m ber link=%1 value=1e-9\n").arg(burstLink.c_str())),
                 qPrintable(twin.error()));
        twin.tick(3);
        std::string error;
        auto source = sources::ScrapeSource::create(twin.topology(), optionsFor(twin), {}, &error);
        QVERIFY2(source, error.c_str());
        source->start();
        Collected got;
        NvlinkHealthOptions nvlinkOptions;
        nvlinkOptions.pollMs = 1'000;  // scraped every second here
        got.nvlinks = std::make_unique<NvlinkHealthKeeper>(twin.topology(), nvlinkOptions);
        auto value = [&](std::uint32_t entity, v1::Metric metric) {
            const auto read = got.value(entity, metric);
            return read ? double(read->first) : std::nan("");
        };
        auto truth = [&](std::uint32_t entity, v1::Metric metric) {  // never sent: 0
            const auto v = twin.store().latest(entity, metric);
            return v && !std::isnan(v->value) ? double(v->value) : 0.0;
        };
        const auto& gpus = twin.topology().gpus();
        const std::uint32_t burstGpu = twin.entity("r01-n02-g0"), link = twin.entity(burstLink);
        // Before the burst the twin moves about as fast as the wall clock (a tick every 0.5 s), so
        // every GPU is read before and after it: the burst must fall between two readings.
        auto lastTick = std::chrono::steady_clock::now();
        auto pace = [&] {
            if (std::chrono::steady_clock::now() - lastTick < std::chrono::milliseconds(500)) return;
            twin.tick();
            lastTick = std::chrono::steady_clock::now();
        };

        // 1. Every GPU's symbol total on the GPU, every link's PLR codewords and state on its link.
        QTRY_VERIFY2_WITH_TIMEOUT(
            (pace(), got.take(*source),
             std::all_of(gpus.begin(), gpus.end(),
                         [&](const v1::Gpu& g) {
                             return !std::isnan(value(g.index(), v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL)) &&
                                    value(g.nvlink_indexes(17), v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL) > 0;
                         })),
            qPrintable(got.describe()), 30'000);
        for (const v1::Gpu& g : gpus) {
            double crc = 0;
            for (const std::uint32_t l : g.nvlink_indexes()) {
                crc += truth(l, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL);
                QCOMPARE(value(l, v1::DCGM_FI_DEV_NVLINK_GET_STATE), 1.0);
            }
            QCOMPARE(value(g.index(), v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL), crc);
        }

        // 2. A quiet GPU: judging, an upper bound over 18 links x 400 Gb/s, never 0.
        auto quietJudged = [&] {
            for (const v1::Gpu& g : gpus) {
                const auto e = got.nvlinks->gpuEstimate(g.index());
                if (e && e->errors == 0 && e->bits > 0 && !std::isnan(value(g.index(), v1::NVLINK5_SYMBOL_BER_UPPER)))
                    return g.index();
            }
            return UINT32_MAX;
        };
        QTRY_VERIFY_WITH_TIMEOUT((pace(), got.take(*source),
                                  quietJudged() != UINT32_MAX && got.nvlinks->gpuEstimate(burstGpu) &&
                                      got.nvlinks->gpuEstimate(burstGpu)->bits > 0),
                                 20'000);
        const std::uint32_t quiet = quietJudged();
        QCOMPARE(value(quiet, v1::NVLINK5_SYMBOL_BER_VERDICT), double(v1::LINK_VERDICT_JUDGING));
        QCOMPARE(value(quiet, v1::NVLINK5_SYMBOL_BER_POINT), 0.0);
        QVERIFY(value(quiet, v1::NVLINK5_SYMBOL_BER_UPPER) > 0);
        QCOMPARE(got.nvlinks->linksUp(quiet), 18U);
        QVERIFY(got.nvlinks->gpuEstimate(quiet)->upperOnly);

        // 3. The burst: its GPU proven over the Error line, its link's PLR ratios above 0, a quiet
        // link of the same GPU at 0, nothing counted backwards.
        twin.tick(600);
        QTRY_VERIFY2_WITH_TIMEOUT(
            (twin.tick(), got.take(*source),
             value(burstGpu, v1::NVLINK5_SYMBOL_BER_VERDICT) == double(v1::LINK_VERDICT_ERROR)),
            qPrintable(QString("verdict %1").arg(value(burstGpu, v1::NVLINK5_SYMBOL_BER_VERDICT))), 30'000);
        QVERIFY(got.nvlinks->gpuEstimate(burstGpu)->errors >= 48'000.0);  // and whatever noise the twin added
        QVERIFY(value(burstGpu, v1::NVLINK5_SYMBOL_BER_LOWER) > 1e-14);
        QTRY_VERIFY_WITH_TIMEOUT((twin.tick(), got.take(*source), value(link, v1::NVLINK5_PLR_CODE_ERROR_RATIO) > 0),
                                 10'000);
        QVERIFY(value(link, v1::NVLINK5_PLR_UNCORRECTABLE_RATIO) > 0);
        QVERIFY(got.nvlinks->plr(link).errors >= 48'000.0);
        QVERIFY(got.nvlinks->plr(link).uncorrectable >= 12'000.0);
        const std::uint32_t neighbour = twin.entity("r01-n02-g0-l04");
        if (truth(neighbour, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL) == 0)
            QCOMPARE(value(neighbour, v1::NVLINK5_PLR_CODE_ERROR_RATIO), 0.0);
        QCOMPARE(got.nvlinks->stats().clears, std::uint64_t(0));
        source->stop();
    }

    void anExporterRepeatingItselfIsSilentToo() {
        // Every exporter answers, but the twin holds still: after --scrape-frozen-after every
        // tray's GPU values are a GPU that stopped reporting while its exporter serves the last
        // reading. One event per tray, never one per GPU or metric.
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(1, {}), qPrintable(twin.error()));
        twin.tick(3);
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.frozenAfter = std::chrono::seconds(3);
        std::string error;
        auto source = sources::ScrapeSource::create(twin.topology(), options, {}, &error);
        QVERIFY2(source, error.c_str());
        source->start();
        Collected got;
        // Both exporters of every tray repeat themselves.
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(*source), got.status().targets_frozen() == 36), qPrintable(got.describe()),
                                  30'000);
        QCOMPARE(got.status().hosts_silent(), 18u);
        const auto silent = got.events("source_silent");
        std::set<std::uint32_t> trays;
        for (const auto& e : silent) trays.insert(e.entity_index());
        QCOMPARE(silent.size(), std::size_t(18));
        QCOMPARE(trays.size(), std::size_t(18));

        // The twin moves again (a simulated second every poll of the check): every tray comes
        // back, once each.
        QTRY_VERIFY2_WITH_TIMEOUT((twin.tick(), got.take(*source), got.status().hosts_silent() == 0),
                                  qPrintable(got.describe()), 30'000);
        QCOMPARE(got.events("source_live").size(), std::size_t(18));
        source->stop();
    }
};

QTEST_MAIN(TstScrapeSourceE2e)
#include "tst_scrape_source_e2e.moc"
