// Two fleetd processes on loopback. The first runs the twin of a three-rack site and serves its
// tray exporters (--serve-exporters) and its CDUs' Redfish tree (--serve-redfish); a scenario
// springs a leak on rack a2. The second reads that site as a real one: GPU telemetry by scraping
// the exporters (--source scrape), cooling from the Redfish service (--source redfish=URL), racks
// mapped by the same fleet file. Its stream carries both, the cooling values equal the twin's
// own stream, its sources list the Redfish service with its state, and the twin's leak arrives as
// a leak event on rack a2's loop naming the reaction the detector's controller takes.

#include "FleetdProcess.h"
#include "RedfishTestFleet.h"
#include "watchfloor/v1/fleet.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>
#include <map>

namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {

// One Subscribe stream: the snapshot, then deltas read until a condition holds; the newest value
// of every series and every event seen on the way.
class Watch {
public:
    explicit Watch(const std::string& target)
        : stub_(v1::TelemetryService::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()))) {
        context_.set_deadline(std::chrono::system_clock::now() + 170s);
        reader_ = stub_->Subscribe(&context_, v1::SubscribeRequest{});
    }
    ~Watch() {
        context_.TryCancel();
        v1::SubscribeResponse drain;
        while (reader_->Read(&drain)) {}
        reader_->Finish();
    }
    bool ready() {
        v1::SubscribeResponse response;
        if (!reader_->Read(&response) || !response.has_snapshot()) return false;
        topology_ = response.snapshot().topology();
        for (const auto& s : response.snapshot().sources()) sources_[s.name()] = s;
        for (const auto& block : response.snapshot().samples()) keep(block);
        return true;
    }
    bool readUntil(std::chrono::milliseconds timeout, const std::function<bool()>& done) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        v1::SubscribeResponse response;
        while (!done()) {
            if (std::chrono::steady_clock::now() > until || !reader_->Read(&response)) return false;
            if (!response.has_delta()) continue;
            serverTimeMs_ = response.delta().server_time_unix_ms();
            for (const auto& block : response.delta().samples()) keep(block);
            for (const auto& e : response.delta().events()) events_.push_back(e);
            for (const auto& s : response.delta().sources()) sources_[s.name()] = s;
        }
        return true;
    }
    std::optional<float> value(std::uint32_t entity, v1::Metric metric) const {
        const auto it = values_.find({entity, int(metric)});
        return it == values_.end() ? std::nullopt : std::optional<float>(it->second);
    }
    std::uint32_t entity(const std::string& name) const {
        for (const auto& loop : topology_.cooling_loops())
            if (loop.name() == name) return loop.index();
        for (const auto& rack : topology_.racks())
            if (rack.name() == name) return rack.index();
        for (const auto& gpu : topology_.gpus())
            if (gpu.name() == name) return gpu.index();
        return UINT32_MAX;
    }
    const std::vector<v1::Event>& events() const { return events_; }
    std::int64_t serverTimeMs() const { return serverTimeMs_; }  // of the newest delta read
    const std::map<std::string, v1::SourceStatus>& sources() const { return sources_; }

private:
    void keep(const v1::SampleBlock& block) {
        for (int i = 0; i < block.entity_indexes_size(); ++i)
            values_[{block.entity_indexes(i), int(block.metric())}] = block.values(i);
    }

    std::unique_ptr<v1::TelemetryService::Stub> stub_;
    grpc::ClientContext context_;
    std::unique_ptr<grpc::ClientReader<v1::SubscribeResponse>> reader_;
    v1::Topology topology_;
    std::map<std::pair<std::uint32_t, int>, float> values_;
    std::vector<v1::Event> events_;
    std::map<std::string, v1::SourceStatus> sources_;
    std::int64_t serverTimeMs_ = 0;
};

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) return {};
    return file.fileName();
}

}  // namespace

