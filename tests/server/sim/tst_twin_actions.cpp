// Operator actions on the twin: drain → DRAINING → job restarts on a spare → DRAINED with the
// goodput ledger paying; resume; requeue avoiding nodes; isolate (flow 0, trays down, jobs
// interrupted); restore refused during a leak; unknown names; requests from another thread while
// the twin ticks; the read view and its state versions.

#include "TwinActuator.h"
#include "TwinTestSupport.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace twintest;
using namespace watchfloor::v1;

namespace {

constexpr const char* kBigJob = "llm-405b-1";  // default fleet: r01..r04
constexpr const char* kSmallJob = "llm-8b-3";  // r07-n01..r07-n16; r07-n17/18 are the spares

struct Collected {
    std::vector<Event> events;
    std::vector<EntityState> states;
    std::map<std::string, Job> jobs;  // latest report per job
    void add(const FleetChanges& c) {
        events.insert(events.end(), c.events.begin(), c.events.end());
        states.insert(states.end(), c.states.begin(), c.states.end());
        for (const auto& job : c.jobs) jobs[job.name()] = job;
    }
    bool hasEvent(EventType type, const std::string& text) const {
        return std::any_of(events.begin(), events.end(), [&](const Event& e) {
            return e.type() == type && e.message().find(text) != std::string::npos;
        });
    }
};

// Queues the action, lets the twin tick once and returns what it answered.
TwinActionResult act(DigitalTwin& twin, TwinAction action, Collected* seen = nullptr) {
    TwinActionTicket ticket = twin.requestAction(std::move(action));
    run(twin, 1, [&](const FleetChanges& c) {
        if (seen) seen->add(c);
    });
    if (ticket.result.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        qFatal("the twin did not apply the action in its next advanceTo");
    return ticket.result.get();
}

// Ticks until `done` holds (checked after every second), at most `limitS` seconds.
bool runUntil(DigitalTwin& twin, std::int64_t limitS, const std::function<bool()>& done, Collected* seen = nullptr) {
    for (std::int64_t i = 0; i < limitS; ++i) {
        run(twin, 1, [&](const FleetChanges& c) {
            if (seen) seen->add(c);
        });
        if (done()) return true;
    }
    return false;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

class TwinActionsTest : public QObject {
    Q_OBJECT

private slots:
    void drainMovesJobToSpareAndGoodputPays();
    void drainIdleNodeAndResume();
    void drainDuringJobStartupCompletes_data();
    void drainDuringJobStartupCompletes();
    void resumeRefusedUnlessDrained();
    void drainOwnerTravelsWithTheTrayState();
    void requeueAvoidsExcludedNodes();
    void isolateCutsFlowPowersDownAndMovesJobs();
    void restoreRefusedDuringLeak();
    void unknownNamesAreNamed_data();
    void unknownNamesAreNamed();
    void readViewAndVersions();
    void concurrentRequestsWhileTicking();
    void timedOutRequestIsWithdrawn();
    void scenarioVerbsAct();
};

void TwinActionsTest::drainMovesJobToSpareAndGoodputPays() {
    auto twin = makeTwin(SimConfig{});
    Collected before;
    run(*twin, 10 * 60, [&](const FleetChanges& c) { before.add(c); });
    const Job jobBefore = before.jobs.at(kBigJob);
    QCOMPARE(jobBefore.state(), JOB_STATE_RUNNING);

    Collected seen;
    const auto result = act(*twin, TwinAction::drainNode("r01-n03", "alice: fan noise"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    QVERIFY2(result.message.find("draining") != std::string::npos, result.message.c_str());
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "drain r01-n03: alice: fan noise"));
    QVERIFY(seen.hasEvent(EVENT_TYPE_NODE_STATE, "r01-n03 draining: alice: fan noise"));
    QVERIFY(seen.hasEvent(EVENT_TYPE_JOB_INTERRUPTED, kBigJob));
    const auto draining = twin->nodeView("r01-n03");
    QVERIFY(draining);
    QCOMPARE(draining->state, NODE_STATE_DRAINING);
    QCOMPARE(draining->reason, std::string("alice: fan noise"));
    QVERIFY(contains(draining->jobs, kBigJob));

    // The job stops, gives the tray back (DRAINED) and takes a warm spare.
    QVERIFY(runUntil(
        *twin, 60, [&] { return twin->nodeView("r01-n03")->state == NODE_STATE_DRAINED; }, &seen));
    QVERIFY(twin->nodeView("r01-n03")->jobs.empty());
    QVERIFY(seen.hasEvent(EVENT_TYPE_NODE_STATE, "r01-n03 drained"));
    const auto job = twin->jobView(kBigJob);
    QVERIFY(!contains(job->nodes, "r01-n03"));
    QVERIFY(contains(job->nodes, "r07-n17") || contains(job->nodes, "r07-n18"));
    QCOMPARE(job->gpus, 4u * 18u * 4u);

    // It restarts from its latest checkpoint; the ledger records what the drain cost.
    QVERIFY(runUntil(
        *twin, 15 * 60, [&] { return seen.hasEvent(EVENT_TYPE_JOB_RESUMED, kBigJob); }, &seen));
    run(*twin, 1, [&](const FleetChanges& c) { seen.add(c); });
    const Job& after = seen.jobs.at(kBigJob);
    qInfo(
        "drain of r01-n03: wasted progress %.0f -> %.0f s, infrastructure recovery %.0f -> %.0f s, goodput %.4f -> "
        "%.4f",
        jobBefore.breakdown().wasted_progress_s(), after.breakdown().wasted_progress_s(),
        jobBefore.breakdown().infra_recovery_s(), after.breakdown().infra_recovery_s(), jobBefore.goodput_ratio(),
        after.goodput_ratio());
    QCOMPARE(after.interruptions(), jobBefore.interruptions() + 1);
    QVERIFY2(after.breakdown().wasted_progress_s() > jobBefore.breakdown().wasted_progress_s() + 60,
             qPrintable(QString::number(after.breakdown().wasted_progress_s())));
    QVERIFY(after.breakdown().infra_recovery_s() > jobBefore.breakdown().infra_recovery_s());
    QVERIFY(after.goodput_ratio() < jobBefore.goodput_ratio());
    QCOMPARE(twin->nodeView("r01-n03")->state, NODE_STATE_DRAINED);  // stays out until resumed
}

void TwinActionsTest::drainDuringJobStartupCompletes_data() {
    QTest::addColumn<int>("startS");
    QTest::addColumn<int>("seed");
    QTest::addColumn<QString>("node");
    for (const int seed : {1, 11})
        for (const char* node : {"r01-n03", "r03-n05"})
            for (const int s : {1, 5, 20, 45, 90, 180, 400})
                QTest::addRow("seed %d %s %d s after start", seed, node, s) << s << seed << QString(node);
}

// A drain must finish whatever phase the job is in (starting up, restoring, first step): a node
// left DRAINING forever holds an operation RUNNING and the operator never learns it is safe.
void TwinActionsTest::drainDuringJobStartupCompletes() {
    QFETCH(int, startS);
    QFETCH(int, seed);
    QFETCH(QString, node);
    SimConfig config;
    config.seed = std::uint64_t(seed);
    auto twin = makeTwin(config);
    run(*twin, startS, [](const FleetChanges&) {});
    const std::string name = node.toStdString();
    const auto result = act(*twin, TwinAction::drainNode(name, "alice: early drain"));
    QVERIFY2(result.succeeded, result.message.c_str());
    QVERIFY2(runUntil(*twin, 10 * 60, [&] { return twin->nodeView(name)->state == NODE_STATE_DRAINED; }),
             qPrintable(QStringLiteral("still %1 after 10 min; job %2")
                            .arg(int(twin->nodeView(name)->state))
                            .arg(QString::fromStdString(twin->nodeView(name)->jobs.empty()
                                                            ? std::string("none")
                                                            : twin->nodeView(name)->jobs.front()))));
}

void TwinActionsTest::drainIdleNodeAndResume() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 60);
    Collected seen;
    auto result = act(*twin, TwinAction::drainNode("r07-n18", "bob: firmware update"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    QCOMPARE(twin->nodeView("r07-n18")->state, NODE_STATE_DRAINED);  // no work: drained at once
    QVERIFY(seen.hasEvent(EVENT_TYPE_NODE_STATE, "r07-n18 drained: bob: firmware update"));
    result = act(*twin, TwinAction::drainNode("r07-n18", "bob: again"));
    QVERIFY(result.succeeded);
    QVERIFY2(result.message.find("already drained") != std::string::npos, result.message.c_str());

    result = act(*twin, TwinAction::resumeNode("r07-n18", "bob: done"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    const auto node = twin->nodeView("r07-n18");
    QCOMPARE(node->state, NODE_STATE_IDLE);
    QVERIFY(!node->drainRequested);
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "resume r07-n18: bob: done"));
    QVERIFY(seen.hasEvent(EVENT_TYPE_NODE_STATE, "r07-n18 back in service"));
}

void TwinActionsTest::drainOwnerTravelsWithTheTrayState() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 60);
    const std::uint32_t r07n18 = nodeIndex(*twin, "r07-n18");
    const std::uint32_t r07n17 = nodeIndex(*twin, "r07-n17");
    auto lastState = [](const Collected& seen, std::uint32_t node) {
        EntityState found;
        for (const auto& st : seen.states)
            if (st.entity_index() == node) found = st;
        return found;
    };
    Collected seen;
    QVERIFY(act(*twin, TwinAction::drainNode("r07-n18", "bob: firmware update"), &seen).succeeded);
    EntityState st = lastState(seen, r07n18);
    QCOMPARE(st.node_state(), NODE_STATE_DRAINED);
    QCOMPARE(st.drain_owner().kind(), DRAIN_OWNER_KIND_OPERATOR);
    QCOMPARE(st.drain_owner().principal(), "bob");
    QVERIFY(act(*twin,
                TwinAction::drainNode("r07-n17", "auto: Xid 79 on GPU 1 (event 4), fleet policy drains the node"),
                &seen)
                .succeeded);
    QCOMPARE(lastState(seen, r07n17).drain_owner().kind(), DRAIN_OWNER_KIND_AUTOMATION);
    QCOMPARE(lastState(seen, r07n17).drain_owner().principal(), "auto");
    // Back in service: no owner.
    Collected after;
    QVERIFY(act(*twin, TwinAction::resumeNode("r07-n18", "bob: done"), &after).succeeded);
    st = lastState(after, r07n18);
    QCOMPARE(st.node_state(), NODE_STATE_IDLE);
    QVERIFY(!st.has_drain_owner());
    // The health check's hold (the rack isolated: trays down) is its own owner.
    Collected isolated;
    QVERIFY(act(*twin, TwinAction::isolateRack("r06", "dave: drip under the manifold"), &isolated).succeeded);
    run(*twin, 120, [&](const FleetChanges& c) { isolated.add(c); });
    const std::uint32_t r06n01 = nodeIndex(*twin, "r06-n01");
    st = lastState(isolated, r06n01);
    QCOMPARE(st.node_state(), NODE_STATE_DOWN);
    QCOMPARE(st.drain_owner().kind(), DRAIN_OWNER_KIND_HEALTH_CHECK);
    // A person drains a tray the health check holds: the person's drain outranks it, at once.
    Collected drained;
    QVERIFY(act(*twin, TwinAction::drainNode("r06-n01", "carol: RMA ticket 1234"), &drained).succeeded);
    st = lastState(drained, r06n01);
    QCOMPARE(st.node_state(), NODE_STATE_DOWN);
    QCOMPARE(st.drain_owner().kind(), DRAIN_OWNER_KIND_OPERATOR);
    QCOMPARE(st.drain_owner().principal(), "carol");
}

void TwinActionsTest::resumeRefusedUnlessDrained() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 5 * 60);
    const auto result = act(*twin, TwinAction::resumeNode("r02-n05"));
    QVERIFY(!result.succeeded);
    QVERIFY2(result.message.find("r02-n05 is allocated, not drained or draining") != std::string::npos,
             result.message.c_str());
    QCOMPARE(twin->nodeView("r02-n05")->state, NODE_STATE_ALLOCATED);
}

