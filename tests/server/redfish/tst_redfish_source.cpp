// fleetd's Redfish cooling source against the twin's Redfish tree over HTTP on loopback (the
// twin holds still: it moves only when the test ticks it). Values: every rack loop's flow, supply
// and return temperature, dP, valve, leak sensors and the CDU's pumps equal the twin's, on the
// loop the fleet file maps, stamped with the request's time, over at most four connections. A
// scripted leak: one leak event per detector that turns Critical, on the right rack, naming the
// controller's reaction; none again while it stays wet. A bad service (down, HTTP 500, garbage,
// an answer over the size cap, a slow answer, not JSON): a clear status and error, the other
// racks still read, the failed rack's values kept (no new sample), nothing crashes, and the
// source comes back UP when the service does.

#include "FleetdProcess.h"
#include "RedfishCoolingSource.h"
#include "TwinRedfishHarness.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <thread>

using namespace watchfloor;
using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// What the source handed to fleetd's tick thread: newest value and time per series, every event,
// every status in order.
class Collected {
public:
    void take(FleetSource& source) {
        FleetChanges changes;
        source.advanceTo(source.now(), changes);
        for (std::size_t i = 0; i < changes.samples.size(); ++i)
            values_[{changes.samples[i].entityIndex, changes.samples[i].metric}] = {changes.samples[i].value,
                                                                                    changes.sampleTimeMs(i)};
        for (auto& e : changes.events) events_.push_back(e);
        for (auto& s : changes.sources) statuses_.push_back(s);
    }
    std::optional<std::pair<float, std::int64_t>> value(std::uint32_t entity, v1::Metric metric) const {
        auto it = values_.find({entity, int(metric)});
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    std::vector<v1::Event> events(v1::EventType type) const {
        std::vector<v1::Event> found;
        for (const auto& e : events_)
            if (e.type() == type) found.push_back(e);
        return found;
    }
    v1::SourceStatus status() const { return statuses_.empty() ? v1::SourceStatus{} : statuses_.back(); }
    QString describe() const {
        const auto s = status();
        QString text = QString("health %1, CDUs %2 (up %3, down %4), series %5, error '%6'")
                           .arg(s.health())
                           .arg(s.targets())
                           .arg(s.targets_up())
                           .arg(s.targets_down())
                           .arg(s.series())
                           .arg(s.last_error().c_str());
        for (const auto& w : s.warnings()) text += "\n  warning: " + QString::fromStdString(w);
        return text;
    }

private:
    std::map<std::pair<std::uint32_t, int>, std::pair<float, std::int64_t>> values_;
    std::vector<v1::Event> events_;
    std::vector<v1::SourceStatus> statuses_;
};

redfish::RedfishSourceOptions optionsFor(const std::string& url) {
    redfish::RedfishSourceOptions options;
    options.http.url = url;
    options.http.interval = std::chrono::milliseconds(300);
    options.http.timeout = std::chrono::milliseconds(1500);
    options.http.connectTimeout = std::chrono::milliseconds(1000);
    options.http.maxBytes = std::size_t(1) << 20;
    options.firstPollWait = std::chrono::milliseconds(0);
    return options;
}

const char* const kRacks[] = {"a1", "a2", "b1"};

bool endsWith(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

class TstRedfishSource : public QObject {
    Q_OBJECT

private slots:
    void everyLoopReadsTheTwinsValues() {
        testing::TwinRedfishHarness twin;
        QVERIFY2(twin.start(), qPrintable(twin.error()));
        twin.tick(5);
        redfish::RedfishCoolingSource source(twin.topology(), twin.map(), optionsFor(twin.url()), {});
        const std::int64_t started = wallMs();
        source.start();
        Collected got;
        auto allRead = [&] {
            got.take(source);
            for (const char* rack : kRacks)
                if (!got.value(twin.loopOf(rack), v1::CDU_PUMPS_RUNNING)) return false;
            return got.status().health() == v1::SOURCE_HEALTH_UP;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(allRead(), qPrintable(got.describe()), 30'000);
        QCOMPARE(got.status().kind(), std::string("redfish"));
        QCOMPARE(got.status().targets(), 2u);
        QCOMPARE(got.status().targets_up(), 2u);
        QCOMPARE(got.status().series(), std::uint64_t(3 * 8));

        // The tree rounds each reading for its page (flow 0.1 L/min, temperatures 0.01 °C,
        // dP 0.1 kPa = 0.001 bar, valve 0.1 %); nothing else may differ.
        const std::pair<v1::Metric, double> metrics[] = {{v1::RACK_LIQUID_FLOW_LPM, 0.051},
                                                         {v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, 0.0051},
                                                         {v1::RACK_LIQUID_RETURN_TEMPERATURE_C, 0.0051},
                                                         {v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR, 0.00051},
                                                         {v1::RACK_CONTROL_VALVE_POSITION_PCT, 0.051},
                                                         {v1::RACK_LEAK_DETECT, 0},
                                                         {v1::RACK_LEAK_SENSOR_FAULT, 0},
                                                         {v1::CDU_PUMPS_RUNNING, 0}};
        int compared = 0;
        for (const char* rack : kRacks) {
            const std::uint32_t loop = twin.loopOf(rack);
            for (const auto& [metric, tolerance] : metrics) {
                const auto read = got.value(loop, metric);
                QVERIFY2(read, qPrintable(QString("%1 metric %2 not read").arg(rack).arg(metric)));
                const double truth = twin.latest(loop, metric);
                QVERIFY2(std::isfinite(truth),
                         qPrintable(QString("%1 metric %2 not in the twin").arg(rack).arg(metric)));
                QVERIFY2(
                    std::abs(read->first - truth) <= tolerance + 1e-4 * std::abs(truth),
                    qPrintable(
                        QString("%1 metric %2: read %3, twin %4").arg(rack).arg(metric).arg(read->first).arg(truth)));
                // Stamped with the request's own time, not the twin's clock.
                QVERIFY(read->second >= started - 1000 && read->second <= wallMs() + 1000);
                ++compared;
            }
        }
        QCOMPARE(compared, 3 * 8);
        QVERIFY(twin.latest(twin.loopOf("a1"), v1::RACK_LIQUID_FLOW_LPM) > 100);  // a real, flowing loop
        QVERIFY(got.events(v1::EVENT_TYPE_LEAK).empty());
        source.stop();
    }

    void aScriptedLeakIsOneEventPerDetectorOnItsRack() {
        testing::TwinRedfishHarness twin;
        QVERIFY2(twin.start("at 4s leak rack=a2\nat 4s pump-fail rack=b1\n"), qPrintable(twin.error()));
        twin.tick(2);
        redfish::RedfishCoolingSource source(twin.topology(), twin.map(), optionsFor(twin.url()), {});
        source.start();
        Collected got;
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), got.status().health() == v1::SOURCE_HEALTH_UP),
                                  qPrintable(got.describe()), 30'000);
        QVERIFY(got.events(v1::EVENT_TYPE_LEAK).empty());

        twin.tick(4);  // the leak: the rack's sensors wet, the rack isolated
        const double wet = twin.latest(twin.loopOf("a2"), v1::RACK_LEAK_DETECT);
        QVERIFY2(wet >= 1, qPrintable(QString("twin wet sensors %1").arg(wet)));
        const std::uint32_t loop = twin.loopOf("a2"), rack = twin.entity("a2");
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), got.events(v1::EVENT_TYPE_LEAK).size() == std::size_t(wet)),
                                  qPrintable(got.describe()), 30'000);
        for (const auto& e : got.events(v1::EVENT_TYPE_LEAK)) {
            QCOMPARE(e.entity_index(), loop);
            QCOMPARE(e.related_entity_indexes_size(), 1);
            QCOMPARE(e.related_entity_indexes(0), rack);
            QCOMPARE(e.severity(), v1::SEVERITY_CRITICAL);
            QCOMPARE(e.cause(), std::string("leak"));
            const QString message = QString::fromStdString(e.message());
            QVERIFY2(message.startsWith("a2: leak detector LD-A2-") && message.contains("(CDU CDU-A)") &&
                         message.contains("critical leak") && message.contains("force off") &&
                         message.contains("after 0 s") && message.contains("CriticalReactionType ForceOff"),
                     qPrintable(message));
        }
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.value(loop, v1::RACK_LEAK_DETECT) &&
                                                        got.value(loop, v1::RACK_LEAK_DETECT)->first == float(wet)),
                                 30'000);
        // The isolated loop's valve reads closed and its flow stops, as in the twin.
        twin.tick(3);
        QTRY_VERIFY_WITH_TIMEOUT(
            (got.take(source), got.value(loop, v1::RACK_CONTROL_VALVE_POSITION_PCT) &&
                                   got.value(loop, v1::RACK_CONTROL_VALVE_POSITION_PCT)->first ==
                                       float(twin.latest(loop, v1::RACK_CONTROL_VALVE_POSITION_PCT))),
            30'000);
        QCOMPARE(twin.latest(loop, v1::RACK_CONTROL_VALVE_POSITION_PCT), 0.0);
        // b1's CDU lost a pump: one running, one CDU alarm naming the failed pump, on b1.
        const std::uint32_t b1 = twin.loopOf("b1");
        QCOMPARE(twin.latest(b1, v1::CDU_PUMPS_RUNNING), 1.0);
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), got.value(b1, v1::CDU_PUMPS_RUNNING) &&
                                                        got.value(b1, v1::CDU_PUMPS_RUNNING)->first == 1.0f),
                                 30'000);
        const auto alarms = got.events(v1::EVENT_TYPE_CDU_ALARM);
        QCOMPARE(alarms.size(), std::size_t(1));
        QCOMPARE(alarms[0].message(), std::string("CDU CDU-B: pump 2 is Critical (was OK)"));
        QCOMPARE(alarms[0].severity(), v1::SEVERITY_CRITICAL);
        QCOMPARE(alarms[0].related_entity_indexes_size(), 1);
        QCOMPARE(alarms[0].related_entity_indexes(0), twin.entity("b1"));
        // Still wet several polls later: no further event (one per transition).
        const auto polls = source.polls();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(source), source.polls() >= polls + 4), 30'000);
        QCOMPARE(got.events(v1::EVENT_TYPE_LEAK).size(), std::size_t(wet));
        QCOMPARE(got.events(v1::EVENT_TYPE_CDU_ALARM).size(), std::size_t(1));
        source.stop();
    }

    // A service from before LeakDetection v1.2 links its detectors as a collection under
    // LeakDetection, with no groups: the source finds them there.
    void anOlderServiceListsItsDetectorsUnderLeakDetection() {
        testing::TwinRedfishHarness twin;
        QVERIFY2(twin.start("at 3s leak rack=a1\n"), qPrintable(twin.error()));
        const std::string base = "/redfish/v1/ThermalEquipment/CDUs/CDU-A/LeakDetection";
        std::atomic<int> listed{0};
        twin.spoil([base, &listed](const httplib::Request& request, httplib::Response& response) {
            std::string body;
            if (request.path == base)
                body = "{\"@odata.type\":\"#LeakDetection.v1_0_0.LeakDetection\",\"@odata.id\":\"" + base +
                       "\",\"Id\":\"LeakDetection\",\"Name\":\"Leak detection\",\"LeakDetectors\":{\"@odata.id\":\"" +
                       base + "/LeakDetectors\"}}";
            else if (request.path == base + "/LeakDetectors") {
                ++listed;
                body = "{\"@odata.type\":\"#LeakDetectorCollection.LeakDetectorCollection\",\"@odata.id\":\"" + base +
                       "/LeakDetectors\",\"Name\":\"Leak detectors\",\"Members\":[";
                const char* ids[] = {"LD-A1-1", "LD-A1-2", "LD-A2-1", "LD-A2-2"};
                for (int i = 0; i < 4; ++i)
                    body += std::string(i ? "," : "") + "{\"@odata.id\":\"/redfish/v1/Chassis/CDU-A/LeakDetectors/" +
                            ids[i] + "\"}";
                body += "]}";
            } else {
                return false;
            }
            response.set_content(body, "application/json");
            return true;
        });
        twin.tick(1);
        redfish::RedfishCoolingSource source(twin.topology(), twin.map(), optionsFor(twin.url()), {});
        source.start();
        Collected got;
        const std::uint32_t a1 = twin.loopOf("a1");
        QTRY_VERIFY2_WITH_TIMEOUT(
            (got.take(source), got.status().health() == v1::SOURCE_HEALTH_UP && got.value(a1, v1::RACK_LEAK_DETECT)),
            qPrintable(got.describe()), 30'000);
        twin.tick(3);
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), !got.events(v1::EVENT_TYPE_LEAK).empty()),
                                  qPrintable(got.describe()), 30'000);
        QCOMPARE(got.events(v1::EVENT_TYPE_LEAK).front().entity_index(), a1);
        source.stop();
        QVERIFY(listed > 0);  // read through the old collection
    }

    void aBadServiceIsAStatusNotACrash() {
        testing::TwinRedfishHarness twin;
        QVERIFY2(twin.start(), qPrintable(twin.error()));
        twin.tick(3);
        redfish::RedfishCoolingSource source(twin.topology(), twin.map(), optionsFor(twin.url()), {});
        source.start();
        Collected got;
        const std::uint32_t a1 = twin.loopOf("a1"), a2 = twin.loopOf("a2"), b1 = twin.loopOf("b1");
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), got.status().health() == v1::SOURCE_HEALTH_UP),
                                  qPrintable(got.describe()), 30'000);

        // Each fault spoils a2's connector; the service answers the rest. The source reports the
        // fault, a1 and b1 keep arriving, a2's last values stay as they were.
        struct Case {
            const char* name;
            testing::TwinRedfishHarness::Fault fault;
            std::vector<const char*> errors;  // any of them
        };
        const std::string a2Path = "/redfish/v1/ThermalEquipment/CDUs/CDU-A/SecondaryCoolantConnectors/2";
        auto onA2 = [a2Path](std::function<void(httplib::Response&)> spoil) {
            return [a2Path, spoil](const httplib::Request& request, httplib::Response& response) {
                if (request.path != a2Path) return false;
                spoil(response);
                return true;
            };
        };
        const Case cases[] = {
            {"HTTP 500",
             onA2([](httplib::Response& r) {
                 r.status = 500;
                 r.set_content(exporters::redfishError("Base.1.19.InternalError", "sensor bus fault"),
                               "application/json");
             }),
             {"HTTP 500 from"}},
            {"malformed JSON",
             onA2([](httplib::Response& r) { r.set_content("{\"@odata.type\": \"#CoolantConn", "application/json"); }),
             {"not JSON ("}},
            {"over the size cap",
             onA2([](httplib::Response& r) {
                 r.set_content("{\"pad\":\"" + std::string(std::size_t(3) << 20, 'x') + "\"}", "application/json");
             }),
             {"exceeds 1048576 bytes"}},
            {"slow",
             onA2([](httplib::Response& r) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(2500));
                 r.set_content("{}", "application/json");
             }),
             // libcurl gives a reused keep-alive connection no connect time, which the transfer
             // layer reads as a connect that never finished: either wording names the timeout.
             {"timeout after 1.5 s", "no connection within 1 s"}},
            {"not JSON",
             onA2([](httplib::Response& r) { r.set_content("<html>login</html>", "text/html"); }),
             {"not JSON: Content-Type \"text/html\""}},
        };
        for (const auto& c : cases) {
            twin.spoil(c.fault);
            auto reported = [&] {
                got.take(source);
                const auto s = got.status();
                bool named = false;
                for (const char* e : c.errors) named |= s.last_error().find(e) != std::string::npos;
                return s.health() == v1::SOURCE_HEALTH_DEGRADED && named &&
                       s.last_error().find("SecondaryCoolantConnectors/2") != std::string::npos;
            };
            QTRY_VERIFY2_WITH_TIMEOUT(reported(), qPrintable(QString(c.name) + ": " + got.describe()), 30'000);
            const auto a2Before = got.value(a2, v1::RACK_LIQUID_FLOW_LPM);
            const auto a1Before = got.value(a1, v1::RACK_LIQUID_FLOW_LPM);
            const auto b1Before = got.value(b1, v1::RACK_LIQUID_FLOW_LPM);
            QTRY_VERIFY2_WITH_TIMEOUT(
                (got.take(source), got.value(a1, v1::RACK_LIQUID_FLOW_LPM)->second > a1Before->second &&
                                       got.value(b1, v1::RACK_LIQUID_FLOW_LPM)->second > b1Before->second),
                c.name, 30'000);
            QVERIFY2(got.value(a2, v1::RACK_LIQUID_FLOW_LPM)->second == a2Before->second, c.name);  // kept, aging
            bool warned = false;
            const v1::SourceStatus status = got.status();
            for (const auto& w : status.warnings()) warned |= w.find("rack a2: no reading") != std::string::npos;
            QVERIFY2(warned, qPrintable(got.describe()));
        }

        // The whole service: the CDU list refused, then the service gone.
        twin.spoil([](const httplib::Request& request, httplib::Response& response) {
            if (!endsWith(request.path, "/CDUs")) return false;
            response.status = 503;
            response.set_content("busy", "text/plain");
            return true;
        });
        QTRY_VERIFY2_WITH_TIMEOUT(
            (got.take(source), got.status().health() == v1::SOURCE_HEALTH_DOWN &&
                                   got.status().last_error().find("HTTP 503") != std::string::npos),
            qPrintable(got.describe()), 30'000);
        const auto down = got.events(v1::EVENT_TYPE_SOURCE);
        QCOMPARE(down.size(), std::size_t(1));
        QCOMPARE(down[0].severity(), v1::SEVERITY_CRITICAL);
        QVERIFY2(QString::fromStdString(down[0].message()).contains("cooling values are kept and shown stale"),
                 down[0].message().c_str());
        twin.spoil({});
        QTRY_VERIFY2_WITH_TIMEOUT((got.take(source), got.status().health() == v1::SOURCE_HEALTH_UP),
                                  qPrintable(got.describe()), 30'000);
        QCOMPARE(got.events(v1::EVENT_TYPE_SOURCE).size(), std::size_t(2));
        QCOMPARE(got.events(v1::EVENT_TYPE_SOURCE).back().severity(), v1::SEVERITY_INFO);
        source.stop();

        // Nothing listening: DOWN with the reason, at once, and no samples.
        redfish::RedfishCoolingSource dead(
            twin.topology(), twin.map(), optionsFor("http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort())),
            {});
        dead.start();
        Collected none;
        QTRY_VERIFY2_WITH_TIMEOUT((none.take(dead), none.status().health() == v1::SOURCE_HEALTH_DOWN),
                                  qPrintable(none.describe()), 30'000);
        QVERIFY2(none.status().last_error().find("connection refused by http://127.0.0.1:") != std::string::npos,
                 none.status().last_error().c_str());
        QVERIFY(!none.value(a1, v1::RACK_LIQUID_FLOW_LPM));
        dead.stop();
    }

    // At most four connections to the service, however many resources a poll reads.
    void connectionsToTheServiceAreBounded() {
        testing::TwinRedfishHarness twin;
        QVERIFY2(twin.start(), qPrintable(twin.error()));
        twin.tick(2);
        std::mutex mutex;
        std::set<int> ports;
        std::size_t requests = 0;
        twin.spoil([&](const httplib::Request& request, httplib::Response&) {
            std::lock_guard lock(mutex);
            ports.insert(request.remote_port);
            ++requests;
            return false;
        });
        auto options = optionsFor(twin.url());
        redfish::RedfishCoolingSource source(twin.topology(), twin.map(), options, {});
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(source.polls() >= 3, 30'000);
        source.stop();
        std::lock_guard lock(mutex);
        QVERIFY2(requests >= 3 * 20, qPrintable(QString("%1 requests").arg(requests)));
        QVERIFY2(ports.size() <= redfish::kMostRedfishConnections,
                 qPrintable(QString("%1 connections").arg(ports.size())));
    }
};

QTEST_GUILESS_MAIN(TstRedfishSource)
#include "tst_redfish_source.moc"