class TstFleetdRedfishE2e : public QObject {
    Q_OBJECT

private slots:
    void badCommandLinesAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("problem");
        const QString fleet = QString::fromUtf8(qgetenv("WATCHFLOOR_SOURCE_DIR")) + "/scenarios/redfish.fleet";
        QTest::newRow("not http") << QStringList{"--fleet", fleet, "--source", "redfish=ftp://bms"}
                                  << "--source redfish=URL: expected http(s)://HOST[:PORT]";
        QTest::newRow("a path") << QStringList{"--fleet", fleet, "--source", "redfish=http://bms/cdu/1"}
                                << "--source redfish=URL: expected http(s)://HOST[:PORT]";
        QTest::newRow("twice") << QStringList{"--fleet",  fleet,
                                              "--source", "redfish=http://bms",
                                              "--source", "redfish=http://bms/redfish/v1/"}
                               << "--source redfish=http://bms given twice";
        QTest::newRow("five connections")
            << QStringList{"--fleet", fleet, "--source", "redfish=http://bms", "--redfish-connections", "5"}
            << "--redfish-connections: expected a number from 1 to 4";
        QTest::newRow("no source") << QStringList{"--redfish-interval", "2s"} << "--redfish-interval needs";
        QTest::newRow("no fleet file") << QStringList{"--source", "redfish=http://bms"} << "needs --fleet FILE";
        QTest::newRow("timeout above interval")
            << QStringList{"--fleet",           fleet, "--source", "redfish=http://bms", "--redfish-interval", "2s",
                           "--redfish-timeout", "3s"}
            << "--redfish-timeout must not exceed --redfish-interval";
        QTest::newRow("store flag, no store")
            << QStringList{"--fleet", fleet, "--source", "redfish=http://bms", "--poll", "5s"}
            << "--poll needs --source prometheus=URL";
        QTest::newRow("serve, bad address")
            << QStringList{"--serve-redfish", "nowhere"} << "--serve-redfish: expected HOST:PORT";
        QTest::newRow("serve from a real source")
            << QStringList{"--fleet", fleet, "--source", "redfish=http://bms", "--serve-redfish", "127.0.0.1:0"}
            << "--serve-redfish publishes the running digital twin's cooling";
    }
    void badCommandLinesAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, problem);
        const auto exit = watchfloor::testing::FleetdProcess::run(args);
        QCOMPARE(exit.code, 2);
        QVERIFY2(exit.stdErr.contains(problem), qPrintable(exit.stdErr.left(400)));
    }

    void helpNamesTheFlags() {
        const auto exit = watchfloor::testing::FleetdProcess::run({"--help"});
        QCOMPARE(exit.code, 0);
        for (const char* flag : {"--source redfish=URL", "--redfish-interval D", "--redfish-connections N",
                                 "--redfish-basic-auth", "--serve-redfish HOST:PORT"})
            QVERIFY2(exit.stdOut.contains(flag), flag);
    }

    void aTwinsLeakReachesTheSecondFleetdAsALeakOnItsRack() {
        QTemporaryDir dir;
        const QString fleet = write(dir, "site.fleet", watchfloor::testing::kRedfishFleet);
        // Late enough for the second fleetd to be polling on a loaded machine.
        const QString scenario = write(dir, "leak.scn", "at 40s leak rack=a2\n");
        QVERIFY(!fleet.isEmpty() && !scenario.isEmpty());

        watchfloor::testing::FleetdProcess twin;
        QVERIFY2(twin.start({"--fleet", fleet, "--scenario", scenario, "--serve-exporters", "127.0.0.1:0",
                             "--serve-redfish", "127.0.0.1:0"}),
                 qPrintable(twin.errorString()));
        const auto exporters =
            twin.waitForLog(QRegularExpression("exporters listening on (127\\.0\\.0\\.1:\\d+)"), 30'000);
        const auto redfish =
            twin.waitForLog(QRegularExpression("redfish listening on (127\\.0\\.0\\.1:\\d+) \\| 2 CDUs"), 30'000);
        QVERIFY2(exporters.hasMatch() && redfish.hasMatch(), twin.log().constData());
        const QString exporterBase = "http://" + exporters.captured(1);
        const QString redfishUrl = "http://" + redfish.captured(1);

        watchfloor::testing::FleetdProcess reader;
        QVERIFY2(reader.start({"--fleet", fleet, "--source", "scrape", "--scrape-interval", "1s", "--scrape-dcgm",
                               exporterBase + "/dcgm/{host}/metrics", "--scrape-node",
                               exporterBase + "/node/{host}/metrics", "--scrape-concurrency", "4", "--source",
                               "redfish=" + redfishUrl + "/redfish/v1", "--redfish-interval", "1s"}),
                 qPrintable(reader.errorString()));
        QVERIFY2(reader.log().contains("cooling from 1 Redfish service(s) every 1 s"), reader.log().constData());

        Watch truth(twin.address());
        Watch read(reader.address());
        QVERIFY(truth.ready() && read.ready());
        const std::string sourceName = "redfish=" + redfishUrl.toStdString();
        QVERIFY2(read.sources().count(sourceName), "the Redfish service is not among the reader's sources");

        // GPU telemetry from the scrape and cooling from Redfish, side by side.
        const std::uint32_t gpu = read.entity("a1-n01-g0"), a1 = read.entity("a1-loop"), a2 = read.entity("a2-loop");
        QVERIFY(gpu != UINT32_MAX && a1 != UINT32_MAX && a2 != UINT32_MAX);
        QVERIFY2(read.readUntil(60s,
                                [&] {
                                    const auto s = read.sources().find(sourceName);
                                    return read.value(gpu, v1::DCGM_FI_DEV_GPU_TEMP) &&
                                           read.value(a1, v1::RACK_LIQUID_FLOW_LPM) &&
                                           read.value(a2, v1::CDU_PUMPS_RUNNING) && s != read.sources().end() &&
                                           s->second.health() == v1::SOURCE_HEALTH_UP;
                                }),
                 reader.log().constData());
        QCOMPARE(read.sources().at(sourceName).kind(), std::string("redfish"));
        QCOMPARE(read.sources().at(sourceName).targets_up(), 2u);

        // The values are the twin's: its own stream moves on each second (coolant noise of 0.2 %
        // on flow and 0.05 °C on temperatures), so compare with its newest within that noise.
        const std::int64_t now = wallMs();
        QVERIFY(truth.readUntil(
            30s, [&] { return truth.serverTimeMs() >= now && truth.value(a1, v1::RACK_LIQUID_FLOW_LPM); }));
        for (const auto& [metric, tolerance] :
             std::vector<std::pair<v1::Metric, double>>{{v1::RACK_LIQUID_FLOW_LPM, 0.02},
                                                        {v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, 0.02},
                                                        {v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR, 0.02},
                                                        {v1::RACK_CONTROL_VALVE_POSITION_PCT, 0.02}}) {
            const double mine = *read.value(a1, metric), theirs = *truth.value(a1, metric);
            QVERIFY2(std::abs(mine - theirs) <= tolerance * std::abs(theirs) + 0.2,
                     qPrintable(QString("metric %1: read %2, twin %3").arg(metric).arg(mine).arg(theirs)));
        }

        // The leak: a critical leak event on a2's loop (rack a2), with the reaction policy.
        auto leakOnA2 = [&]() -> const v1::Event* {
            for (const auto& e : read.events())
                if (e.type() == v1::EVENT_TYPE_LEAK && e.entity_index() == a2 && e.severity() == v1::SEVERITY_CRITICAL)
                    return &e;
            return nullptr;
        };
        QVERIFY2(read.readUntil(90s, [&] { return leakOnA2() != nullptr; }), reader.log().constData());
        const v1::Event& leak = *leakOnA2();
        QCOMPARE(leak.related_entity_indexes_size(), 1);
        QCOMPARE(leak.related_entity_indexes(0), read.entity("a2"));
        QVERIFY2(QString::fromStdString(leak.message()).contains("CriticalReactionType ForceOff"),
                 leak.message().c_str());
        for (const auto& e : read.events())
            if (e.type() == v1::EVENT_TYPE_LEAK) QCOMPARE(e.entity_index(), a2);  // no other rack leaks
        QVERIFY2(
            reader.waitForLog(QRegularExpression("a2: leak detector LD-A2-\\d \\(CDU CDU-A\\)"), 30'000).hasMatch(),
            reader.log().constData());
        QCOMPARE(reader.terminate(), 0);
        QCOMPARE(twin.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TstFleetdRedfishE2e)
#include "tst_fleetd_redfish_e2e.moc"
