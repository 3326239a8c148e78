// The fail-slow ladder end to end in a real fleetd on the twin (issue 16, item 4). A scenario
// makes r01-n03, a tray of llm-405b-1, 15 % slow. With --auto-evict-slow fleetd observes it,
// confirms it across windows, drains it as "auto" behind the circuit breaker (audited), and the
// job restarts on a spare and runs at full pace again. Without it the tray stays PROPOSED with its
// gain and cost, nothing is drained, and the operator's drain (what the console's button sends:
// preview, then execute with the preview's state version) evicts it.
#include "FleetdControlFixture.h"

#include <QTest>

#include <set>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

constexpr const char* kJob = "llm-405b-1";
constexpr const char* kSlowTray = "r01-n03";

const v1::FailSlowFinding* findingFor(const v1::Job& job, const std::string& node) {
    for (const auto& finding : job.fail_slow())
        if (finding.node_name() == node) return &finding;
    return nullptr;
}

bool onTray(const v1::Job& job, std::uint32_t node) {
    return std::find(job.node_indexes().begin(), job.node_indexes().end(), node) != job.node_indexes().end();
}

// What the job's stream showed on the way: the stages of the slow tray's finding and the slowest step.
struct Watched {
    std::set<int> stages;
    double slowestStepS = 0;
    v1::FailSlowFinding proposed;
};

// The job runs at full pace again, off the slow tray.
bool backAtFullPace(const v1::Job& job, std::uint32_t slowTray) {
    return job.state() == v1::JOB_STATE_RUNNING && !onTray(job, slowTray) && job.straggler_node_indexes_size() == 0 &&
           job.straggler_slowdown() < 1.05 && job.step_time_s() > 0;
}

std::function<bool(const v1::Job&)> recording(Watched& seen, std::function<bool(const v1::Job&)> done) {
    return [&seen, done = std::move(done)](const v1::Job& job) {
        if (const auto* finding = findingFor(job, kSlowTray)) {
            seen.stages.insert(finding->stage());
            if (finding->stage() == v1::FAIL_SLOW_STAGE_PROPOSED) seen.proposed = *finding;
        }
        if (job.straggler_slowdown() >= 1.05) seen.slowestStepS = std::max(seen.slowestStepS, job.step_time_s());
        return done(job);
    };
}

QString writeScenario(const QTemporaryDir& dir) {
    const QString path = dir.filePath("slow-tray.scenario");
    QFile scenario(path);
    if (!scenario.open(QIODevice::WriteOnly)) return {};
    scenario.write("at 1m straggler node=r01-n03 factor=1.15 for=10h\n");
    return path;
}

}  // namespace

class FleetdFailSlowTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    FleetdProcess fleetd_;

