// Break/fix steps on the twin (TwinRepairs): a GPU reset, reboot, power cycle and diagnostics on a
// healthy drained tray (simulated time out, the tray's state during and after, the events, where
// `after` puts it); on a faulted tray (Xid 79: a reset cannot reach the GPU, a power cycle clears it;
// an RMA fault survives every step; Xid 48 fails the memory test on its GPU and a reset clears it);
// refusals; the tools' output against testbeds/break-fix/; one seed, one outcome; and the twin as
// the operations engine's RepairBackend (start returns a handle, poll follows the step).

#include "TwinControlAdapter.h"
#include "TwinRepairs.h"
#include "TwinTestSupport.h"
#include "TwinToolOutput.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <sstream>
#include <thread>

using namespace twintest;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kReason = "alice: break/fix check";
// The default fleet's spare trays, which no job holds (r01..r06 and r07-n01..16 are the jobs').
constexpr const char* kSpare = "r07-n17";
constexpr const char* kSpare2 = "r07-n18";

std::string readFile(const char* relative) {
    std::ifstream in(sourcePath(relative), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TwinRepairRequest step(v1::ActionType type, v1::TrayAfterRepair after = v1::TRAY_AFTER_REPAIR_STAY_DRAINED) {
    TwinRepairRequest request;
    request.type = type;
    request.after = after;
    return request;
}

TwinRepairRequest diagnostics(std::uint32_t level) {
    TwinRepairRequest request = step(v1::ACTION_TYPE_RUN_DIAGNOSTICS);
    request.diagnosticLevel = level;
    return request;
}

TwinRepairRequest reset(std::optional<std::uint32_t> gpu, v1::TrayAfterRepair after) {
    TwinRepairRequest request = step(v1::ACTION_TYPE_RESET_GPU, after);
    request.gpu = gpu;
    return request;
}

// A default twin without random hardware faults (the scenario's are the only ones), its events
// collected; telemetry off, so a simulated hour takes little time.
struct Twin {
    std::unique_ptr<DigitalTwin> twin;
    QTemporaryDir dir;
    std::vector<v1::Event> events;

    explicit Twin(const std::string& scenario = {}, std::uint64_t seed = 1) {
        SimConfig config;
        config.seed = seed;
        config.hardwareRateScale = 0;
        config.telemetry = false;
        if (!scenario.empty()) config.scenarioFile = writeFile(dir, "s.scn", scenario);
        twin = makeTwin(config);
    }
    void advance(std::int64_t seconds) {
        run(*twin, seconds,
            [this](const FleetChanges& c) { events.insert(events.end(), c.events.begin(), c.events.end()); });
    }
    TwinActionResult act(TwinAction action) {
        TwinActionTicket ticket = twin->requestAction(std::move(action));
        advance(1);
        if (ticket.result.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            qFatal("the twin did not apply the request in its next advanceTo");
        return ticket.result.get();
    }
    TwinActionResult start(const std::string& node, const TwinRepairRequest& request) {
        return act(TwinAction::repairStep(node, request, kReason));
    }
    // Ticks until the step ended; the simulated seconds that took, or -1 past `limitS`.
    std::int64_t until(const std::string& handle, std::int64_t limitS = 3 * 3600) {
        for (std::int64_t s = 1; s <= limitS; ++s) {
            advance(1);
            if (twin->repairView(handle)->finished) return s;
        }
        return -1;
    }
    TwinNodeView node(const std::string& name) const { return *twin->nodeView(name); }
    // A drained tray no job holds, as the operations engine leaves it before a step.
    void drain(const std::string& name) {
        QVERIFY(act(TwinAction::drainNode(name, "alice: before a break/fix step")).succeeded);
        for (int i = 0; i < 600 && (node(name).state != v1::NODE_STATE_DRAINED || !node(name).jobs.empty()); ++i)
            advance(1);
        QCOMPARE(node(name).state, v1::NODE_STATE_DRAINED);
    }
    // The operator-action events about `subject` ("reboot r07-n17"), in order.
    std::vector<v1::Event> operatorEvents(const std::string& subject) const {
        std::vector<v1::Event> found;
        for (const auto& e : events)
            if (e.type() == v1::EVENT_TYPE_OPERATOR_ACTION && e.message().rfind(subject, 0) == 0) found.push_back(e);
        return found;
    }
    std::size_t xidEvents(std::uint32_t xid) const {
        return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [xid](const v1::Event& e) {
            return e.type() == v1::EVENT_TYPE_XID && e.value() == xid;
        }));
    }
};

std::string describe(const TwinRepairView& view) {
    return view.message + " / exit " + std::to_string(view.outcome.exit_status());
}

}  // namespace

