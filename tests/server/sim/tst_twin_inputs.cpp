// Scenario files: errors name file:line; scripted faults drive the twin (leak → isolation →
// flow 0 → job interrupted; Xid 79 → tray down and back; stuck valve → heat and throttling;
// link-drift → symbol errors rising at both ends, the link down at its end, the tray drained).
// Every rail link's both ends report within 15 s.

#include "TwinTestSupport.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace twintest;
using namespace watchfloor::v1;

class TwinInputsTest : public QObject {
    Q_OBJECT

private slots:
    void scenarioErrorsNameLine_data();
    void scenarioErrorsNameLine();
    void shippedFilesLoad();
    void leakIsolatesRackAndInterruptsJob();
    void xid79TakesTrayDownAndBack();
    void stuckValveHeatsAndThrottles();
    void stragglerSlowsJobAndIsDetected();
    void everyRailLinkReportsBothEnds();
    void linkDriftFailsItsLinkOnTime();
};

void TwinInputsTest::scenarioErrorsNameLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown verb") << "at 1m leak rack=r01\nat 2m explode rack=r01\n" << 2 << "unknown verb 'explode'";
    QTest::newRow("unknown entity") << "# header\nat 1m leak rack=r42\n" << 2 << "unknown rack 'r42'";
    QTest::newRow("unknown gpu") << "at 5m xid 79 gpu=r01-n19-g2\n" << 1 << "unknown gpu 'r01-n19-g2'";
    QTest::newRow("bad offset") << "at soon leak rack=r01\n" << 1 << "'soon' is not a duration";
    QTest::newRow("bad for") << "at 1m straggler node=r05-n09 factor=1.3 for=20x\n"
                             << 1 << "'for=20x' is not a duration";
    QTest::newRow("wrong target kind") << "at 1m leak gpu=r01-n01-g0\n" << 1 << "does not take gpu=";
    QTest::newRow("missing target") << "at 1m pump-fail\n" << 1 << "expected 'pump-fail rack=RACK'";
    QTest::newRow("unknown xid") << "at 1m xid 9999 gpu=r01-n01-g0\n" << 1 << "not in the fleet's Xid table";
    QTest::newRow("unknown cause") << "at 1m fail meteor gpu=r01-n01-g0\n" << 1 << "unknown failure cause 'meteor'";
    QTest::newRow("no at") << "leak rack=r01\n" << 1 << "expected 'at OFFSET VERB";
    QTest::newRow("unknown option") << "at 1m leak rack=r01 size=big\n" << 1 << "unknown option 'size'";
    QTest::newRow("factor out of range") << "at 1m straggler node=r01-n01 factor=9\n" << 1 << "out of range";
    QTest::newRow("unknown job") << "at 1m fail software_bug job=nope\n" << 1 << "unknown job 'nope'";
    QTest::newRow("unterminated quote") << "at 1m drain node=r01-n01 reason=\"ops: oops\n" << 1 << "unterminated quote";
    QTest::newRow("unknown exclude") << "at 1m requeue job=llm-8b-3 exclude=r07-n01,r07-n99\n"
                                     << 1 << "unknown node 'r07-n99' in exclude=";
    QTest::newRow("drain a rack") << "at 1m drain rack=r01\n" << 1 << "does not take rack=";
    QTest::newRow("drift without hours") << "at 1m leak rack=r01\nat 2m link-drift nic=r06-n04-ib2\n"
                                         << 2 << "expected 'link-drift nic=PORT hours=H [down_after=D]'";
    QTest::newRow("drift an nvlink") << "at 2m link-drift link=r02-n01-g0-l03 hours=2\n"
                                     << 1 << "'link-drift' does not take link=";
    QTest::newRow("drift hours out of range") << "at 2m link-drift nic=r06-n04-ib2 hours=100\n"
                                              << 1 << "'hours=100' is out of range";
    QTest::newRow("drift hours not a number") << "\nat 2m link-drift nic=r06-n04-ib2 hours=soon\n"
                                              << 2 << "'hours=soon' is not a number";
    QTest::newRow("drift bad down_after") << "at 2m link-drift nic=r06-n04-ib2 hours=1 down_after=1x\n"
                                          << 1 << "'down_after=1x' is not a duration";
    QTest::newRow("drift unknown port") << "at 2m link-drift nic=r06-n04-ib9 hours=1\n"
                                        << 1 << "unknown nic 'r06-n04-ib9'";
}