void TwinActionsTest::requeueAvoidsExcludedNodes() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 8 * 60);
    Collected seen;
    const auto result = act(*twin, TwinAction::requeueJob(kSmallJob, {"r07-n02"}, "carol: NCCL hang"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    QVERIFY2(result.message.find("avoiding r07-n02") != std::string::npos, result.message.c_str());
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "requeue llm-8b-3 avoiding r07-n02: carol: NCCL hang"));
    QVERIFY(seen.hasEvent(EVENT_TYPE_JOB_INTERRUPTED, kSmallJob));
    QVERIFY(runUntil(*twin, 60, [&] { return !contains(twin->jobView(kSmallJob)->nodes, "r07-n02"); }));
    QCOMPARE(twin->nodeView("r07-n02")->state, NODE_STATE_IDLE);  // healthy, just not for this job
    QVERIFY(runUntil(
        *twin, 15 * 60, [&] { return seen.hasEvent(EVENT_TYPE_JOB_RESUMED, kSmallJob); }, &seen));
    QVERIFY(!contains(twin->jobView(kSmallJob)->nodes, "r07-n02"));
}

void TwinActionsTest::isolateCutsFlowPowersDownAndMovesJobs() {
    auto twin = makeTwin(SimConfig{});
    const Rack& r06 = rackNamed(*twin, "r06");
    run(*twin, 5 * 60);
    Collected seen;
    auto result = act(*twin, TwinAction::isolateRack("r06", "dave: drip under the manifold"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    QVERIFY2(result.message.find("llm-70b-2") != std::string::npos, result.message.c_str());
    float flow = -1, power = -1;
    run(*twin, 60, [&](const FleetChanges& c) {
        seen.add(c);
        flow = sampleOf(c, r06.cooling_loop_index(), RACK_LIQUID_FLOW_LPM);
        power = sampleOf(c, r06.index(), RACK_POWER_KW);
    });
    QCOMPARE(flow, 0.0f);
    QCOMPARE(power, 0.0f);
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "isolate r06: dave: drip under the manifold"));
    QVERIFY(seen.hasEvent(EVENT_TYPE_RACK_ISOLATED, "r06 isolated (dave: drip under the manifold)"));
    // The rack's state says "isolated"; its reason says why, not "isolated" again.
    QVERIFY(std::any_of(seen.states.begin(), seen.states.end(), [&](const EntityState& st) {
        return st.entity_index() == r06.index() && st.rack_state() == RACK_STATE_ISOLATED &&
               st.reason() == "dave: drip under the manifold";
    }));
    QVERIFY(std::any_of(seen.events.begin(), seen.events.end(), [](const Event& e) {
        return e.type() == EVENT_TYPE_JOB_INTERRUPTED && e.cause() == "operator_isolation";
    }));
    auto rack = twin->rackView("r06");
    QVERIFY(rack->isolated);
    QCOMPARE(rack->state, RACK_STATE_ISOLATED);
    QCOMPARE(rack->trays.size(), std::size_t(18));
    for (const auto& tray : rack->trays) QCOMPARE(tray.state, NODE_STATE_DOWN);
    QVERIFY(twin->jobView("llm-70b-2")->recovering);

    result = act(*twin, TwinAction::restoreRack("r06", "dave: fixed"), &seen);
    QVERIFY2(result.succeeded, result.message.c_str());
    QVERIFY(seen.hasEvent(EVENT_TYPE_RACK_RESTORED, "r06 restored (dave: fixed)"));
    rack = twin->rackView("r06");
    QVERIFY(!rack->isolated);
    for (const auto& tray : rack->trays) QVERIFY(tray.state == NODE_STATE_ALLOCATED || tray.state == NODE_STATE_IDLE);
    result = act(*twin, TwinAction::restoreRack("r06"));
    QVERIFY(!result.succeeded);
    QVERIFY2(result.message.find("r06 is not isolated") != std::string::npos, result.message.c_str());
}

