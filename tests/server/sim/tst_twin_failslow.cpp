// The fail-slow ladder end to end on the twin: a tray made 15 % slow is reported as the job's
// straggler, confirmed across windows, proposed with its gain and cost, drained by automation
// (principal "auto", audited, behind the circuit breaker), and the job restarts on a spare and
// runs at full pace again. With the breaker tripped the eviction is refused and stays a proposal.

#include "AutomationCircuitBreaker.h"
#include "FailSlowAutoEvict.h"
#include "FailSlowLadder.h"
#include "TickingTwin.h"

#include <QtTest>

#include <mutex>
#include <thread>

using namespace twintest;
using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kJob = "llm-405b-1";  // default fleet: r01..r04, spares elsewhere
constexpr const char* kSlowTray = "r01-n03";

// fleetd in miniature: the twin ticking on its own thread, the ladder fed by every tick's jobs
// (as fleetd's control hook is), the engine with a breaker, automation on the main thread.
struct Harness : TickingTwin {
    AutomationCircuitBreaker breaker{{5, std::chrono::minutes(10)}, [](const std::string&) {}};
    std::mutex mutex;  // ladder, confirmed, latest
    std::unique_ptr<FailSlowLadder> ladder;
    std::vector<FailSlowEviction> confirmed;
    v1::Job latest;
    std::vector<v1::FailSlowStage> stagesSeen;

