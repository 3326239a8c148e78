// The crown: the real fleetd (FLEETD_BIN) with --alertmanager pages a scripted fault to a real
// Alertmanager on loopback. The scenario's sensor fault opens an incident on r02 within
// seconds; Alertmanager lists it firing with the rack's labels; consoles see the paging status
// in the Snapshot; the fault clears, the incident resolves after the hold, and the alert ends in
// Alertmanager. Then Alertmanager goes down, the next fault's incident cannot be delivered, and
// the stream says paging is failing. The demo scenario's incidents, as they grow, escalate and
// resolve, are one alert each. A maintenance window scheduled through ControlService is an
// Alertmanager silence on its rack, and cancelling the window expires the silence.
#include "AlertmanagerReader.h"
#include "FleetdControlFixture.h"
#include "FleetdProcess.h"
#include "StreamTestSupport.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace watchfloor::server::testing;
using fleetd_control_test::ControlConnection;
using namespace watchfloor::test;
using watchfloor::testing::FleetdProcess;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

namespace {

// The first snapshot's paging status, as a console gets it.
v1::PagingStatus pagingInSnapshot(const std::string& address) {
    TestStream stream(address, v1::SubscribeRequest{}, 20s);
    v1::SubscribeResponse response;
    while (stream.read(&response))
        if (response.has_snapshot()) return response.snapshot().paging();
    return {};
}

// The newest paging status a stream carries within `window`: the snapshot's, then deltas'.
v1::PagingStatus pagingAfter(const std::string& address, std::chrono::milliseconds window, v1::PagingState wanted) {
    TestStream stream(address, v1::SubscribeRequest{}, window);
    v1::SubscribeResponse response;
    v1::PagingStatus newest;
    while (stream.read(&response)) {
        if (response.has_snapshot() && response.snapshot().has_paging()) newest = response.snapshot().paging();
        if (response.has_delta() && response.delta().has_paging()) newest = response.delta().paging();
        if (newest.state() == wanted) break;
    }
    return newest;
}

}  // namespace