void TwinActionsTest::restoreRefusedDuringLeak() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "leak.scn", "at 2m leak rack=r03\n");
    auto twin = makeTwin(config);
    run(*twin, 2 * 60 + 5);
    auto rack = twin->rackView("r03");
    QVERIFY(rack->leakActive);
    QVERIFY(rack->isolated);
    Collected seen;
    const auto result = act(*twin, TwinAction::restoreRack("r03", "erin: looks dry"), &seen);
    QVERIFY(!result.succeeded);
    QVERIFY2(result.message.find("r03 has an active coolant leak") != std::string::npos, result.message.c_str());
    QVERIFY(!seen.hasEvent(EVENT_TYPE_RACK_RESTORED, "r03"));
    QVERIFY(twin->rackView("r03")->isolated);
    // Isolating it again changes nothing.
    const auto again = act(*twin, TwinAction::isolateRack("r03", "erin: belt and braces"));
    QVERIFY(again.succeeded);
    QVERIFY2(again.message.find("already isolated") != std::string::npos, again.message.c_str());
}

void TwinActionsTest::unknownNamesAreNamed_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("exclude");
    QTest::addColumn<QString>("problem");
    QTest::newRow("drain") << int(TwinActionType::DrainNode) << "r01-n19" << QStringList{} << "unknown node 'r01-n19'";
    QTest::newRow("drain a rack") << int(TwinActionType::DrainNode) << "r01" << QStringList{} << "unknown node 'r01'";
    QTest::newRow("resume") << int(TwinActionType::ResumeNode) << "nope" << QStringList{} << "unknown node 'nope'";
    QTest::newRow("requeue") << int(TwinActionType::RequeueJob) << "llm-1t-9" << QStringList{}
                             << "unknown job 'llm-1t-9'";
    QTest::newRow("exclude") << int(TwinActionType::RequeueJob) << kSmallJob << QStringList{"r07-n01", "r99-n01", "x"}
                             << "unknown nodes 'r99-n01', 'x' in the exclude list; llm-8b-3 was not requeued";
    QTest::newRow("isolate") << int(TwinActionType::IsolateRack) << "r42" << QStringList{} << "unknown rack 'r42'";
    QTest::newRow("restore a node") << int(TwinActionType::RestoreRack) << "r01-n01" << QStringList{}
                                    << "unknown rack 'r01-n01'";
}