void TwinInputsTest::scenarioErrorsNameLine() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const std::string path = writeFile(dir, "bad.scn", text.toStdString());
    SimConfig config;
    config.scenarioFile = path;
    ConfigError error;
    QVERIFY(DigitalTwin::create(config, &error) == nullptr);
    QCOMPARE(error.file, path);
    QCOMPARE(error.line, line);
    QVERIFY2(QString::fromStdString(error.problem).contains(problem), error.toString().c_str());
    QVERIFY(error.toString().rfind(path + ":" + std::to_string(line) + ": ", 0) == 0);
}

void TwinInputsTest::shippedFilesLoad() {
    SimConfig demo;
    demo.scenarioFile = sourcePath("scenarios/demo.scn");
    makeTwin(demo);
    SimConfig example;
    example.fleetFile = sourcePath("scenarios/example.fleet");
    example.scenarioFile = sourcePath("scenarios/demo.scn");  // its names exist in the example fleet too
    auto twin = makeTwin(example);
    QCOMPARE(twin->topology().racks_size(), 12);
    QCOMPARE(twin->topology().regions_size(), 3);
}

void TwinInputsTest::leakIsolatesRackAndInterruptsJob() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "leak.scn", "at 10m leak rack=r03\n");
    auto twin = makeTwin(config);
    const Rack& r03 = rackNamed(*twin, "r03");
    run(*twin, 10 * 60 - 1);

    bool leak = false, isolated = false, interrupted = false, automated = false;
    float flow = -1, liquid = -1, electrical = -1, power = -1, leakSensors = -1, returnC = 0, returnBefore = 0;
    RackState rackState = RACK_STATE_UNSPECIFIED;
    std::set<std::uint32_t> nodesDown;
    run(*twin, 60, [&](const FleetChanges& c) {
        for (const auto& e : c.events) {
            leak |= e.type() == EVENT_TYPE_LEAK && e.entity_index() == r03.cooling_loop_index();
            isolated |= e.type() == EVENT_TYPE_RACK_ISOLATED && e.entity_index() == r03.index();
            automated |= e.type() == EVENT_TYPE_AUTOMATED_ACTION && e.entity_index() == r03.index();
            interrupted |= e.type() == EVENT_TYPE_JOB_INTERRUPTED && e.cause() == "leak";
        }
        for (const auto& s : c.states) {
            if (s.entity_index() == r03.index()) rackState = s.rack_state();
            if (s.node_state() == NODE_STATE_DOWN) nodesDown.insert(s.entity_index());
        }
        if (returnBefore == 0) returnBefore = sampleOf(c, r03.cooling_loop_index(), RACK_LIQUID_RETURN_TEMPERATURE_C);
        flow = sampleOf(c, r03.cooling_loop_index(), RACK_LIQUID_FLOW_LPM);
        liquid = sampleOf(c, r03.cooling_loop_index(), RACK_LIQUID_ISOLATION_STATUS);
        leakSensors = sampleOf(c, r03.cooling_loop_index(), RACK_LEAK_DETECT);
        electrical = sampleOf(c, r03.index(), RACK_ELECTRICAL_ISOLATION_STATUS);
        power = sampleOf(c, r03.index(), RACK_POWER_KW);
        returnC = sampleOf(c, r03.cooling_loop_index(), RACK_LIQUID_RETURN_TEMPERATURE_C);
    });
    QVERIFY(leak);
    QVERIFY(isolated);
    QVERIFY(automated);
    QVERIFY(interrupted);
    QCOMPARE(rackState, RACK_STATE_ISOLATED);
    QCOMPARE(flow, 0.0f);  // valve closed: flow collapses within a minute
    QCOMPARE(liquid, 1.0f);
    QCOMPARE(electrical, 1.0f);
    QCOMPARE(power, 0.0f);  // trays powered down
    QVERIFY(leakSensors >= 1.0f);
    QVERIFY(returnC > 0 && returnBefore > 0);
    for (const auto node : r03.node_indexes()) QVERIFY(nodesDown.count(node));
    // The interrupted job is waiting for trays (2 spares are not enough for 18).
    FleetChanges last;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), last);
    bool someRecovering = false;
    for (const auto& job : last.jobs) someRecovering |= job.state() == JOB_STATE_RECOVERING && job.interruptions() == 1;
    QVERIFY(someRecovering);
}

