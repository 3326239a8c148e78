// fleetd scraping exporters itself (--source scrape), end to end over HTTP on loopback: the
// digital twin's dcgm-exporter and node_exporter pages (held still: the twin only moves when the
// test ticks it) → ScrapeSource → compared with the twin's ground truth (every GPU's fields, on
// the right entity, stamped with the scrape's own time). Then silence, both kinds: a host whose
// exporter does not answer, and every host answering with the same values for longer than
// --scrape-frozen-after. Each is one source event per tray (never one per metric), the tray's
// telemetry state SILENT with the reason, and the source's counts of targets and silent hosts.

#include "ScrapeSource.h"
#include "TwinExporterHarness.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

using namespace watchfloor;
using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kDeadHost = "r02-n05";  // its dcgm-exporter is a closed port

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Everything the source handed to fleetd's tick thread so far: newest value per series, every
// event, newest state per entity, newest source status.
class Collected {
public:
    void take(sources::ScrapeSource& source) {
        FleetChanges changes;
        source.advanceTo(source.now(), changes);
        for (std::size_t i = 0; i < changes.samples.size(); ++i)
            values_[{changes.samples[i].entityIndex, changes.samples[i].metric}] = {changes.samples[i].value,
                                                                                   changes.sampleTimeMs(i)};
        for (auto& e : changes.events) events_.push_back(e);
        for (auto& s : changes.states) states_[s.entity_index()] = s;
        for (auto& s : changes.sources) status_ = s;
    }
    std::optional<std::pair<float, std::int64_t>> value(std::uint32_t entity, v1::Metric metric) const {
        auto it = values_.find({entity, metric});
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    std::vector<v1::Event> events(const std::string& cause) const {
        std::vector<v1::Event> found;
        for (const auto& e : events_)
            if (e.type() == v1::EVENT_TYPE_SOURCE && e.cause() == cause) found.push_back(e);
        return found;
    }
    const v1::EntityState* state(std::uint32_t entity) const {
        auto it = states_.find(entity);
        return it == states_.end() ? nullptr : &it->second;
    }
    const v1::SourceStatus& status() const { return status_; }
    QString describe() const {
        return QString("scrape health %1, targets %2 (up %3, down %4, frozen %5), hosts silent %6, error '%7'")
            .arg(status_.health()).arg(status_.targets()).arg(status_.targets_up()).arg(status_.targets_down())
            .arg(status_.targets_frozen()).arg(status_.hosts_silent()).arg(status_.last_error().c_str());
    }

private:
    std::map<std::pair<std::uint32_t, int>, std::pair<float, std::int64_t>> values_;
    std::vector<v1::Event> events_;
    std::map<std::uint32_t, v1::EntityState> states_;
    v1::SourceStatus status_;
};

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
        std::ofstream(targets.toStdString()) << "# the dead exporter\nhost " << kDeadHost
                                             << " dcgm=http://127.0.0.1:1/metrics\n";
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.targets.targetsFile = targets.toStdString();
        std::vector<std::string> log;
        std::string error;
        auto source = sources::ScrapeSource::create(twin.topology(), options,
                                                    [&](const std::string& line) { log.push_back(line); }, &error);
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
            for (v1::Metric metric : {v1::DCGM_FI_DEV_GPU_TEMP, v1::DCGM_FI_DEV_POWER_USAGE, v1::DCGM_FI_DEV_SM_CLOCK,
                                      v1::DCGM_FI_DEV_MEMORY_TEMP, v1::DCGM_FI_DEV_GPU_UTIL,
                                      v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE}) {
                const auto read = got.value(gpu.index(), metric);
                if (dead) {
                    QVERIFY2(!read, qPrintable(QString("%1 read from a dead exporter").arg(gpu.name().c_str())));
                    continue;
                }
                const double truth = twin.latest(gpu.name(), metric);
                if (std::isnan(truth)) continue;
                QVERIFY2(read, qPrintable(QString("%1 metric %2 never read").arg(gpu.name().c_str()).arg(metric)));
                const bool ratio = metric == v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE || metric == v1::DCGM_FI_DEV_POWER_USAGE;
                const double tolerance = ratio ? 1e-5 * std::max(1.0, std::fabs(truth)) : 1.0;
                QVERIFY2(std::fabs(read->first - truth) <= tolerance,
                         qPrintable(QString("%1 metric %2: scraped %3, twin %4")
                                        .arg(gpu.name().c_str()).arg(metric).arg(read->first).arg(truth)));
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
