// FailSlowLadder: observe -> confirm across distinct windows (restarts in between) -> propose
// with gain and cost worked by hand -> hand out once for automation; below-threshold reports,
// forgetting, refusals and the automated drain's reason.
#include "FailSlowAutoEvict.h"
#include "FailSlowLadder.h"

#include <QTest>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kMinuteMs = 60'000;

// 576 GPUs, u0 = 600 s, τ = 30 min; straggler r01-n03 (index 7) at S when `slow`.
v1::Job job(double slowdown, bool slow) {
    v1::Job j;
    j.set_name("llm-405b-1");
    j.set_state(v1::JOB_STATE_RUNNING);
    j.set_gpu_count(576);
    j.set_checkpoint_interval_s(1800);
    j.mutable_ettr_budget()->set_restart_overhead_s(600);
    j.set_straggler_slowdown(slowdown);
    if (slow) j.add_straggler_node_indexes(7);
    return j;
}

FailSlowLadder ladder(std::uint32_t confirm = 3) {
    FailSlowConfig config;
    config.window = std::chrono::minutes(1);
    config.confirmWindows = confirm;
    config.forgetWindows = 2;
    return FailSlowLadder(config,
                          [](std::uint32_t node) { return node == 7 ? std::string("r01-n03") : std::string("?"); });
}

std::vector<FailSlowEviction> tick(FailSlowLadder& l, std::vector<v1::Job>& jobs, std::int64_t minute) {
    return l.observe(jobs, minute * kMinuteMs + 1000);
}

}  // namespace

class TestFailSlow : public QObject {
    Q_OBJECT
private slots:
    void gainAndCostByHand() {
        // 576 × 24 × (1 − 1/1.15) = 13,824 × 0.130435 = 1,803.1 GPU-h a day
        QVERIFY(std::abs(failSlowGainGpuHoursPerDay(576, 1.15) - 1803.13) < 0.01);
        // 576 × (600 + 900) / 3600 = 240 GPU-h
        QCOMPARE(failSlowCostGpuHours(576, 600, 1800), 240.0);
        QCOMPARE(failSlowGainGpuHoursPerDay(576, 1.0), 0.0);
        QCOMPARE(failSlowGainGpuHoursPerDay(576, std::nan("")), 0.0);
        QCOMPARE(failSlowCostGpuHours(576, -5, std::nan("")), 0.0);
    }

    void observedThenProposedAcrossWindowsAndRestarts() {
        FailSlowLadder l = ladder();
        std::vector<v1::Job> jobs{job(1.15, true)};
        QVERIFY(tick(l, jobs, 0).empty());
        QCOMPARE(jobs[0].fail_slow_size(), 1);
        QCOMPARE(jobs[0].fail_slow(0).stage(), v1::FAIL_SLOW_STAGE_OBSERVED);
        QCOMPARE(jobs[0].fail_slow(0).windows_slow(), 1u);
        // Many reports in one window count once.
        jobs = {job(1.15, true)};
        QVERIFY(l.observe(jobs, 30'000).empty());
        QCOMPARE(jobs[0].fail_slow(0).windows_slow(), 1u);
        // The job restarts (recovering, no pace reported) in window 1, slow again in 2.
        jobs = {job(1.0, false)};
        jobs[0].set_state(v1::JOB_STATE_RECOVERING);
        QVERIFY(tick(l, jobs, 1).empty());
        QCOMPARE(jobs[0].fail_slow(0).windows_slow(), 1u);  // still listed, not counted
        jobs = {job(1.15, true)};
        QVERIFY(tick(l, jobs, 2).empty());
        jobs = {job(1.12, true)};
        const auto confirmed = tick(l, jobs, 3);
        QCOMPARE(confirmed.size(), 1u);
        QCOMPARE(confirmed[0].node, "r01-n03");
        QCOMPARE(confirmed[0].job, "llm-405b-1");
        QCOMPARE(confirmed[0].slowdown, 1.15);  // the highest seen
        QCOMPARE(confirmed[0].windows, 3u);
        QCOMPARE(confirmed[0].costGpuHours, 240.0);
        const v1::FailSlowFinding& f = jobs[0].fail_slow(0);
        QCOMPARE(f.stage(), v1::FAIL_SLOW_STAGE_PROPOSED);
        QCOMPARE(f.windows_needed(), 3u);
        QCOMPARE(f.node_index(), 7u);
        QCOMPARE(f.first_seen_unix_ms(), qint64(1000));
        QVERIFY(std::abs(f.gain_gpu_hours_per_day() - 1803.13) < 0.01);
        // Handed out once only.
        jobs = {job(1.15, true)};
        QVERIFY(tick(l, jobs, 4).empty());
        QCOMPARE(jobs[0].fail_slow(0).stage(), v1::FAIL_SLOW_STAGE_PROPOSED);
    }

    void belowThresholdIsNotFailSlow() {
        FailSlowLadder l = ladder(2);
        for (std::int64_t m = 0; m < 5; ++m) {
            std::vector<v1::Job> jobs{job(1.03, true)};
            QVERIFY(tick(l, jobs, m).empty());
            QCOMPARE(jobs[0].fail_slow_size(), 0);
        }
    }

    void evictingAndRefusedAreShownThenForgotten() {
        FailSlowLadder l = ladder(1);
        std::vector<v1::Job> jobs{job(1.2, true)};
        QCOMPARE(tick(l, jobs, 0).size(), 1u);
        l.refused("llm-405b-1", "r01-n03", "automation circuit breaker tripped");
        jobs = {job(1.2, true)};
        tick(l, jobs, 1);
        QCOMPARE(jobs[0].fail_slow(0).stage(), v1::FAIL_SLOW_STAGE_PROPOSED);
        QCOMPARE(jobs[0].fail_slow(0).refusal(), "automation circuit breaker tripped");
        l.evicting("llm-405b-1", "r01-n03", "op-42");
        jobs = {job(1.0, false)};
        tick(l, jobs, 2);
        QCOMPARE(jobs[0].fail_slow(0).stage(), v1::FAIL_SLOW_STAGE_EVICTING);
        QCOMPARE(jobs[0].fail_slow(0).operation_id(), "op-42");
        QVERIFY(jobs[0].fail_slow(0).refusal().empty());
        // Not reported for more than 2 windows: gone (the job runs without the tray).
        jobs = {job(1.0, false)};
        tick(l, jobs, 4);
        QCOMPARE(jobs[0].fail_slow_size(), 0);
        // Unknown jobs or trays are ignored.
        l.evicting("other", "r01-n03", "op-1");
        l.refused("llm-405b-1", "r09-n01", "x");
    }

    void reasonNamesTheTrayTheGainAndTheCost() {
        FailSlowEviction e{"llm-405b-1", "r01-n03", 1.15, 3, 1803.1, 240};
        QCOMPARE(failSlowReason(e),
                 "fail-slow: r01-n03 1.15x slow in job llm-405b-1 (3 windows); expected gain 1803 "
                 "GPU-h/day against a restart costing 240 GPU-h");
    }
};

QTEST_GUILESS_MAIN(TestFailSlow)
#include "tst_control_failslow.moc"