void TwinInputsTest::xid79TakesTrayDownAndBack() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "xid.scn", "at 10m xid 79 gpu=r01-n04-g2\n");
    auto twin = makeTwin(config);
    const std::uint32_t node = nodeIndex(*twin, "r01-n04");
    std::uint32_t gpu = 0;
    for (const auto& g : twin->topology().gpus())
        if (g.name() == "r01-n04-g2") gpu = g.index();
    run(*twin, 10 * 60 - 1);
    bool xid79 = false, xid45 = false, down = false, back = false, resumed = false;
    std::vector<RecoveryStage> stages;
    float recoveryAction = -1;
    run(*twin, 35 * 60, [&](const FleetChanges& c) {
        for (const auto& e : c.events) {
            if (e.type() == EVENT_TYPE_XID && e.entity_index() == gpu && e.xid().xid() == 79) {
                xid79 = true;
                QCOMPARE(e.xid().mnemonic(), std::string("GPU_HAS_FALLEN_OFF_THE_BUS"));
                QCOMPARE(e.xid().recommended_action(), XID_ACTION_RESTART_BM);
                QVERIFY(e.xid().fatal());
                QVERIFY(!e.xid().fleet_policy().empty());
                QCOMPARE(e.related_entity_indexes_size(), 1);  // the job it interrupted
            }
            xid45 |= e.type() == EVENT_TYPE_XID && e.xid().xid() == 45;
            if (e.type() == EVENT_TYPE_JOB_RECOVERING) stages.push_back(e.recovery_stage());
            resumed |= e.type() == EVENT_TYPE_JOB_RESUMED;
        }
        for (const auto& s : c.states)
            if (s.entity_index() == node) {
                down |= s.node_state() == NODE_STATE_DOWN;
                back |= down && s.node_state() == NODE_STATE_IDLE;  // a spare took its place
            }
        const float action = sampleOf(c, gpu, DCGM_FI_DEV_GPU_RECOVERY_ACTION);
        if (!std::isnan(action) && recoveryAction < 0 && action > 0) recoveryAction = action;
    });
    QVERIFY(xid79);
    QVERIFY(xid45);
    QVERIFY(down);
    QVERIFY2(back, "a power-cycled tray returns within 15-30 min");
    QVERIFY(resumed);
    QCOMPARE(recoveryAction, 2.0f);  // NVML NODE_REBOOT for RESTART_BM
    const std::vector<RecoveryStage> expected = {RECOVERY_STAGE_DETECT, RECOVERY_STAGE_RESCHEDULE, RECOVERY_STAGE_INIT,
                                                 RECOVERY_STAGE_RESTORE};
    QVERIFY(std::search(stages.begin(), stages.end(), expected.begin(), expected.end()) != stages.end());
}

void TwinInputsTest::stuckValveHeatsAndThrottles() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "valve.scn", "at 10m valve-close rack=r07 for=6m\n");
    auto twin = makeTwin(config);
    const Rack& r07 = rackNamed(*twin, "r07");
    run(*twin, 10 * 60 - 1);
    float returnBefore = 0, returnPeak = 0, minFlow = 1e9f, maxGpuBefore = 0, maxGpuPeak = 0;
    bool throttled = false, alarm = false;
    run(*twin, 5 * 60, [&](const FleetChanges& c) {
        const float ret = sampleOf(c, r07.cooling_loop_index(), RACK_LIQUID_RETURN_TEMPERATURE_C);
        const float maxGpu = sampleOf(c, r07.index(), RACK_GPU_TEMP_MAX_C);
        if (returnBefore == 0) {
            returnBefore = ret;
            maxGpuBefore = maxGpu;
        }
        returnPeak = std::max(returnPeak, ret);
        if (!std::isnan(maxGpu)) maxGpuPeak = std::max(maxGpuPeak, maxGpu);
        minFlow = std::min(minFlow, sampleOf(c, r07.cooling_loop_index(), RACK_LIQUID_FLOW_LPM));
        for (const auto& e : c.events) {
            throttled |= e.type() == EVENT_TYPE_CLOCKS_EVENT;
            alarm |= e.type() == EVENT_TYPE_CDU_ALARM && e.message().find("no flow at r07") != std::string::npos;
        }
        for (const auto& s : c.samples)
            if (s.metric == DCGM_FI_DEV_CLOCKS_EVENT_REASONS && (static_cast<int>(s.value) & 0x60)) throttled = true;
    });
    QCOMPARE(minFlow, 0.0f);
    QVERIFY2(returnPeak > returnBefore + 20, qPrintable(QString("return %1 -> %2").arg(returnBefore).arg(returnPeak)));
    QVERIFY(maxGpuPeak > maxGpuBefore + 15);
    QVERIFY(throttled);
    QVERIFY(alarm);
}