class TwinRepairsTest : public QObject {
    Q_OBJECT

private slots:
    void toolOutputMatchesTheSamples();
    void resetOnHealthyTrayResumes();
    void rebootOnHealthyTrayStaysDrained();
    void powerCycleOnHealthyTrayHeldDown();
    void diagnosticsPassOnHealthyTray();
    void xid79NotFixedByReset();
    void xid79FixedByPowerCycle();
    void rmaFaultNeverFixed();
    void xid48FailsMemoryTestAndResetClearsIt();
    void refusals();
    void sameSeedSameOutcome();
    void repairBackendStartsAndPolls();
};

void TwinRepairsTest::toolOutputMatchesTheSamples() {
    QCOMPARE(nvidiaSmiResetDone({2}), readFile("testbeds/break-fix/nvidia-smi-reset-ok.txt"));
    QCOMPARE(dcgmiDiagTable(1, std::nullopt), readFile("testbeds/break-fix/dcgmi-diag-r1.txt"));
    const DiagnosticFailure mismatch{"memory", 2,
                                     "A memory mismatch was detected on GPU 2, but no error was reported by CUDA or "
                                     "NVML. Run a field diagnostic on the GPU."};
    QCOMPARE(dcgmiDiagTable(3, mismatch), readFile("testbeds/break-fix/dcgmi-diag-r3-fail.txt"));
}

void TwinRepairsTest::resetOnHealthyTrayResumes() {
    Twin t;
    t.drain("r01-n03");
    const auto started = t.start("r01-n03", reset(2, v1::TRAY_AFTER_REPAIR_RESUME));
    QVERIFY2(started.succeeded, started.message.c_str());
    QVERIFY2(started.handle.starts_with("twin-") && started.handle.ends_with("-1"), started.handle.c_str());
    // A reset runs on a tray that stays up: DRAINED, saying what runs and who asked.
    QCOMPARE(t.node("r01-n03").state, v1::NODE_STATE_DRAINED);
    QCOMPARE(t.node("r01-n03").reason, std::string("resetting GPU 2 (alice: break/fix check)"));
    QVERIFY(!t.twin->repairView(started.handle)->finished);
    QVERIFY(!t.start("r01-n03", step(v1::ACTION_TYPE_REBOOT_NODE)).succeeded);  // one step per tray

    const std::int64_t tookS = t.until(started.handle);
    QVERIFY2(tookS >= 300 && tookS <= 601, std::to_string(tookS).c_str());
    const auto view = *t.twin->repairView(started.handle);
    QVERIFY2(view.outcome.succeeded(), describe(view).c_str());
    QVERIFY(view.outcome.command_ran());
    QCOMPARE(view.outcome.exit_status(), 0);
    QCOMPARE(view.outcome.backend(), std::string("twin"));
    QCOMPARE(view.outcome.output_tail(), readFile("testbeds/break-fix/nvidia-smi-reset-ok.txt"));
    QCOMPARE(t.node("r01-n03").state, v1::NODE_STATE_IDLE);
    QVERIFY(!t.node("r01-n03").drainRequested);
    const auto events = t.operatorEvents("reset GPU 2 of r01-n03");
    QCOMPARE(events.size(), std::size_t(2));
    QCOMPARE(events[0].message(), std::string("reset GPU 2 of r01-n03: alice: break/fix check"));
    QCOMPARE(events[1].message(),
             std::string("reset GPU 2 of r01-n03: GPU 00000018:01:00.0 was successfully reset; back in service"));
    const std::int64_t spentMs = events[1].time_unix_ms() - events[0].time_unix_ms();
    QVERIFY2(spentMs >= 300'000 && spentMs <= 600'000, std::to_string(spentMs).c_str());
}

