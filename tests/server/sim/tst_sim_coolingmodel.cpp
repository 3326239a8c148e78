// The CoolingModel alone, without trays or jobs: a stuck valve starves one rack's loop (flow to
// 0, coolant heating, the low-flow alarm after its delay) and nobody else's; freeing it brings the
// flow back and clears the alarm; an isolated loop is not "low on flow"; a pump failure is void
// once a newer one began.

#include "CoolingModel.h"
#include "FleetSpec.h"

#include <QtTest>

#include <cstring>

using namespace watchfloor::server;
using namespace watchfloor::server::sim;

namespace {

constexpr double kRackKw = 120;

struct Fleet {
    FleetSpec spec = generatedFleetSpec(1, 4);
    FleetModel model{spec, 0};
    CoolingModel cooling{model};
    std::int64_t nowMs = 0;

    // Steps all racks one second at a time; returns every alarm change, "rack:alarm:on/off".
    QStringList run(int seconds, std::uint32_t isolatedRack = 0xFFFFFFFFu) {
        QStringList changes;
        for (int i = 0; i < seconds; ++i) {
            nowMs += 1000;
            cooling.stepFacility(1.0, nowMs);
            for (std::uint32_t r = 0; r < model.racks(); ++r) {
                cooling.stepRack(r, 1.0, kRackKw, r == isolatedRack);
                for (const auto& c : cooling.rackAlarmChanges(r, nowMs, r == isolatedRack))
                    changes << QStringLiteral("%1:%2:%3").arg(r).arg(c.alarm).arg(c.active ? "on" : "off");
            }
        }
        return changes;
    }
};

}  // namespace

class CoolingModelTest : public QObject {
    Q_OBJECT

private slots:
    void stuckValveStarvesOnlyItsRack();
    void isolatedLoopIsNotLowOnFlow();
    void staleIncidentEndsAreVoid();
};

void CoolingModelTest::stuckValveStarvesOnlyItsRack() {
    Fleet f;
    QVERIFY(f.run(600).isEmpty());  // steady state at 120 kW: no alarm
    const double designFlow = f.cooling.loop(2).designFlowLpm();
    QVERIFY(f.cooling.loop(2).flowLpm() > 0.9 * designFlow);
    const double steadyColdPlate = f.cooling.loop(2).coldPlateC();

    const std::uint32_t epoch = f.cooling.stickValve(2);
    // Flow collapses within seconds, but the alarm waits for 10 s of low flow.
    const QStringList first = f.run(9);
    QVERIFY2(first.isEmpty(), qPrintable(first.join(", ")));
    QVERIFY(f.cooling.loop(2).flowLpm() < 0.5 * designFlow);
    const QStringList later = f.run(60);
    QVERIFY2(later.contains("2:low or no flow:on"), qPrintable(later.join(", ")));
    QCOMPARE(f.cooling.loop(2).valvePct(), 0.0);
    QCOMPARE(f.cooling.loop(2).flowLpm(), 0.0);
    QVERIFY(f.cooling.loop(2).coldPlateC() > steadyColdPlate + 5);  // no flow: the loop heats
    QVERIFY(!f.cooling.readyForReboot(2));
    for (const std::uint32_t other : {0u, 1u, 3u}) {  // the other racks do not notice
        QVERIFY(f.cooling.loop(other).flowLpm() > 0.9 * designFlow);
        QVERIFY(qAbs(f.cooling.loop(other).coldPlateC() - steadyColdPlate) < 0.5);
    }

    QVERIFY(!f.cooling.freeValve(2, epoch + 1));  // not this incident's end
    QVERIFY(f.cooling.freeValve(2, epoch));
    const QStringList recovered = f.run(900);
    QVERIFY2(recovered.contains("2:low or no flow:off"), qPrintable(recovered.join(", ")));
    QVERIFY(f.cooling.loop(2).flowLpm() > 0.9 * designFlow);
    QVERIFY(f.cooling.readyForReboot(2));
}

void CoolingModelTest::isolatedLoopIsNotLowOnFlow() {
    Fleet f;
    f.run(60);
    const QStringList changes = f.run(120, 1);
    QCOMPARE(f.cooling.loop(1).flowLpm(), 0.0);
    QVERIFY2(changes.filter("low or no flow").isEmpty(), qPrintable(changes.join(", ")));
}

void CoolingModelTest::staleIncidentEndsAreVoid() {
    Fleet f;
    const std::uint32_t cdu = f.model.cduOfRack(0);
    const auto first = f.cooling.failPump(cdu);
    const auto second = f.cooling.failPump(cdu);
    QVERIFY(first && second);
    QCOMPARE(f.cooling.pumpsRunning(cdu), 0u);
    QVERIFY(!f.cooling.failPump(cdu));             // none left to fail
    QVERIFY(!f.cooling.repairPumps(cdu, *first));  // the second failure's repair owns the pumps
    QCOMPARE(f.cooling.pumpsRunning(cdu), 0u);
    f.run(30);
    QCOMPARE(f.cooling.loop(0).flowLpm(), 0.0);  // no pump, no flow
    QVERIFY(f.cooling.repairPumps(cdu, *second));
    QCOMPARE(f.cooling.pumpsRunning(cdu), 2u);

    QVERIFY(f.cooling.setAlarm(cdu, "pump failure, redundancy lost", true));
    QVERIFY(!f.cooling.setAlarm(cdu, "pump failure, redundancy lost", true));  // already active: no second event
    QCOMPARE(f.cooling.activeAlarms(), 1u);
}

QTEST_GUILESS_MAIN(CoolingModelTest)
#include "tst_sim_coolingmodel.moc"