void TwinActionsTest::unknownNamesAreNamed() {
    QFETCH(int, type);
    QFETCH(QString, target);
    QFETCH(QStringList, exclude);
    QFETCH(QString, problem);
    auto twin = makeTwin(SimConfig{});
    run(*twin, 5 * 60);
    TwinAction action;
    action.type = static_cast<TwinActionType>(type);
    action.target = target.toStdString();
    action.reason = "frank: typo";
    for (const auto& node : exclude) action.excludeNodes.push_back(node.toStdString());
    Collected seen;
    const auto result = act(*twin, action, &seen);
    QVERIFY(!result.succeeded);
    QCOMPARE(QString::fromStdString(result.message), problem);
    QVERIFY(!seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, ""));
    QVERIFY(!seen.hasEvent(EVENT_TYPE_JOB_INTERRUPTED, ""));
}

void TwinActionsTest::readViewAndVersions() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 5 * 60);
    QVERIFY(!twin->nodeView("r01"));
    QVERIFY(!twin->rackView("r01-n01"));
    QVERIFY(!twin->jobView("r01"));
    const auto node = twin->nodeView("r05-n04");
    QCOMPARE(node->rack, std::string("r05"));
    QCOMPARE(node->gpus, 4u);
    QCOMPARE(node->jobs, std::vector<std::string>{"llm-70b-2"});
    const auto job = twin->jobView("llm-70b-2");
    QCOMPARE(job->nodes.size(), std::size_t(36));
    QCOMPARE(job->gpus, 144u);
    QVERIFY(job->checkpointAgeS > 0);
    QVERIFY(job->unsavedProgressS > 0 && job->unsavedProgressS <= job->checkpointAgeS);
    const auto rack = twin->rackView("r05");
    QVERIFY(!rack->leakActive && !rack->isolated);

    // Nothing happens to them for a minute: versions stay; the drain changes node, job and rack.
    run(*twin, 60);
    QCOMPARE(twin->nodeView("r05-n04")->stateVersion, node->stateVersion);
    QCOMPARE(twin->rackView("r05")->stateVersion, rack->stateVersion);
    QVERIFY(twin->jobView("llm-70b-2")->checkpointAgeS > job->checkpointAgeS);
    act(*twin, TwinAction::drainNode("r05-n04", "gina: test"));
    QVERIFY(twin->nodeView("r05-n04")->stateVersion > node->stateVersion);
    QVERIFY(twin->rackView("r05")->stateVersion > rack->stateVersion);
    QVERIFY(twin->jobView("llm-70b-2")->stateVersion > job->stateVersion);
    QVERIFY(twin->jobView("llm-70b-2")->recovering);
}

