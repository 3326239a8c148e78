// Automatic draining in a real fleetd (--auto-drain 2/10m): scripted Xid 79s on five nodes become
// drain operations of principal "auto" until the circuit breaker trips on the third node, raises
// an alert and refuses the rest; an operator cannot reset it, an admin can; after the reset the
// next drain-worthy Xid drains again.
#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {
// Automated drain operations, by node.
std::map<std::string, v1::Operation> autoDrains(ControlConnection& console) {
    v1::ListOperationsResponse all;
    console.list(kAlice, &all);
    std::map<std::string, v1::Operation> drains;
    for (const auto& op : all.operations())
        if (op.automated() && op.request().type() == v1::ACTION_TYPE_DRAIN_NODE) drains[op.request().node_name()] = op;
    return drains;
}
}  // namespace

class FleetdControlAutoDrainTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    FleetdProcess fleetd_;

private slots:
    void breakerTripsAfterNAndHoldsUntilAnAdminResetsIt() {
        QFile scenario(dir_.filePath("xids.scenario"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        scenario.write(
            "at 10s xid 79 gpu=r06-n01-g0\n"
            "at 20s xid 79 gpu=r06-n02-g1\n"
            "at 30s xid 79 gpu=r06-n03-g2\n"  // the third node in the window trips it
            "at 40s xid 48 gpu=r06-n04-g3\n"
            "at 50s xid 13 gpu=r06-n05-g0\n"   // an application fault: never drains
            "at 6m xid 79 gpu=r06-n06-g0\n");  // after the reset
        scenario.close();
        const QString audit = dir_.filePath("audit.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "9", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--auto-drain", "2/10m", "--scenario", scenario.fileName()}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY(fleetd_.log().contains("automatic draining on: at most 2 nodes per 600 s"));
        ControlConnection console(fleetd_.address());
        v1::ListEventsResponse events;
        auto alertEvent = [&] {
            grpc::ClientContext context;
            v1::ListEventsRequest request;
            request.add_types(v1::EVENT_TYPE_AUTOMATED_ACTION);
            request.set_min_severity(v1::SEVERITY_CRITICAL);
            auto telemetry = v1::TelemetryService::NewStub(newChannel(fleetd_.address()));
            return telemetry->ListEvents(&context, request, &events).ok() && events.events_size() == 1;
        };

        QVERIFY(fleetd_.waitForLog(QRegularExpression("ALERT: .*"), 20'000).hasMatch());
        // Every console sees the alert in the event stream, not only fleetd's log.
        QTRY_VERIFY_WITH_TIMEOUT(alertEvent(), 5'000);
        QVERIFY2(events.events(0).message().find("automatic draining stopped") != std::string::npos,
                 events.events(0).message().c_str());
        QVERIFY(
            fleetd_.waitForLog(QRegularExpression("auto-drain r06-n04 after Xid 48 .* refused"), 20'000).hasMatch());
        auto drains = autoDrains(console);
        QVERIFY2(drains.size() == 2, fleetd_.log().constData());
        for (const char* node : {"r06-n01", "r06-n02"}) {
            QVERIFY2(drains.count(node), node);
            const v1::Operation& op = drains[node];
            QCOMPARE(op.principal(), std::string("auto"));
            QVERIFY2(op.request().reason().starts_with("auto: Xid 79 on GPU "), op.request().reason().c_str());
        }
        QVERIFY(!fleetd_.log().contains("r06-n05"));  // Xid 13 restarts the application, no drain
        QCOMPARE(countAudit(audit, [](const QJsonObject& r) { return r.value("action") == "CIRCUIT_BREAKER_TRIPPED"; }),
                 1);
        // Every console sees the breaker tripped, and who holds the drained trays (issue 16, item 7).
        {
            FleetWatch watch(fleetd_.address());
            QVERIFY(watch.ready());
            v1::AutomationStatus status;
            QVERIFY(watch.waitForAutomation(
                [](const v1::AutomationStatus& a) { return a.state() == v1::BREAKER_STATE_TRIPPED; }, 10'000ms,
                &status));
            QCOMPARE(status.effective_limit(), 2u);
            QCOMPARE(status.window_s(), qint64(600));
            QVERIFY(status.trip_reason().find("circuit breaker tripped") != std::string::npos);
            v1::EntityState drained;
            QVERIFY(watch.waitForState(
                *watch.nodeIndex("r06-n01"), [](const v1::EntityState& s) { return s.has_drain_owner(); }, 10'000ms,
                &drained));
            QCOMPARE(drained.drain_owner().kind(), v1::DRAIN_OWNER_KIND_AUTOMATION);
            QCOMPARE(drained.drain_owner().principal(), "auto");
        }

        // It holds: an operator may not reset it; an admin does, with a reason.
        auto reset = action(v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER, "reset-1", "Xid storm was a bad driver push");
        v1::Operation op;
        QCOMPARE(console.execute(kAlice, reset, &op).error_code(), grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY(autoDrains(console).size() == 2);
        reset.set_request_id("reset-2");
        QVERIFY(console.execute(kCarol, reset, &op).ok());
        QCOMPARE(op.state(), v1::OPERATION_STATE_SUCCEEDED);
        {
            FleetWatch watch(fleetd_.address());
            QVERIFY(watch.ready());
            v1::AutomationStatus status;
            QVERIFY(watch.waitForAutomation(
                [](const v1::AutomationStatus& a) { return a.state() == v1::BREAKER_STATE_CLOSED; }, 10'000ms,
                &status));
            QCOMPARE(status.last_reset_by(), "carol");
        }

        // The next drain-worthy Xid (6 simulated minutes in) drains again.
        QVERIFY2(fleetd_.waitForLog(QRegularExpression("auto-drain r06-n06 after Xid 79 \\(event \\d+\\): op-"), 30'000)
                     .hasMatch(),
                 fleetd_.log().constData());
        QVERIFY(autoDrains(console).count("r06-n06"));
        QCOMPARE(fleetd_.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdControlAutoDrainTest)
#include "tst_fleetd_control_autodrain.moc"
