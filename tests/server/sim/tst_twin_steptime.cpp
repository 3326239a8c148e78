// Per-tray step time (NODE_STEP_TIME_S), the straggler drill-down's data: a tray made 15 % slow
// reads 1.15x its job's other trays from the moment it is slowed, the job's step time is its
// slowest tray's, and trays of a job that is not computing send nothing.

#include "TwinTestSupport.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace twintest;
namespace v1 = watchfloor::v1;

namespace {

constexpr const char* kJob = "llm-405b-1";  // default fleet: racks r01..r04
constexpr const char* kSlowTray = "r01-n03";

// One tick's per-tray step times of a job, by node index.
std::map<std::uint32_t, float> trayStepTimes(const FleetChanges& changes, const v1::Job& job) {
    std::map<std::uint32_t, float> out;
    for (const std::uint32_t node : job.node_indexes())
        if (const float v = sampleOf(changes, node, v1::NODE_STEP_TIME_S); !std::isnan(v)) out[node] = v;
    return out;
}

float median(std::vector<float> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

const v1::Job* jobIn(const FleetChanges& changes, const char* name) {
    for (const auto& job : changes.jobs)
        if (job.name() == name) return &job;
    return nullptr;
}

}  // namespace

class TwinStepTime : public QObject {
    Q_OBJECT

private slots:
    void slowTrayReadsItsFactor() {
        QTemporaryDir dir;
        SimConfig config;
        config.hardwareRateScale = 0;  // no failures: the job computes throughout
        config.warmStart = std::chrono::hours(6);
        config.scenarioFile = writeFile(dir, "s.scn", "at 2m straggler node=r01-n03 factor=1.15 for=1h\n");
        auto twin = makeTwin(config);
        const std::uint32_t slow = nodeIndex(*twin, kSlowTray);

        std::vector<float> before, after;  // the slow tray over the job's median tray
        run(*twin, 10 * 60, [&](const FleetChanges& changes) {
            const v1::Job* job = jobIn(changes, kJob);
            if (!job || job->state() != v1::JOB_STATE_RUNNING) return;
            const auto steps = trayStepTimes(changes, *job);
            if (steps.size() != std::size_t(job->node_indexes_size()) || !steps.count(slow)) return;
            std::vector<float> all;
            float slowest = 0;
            for (const auto& [node, s] : steps) {
                all.push_back(s);
                slowest = std::max(slowest, s);
            }
            // A synchronous step runs at the pace of its slowest tray.
            QVERIFY2(std::abs(slowest - float(job->step_time_s())) < 1e-3f * slowest,
                     qPrintable(QString("slowest tray %1 s, job step %2 s").arg(slowest).arg(job->step_time_s())));
            const double elapsedS = std::chrono::duration<double>(changes.time - config.start).count();
            const float ratio = steps.at(slow) / median(all);
            if (elapsedS < 110)
                before.push_back(ratio);
            else if (elapsedS > 130)
                after.push_back(ratio);
        });
        QVERIFY2(before.size() > 60 && after.size() > 300,
                 qPrintable(QString("%1 ticks before, %2 after the slowdown").arg(before.size()).arg(after.size())));
        for (const float r : before)
            QVERIFY2(std::abs(r - 1.0f) < 0.005f, qPrintable(QString("before: %1x the median").arg(r)));
        for (const float r : after)
            QVERIFY2(std::abs(r - 1.15f) < 0.005f, qPrintable(QString("after: %1x the median, not 1.15x").arg(r)));
    }

    // A link flap on the slow tray slows its collectives for 10 min (an episode of 1 + 0.04 x 3):
    // the factors multiply, and when the episode ends the scripted slowness is still there.
    void aFlapOnTheSlowTrayStacksAndEnds() {
        QTemporaryDir dir;
        SimConfig config;
        config.hardwareRateScale = 0;
        config.warmStart = std::chrono::hours(6);
        config.scenarioFile = writeFile(dir, "s.scn",
                                        "at 1m straggler node=r01-n03 factor=1.15 for=1h\n"
                                        "at 2m link-flap nic=r01-n03-ib1 count=3\n");
        auto twin = makeTwin(config);
        const std::uint32_t slow = nodeIndex(*twin, kSlowTray);
        std::vector<float> during, afterwards;
        run(*twin, 16 * 60, [&](const FleetChanges& changes) {
            const v1::Job* job = jobIn(changes, kJob);
            const auto steps = job ? trayStepTimes(changes, *job) : std::map<std::uint32_t, float>{};
            if (!steps.count(slow)) return;
            std::vector<float> all;
            for (const auto& [node, s] : steps) all.push_back(s);
            const double elapsedS = std::chrono::duration<double>(changes.time - config.start).count();
            if (elapsedS > 130 && elapsedS < 700)
                during.push_back(steps.at(slow) / median(all));
            else if (elapsedS > 740)
                afterwards.push_back(steps.at(slow) / median(all));
        });
        QVERIFY(during.size() > 300 && afterwards.size() > 60);
        for (const float r : during)
            QVERIFY2(std::abs(r - 1.15f * 1.12f) < 0.005f,
                     qPrintable(QString("during the flap's episode: %1x").arg(r)));
        for (const float r : afterwards)
            QVERIFY2(std::abs(r - 1.15f) < 0.005f, qPrintable(QString("after it: %1x, not 1.15x").arg(r)));
    }

    void noStepTimesWhileTheJobIsNotComputing() {
        SimConfig config;
        config.hardwareRateScale = 0;  // cold start: the jobs initialise for minutes before the first step
        auto twin = makeTwin(config);
        bool sawInit = false;
        run(*twin, 30, [&](const FleetChanges& changes) {
            const v1::Job* job = jobIn(changes, kJob);
            if (!job || job->state() == v1::JOB_STATE_RUNNING) return;
            sawInit = true;
            QVERIFY2(trayStepTimes(changes, *job).empty(), "step times sent for a job that takes no steps");
        });
        QVERIFY(sawInit);
    }
};

QTEST_GUILESS_MAIN(TwinStepTime)
#include "tst_twin_steptime.moc"
