// The demo scenario through the real fleetd: its first simulated hour and a quarter (the headless
// dump, which groups exactly as fleetd serves; the filter clog scripted at 50m raises its alarm
// at about 1h05m) yields at most ~10 open incidents at any moment, each scripted fault an
// incident naming its root cause; and a live fleetd at high speed streams
// incidents so that the fleet's active-incident count always equals the open incidents of the
// list a console builds from the same stream, and ListIncidents agrees.

#include "FleetdProcess.h"
#include "StreamTestSupport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>
#include <set>

using watchfloor::testing::FleetdProcess;
using namespace watchfloor::server::testing;
namespace v1 = watchfloor::v1;

namespace {

QString demoScenario() { return qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + "/scenarios/demo.scn"; }

struct Expected {
    const char* fault;  // the scenario line
    const char* scope;  // CauseScope name
    const char* name;   // the root cause named
    const char* cause;  // its class
};

// docs/incidents.md carries the same table.
const Expected kDemoFirstHour[] = {
    {"2m link-flap link=r02-n01-g0-l03", "CAUSE_SCOPE_LINK", "r02-n01-g0-l03", "link"},
    {"5m xid 79 gpu=r01-n04-g2", "CAUSE_SCOPE_TRAY", "r01-n04", "gpu_hard_fault"},
    {"8m straggler node=r05-n09", "CAUSE_SCOPE_TRAY", "r05-n09", "straggler"},
    {"15m fail hbm_uncorrectable gpu=r06-n02-g1", "CAUSE_SCOPE_TRAY", "r06-n02", "hbm_uncorrectable"},
    {"20m facility-excursion region=us-east", "CAUSE_SCOPE_FACILITY", "us-east", "facility_water"},
    {"25m pump-fail rack=r01", "CAUSE_SCOPE_CDU", "cdu-us-east-h1-row01", "pump_failure"},
    {"30m leak rack=r03", "CAUSE_SCOPE_COOLING_LOOP", "r03-loop", "leak"},
    {"40m valve-close rack=r07", "CAUSE_SCOPE_COOLING_LOOP", "r07-loop", "valve_fault"},
    {"50m filter-clog rack=r05", "CAUSE_SCOPE_CDU", "cdu-us-west-h1-row01", "filter_clog"},
    {"55m ber nic=r06-n10-ib1", "CAUSE_SCOPE_LINK", "r06-n10-ib1", "link"},
};

v1::ListIncidentsResponse listIncidents(const std::string& address) {
    auto stub = v1::TelemetryService::NewStub(dedicatedChannel(address));
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(10)));
    v1::ListIncidentsRequest request;
    request.set_page_size(500);
    v1::ListIncidentsResponse response;
    const grpc::Status status = stub->ListIncidents(&context, request, &response);
    if (!status.ok()) qWarning("ListIncidents: %s", status.error_message().c_str());
    return response;
}

std::uint32_t openIn(const std::map<std::uint64_t, v1::Incident>& incidents) {
    std::uint32_t open = 0;
    for (const auto& [id, incident] : incidents) open += incident.state() != v1::INCIDENT_STATE_RESOLVED ? 1 : 0;
    return open;
}

}  // namespace

class FleetdIncidentsTest : public QObject {
    Q_OBJECT
private slots:
    void demoFirstHourNamesEachScriptedFault();
    void liveStreamCountEqualsOpenIncidents();
};

