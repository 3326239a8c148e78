// Cooling physics: the heat the coolant carries (rho c_p flow dT) matches rack power; rack
// power, flow and dT are in the ranges of docs/domain/cooling.md; a facility excursion warms the GPUs.

#include "TwinTestSupport.h"

#include "CoolingLoop.h"

#include <QtTest>

#include <cmath>

using namespace twintest;
namespace sim = watchfloor::server::sim;
using namespace watchfloor::v1;

class TwinPhysicsTest : public QObject {
    Q_OBJECT

private slots:
    void coolantCarriesRackPower();
    void loopModelConservesEnergy();
    void facilityExcursionWarmsGpus();
};

void TwinPhysicsTest::coolantCarriesRackPower() {
    auto twin = makeTwin(SimConfig{});
    // 20 min: jobs are training, loops at steady state (time constant ~30 s).
    run(*twin, 20 * 60);
    FleetChanges c;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), c);
    int checked = 0;
    for (const auto& rack : twin->topology().racks()) {
        const std::uint32_t loop = rack.cooling_loop_index();
        const double supply = sampleOf(c, loop, RACK_LIQUID_SUPPLY_TEMPERATURE_C);
        const double ret = sampleOf(c, loop, RACK_LIQUID_RETURN_TEMPERATURE_C);
        const double flow = sampleOf(c, loop, RACK_LIQUID_FLOW_LPM);
        const double powerKw = sampleOf(c, rack.index(), RACK_POWER_KW);
        const double heatKw = sim::CoolingLoop::heatCarriedKw(flow, supply, ret);
        qInfo("%s: %.1f kW electrical, %.1f kW in coolant (flow %.0f L/min, dT %.2f K)", rack.name().c_str(), powerKw,
              heatKw, flow, ret - supply);
        QVERIFY2(std::abs(heatKw - powerKw) / powerKw < 0.03, rack.name().c_str());
        QVERIFY(std::abs(flow - 1.5 * rack.design_power_kw()) < 0.02 * flow);
        if (powerKw > 100) {  // a fully training rack: ~1.2 kW per GPU plus CPUs and switches
            QVERIFY(powerKw < rack.design_power_kw());
            QVERIFY(ret - supply > 7 && ret - supply < 11);
            ++checked;
        }
        const double maxGpu = sampleOf(c, rack.index(), RACK_GPU_TEMP_MAX_C);
        QVERIFY(maxGpu > supply + 20 && maxGpu < 84);  // no throttling at nominal supply
    }
    QVERIFY(checked >= 5);
}

void TwinPhysicsTest::loopModelConservesEnergy() {
    // Independent of the fleet: integrate the loop through a power step and a flow stop.
    sim::CoolingLoop loop(132, 25);
    LoopInputs in;
    in.rackPowerKw = 118;
    for (int i = 0; i < 600; ++i) loop.step(1.0, in);
    const double expectedDt = 118 / (loop.flowLpm() / 60.0 * kCoolantDensityKgPerL * kCoolantCpKjPerKgK);
    QVERIFY(std::abs((loop.returnC() - loop.supplyC()) - expectedDt) < 0.01 * expectedDt);
    // Same answer with a coarse step: the update is the exact solution over the step.
    sim::CoolingLoop coarse(132, 25);
    for (int i = 0; i < 20; ++i) coarse.step(30.0, in);
    QVERIFY(std::abs(coarse.returnC() - loop.returnC()) < 0.01);
    in.valveClosed = true;
    const double before = loop.returnC();
    for (int i = 0; i < 60; ++i) loop.step(1.0, in);
    QCOMPARE(loop.flowLpm(), 0.0);
    QVERIFY(loop.returnC() > before + 15);  // ~118 kW into ~340 kJ/K: ~0.35 K/s
}

void TwinPhysicsTest::facilityExcursionWarmsGpus() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "warm.scn", "at 10m facility-excursion region=us-west delta_c=6 for=1h\n");
    auto twin = makeTwin(config);
    const Rack& r05 = rackNamed(*twin, "r05");
    const Rack& r01 = rackNamed(*twin, "r01");
    run(*twin, 10 * 60 - 1);
    FleetChanges before;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), before);
    run(*twin, 50 * 60 - 1);
    FleetChanges after;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), after);
    const double supplyRise = sampleOf(after, r05.cooling_loop_index(), RACK_LIQUID_SUPPLY_TEMPERATURE_C) -
                              sampleOf(before, r05.cooling_loop_index(), RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    const double gpuRise =
        sampleOf(after, r05.index(), RACK_GPU_TEMP_MEAN_C) - sampleOf(before, r05.index(), RACK_GPU_TEMP_MEAN_C);
    const double otherRise = sampleOf(after, r01.cooling_loop_index(), RACK_LIQUID_SUPPLY_TEMPERATURE_C) -
                             sampleOf(before, r01.cooling_loop_index(), RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    qInfo("us-west supply +%.2f K, mean GPU +%.2f K; us-east supply %+.2f K", supplyRise, gpuRise, otherRise);
    QVERIFY(supplyRise > 4.5 && supplyRise < 7.5);  // 6 K excursion plus the diurnal drift
    QVERIFY(gpuRise > 4.0);
    QVERIFY(std::abs(otherRise) < 1.0);
}

QTEST_GUILESS_MAIN(TwinPhysicsTest)
#include "tst_twin_physics.moc"