void TwinInputsTest::stragglerSlowsJobAndIsDetected() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "slow.scn", "at 10m straggler node=r05-n09 factor=1.3 for=20m\n");
    auto twin = makeTwin(config);
    const std::uint32_t node = nodeIndex(*twin, "r05-n09");
    run(*twin, 10 * 60 - 1);
    bool detected = false, cleared = false;
    double slowdown = 0;
    run(*twin, 25 * 60, [&](const FleetChanges& c) {
        for (const auto& e : c.events) {
            if (e.type() == EVENT_TYPE_STRAGGLER_DETECTED) {
                detected = true;
                QVERIFY(std::find(e.related_entity_indexes().begin(), e.related_entity_indexes().end(), node) !=
                        e.related_entity_indexes().end());
            }
            cleared |= detected && e.type() == EVENT_TYPE_STRAGGLER_CLEARED;
        }
        for (const auto& job : c.jobs)
            for (const auto n : job.straggler_node_indexes())
                if (n == node) slowdown = std::max(slowdown, job.straggler_slowdown());
    });
    QVERIFY(detected);
    QVERIFY(cleared);
    QVERIFY2(slowdown >= 1.3 && slowdown < 1.35, qPrintable(QString::number(slowdown)));
}

void TwinInputsTest::everyRailLinkReportsBothEnds() {
    auto twin = makeTwin(SimConfig{});
    std::map<std::pair<std::uint32_t, Metric>, int> reports;
    run(*twin, 15, [&](const FleetChanges& c) {
        for (const auto& s : c.samples) ++reports[{s.entityIndex, s.metric}];
    });
    int ports = 0;
    for (const auto& port : twin->topology().nic_ports()) {
        ++ports;
        for (const Metric m : {IB_SYMBOL_ERROR_COUNTER, IB_LINK_ERROR_RECOVERY_COUNTER, IB_LINK_DOWNED_COUNTER,
                               IB_PORT_RCV_ERRORS, IB_PHY_STATE, IB_MODULE_TEMPERATURE_C, IB_FAR_SYMBOL_ERROR_COUNTER,
                               IB_FAR_LINK_ERROR_RECOVERY_COUNTER, IB_FAR_LINK_DOWNED_COUNTER, IB_FAR_PORT_RCV_ERRORS})
            // With the first samples, then its tray's turn every 10 s.
            QVERIFY2((reports[{port.index(), m}] >= 2), (port.name() + " " + Metric_Name(m)).c_str());
    }
    QCOMPARE(ports, 7 * 18 * 4);
}

void TwinInputsTest::linkDriftFailsItsLinkOnTime() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "drift.scn", "at 1m link-drift nic=r06-n04-ib2 hours=1 down_after=10m\n");
    auto twin = makeTwin(config);
    std::uint32_t port = 0;
    for (const auto& p : twin->topology().nic_ports())
        if (p.name() == "r06-n04-ib2") port = p.index();
    const std::uint32_t node = nodeIndex(*twin, "r06-n04");
    std::vector<float> host, far;
    std::int64_t downAtS = -1;
    bool drained = false, interrupted = false;
    std::int64_t second = 0;
    run(*twin, 75 * 60, [&](const FleetChanges& c) {
        ++second;
        const float h = sampleOf(c, port, IB_SYMBOL_ERROR_COUNTER), f = sampleOf(c, port, IB_FAR_SYMBOL_ERROR_COUNTER);
        if (!std::isnan(h)) host.push_back(h);
        if (!std::isnan(f)) far.push_back(f);
        for (const auto& e : c.events) {
            if (e.type() == EVENT_TYPE_LINK_DOWN && e.entity_index() == port) {
                QCOMPARE(downAtS, std::int64_t(-1));
                downAtS = second;
                QCOMPARE(e.cause(), std::string("network_link"));
            }
            interrupted |= e.type() == EVENT_TYPE_JOB_INTERRUPTED && downAtS > 0;
        }
        for (const auto& s : c.states) drained |= s.entity_index() == node && s.node_state() == NODE_STATE_DRAINED;
    });
    // Down at 1m + 1h + 10m: its tray drained by the health check and its job restarted.
    QCOMPARE(downAtS, std::int64_t(71 * 60));
    QVERIFY(drained);
    QVERIFY(interrupted);
    // Every 10 s, both ends: the errors of the drift's last half hour outnumber its first's.
    QVERIFY(host.size() >= 449 && far.size() >= 449);
    auto grew = [](const std::vector<float>& v, std::size_t from, std::size_t to) { return v[to] - v[from]; };
    const float firstHost = grew(host, 6, 186), lastHost = grew(host, 246, 426);
    const float firstFar = grew(far, 6, 186), lastFar = grew(far, 246, 426);
    qInfo("drift on r06-n04-ib2: host %g then %g errors a half hour, far end %g then %g", firstHost, lastHost, firstFar,
          lastFar);
    QVERIFY(lastHost > firstHost && lastFar > firstFar);
    QVERIFY(lastHost + lastFar >= 8);
}

QTEST_GUILESS_MAIN(TwinInputsTest)
#include "tst_twin_inputs.moc"