private slots:
    void automationOnEvictsAndTheJobIsBackAtFullPace() {
        const QString audit = dir_.filePath("audit-on.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "1", "--speed", "300", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--auto-drain", "5/10m", "--auto-evict-slow", "--fail-slow-window", "2m", "--scenario",
                                writeScenario(dir_)}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY(
            fleetd_.log().contains("fail-slow trays: confirmed ones are drained as 'auto' behind the circuit breaker"));
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::uint32_t slow = *watch.nodeIndex(kSlowTray);
        Watched seen;
        v1::Job after;
        QVERIFY2(watch.waitForJobWhere(kJob,
                                       recording(seen,
                                                 [&](const v1::Job& job) {
                                                     return seen.stages.count(v1::FAIL_SLOW_STAGE_EVICTING) &&
                                                            backAtFullPace(job, slow);
                                                 }),
                                       60'000ms, &after),
                 fleetd_.log().constData());
        QVERIFY(seen.stages.count(v1::FAIL_SLOW_STAGE_OBSERVED));
        qInfo("step %.2f s while slow, %.2f s after the eviction (ideal %.2f s)", seen.slowestStepS,
              after.step_time_s(), after.ideal_step_time_s());
        QVERIFY(seen.slowestStepS > 0);
        QVERIFY(after.step_time_s() < seen.slowestStepS / 1.08);
        QCOMPARE(after.gpu_count(), 288u);
        QVERIFY(fleetd_.waitForLog(QRegularExpression("fail-slow: r01-n03 1\\.\\d\\dx slow in job llm-405b-1"), 5'000)
                    .hasMatch());
        QVERIFY(fleetd_.waitForLog(QRegularExpression("fail-slow eviction of r01-n03 from llm-405b-1: op-"), 5'000)
                    .hasMatch());

        // The drain is automation's: principal "auto", the ladder's reason, in the audit log.
        ControlConnection console(fleetd_.address());
        v1::ListOperationsResponse all;
        QVERIFY(console.list(kAlice, &all).ok());
        int drains = 0;
        for (const auto& op : all.operations())
            if (op.request().type() == v1::ACTION_TYPE_DRAIN_NODE && op.request().node_name() == kSlowTray) {
                ++drains;
                QVERIFY(op.automated());
                QCOMPARE(op.principal(), "auto");
                QVERIFY2(op.request().reason().starts_with("auto: fail-slow: r01-n03 "), op.request().reason().c_str());
                QVERIFY(op.request().reason().find("GPU-h/day against a restart costing") != std::string::npos);
            }
        QCOMPARE(drains, 1);
        QCOMPARE(countAudit(audit,
                            [](const QJsonObject& r) {
                                return r.value("action") == "DRAIN_NODE" && r.value("target") == "r01-n03" &&
                                       r.value("principal") == "auto" && r.value("decision") == "allow";
                            }),
                 1);
        v1::FleetGoodput fleet;
        QVERIFY(
            watch.waitForFleet([](const v1::FleetGoodput& f) { return f.fail_slow_auto_evict(); }, 10'000ms, &fleet));
        QCOMPARE(fleetd_.terminate(), 0);
    }

    void automationOffLeavesItProposedUntilAnOperatorDrains() {
        const QString audit = dir_.filePath("audit-off.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "1", "--speed", "300", "--tokens", writeTokens(dir_), "--audit-log", audit,
                                "--fail-slow-window", "2m", "--scenario", writeScenario(dir_)}),
                 qPrintable(fleetd_.errorString()));
        QVERIFY(fleetd_.log().contains("confirmed ones are proposed to operators (--auto-evict-slow to drain them)"));
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::uint32_t slow = *watch.nodeIndex(kSlowTray);
        Watched seen;
        QVERIFY2(watch.waitForJobWhere(
                     kJob, recording(seen, [&](const v1::Job&) { return seen.proposed.windows_slow() > 0; }), 60'000ms),
                 fleetd_.log().constData());
        const v1::FailSlowFinding proposal = seen.proposed;
        QCOMPARE(proposal.windows_needed(), 3u);
        QVERIFY(proposal.windows_slow() >= 3);
        QVERIFY2(proposal.slowdown() >= 1.12, qPrintable(QString::number(proposal.slowdown())));
        // 288 GPUs at S = 1.15: ~950 GPU-h a day against one restart's ~110 (u0 + half of 30 min).
        QVERIFY2(proposal.gain_gpu_hours_per_day() > 5 * proposal.cost_gpu_hours(),
                 qPrintable(
                     QStringLiteral("%1 vs %2").arg(proposal.gain_gpu_hours_per_day()).arg(proposal.cost_gpu_hours())));
        QVERIFY(proposal.operation_id().empty());
        // Four windows on, it is still a proposal, still on the job, and nothing was drained.
        v1::Job later;
        QVERIFY(watch.waitForJobWhere(
            kJob,
            [&](const v1::Job& job) {
                const auto* f = findingFor(job, kSlowTray);
                return f && f->windows_slow() >= proposal.windows_slow() + 4;
            },
            60'000ms, &later));
        QCOMPARE(findingFor(later, kSlowTray)->stage(), v1::FAIL_SLOW_STAGE_PROPOSED);
        QVERIFY(onTray(later, slow));
        ControlConnection console(fleetd_.address());
        v1::ListOperationsResponse all;
        QVERIFY(console.list(kAlice, &all).ok());
        QCOMPARE(all.operations_size(), 0);
        v1::FleetGoodput fleet;
        QVERIFY(watch.waitForFleet([](const v1::FleetGoodput& f) { return f.fail_slow_proposals() >= 1; }, 10'000ms,
                                   &fleet));
        QVERIFY(!fleet.fail_slow_auto_evict());
        QVERIFY(fleet.fail_slow_gain_gpu_hours_per_day() >= proposal.gain_gpu_hours_per_day() * 0.99);

        // The operator's eviction through the control path, as the console sends it.
        v1::ActionRequest drain = drainNode(kSlowTray, "evict-slow-1", "fail-slow: evict r01-n03 from llm-405b-1");
        v1::ActionPreview preview;
        QVERIFY(console.preview(kAlice, drain, &preview).ok());
        QVERIFY(preview.allowed());
        QCOMPARE(preview.jobs_hit_size(), 1);
        QCOMPARE(preview.jobs_hit(0), kJob);
        drain.set_expected_state_version(preview.state_version());
        v1::Operation op;
        QVERIFY(console.execute(kAlice, drain, &op).ok());
        QVERIFY(!op.automated());
        Watched afterDrain;
        QVERIFY2(
            watch.waitForJobWhere(
                kJob, recording(afterDrain, [&](const v1::Job& job) { return backAtFullPace(job, slow); }), 60'000ms),
            fleetd_.log().constData());
        QCOMPARE(fleetd_.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdFailSlowTest)
#include "tst_fleetd_failslow.moc"
