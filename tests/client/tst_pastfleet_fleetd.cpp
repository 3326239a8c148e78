// Rewind end to end against the real fleetd: GetStateAsOf for a moment before a scripted leak
// shows r03 in service with coolant flowing and no leak incident while the live stream (still
// running) has it isolated; the errors fleet.proto promises (before the window, the future).

#include "LeakFleetd.h"  // testbeds/

#include "EndpointConnection.h"
#include "FleetStore.h"
#include "PastFleet.h"

#include <QSignalSpy>
#include <QtTest>

#include <grpcpp/grpcpp.h>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

bool hasLeakIncident(const client::EndpointFleet& fleet) {
    for (const auto& [id, incident] : fleet.incidents())
        if (incident.root_cause().cause() == "leak" && incident.state() != v1::INCIDENT_STATE_RESOLVED) return true;
    return false;
}

}  // namespace

class TestPastFleetFleetd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void pastBeforeTheLeakWhileLiveGoesOn() {
        QTemporaryDir dir;
        testing::FleetdProcess fleetd;
        QString error;
        QVERIFY2(testing::startLeakFleetd(fleetd, dir, &error), qPrintable(error));

        client::FleetStore live;
        client::EndpointConfig config;
        config.target = QString::fromStdString(fleetd.address());
        client::EndpointConnection connection(config);
        const int endpoint = live.attach(&connection);
        connection.start();
        QTRY_VERIFY_WITH_TIMEOUT(live.endpointFleet(endpoint).hasSnapshot(), 20000);
        const client::EntityId r03 = live.findByName(QStringLiteral("r03"));
        QVERIFY(r03.isValid());
        QTRY_COMPARE_WITH_TIMEOUT(live.status(r03).rackState, v1::RACK_STATE_ISOLATED, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(hasLeakIncident(live.endpointFleet(endpoint)), 10000);
        const std::int64_t isolatedSeen = live.endpointFleet(endpoint).serverTimeUnixMs();  // isolated by then
        const std::int64_t before = live.status(r03).sinceUnixMs - 30'000;

        client::PastFleet past(live, {&connection});
        QSignalSpy moved(&past, &client::PastFleet::moved);
        past.moveTo(before);
        QVERIFY(moved.wait(10000));
        QVERIFY2(moved.first().at(1).toStringList().isEmpty(),
                 qPrintable(moved.first().at(1).toStringList().join(u';')));
        QCOMPARE(past.shownMs(), before);
        QTRY_VERIFY_WITH_TIMEOUT(past.store().endpointFleet(0).hasSnapshot() &&
                                     past.store().status(r03).rackState != v1::RACK_STATE_UNSPECIFIED,
                                 5000);
        QCOMPARE(past.store().status(r03).rackState, v1::RACK_STATE_IN_SERVICE);
        QVERIFY(!hasLeakIncident(past.store().endpointFleet(0)));
        QCOMPARE(past.store().endpointFleet(0).serverTimeUnixMs(), before);
        // Coolant flowed then (history, at 1 s), not now.
        const auto flowThen = past.store().rackReading(past.store().rackRow(r03), v1::RACK_LIQUID_FLOW_LPM);
        QVERIFY2(flowThen.value > 10, qPrintable(QString::number(flowThen.value)));
        QTRY_VERIFY_WITH_TIMEOUT(
            live.rackReading(live.rackRow(r03), v1::RACK_LIQUID_FLOW_LPM).value < flowThen.value / 2, 10000);
        // The live store kept ingesting all along, and stays isolated.
        const std::int64_t liveNow = live.endpointFleet(endpoint).serverTimeUnixMs();
        QTRY_VERIFY_WITH_TIMEOUT(live.endpointFleet(endpoint).serverTimeUnixMs() > liveNow, 5000);
        QCOMPARE(live.status(r03).rackState, v1::RACK_STATE_ISOLATED);

        // Moving on to after the leak: the past follows.
        past.moveTo(isolatedSeen);
        QVERIFY(moved.wait(10000));
        QTRY_COMPARE_WITH_TIMEOUT(past.store().status(r03).rackState, v1::RACK_STATE_ISOLATED, 5000);
        QVERIFY(hasLeakIncident(past.store().endpointFleet(0)));

        // A moment before the window clamps to its start (the slider's left end).
        past.moveTo(1);
        QVERIFY(moved.wait(10000));
        QVERIFY(past.earliestMs() > 1);
        QCOMPARE(past.shownMs(), past.earliestMs());
    }

    void refusalsOnTheWire() {
        QTemporaryDir dir;
        testing::FleetdProcess fleetd;
        QString error;
        QVERIFY2(testing::startLeakFleetd(fleetd, dir, &error), qPrintable(error));
        auto stub =
            v1::TelemetryService::NewStub(grpc::CreateChannel(fleetd.address(), grpc::InsecureChannelCredentials()));
        auto ask = [&](std::int64_t asOf, v1::AsOfState* out) {
            grpc::ClientContext context;
            context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
            v1::AsOfRequest request;
            request.set_as_of_unix_ms(asOf);
            return stub->GetStateAsOf(&context, request, out);
        };
        v1::AsOfState now;
        QTRY_VERIFY_WITH_TIMEOUT(ask(std::int64_t(4e12), &now).error_code() == grpc::StatusCode::INVALID_ARGUMENT,
                                 10000);
        v1::AsOfState first;
        const auto early = ask(1, &first);
        QCOMPARE(early.error_code(), grpc::StatusCode::OUT_OF_RANGE);
        QVERIFY2(QString::fromStdString(early.error_message()).contains(QStringLiteral("earliest")),
                 early.error_message().c_str());
        // The earliest moment it names is answered.
        const QRegularExpression number(QStringLiteral("earliest is (\\d+) ms"));
        const auto match = number.match(QString::fromStdString(early.error_message()));
        QVERIFY(match.hasMatch());
        const auto status = ask(match.captured(1).toLongLong(), &first);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY(first.states_size() > 0);
        QCOMPARE(first.as_of_unix_ms(), first.earliest_unix_ms());
    }
};

QTEST_GUILESS_MAIN(TestPastFleetFleetd)
#include "tst_pastfleet_fleetd.moc"