class TestPagingFleetd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(FleetdProcess::binary()),
                 qPrintable("FLEETD_BIN not built: " + FleetdProcess::binary()));
        QVERIFY2(LoopbackStore::installed(StoreKind::Alertmanager), "prometheus-alertmanager is not installed");
    }

    void helpAndBadUrl() {
        const auto help = FleetdProcess::run({"--help"});
        QCOMPARE(help.code, 0);
        QVERIFY(help.stdOut.contains("--alertmanager URL"));
        const auto bad = FleetdProcess::run({"--alertmanager", "127.0.0.1:9093"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.stdErr.contains("--alertmanager: expected an Alertmanager base URL"), qPrintable(bad.stdErr));
    }

    void fleetdPagesAScriptedFaultAndResolvesIt() {
        std::string error;
        auto am = startAlertmanager(error);
        QVERIFY2(am, error.c_str());
        QTemporaryDir dir;
        const std::string scenario = dir.filePath("sensor.scn").toStdString();
        // The second fault opens while Alertmanager is down (8 simulated minutes: 24 s at 20x).
        std::ofstream(scenario) << "at 10s sensor-fault rack=r02 for=2m\nat 8m sensor-fault rack=r04 for=30m\n";

        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--speed", "20", "--incident-hold", "1m", "--scenario", QString::fromStdString(scenario),
                               "--alertmanager", QString::fromStdString(am->url())}),
                 qPrintable(fleetd.errorString()));
        QVERIFY(fleetd.log().contains(QByteArray::fromStdString("paging " + am->url())));

        AlertmanagerReader reader(am->port());
        QJsonObject alert;
        QVERIFY2(eventually(
                     [&] {
                         for (const auto& a : reader.alerts())
                             if (a.toObject()["labels"].toObject()["rack"].toString() == "r02") alert = a.toObject();
                         return !alert.isEmpty();
                     },
                     30s),
                 fleetd.log().constData());
        const auto labels = alert["labels"].toObject();
        QCOMPARE(labels["alertname"].toString(), QString("WatchfloorIncident"));
        QVERIFY(!labels["incident"].toString().isEmpty());
        QVERIFY(!labels["cause"].toString().isEmpty());
        QVERIFY(!labels["severity"].toString().isEmpty());
        QVERIFY(!labels["hall"].toString().isEmpty());
        QVERIFY(!labels["region"].toString().isEmpty());
        QVERIFY(!alert["annotations"].toObject()["title"].toString().isEmpty());

        // Alertmanager can list the alert before the tick that publishes the pager's counts.
        v1::PagingStatus status;
        QVERIFY(eventually(
            [&] {
                status = pagingInSnapshot(fleetd.address());
                return status.delivered() >= 1;
            },
            10s));
        QCOMPARE(status.target(), am->url());
        QVERIFY(status.firing() >= 1);
        QVERIFY(status.delivered() >= 1);
        QVERIFY(status.state() != v1::PAGING_STATE_FAILING);

        // 2 simulated minutes of fault and a 1-minute hold at 20x: about 10 s of wall time.
        const QString incident = labels["incident"].toString();
        QVERIFY2(eventually([&] { return reader.alertOfIncident(incident).isEmpty(); }, 60s), fleetd.log().constData());

        // Alertmanager down, and the next incident cannot be paged: the stream says so, with the error.
        am->stopProcess();
        const auto failing = pagingAfter(fleetd.address(), 40s, v1::PAGING_STATE_FAILING);
        QCOMPARE(failing.state(), v1::PAGING_STATE_FAILING);
        QVERIFY2(failing.last_error().find("connection refused") != std::string::npos, failing.last_error().c_str());
        QVERIFY(failing.failing_since_unix_ms() > 0);
        QVERIFY(fleetd.waitForLog(QRegularExpression("paging: not delivered: connection refused"), 10'000).hasMatch());
        QCOMPARE(fleetd.terminate(), 0);
    }

    // The demo scenario at --speed 60 (a simulated minute a wall second) against a real
    // Alertmanager: in its first 50 simulated minutes incidents open, grow (the row CDU's pump
    // at 25m, its racks joining over minutes; r07's valve at 40m, from one throttling tray to the
    // whole rack), escalate and resolve. Alertmanager never lists two alerts for one incident;
    // at the end every open incident fleetd pages is listed once, with the labels it had when
    // first listed, and every resolved one is not listed.
    void demoScenarioIsOneAlertPerIncident() {
        std::string error;
        auto am = startAlertmanager(error);
        QVERIFY2(am, error.c_str());
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--speed", "60", "--scenario",
                               qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + "/scenarios/demo.scn", "--alertmanager",
                               QString::fromStdString(am->url())}),
                 qPrintable(fleetd.errorString()));
        AlertmanagerReader reader(am->port());
        QMap<QString, QJsonObject> firstLabels;  // incident -> its labels when first listed
        QStringList twice;
        const auto until = std::chrono::steady_clock::now() + 50s;
        while (std::chrono::steady_clock::now() < until && twice.isEmpty()) {
            QMap<QString, int> count;
            for (const auto& a : reader.alerts()) {
                const auto labels = a.toObject()["labels"].toObject();
                const auto incident = labels["incident"].toString();
                if (++count[incident] == 2)
                    twice << incident + ": " + QJsonDocument(labels).toJson(QJsonDocument::Compact) + " beside " +
                                 QJsonDocument(firstLabels.value(incident)).toJson(QJsonDocument::Compact);
                if (!firstLabels.contains(incident)) firstLabels[incident] = labels;
            }
            QTest::qWait(250);
        }
        QVERIFY2(twice.isEmpty(), qPrintable("two alerts for one incident: " + twice.join("; ")));
        bool pumpSeen = false;
        for (const auto& labels : firstLabels)
            pumpSeen |= labels["cause"].toString() == "pump_failure" && labels.contains("row");
        QVERIFY2(pumpSeen, "the CDU's pump failure was never listed with its row");

        // Now fleetd's own list against Alertmanager's, until they agree.
        QString disagreement;
        const bool agree = eventually(
            [&] {
                TestStream stream(fleetd.address(), v1::SubscribeRequest{}, 20s);
                v1::SubscribeResponse response;
                if (!stream.read(&response) || !response.has_snapshot()) return false;
                QMap<QString, QJsonObject> listed;
                QMap<QString, int> count;
                for (const auto& a : reader.alerts()) {
                    const auto labels = a.toObject()["labels"].toObject();
                    listed[labels["incident"].toString()] = labels;
                    ++count[labels["incident"].toString()];
                }
                int open = 0;
                for (const auto& incident : response.snapshot().incidents()) {
                    const auto id = QString::number(incident.id());
                    const bool resolvedNow = incident.state() == v1::INCIDENT_STATE_RESOLVED;
                    open += resolvedNow ? 0 : 1;
                    if (resolvedNow && listed.contains(id))
                        return disagreement = "resolved incident " + id + " still listed", false;
                    if (!resolvedNow && count.value(id) != 1)
                        return disagreement =
                                   "open incident " + id + " listed " + QString::number(count.value(id)) + " times",
                               false;
                    // Only an escalation or a newly named cause may change them (the old set resolved).
                    auto now = listed.value(id), first = firstLabels.value(id, now);
                    for (auto* labels : {&now, &first}) labels->remove("severity"), labels->remove("cause");
                    if (!resolvedNow && now != first)
                        return disagreement = "incident " + id +
                                              " moved: " + QJsonDocument(first).toJson(QJsonDocument::Compact) +
                                              " became " + QJsonDocument(now).toJson(QJsonDocument::Compact),
                               false;
                }
                disagreement = QString::number(open) + " open incidents, " + QString::number(listed.size()) +
                               " listed in Alertmanager";
                return open > 0;
            },
            20s);
        QVERIFY2(agree, qPrintable(disagreement));
        qInfo("%s; %lld incidents listed over the run", qPrintable(disagreement), qlonglong(firstLabels.size()));
        QCOMPARE(fleetd.terminate(), 0);
    }

    void maintenanceWindowIsASilenceUntilCancelled() {
        std::string error;
        auto am = startAlertmanager(error);
        QVERIFY2(am, error.c_str());
        QTemporaryDir dir;
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start({"--speed", "20", "--tokens", fleetd_control_test::writeTokens(dir), "--audit-log",
                               dir.filePath("audit.jsonl"), "--alertmanager", QString::fromStdString(am->url())}),
                 qPrintable(fleetd.errorString()));
        std::int64_t fleetNowMs = 0;
        {
            TestStream stream(fleetd.address(), v1::SubscribeRequest{}, 20s);
            v1::SubscribeResponse response;
            QVERIFY(stream.read(&response) && response.has_snapshot());
            fleetNowMs = response.snapshot().server_time_unix_ms();
        }
        ControlConnection control(fleetd.address());
        auto schedule =
            fleetd_control_test::action(v1::ACTION_TYPE_SCHEDULE_MAINTENANCE, "mw-paging-1", "CDU pump swap");
        schedule.mutable_maintenance()->set_scope(v1::MAINTENANCE_SCOPE_RACK);
        schedule.mutable_maintenance()->set_scope_name("r03");
        schedule.mutable_maintenance()->set_start_unix_ms(0);  // now
        schedule.mutable_maintenance()->set_end_unix_ms(fleetNowMs + 4 * 3'600'000);
        v1::Operation scheduled;
        const auto done = control.execute(fleetd_control_test::kAlice, schedule, &scheduled);
        QVERIFY2(done.ok(), done.error_message().c_str());
        QCOMPARE(scheduled.state(), v1::OPERATION_STATE_SUCCEEDED);

        AlertmanagerReader reader(am->port());
        QJsonObject silence;
        QVERIFY2(
            eventually(
                [&] {
                    for (const auto& s : reader.silences())
                        for (const auto& m : s.toObject()["matchers"].toArray())
                            if (m.toObject()["name"].toString() == "rack" && m.toObject()["value"].toString() == "r03")
                                silence = s.toObject();
                    return !silence.isEmpty();
                },
                20s),
            fleetd.log().constData());
        QVERIFY2(silence["comment"].toString().contains("CDU pump swap"), qPrintable(silence["comment"].toString()));
        QVERIFY(!silence["createdBy"].toString().isEmpty());
        QCOMPARE(silence["status"].toObject()["state"].toString(), QString("active"));

        // The silence goes out when the window is scheduled; the stream carries the window from
        // the next tick on.
        std::string windowId;
        QVERIFY(eventually(
            [&] {
                TestStream stream(fleetd.address(), v1::SubscribeRequest{}, 20s);
                v1::SubscribeResponse response;
                if (!stream.read(&response) || !response.has_snapshot() || response.snapshot().maintenance_size() != 1)
                    return false;
                windowId = response.snapshot().maintenance(0).id();
                return true;
            },
            10s));
        auto cancel = fleetd_control_test::action(v1::ACTION_TYPE_CANCEL_MAINTENANCE, "mw-paging-2", "swap done early");
        cancel.set_maintenance_window_id(windowId);
        v1::Operation cancelled;
        const auto undone = control.execute(fleetd_control_test::kAlice, cancel, &cancelled);
        QVERIFY2(undone.ok(), undone.error_message().c_str());
        const QString silenceId = silence["id"].toString();
        QVERIFY2(
            eventually([&] { return reader.silence(silenceId)["status"].toObject()["state"].toString() == "expired"; },
                       20s),
            fleetd.log().constData());
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPagingFleetd)
#include "tst_paging_fleetd.moc"
