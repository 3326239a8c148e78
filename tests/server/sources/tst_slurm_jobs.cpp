// Jobs a real site's Slurm runs: squeue's output parsed (compressed hostlists, bad lines named),
// jobs placed on the inventory's trays by host name, goodput from the progress gauges when a job
// publishes them, "no step telemetry" when it does not, and FINISHED once when it leaves the queue.

#include "FleetModel.h"
#include "SlurmJobs.h"

#include <QtTest>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

class TstSlurmJobs : public QObject {
    Q_OBJECT

private slots:
    void parsesSqueue() {
        std::vector<std::string> problems;
        const auto jobs = sources::parseSqueueJobs(
            "4242|pretrain|alice|2026-12-01T05:00:00|r01-n[01-03,05]\n"
            "17|bash|bob|N/A|r02-n18\r\n"
            "garbage line\n"
            "18|x|y|2026-12-01T05:00:00|r01-n[03-01]\n",
            &problems);
        QCOMPARE(jobs.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(jobs[0].id), QString("4242"));
        QCOMPARE(jobs[0].hosts, (std::vector<std::string>{"r01-n01", "r01-n02", "r01-n03", "r01-n05"}));
        QVERIFY(jobs[0].startMs > 0);
        QCOMPARE(jobs[1].startMs, std::int64_t(0));
        QCOMPARE(problems.size(), std::size_t(2));
        QVERIFY(QString::fromStdString(problems[0]).contains("garbage line"));
    }

    void jobsOnTraysWithAndWithoutProgress() {
        const FleetModel model(generatedFleetSpec(1, 2), 0);
        const auto& topology = model.topology();
        const std::uint32_t first = sources::firstIndexAfter(topology);
        sources::SlurmJobs slurm(topology, first, 4, "", std::chrono::seconds(5));
        const std::int64_t t0 = 1'800'000'000'000;
        const std::vector<sources::SqueueJob> queue = {
            {"100", "pretrain", "alice", t0 - 60'000, {"r01-n01", "r01-n02", "unknown-host"}},
            {"101", "eval", "bob", t0 - 60'000, {"r02-n03"}},
        };
        std::unordered_map<std::string, sources::JobProgress> progress;
        std::vector<v1::Job> out;
        for (int poll = 0; poll < 4; ++poll) {
            // Job 100 publishes its step: 10 steps per 5 s, a checkpoint at step 20.
            progress["100"] = {double(poll * 10), poll >= 2 ? 20.0 : -1.0, t0 + poll * 5'000};
            out.clear();
            slurm.apply(queue, progress, t0 + poll * 5'000, out);
        }
        QCOMPARE(out.size(), std::size_t(2));
        const v1::Job& pretrain = out[0].slurm_job_id() == "100" ? out[0] : out[1];
        const v1::Job& eval = out[0].slurm_job_id() == "100" ? out[1] : out[0];
        QCOMPARE(pretrain.index(), first);
        QCOMPARE(QString::fromStdString(pretrain.name()), QString("pretrain-100"));
        QCOMPARE(QString::fromStdString(pretrain.user()), QString("alice"));
        QCOMPARE(pretrain.node_indexes_size(), 2);  // the unknown host is not drawn
        QCOMPARE(pretrain.gpu_count(), 8u);
        QVERIFY(!pretrain.no_step_telemetry());
        QCOMPARE(pretrain.step(), std::uint64_t(30));
        QCOMPARE(pretrain.last_checkpoint_step(), std::uint64_t(20));
        QCOMPARE(pretrain.step_time_s(), 0.5);
        QVERIFY(pretrain.goodput_ratio() > 0 && pretrain.goodput_ratio() <= 1);
        QVERIFY(eval.no_step_telemetry());
        QCOMPARE(eval.goodput_ratio(), 0.0);
        QCOMPARE(slurm.hostsNotInInventory(), std::uint64_t(4));

        // Job 101 leaves the queue: FINISHED once, whole (its name kept), then never again.
        out.clear();
        slurm.apply({queue[0]}, progress, t0 + 25'000, out);
        const auto finished =
            std::find_if(out.begin(), out.end(), [](const v1::Job& j) { return j.slurm_job_id() == "101"; });
        QVERIFY(finished != out.end());
        QCOMPARE(finished->state(), v1::JOB_STATE_FINISHED);
        QCOMPARE(QString::fromStdString(finished->name()), QString("eval-101"));
        out.clear();
        slurm.apply({queue[0]}, progress, t0 + 30'000, out);
        QCOMPARE(out.size(), std::size_t(1));
    }

    void jobIndexesAreBoundedAndNeverReused() {
        const FleetModel model(generatedFleetSpec(1, 1), 0);
        sources::SlurmJobs slurm(model.topology(), 1000, 2, "", std::chrono::seconds(5));
        std::vector<v1::Job> out;
        slurm.apply({{"1", "a", "u", 0, {}}, {"2", "b", "u", 0, {}}, {"3", "c", "u", 0, {}}}, {}, 0, out);
        QCOMPARE(out.size(), std::size_t(2));  // the third has no index left
        out.clear();
        slurm.apply({{"4", "d", "u", 0, {}}}, {}, 0, out);  // 1 and 2 finished; 4 gets no old index
        for (const auto& job : out) QVERIFY(job.slurm_job_id() != "4");
    }
};

QTEST_GUILESS_MAIN(TstSlurmJobs)
#include "tst_slurm_jobs.moc"