void TwinRepairsTest::rebootOnHealthyTrayStaysDrained() {
    Twin t;
    t.drain("r02-n05");
    const auto started = t.start("r02-n05", step(v1::ACTION_TYPE_REBOOT_NODE, v1::TRAY_AFTER_REPAIR_STAY_DRAINED));
    QVERIFY2(started.succeeded, started.message.c_str());
    QCOMPARE(t.node("r02-n05").state, v1::NODE_STATE_DOWN);
    QCOMPARE(t.node("r02-n05").reason, std::string("rebooting (alice: break/fix check)"));
    // Resuming a tray under a step is refused: the step places it.
    QVERIFY(!t.act(TwinAction::resumeNode("r02-n05", "bob: too early")).succeeded);
    const std::int64_t tookS = t.until(started.handle);
    QVERIFY2(tookS >= 300 && tookS <= 901, std::to_string(tookS).c_str());
    const auto view = *t.twin->repairView(started.handle);
    QVERIFY2(view.outcome.succeeded(), describe(view).c_str());
    QVERIFY(!view.outcome.command_ran());
    const auto node = t.node("r02-n05");
    QCOMPARE(node.state, v1::NODE_STATE_DRAINED);
    QVERIFY(node.drainRequested);
    QCOMPARE(node.drainReason, std::string("alice: before a break/fix step"));  // the drain in force stays
    QVERIFY2(view.message.find("reboot r02-n05: back after ") == 0, view.message.c_str());
    QVERIFY2(view.message.find("; drained") != std::string::npos, view.message.c_str());
    QVERIFY(t.act(TwinAction::resumeNode("r02-n05", "alice: rebooted")).succeeded);
    QCOMPARE(t.node("r02-n05").state, v1::NODE_STATE_IDLE);
}

void TwinRepairsTest::powerCycleOnHealthyTrayHeldDown() {
    Twin t;
    const auto started = t.start(kSpare, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, v1::TRAY_AFTER_REPAIR_DOWN));
    QVERIFY2(started.succeeded, started.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
    QCOMPARE(t.node(kSpare).reason, std::string("power-cycling (alice: break/fix check)"));
    const std::int64_t tookS = t.until(started.handle);
    QVERIFY2(tookS >= 330 && tookS <= 991, std::to_string(tookS).c_str());
    const auto view = *t.twin->repairView(started.handle);
    QVERIFY2(view.outcome.succeeded(), describe(view).c_str());
    QCOMPARE(view.outcome.power_state(), std::string("On"));
    // Held DOWN by the operator: no job takes it, and a resume brings it back.
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
    QVERIFY(t.node(kSpare).drainRequested);
    QCOMPARE(t.node(kSpare).reason, std::string(kReason));
    t.advance(120);
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
    const auto resumed = t.act(TwinAction::resumeNode(kSpare, "alice: checked"));
    QVERIFY2(resumed.succeeded, resumed.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_IDLE);
}