    // No random failures: the slow tray is the story.
    Harness() : TickingTwin(noFailures(), "at 1m straggler node=r01-n03 factor=1.15 for=10h\n") {
        engine->setCircuitBreaker(&breaker);
        FailSlowConfig ladderConfig;
        ladderConfig.window = std::chrono::minutes(2);
        ladderConfig.confirmWindows = 3;
        std::map<std::uint32_t, std::string> names;
        for (const auto& node : twin->topology().nodes()) names[node.index()] = node.name();
        ladder = std::make_unique<FailSlowLadder>(ladderConfig, [names](std::uint32_t n) { return names.at(n); });
    }
    ~Harness() { stopTicking(); }  // the ticking thread feeds the ladder and the members below
    static SimConfig noFailures() {
        SimConfig config;
        config.hardwareRateScale = 0;
        return config;
    }
    void startTicking() {
        TickingTwin::startTicking([this](FleetChanges& changes) {
            std::lock_guard lock(mutex);
            auto found = ladder->observe(changes.jobs, toUnixMs(changes.time));
            confirmed.insert(confirmed.end(), found.begin(), found.end());
            for (const auto& job : changes.jobs)
                if (job.name() == kJob) {
                    latest = job;
                    for (const auto& f : job.fail_slow())
                        if (stagesSeen.empty() || stagesSeen.back() != f.stage()) stagesSeen.push_back(f.stage());
                }
        });
    }
    v1::Job job() {
        std::lock_guard lock(mutex);
        return latest;
    }
    std::optional<FailSlowEviction> nextConfirmed() {
        std::lock_guard lock(mutex);
        if (confirmed.empty()) return std::nullopt;
        FailSlowEviction e = confirmed.front();
        confirmed.erase(confirmed.begin());
        return e;
    }
    // Waits (wall time, the twin running ~1,000x) for `done`; false after ~60 s.
    bool waitUntil(const std::function<bool()>& done) {
        for (int i = 0; i < 12000; ++i) {
            if (done()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return false;
    }
    std::optional<FailSlowEviction> waitForConfirmation() {
        std::optional<FailSlowEviction> e;
        waitUntil([&] { return (e = nextConfirmed()).has_value(); });
        return e;
    }
};

bool onTray(const v1::Job& job, std::uint32_t node) {
    return std::find(job.node_indexes().begin(), job.node_indexes().end(), node) != job.node_indexes().end();
}

}  // namespace

class TwinFailSlowTest : public QObject {
    Q_OBJECT

private slots:
    void slowTrayProposedEvictedAndJobBackToFullPace();
    void trippedBreakerLeavesItAProposal();
};

void TwinFailSlowTest::slowTrayProposedEvictedAndJobBackToFullPace() {
    Harness h;
    const std::uint32_t slow = nodeIndex(*h.twin, kSlowTray);
    h.startTicking();
    const auto eviction = h.waitForConfirmation();
    QVERIFY2(eviction, "the slow tray was never confirmed");
    QCOMPARE(eviction->job, kJob);
    QCOMPARE(eviction->node, kSlowTray);
    QVERIFY2(eviction->slowdown >= 1.12, qPrintable(QString::number(eviction->slowdown)));
    QVERIFY(eviction->gainGpuHoursPerDay > eviction->costGpuHours);  // 288 GPUs: ~880 vs ~50 GPU-h
    QVERIFY(h.waitUntil([&] {
        const v1::Job j = h.job();
        return j.fail_slow_size() == 1 && j.fail_slow(0).stage() == v1::FAIL_SLOW_STAGE_PROPOSED;
    }));
    const double slowStepS = h.job().step_time_s();

    // Automation on: the tray is drained as "auto", audited, and the job leaves it.
    FailSlowAutoEvict automation(*h.engine);
    const OperationResult drain = automation.evict(*eviction);
    QVERIFY2(drain.status.ok(), drain.status.error_message().c_str());
    QVERIFY(drain.operation.automated());
    QCOMPARE(drain.operation.principal(), "auto");
    {
        std::lock_guard lock(h.mutex);
        h.ladder->evicting(eviction->job, eviction->node, drain.operation.id());
    }
    QVERIFY(QString::fromStdString(drain.operation.request().reason())
                .startsWith(QStringLiteral("auto: fail-slow: r01-n03 ")));
    QVERIFY(h.waitUntil(
        [&] { return h.engine->get(drain.operation.id(), "").operation.state() == v1::OPERATION_STATE_SUCCEEDED; }));
    QCOMPARE(h.twin->nodeView(kSlowTray)->state, v1::NODE_STATE_DRAINED);
    // Back at full pace on a spare, without the tray.
    QVERIFY2(h.waitUntil([&] {
        const v1::Job j = h.job();
        return j.state() == v1::JOB_STATE_RUNNING && !onTray(j, slow) && j.straggler_node_indexes_size() == 0 &&
               j.straggler_slowdown() < 1.05;
    }),
             qPrintable(QStringLiteral("job still at S = %1").arg(h.job().straggler_slowdown())));
    const v1::Job after = h.job();
    qInfo("step %.2f s while slow, %.2f s after the eviction (ideal %.2f s)", slowStepS, after.step_time_s(),
          after.ideal_step_time_s());
    QVERIFY(after.step_time_s() < slowStepS / 1.08);
    QCOMPARE(after.gpu_count(), 288u);
    {
        std::lock_guard lock(h.mutex);
        QVERIFY(std::find(h.stagesSeen.begin(), h.stagesSeen.end(), v1::FAIL_SLOW_STAGE_OBSERVED) !=
                h.stagesSeen.end());
        QVERIFY(std::find(h.stagesSeen.begin(), h.stagesSeen.end(), v1::FAIL_SLOW_STAGE_EVICTING) !=
                h.stagesSeen.end());
    }
    // The drain is in the audit log as automation's.
    QFile log(h.dir.filePath("audit.jsonl"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(log.readAll())
                .contains(QStringLiteral(
                    "\"action\":\"DRAIN_NODE\",\"target\":\"r01-n03\",\"reason\":\"auto: fail-slow: r01-n03")));
    // A second delivery of the same confirmation is a retry, not a second drain.
    QCOMPARE(automation.evict(*eviction).operation.id(), drain.operation.id());
}

void TwinFailSlowTest::trippedBreakerLeavesItAProposal() {
    Harness h;
    h.breaker.restoreTripped("tripped before this test");
    h.startTicking();
    const auto eviction = h.waitForConfirmation();
    QVERIFY(eviction);
    const OperationResult refused = FailSlowAutoEvict(*h.engine).evict(*eviction);
    QCOMPARE(refused.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    {
        std::lock_guard lock(h.mutex);
        h.ladder->refused(eviction->job, eviction->node, refused.status.error_message());
    }
    QVERIFY(h.waitUntil([&] {
        const v1::Job j = h.job();
        return j.fail_slow_size() == 1 && j.fail_slow(0).refusal() == "tripped before this test";
    }));
    QCOMPARE(h.job().fail_slow(0).stage(), v1::FAIL_SLOW_STAGE_PROPOSED);
    QVERIFY(h.twin->nodeView(kSlowTray)->state != v1::NODE_STATE_DRAINED);
}

QTEST_GUILESS_MAIN(TwinFailSlowTest)
#include "tst_twin_failslow.moc"