void TwinActionsTest::concurrentRequestsWhileTicking() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 60);
    std::atomic<bool> stop{false};
    std::thread ticker([&] {
        FleetChanges changes;
        while (!stop) {
            changes.clear();
            twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
        }
    });
    TwinActuator actuator(*twin, std::chrono::seconds(30));
    int succeeded = 0, refused = 0;
    std::atomic<int> reads{0}, badReads{0};
    std::thread reader([&] {  // a preview reading while the twin ticks and acts
        while (!stop) {
            for (const char* name : {"r07-n17", "r07-n18", "r03-n01"})
                badReads += twin->nodeView(name).has_value() ? 0 : 1;
            badReads += twin->rackView("r07")->trays.size() == 18 ? 0 : 1;
            badReads += twin->jobView(kSmallJob)->gpus == 64 ? 0 : 1;
            ++reads;
        }
    });
    for (int round = 0; round < 20; ++round) {
        for (const char* node : {"r07-n17", "r07-n18"}) {
            const auto drained = actuator.drainNode(node, "henry: round " + std::to_string(round));
            drained.succeeded ? ++succeeded : ++refused;
            const auto resumed = actuator.resumeNode(node);
            resumed.succeeded ? ++succeeded : ++refused;
        }
        const auto wrong = actuator.resumeNode("r03-n01");  // allocated: refused every time
        wrong.succeeded ? ++succeeded : ++refused;
    }
    stop = true;
    ticker.join();
    reader.join();
    QCOMPARE(badReads.load(), 0);
    QVERIFY(reads > 0);
    QCOMPARE(succeeded, 80);
    QCOMPARE(refused, 20);
    QCOMPARE(twin->nodeView("r07-n17")->state, NODE_STATE_IDLE);
}