void TwinRepairsTest::diagnosticsPassOnHealthyTray() {
    Twin t;
    const auto quick = t.start(kSpare, diagnostics(1));
    QVERIFY2(quick.succeeded, quick.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DRAINED);  // a diagnostic runs on a tray that stays up
    QCOMPARE(t.node(kSpare).reason, std::string("running diagnostics level 1 (alice: break/fix check)"));
    const std::int64_t quickS = t.until(quick.handle);
    QVERIFY2(quickS >= 10 && quickS <= 61, std::to_string(quickS).c_str());
    const auto r1 = *t.twin->repairView(quick.handle);
    QVERIFY2(r1.outcome.succeeded(), describe(r1).c_str());
    QCOMPARE(r1.outcome.exit_status(), 0);
    QCOMPARE(r1.outcome.output_tail(), readFile("testbeds/break-fix/dcgmi-diag-r1.txt"));
    QCOMPARE(r1.outcome.tests_size(), 1);
    QCOMPARE(r1.outcome.tests(0).name(), std::string("software"));
    QCOMPARE(r1.outcome.tests(0).result(), v1::DIAGNOSTIC_RESULT_PASS);
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DRAINED);  // STAY_DRAINED

    const auto longRun = t.start(kSpare, diagnostics(3));
    const std::int64_t longS = t.until(longRun.handle);
    QVERIFY2(longS >= 720 && longS <= 1081, std::to_string(longS).c_str());
    const auto r3 = *t.twin->repairView(longRun.handle);
    QVERIFY2(r3.outcome.succeeded(), describe(r3).c_str());
    QCOMPARE(r3.outcome.tests_size(), 7);
    for (const auto& test : r3.outcome.tests()) QCOMPARE(test.result(), v1::DIAGNOSTIC_RESULT_PASS);
    // Level 4's table is longer than the outcome keeps: its tail, 40 lines at most.
    const auto xlong = t.start(kSpare, diagnostics(4));
    const std::int64_t xlongS = t.until(xlong.handle);
    QVERIFY2(xlongS >= 3600 && xlongS <= 7201, std::to_string(xlongS).c_str());
    const auto r4 = *t.twin->repairView(xlong.handle);
    QCOMPARE(r4.outcome.tests_size(), 9);
    const std::string& tail = r4.outcome.output_tail();
    QCOMPARE(std::count(tail.begin(), tail.end(), '\n'), std::ptrdiff_t(40));
    QVERIFY(tail.size() <= 4096);
    QCOMPARE(t.operatorEvents("diagnose " + std::string(kSpare)).size(), std::size_t(6));
}