void FleetdIncidentsTest::demoFirstHourNamesEachScriptedFault() {
    QTemporaryDir dir;
    const QString out = dir.filePath("demo.jsonl");
    const auto run =
        FleetdProcess::run({"--sim-duration", "75m", "--scenario", demoScenario(), "--dump-events", out}, 120'000);
    QVERIFY2(run.code == 0, qPrintable(run.stdErr));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    std::map<qint64, QJsonObject> latest;  // by incident id
    std::set<qint64> open;
    std::size_t maxOpen = 0, alerts = 0;
    while (!file.atEnd()) {
        const QJsonObject line = QJsonDocument::fromJson(file.readLine()).object();
        if (line["kind"] == "event") {
            const QString severity = line["event"].toObject()["severity"].toString();
            alerts += severity == "SEVERITY_WARNING" || severity == "SEVERITY_CRITICAL" ? 1 : 0;
            continue;
        }
        if (line["kind"] != "incident") continue;
        const QJsonObject incident = line["incident"].toObject();
        const qint64 id = incident["id"].toString().toLongLong();  // uint64 is a JSON string
        latest[id] = incident;
        if (incident["state"] == "INCIDENT_STATE_RESOLVED")
            open.erase(id);
        else
            open.insert(id);
        maxOpen = std::max(maxOpen, open.size());
    }
    qInfo("first 75 minutes: %zu warning/critical events, %zu incidents, at most %zu open at once", alerts,
          latest.size(), maxOpen);
    for (const auto& [id, incident] : latest)
        qInfo("  incident %lld %s: %s (%d members)", id, qPrintable(incident["state"].toString()),
              qPrintable(incident["root_cause"].toObject()["summary"].toString()), incident["member_count"].toInt());
    QVERIFY2(maxOpen <= 10, qPrintable(QString::number(maxOpen)));
    QVERIFY(alerts > 5 * latest.size());  // what the dock listed before: many alerts per incident
    for (const Expected& expected : kDemoFirstHour) {
        bool found = false;
        for (const auto& [id, incident] : latest) {
            const QJsonObject cause = incident["root_cause"].toObject();
            found |=
                cause["scope"] == expected.scope && cause["name"] == expected.name && cause["cause"] == expected.cause;
        }
        QVERIFY2(found, expected.fault);
    }
    // One stuck valve: one incident holding the throttling and shutdowns of r07.
    for (const auto& [id, incident] : latest) {
        const QJsonObject cause = incident["root_cause"].toObject();
        if (cause["name"] != "r07-loop") continue;
        QVERIFY2(incident["member_count"].toInt() >= 50, qPrintable(QString::number(incident["member_count"].toInt())));
        QCOMPARE(incident["blast_radius"].toObject()["racks"].toInt(), 1);
        QVERIFY(incident["goodput_cost_gpu_hours"].toDouble() > 0);
    }
}

void FleetdIncidentsTest::liveStreamCountEqualsOpenIncidents() {
    FleetdProcess fleetd;
    QVERIFY2(fleetd.start({"--speed", "300", "--scenario", demoScenario()}), qPrintable(fleetd.errorString()));
    // The stream from the start: a console's incident list, checked against the fleet's count in
    // every delta that carries it.
    TestStream stream(fleetd.address(), v1::SubscribeRequest{}, std::chrono::seconds(150));
    std::map<std::uint64_t, v1::Incident> incidents;
    v1::SubscribeResponse response;
    int fleetUpdates = 0;
    QElapsedTimer waited;
    waited.start();
    while (incidents.size() < 4 && waited.elapsed() < 120'000) {
        QVERIFY(stream.read(&response));
        if (response.has_snapshot()) {
            for (const auto& incident : response.snapshot().incidents()) incidents[incident.id()] = incident;
            QCOMPARE(response.snapshot().fleet().active_incidents(), openIn(incidents));
        } else if (response.has_delta()) {
            for (const auto& incident : response.delta().incidents()) incidents[incident.id()] = incident;
            if (response.delta().has_fleet()) {
                ++fleetUpdates;
                QCOMPARE(response.delta().fleet().active_incidents(), openIn(incidents));
            }
        }
    }
    QVERIFY2(incidents.size() >= 4, qPrintable(QString::number(incidents.size())));
    QVERIFY(fleetUpdates > 0);
    const auto listed = listIncidents(fleetd.address());
    QVERIFY(listed.incidents_size() >= int(incidents.size()));
    std::set<std::uint64_t> ids;
    for (const auto& incident : listed.incidents()) ids.insert(incident.id());
    for (const auto& [id, incident] : incidents) QVERIFY2(ids.count(id), qPrintable(QString::number(id)));
    QCOMPARE(listed.incidents(0).member_event_ids_size(), 0);
    QCOMPARE(fleetd.terminate(), 0);
}

QTEST_GUILESS_MAIN(FleetdIncidentsTest)
#include "tst_fleetd_incidents.moc"