void TwinActionsTest::timedOutRequestIsWithdrawn() {
    auto twin = makeTwin(SimConfig{});
    run(*twin, 60);
    TwinActuator actuator(*twin, std::chrono::milliseconds(50));
    const auto result = actuator.drainNode("r07-n17", "ivan: nobody ticks");  // no tick loop running
    QVERIFY(!result.succeeded);
    QVERIFY2(result.message.find("nothing was changed") != std::string::npos, result.message.c_str());
    run(*twin, 2);
    QCOMPARE(twin->nodeView("r07-n17")->state, NODE_STATE_IDLE);
    QVERIFY(!twin->withdrawAction(12345));
}

void TwinActionsTest::scenarioVerbsAct() {
    QTemporaryDir dir;
    SimConfig config;
    config.scenarioFile = writeFile(dir, "ops.scn",
                                    "at 6m drain node=r05-n02 reason=\"ops: fan # 3 noisy\"   # quoted: blanks and #\n"
                                    "at 7m requeue job=llm-8b-3 exclude=r07-n01,r07-n02\n"
                                    "at 20m resume node=r05-n02\n"
                                    "at 21m resume node=r05-n03\n");
    auto twin = makeTwin(config);
    Collected seen;
    run(*twin, 8 * 60, [&](const FleetChanges& c) { seen.add(c); });
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "drain r05-n02: ops: fan # 3 noisy"));
    QCOMPARE(twin->nodeView("r05-n02")->state, NODE_STATE_DRAINED);
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "requeue llm-8b-3 avoiding r07-n01, r07-n02: scenario: requeue"));
    const auto job = twin->jobView(kSmallJob);
    // The drain took one of the two spares: the requeued job waits, holding 14 of its 16 trays.
    QCOMPARE(job->nodes.size(), std::size_t(14));
    QCOMPARE(job->gpus, 64u);
    QVERIFY(!contains(job->nodes, "r07-n01") && !contains(job->nodes, "r07-n02"));
    QVERIFY(job->recovering);
    run(*twin, 14 * 60, [&](const FleetChanges& c) { seen.add(c); });
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "resume r05-n02: scenario: resume"));
    // Back in service, the tray goes straight to the job that was waiting for it.
    QCOMPARE(twin->nodeView("r05-n02")->state, NODE_STATE_ALLOCATED);
    QCOMPARE(twin->nodeView("r05-n02")->jobs, std::vector<std::string>{kSmallJob});
    QCOMPARE(twin->jobView(kSmallJob)->nodes.size(), std::size_t(16));
    QVERIFY(seen.hasEvent(EVENT_TYPE_OPERATOR_ACTION, "scenario action refused: r05-n03 is allocated, not drained"));
}

QTEST_GUILESS_MAIN(TwinActionsTest)
#include "tst_twin_actions.moc"