void TwinRepairsTest::xid79NotFixedByReset() {
    Twin t("at 1m xid 79 gpu=r07-n17-g2\n");
    t.advance(70);
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
    const auto one = t.start(kSpare, reset(2, v1::TRAY_AFTER_REPAIR_RESUME));
    QVERIFY2(one.succeeded, one.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);  // the fault holds it DOWN while the reset runs
    QVERIFY(t.until(one.handle) > 0);
    const auto view = *t.twin->repairView(one.handle);
    QVERIFY(!view.outcome.succeeded());
    QVERIFY(view.outcome.command_ran());
    QCOMPARE(view.outcome.exit_status(), 15);
    QCOMPARE(view.outcome.output_tail(),
             std::string("Unable to determine the device handle for GPU 0018:01:00.0: GPU is lost.  Reboot the "
                         "system to recover this GPU\n"));
    QVERIFY2(view.message.find("fallen off the bus") != std::string::npos, view.message.c_str());
    // After RESUME, a step that did not succeed leaves the tray out: DOWN by its fault, drained by alice.
    const auto node = t.node(kSpare);
    QCOMPARE(node.state, v1::NODE_STATE_DOWN);
    QVERIFY(node.drainRequested);
    QVERIFY2(node.reason.find("Xid 79") != std::string::npos, node.reason.c_str());
    // A reset of another GPU runs, but does not reach the lost one: the fault persists and says so.
    const auto other = t.start(kSpare, reset(0, v1::TRAY_AFTER_REPAIR_RESUME));
    QVERIFY(t.until(other.handle) > 0);
    const auto otherView = *t.twin->repairView(other.handle);
    QVERIFY(otherView.outcome.succeeded());
    QVERIFY2(otherView.message.find("Xid 79 on g2 persists; down") != std::string::npos, otherView.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
    QCOMPARE(TwinRepairs::fixProbability(v1::ACTION_TYPE_RESET_GPU, {0, 79, 2, false, true, {}}), 0.0);
}

void TwinRepairsTest::xid79FixedByPowerCycle() {
    Twin t("at 1m xid 79 gpu=r07-n17-g2\n");
    t.advance(62);
    const std::size_t xids = t.xidEvents(79);
    QCOMPARE(xids, std::size_t(1));
    const auto cycle = t.start(kSpare, step(v1::ACTION_TYPE_POWER_CYCLE_NODE, v1::TRAY_AFTER_REPAIR_RESUME));
    QVERIFY2(cycle.succeeded, cycle.message.c_str());
    QCOMPARE(t.node(kSpare).reason, std::string("power-cycling (alice: break/fix check)"));
    QVERIFY(t.until(cycle.handle) > 0);
    const auto view = *t.twin->repairView(cycle.handle);
    QVERIFY2(view.outcome.succeeded(), describe(view).c_str());
    QVERIFY2(view.message.find("; Xid 79 on g2 cleared; back in service") != std::string::npos, view.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_IDLE);
    QVERIFY(!t.node(kSpare).drainRequested);
    QCOMPARE(t.xidEvents(79), xids);  // cleared: it does not come back
    // The twin's own repair of that fault, still scheduled (15-30 min after it), finds nothing to do.
    const std::size_t before = t.events.size();
    t.advance(30 * 60);
    for (std::size_t i = before; i < t.events.size(); ++i)
        QVERIFY2(t.events[i].message().find(kSpare) == std::string::npos, t.events[i].message().c_str());
    QCOMPARE(TwinRepairs::fixProbability(v1::ACTION_TYPE_POWER_CYCLE_NODE, {0, 79, 2, false, true, {}}), 0.9);
}

void TwinRepairsTest::rmaFaultNeverFixed() {
    // Xid 64: row remapping failed, the GPU goes back to its maker.
    Twin t("at 1m xid 64 gpu=r07-n18-g1\n");
    t.advance(62);
    QCOMPARE(t.node(kSpare2).state, v1::NODE_STATE_DOWN);
    for (const v1::ActionType type :
         {v1::ACTION_TYPE_RESET_GPU, v1::ACTION_TYPE_REBOOT_NODE, v1::ACTION_TYPE_POWER_CYCLE_NODE}) {
        const auto started = t.start(kSpare2, step(type, v1::TRAY_AFTER_REPAIR_RESUME));
        QVERIFY2(started.succeeded, started.message.c_str());
        QVERIFY(t.until(started.handle) > 0);
        const auto view = *t.twin->repairView(started.handle);
        QVERIFY2(view.message.find("Xid 64 on g1 persists") != std::string::npos, view.message.c_str());
        QCOMPARE(t.node(kSpare2).state, v1::NODE_STATE_DOWN);
        QCOMPARE(TwinRepairs::fixProbability(type, {1, 64, 1, true, true, {}}), 0.0);
    }
    const auto diag = t.start(kSpare2, diagnostics(1));
    QVERIFY(t.until(diag.handle) > 0);
    const auto report = *t.twin->repairView(diag.handle);
    QVERIFY(!report.outcome.succeeded());
    QCOMPARE(report.outcome.tests(0).result(), v1::DIAGNOSTIC_RESULT_FAIL);
    QCOMPARE(report.outcome.tests(0).detail(),
             std::string("GPU 1 had uncorrectable memory errors and row remapping failed. Run a field diagnostic on "
                         "the GPU."));
}

void TwinRepairsTest::xid48FailsMemoryTestAndResetClearsIt() {
    Twin t("at 1m xid 48 gpu=r07-n17-g2\n");
    t.advance(62);
    const auto diag = t.start(kSpare, diagnostics(2));
    QVERIFY(t.until(diag.handle) > 0);
    const auto report = *t.twin->repairView(diag.handle);
    QVERIFY(!report.outcome.succeeded());
    QCOMPARE(report.outcome.exit_status(), 205);
    QCOMPARE(report.outcome.tests_size(), 3);
    const auto& memory = report.outcome.tests(1);
    QCOMPARE(memory.category(), std::string("Hardware"));
    QCOMPARE(memory.name(), std::string("memory"));
    QCOMPARE(memory.result(), v1::DIAGNOSTIC_RESULT_FAIL);
    QCOMPARE(memory.failed_gpus_size(), 1);
    QCOMPARE(memory.failed_gpus(0), 2u);
    // dcgmi cuts the text every 45 characters, mid-word here; the reader joins the pieces with a blank.
    QVERIFY2(memory.detail().rfind("CUDA APIs have indicated that a double-bit", 0) == 0, memory.detail().c_str());
    QVERIFY2(memory.detail().find("error has occured on GPU 2.") != std::string::npos, memory.detail().c_str());
    QCOMPARE(report.outcome.tests(0).result(), v1::DIAGNOSTIC_RESULT_PASS);
    QVERIFY2(report.message.find("memory on GPU 2") != std::string::npos, report.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);  // diagnostics report, they fix nothing

    const auto fix = t.start(kSpare, reset(2, v1::TRAY_AFTER_REPAIR_RESUME));
    QVERIFY(t.until(fix.handle) > 0);
    const auto fixed = *t.twin->repairView(fix.handle);
    QVERIFY2(fixed.message.find("Xid 48 on g2 cleared; back in service") != std::string::npos, fixed.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_IDLE);
    const auto again = t.start(kSpare, diagnostics(2));
    QVERIFY(t.until(again.handle) > 0);
    QVERIFY(t.twin->repairView(again.handle)->outcome.succeeded());
}

void TwinRepairsTest::refusals() {
    Twin t;
    t.advance(5);
    const auto held = t.start("r01-n03", step(v1::ACTION_TYPE_REBOOT_NODE));
    QVERIFY(!held.succeeded);
    QVERIFY2(held.message.find("r01-n03 is held by job llm-405b-1") != std::string::npos, held.message.c_str());
    QVERIFY(held.handle.empty());

    const auto first = t.start(kSpare, step(v1::ACTION_TYPE_REBOOT_NODE));
    QVERIFY(first.succeeded);
    const auto second = t.start(kSpare, diagnostics(1));
    QVERIFY(!second.succeeded);
    QVERIFY2(second.message.find(std::string(kSpare) + " already has a break/fix step running (" + first.handle +
                                 ":") != std::string::npos,
             second.message.c_str());
    QVERIFY(!t.start("r07-n99", step(v1::ACTION_TYPE_REBOOT_NODE)).succeeded);
    QVERIFY(!t.start(kSpare2, diagnostics(5)).succeeded);
    QVERIFY(!t.start(kSpare2, reset(4, v1::TRAY_AFTER_REPAIR_RESUME)).succeeded);
    QVERIFY(!t.start(kSpare2, step(v1::ACTION_TYPE_DRAIN_NODE)).succeeded);
    // None of the refusals touched the tray or left an event.
    QCOMPARE(t.node(kSpare2).state, v1::NODE_STATE_IDLE);
    QCOMPARE(t.operatorEvents("diagnose").size(), std::size_t(0));

    QVERIFY(t.act(TwinAction::isolateRack("r07", "alice: coolant check")).succeeded);
    const auto isolated = t.start(kSpare2, diagnostics(1));
    QVERIFY(!isolated.succeeded);
    QVERIFY2(isolated.message.find(std::string(kSpare2) + "'s rack r07 is isolated") != std::string::npos,
             isolated.message.c_str());
    // The reboot under way when the rack lost power ends there: not succeeded, the tray down with its rack.
    QVERIFY(t.until(first.handle) > 0);
    const auto cut = *t.twin->repairView(first.handle);
    QVERIFY(!cut.outcome.succeeded());
    QVERIFY2(cut.message.find("interrupted: rack r07 was isolated") != std::string::npos, cut.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_DOWN);
}

void TwinRepairsTest::sameSeedSameOutcome() {
    const auto runOnce = [](std::uint64_t seed) {
        Twin t("at 1m xid 79 gpu=r07-n17-g2\nat 1m xid 48 gpu=r07-n18-g0\n", seed);
        t.advance(62);
        const auto a = t.start(kSpare, step(v1::ACTION_TYPE_REBOOT_NODE, v1::TRAY_AFTER_REPAIR_RESUME));
        const auto b = t.start(kSpare2, reset(std::nullopt, v1::TRAY_AFTER_REPAIR_RESUME));
        t.until(a.handle);
        t.until(b.handle);
        std::string trace;
        for (const auto& e : t.events) trace += std::to_string(e.time_unix_ms()) + " " + e.message() + "\n";
        return trace;
    };
    const std::string one = runOnce(7);
    QCOMPARE(runOnce(7), one);
    QVERIFY(one.find("reboot r07-n17: back after") != std::string::npos);
    QVERIFY(one.find("reset all GPUs of r07-n18: 4 GPUs successfully reset") != std::string::npos);
}

void TwinRepairsTest::repairBackendStartsAndPolls() {
    Twin t;
    TwinControlAdapter adapter(*t.twin, std::chrono::seconds(10));
    QCOMPARE(adapter.name(), std::string("twin"));
    control::RepairStep reboot;
    reboot.type = v1::ACTION_TYPE_REBOOT_NODE;
    reboot.node = kSpare;
    reboot.after = v1::TRAY_AFTER_REPAIR_RESUME;
    reboot.reason = kReason;
    reboot.operationId = "op-1";
    QCOMPARE(adapter.expectedOutOfServiceSeconds(reboot), 600.0);
    control::RepairStep diagnostic = reboot;
    diagnostic.type = v1::ACTION_TYPE_RUN_DIAGNOSTICS;
    diagnostic.diagnosticLevel = 2;
    QCOMPARE(adapter.expectedOutOfServiceSeconds(diagnostic), 120.0);

    std::atomic<bool> ticking{true};
    std::thread ticker([&] {
        while (ticking) t.advance(1);
    });
    const control::RepairProgress started = adapter.start(reboot);
    QVERIFY2(!started.finished, started.message.c_str());
    QCOMPARE(started.outcome.backend(), std::string("twin"));
    QVERIFY(!started.outcome.handle().empty());
    control::RepairProgress progress = started;
    for (int i = 0; i < 20'000 && !progress.finished; ++i) {
        progress = adapter.poll(reboot, started.outcome.handle());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    reboot.node = "r01-n03";  // a job holds it
    const control::RepairProgress held = adapter.start(reboot);
    ticking = false;
    ticker.join();
    QVERIFY2(progress.finished, progress.message.c_str());
    QVERIFY2(progress.outcome.succeeded(), progress.message.c_str());
    QCOMPARE(progress.ratio, 1.0);
    QVERIFY2(progress.message.find("reboot r07-n17: back after") == 0, progress.message.c_str());
    QCOMPARE(t.node(kSpare).state, v1::NODE_STATE_IDLE);
    QVERIFY(held.finished);
    QVERIFY(!held.outcome.succeeded());
    QVERIFY2(held.message.find("held by job") != std::string::npos, held.message.c_str());
    const control::RepairProgress gone = adapter.poll(reboot, "twin-99");
    QVERIFY(gone.finished);
    QVERIFY(!gone.outcome.succeeded());
}

QTEST_GUILESS_MAIN(TwinRepairsTest)
#include "tst_twin_repairs.moc"
