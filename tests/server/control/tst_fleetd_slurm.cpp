// fleetd --scheduler slurm end to end: the real fleetd process against a real slurmctld + slurmd
// (scripts/slurm-loopback) whose nodes are named like the fleet's trays (--racks 1: r01-n01..18).
// Drains through the ControlService reach `sinfo -R`, drains typed into scontrol reach the
// Subscribe stream, and a dead slurmctld fails the drain with Slurm's words without anything
// being shown as drained. Skips only when not root or the Slurm packages are missing.

#include "FleetdProcess.h"
#include "SlurmTestSupport.h"
#include "StreamTestSupport.h"
#include "watchfloor/v1/control.grpc.pb.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <grpcpp/grpcpp.h>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace v1 = watchfloor::v1;
using watchfloor::server::testing::deadlineIn;
using watchfloor::server::testing::dedicatedChannel;
using watchfloor::server::testing::TestStream;
using namespace std::chrono_literals;

namespace {

constexpr const char* kOperatorToken = "operator-token-slurm-00001";

// Every tray's latest node state and reason as the Subscribe stream tells them, read on a
// thread of its own.
class TrayStates {
public:
    TrayStates(const std::string& address, const v1::Topology& topology) : stream_(address, {}, 10min) {
        for (const auto& node : topology.nodes()) names_[node.index()] = node.name();
        reader_ = std::thread([this] { readLoop(); });
    }
    ~TrayStates() {
        stream_.cancel();
        reader_.join();
    }
    std::optional<v1::EntityState> of(const std::string& tray) const {
        std::lock_guard lock(mutex_);
        const auto found = states_.find(tray);
        return found == states_.end() ? std::nullopt : std::optional(found->second);
    }
    v1::NodeState nodeState(const std::string& tray) const {
        const auto state = of(tray);
        return state ? state->node_state() : v1::NODE_STATE_UNSPECIFIED;
    }
    QString reason(const std::string& tray) const {
        const auto state = of(tray);
        return state ? QString::fromStdString(state->reason()) : QString();
    }
    // Whether the stream showed the tray DRAINING or DRAINED since forgetDrained(tray).
    // A job name the fleet source (the twin) knows, from the first snapshot.
    std::string anyJobName() const {
        std::lock_guard lock(mutex_);
        return jobNames_.empty() ? std::string() : *jobNames_.begin();
    }
    bool sawDrained(const std::string& tray) const {
        std::lock_guard lock(mutex_);
        return drainedSeen_.count(tray) > 0;
    }
    void forgetDrained(const std::string& tray) {
        std::lock_guard lock(mutex_);
        drainedSeen_.erase(tray);
    }

private:
    void readLoop() {
        v1::SubscribeResponse response;
        while (stream_.read(&response)) {
            const auto& states = response.has_snapshot() ? response.snapshot().states() : response.delta().states();
            std::lock_guard lock(mutex_);
            for (const auto& job : response.snapshot().jobs()) jobNames_.insert(job.name());
            for (const auto& state : states) {
                const auto name = names_.find(state.entity_index());
                if (name == names_.end()) continue;
                states_[name->second] = state;
                if (state.node_state() == v1::NODE_STATE_DRAINED || state.node_state() == v1::NODE_STATE_DRAINING)
                    drainedSeen_.insert(name->second);
            }
        }
    }

    TestStream stream_;
    std::map<std::uint32_t, std::string> names_;
    mutable std::mutex mutex_;
    std::map<std::string, v1::EntityState> states_;
    std::set<std::string> drainedSeen_;
    std::set<std::string> jobNames_;
    std::thread reader_;
};

}  // namespace

class TestFleetdSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    slurm_test::LoopbackCluster cluster_;
    QString skipReason_;
    watchfloor::testing::FleetdProcess fleetd_;
    std::unique_ptr<TrayStates> trays_;
    std::unique_ptr<v1::ControlService::Stub> control_;
    int requestCount_ = 0;

    v1::ActionRequest request(v1::ActionType type, const std::string& node, const std::string& reason = {}) {
        v1::ActionRequest action;
        action.set_request_id("tst-fleetd-slurm-" + std::to_string(++requestCount_));
        action.set_type(type);
        action.set_node_name(node);
        action.set_reason(reason);
        return action;
    }
    v1::ActionRequest rackRequest(v1::ActionType type, const std::string& rack, const std::string& reason) {
        v1::ActionRequest action = request(type, {}, reason);
        action.set_rack_name(rack);
        if (type == v1::ACTION_TYPE_ISOLATE_RACK) action.set_confirm_rack_name(rack);
        return action;
    }

    static void authorize(grpc::ClientContext& context, std::chrono::seconds deadline) {
        context.AddMetadata("authorization", std::string("Bearer ") + kOperatorToken);
        context.set_deadline(deadlineIn(deadline));
    }

    grpc::Status preview(const v1::ActionRequest& action, v1::ActionPreview* preview) {
        grpc::ClientContext context;
        authorize(context, 30s);
        v1::PreviewActionRequest request;
        *request.mutable_action() = action;
        return control_->PreviewAction(&context, request, preview);
    }

    // Preview, then execute with the previewed state version: what a console does.
    grpc::Status act(v1::ActionRequest action, v1::Operation* operation) {
        v1::ActionPreview previewed;
        if (auto status = preview(action, &previewed); !status.ok()) return status;
        if (!previewed.allowed())
            return {grpc::StatusCode::FAILED_PRECONDITION, "preview refused: " + previewed.refusal()};
        action.set_expected_state_version(previewed.state_version());
        grpc::ClientContext context;
        authorize(context, 60s);
        v1::ExecuteActionRequest execute;
        *execute.mutable_action() = action;
        return control_->ExecuteAction(&context, execute, operation);
    }

    v1::OperationState operationState(const std::string& operationId) {
        grpc::ClientContext context;
        authorize(context, 10s);
        v1::GetOperationRequest request;
        request.set_operation_id(operationId);
        v1::Operation operation;
        return control_->GetOperation(&context, request, &operation).ok() ? operation.state()
                                                                          : v1::OPERATION_STATE_UNSPECIFIED;
    }

    // A one-tray batch job on r01-n03 (the node with the slurmd), running when this returns true.
    bool submitRunningJob(const QString& name) {
        cluster_.run("sbatch", {"-w", "r01-n03", "-J", name, "--requeue", "-o", "/dev/null", "--wrap", "sleep 300"});
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 15000) {
            if (cluster_.run("squeue", {"-h", "-n", name, "-o", "%T"}).trimmed() == "RUNNING") return true;
            QTest::qWait(200);
        }
        return false;
    }

    QString fleetdLog() { return QString::fromUtf8(fleetd_.log()); }

    bool startFleetd() {
        const QString tokens = dir_.filePath("tokens");
        QFile file(tokens);
        if (!file.open(QIODevice::WriteOnly)) return false;
        file.write(QByteArray("token ") + kOperatorToken + " principal=alice role=operator\n");
        file.close();
        ::chmod(tokens.toLocal8Bit().constData(), 0600);
        return fleetd_.start({"--racks", "1", "--seed", "7", "--tokens", tokens, "--audit-log",
                              dir_.filePath("audit.jsonl"), "--scheduler", "slurm", "--slurm-conf",
                              cluster_.slurmConf()});
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (!cluster_.start(dir_.filePath("cluster"), {"--racks", "1", "--slurmd", "r01-n03"})) {
            skipReason_ = cluster_.skipReason();
            QVERIFY2(!skipReason_.isEmpty(), qPrintable(cluster_.error()));
            return;
        }
        QVERIFY2(startFleetd(), qPrintable(fleetd_.errorString()));
        QVERIFY2(fleetdLog().contains("Slurm node states read: 18 nodes"), qPrintable(fleetdLog()));
        auto channel = dedicatedChannel(fleetd_.address());
        control_ = v1::ControlService::NewStub(channel);
        grpc::ClientContext context;
        context.set_deadline(deadlineIn(10s));
        v1::GetTopologyRequest topologyRequest;
        v1::Topology topology;
        const auto status = v1::TelemetryService::NewStub(channel)->GetTopology(&context, topologyRequest, &topology);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(topology.nodes_size(), 18);
        trays_ = std::make_unique<TrayStates>(fleetd_.address(), topology);
        // The first snapshot already carries Slurm's view: fleetd reads it once before serving.
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_IDLE, 5000);
    }

    void cleanupTestCase() {
        trays_.reset();
        if (fleetd_.running()) QCOMPARE(fleetd_.terminate(), 0);
        cluster_.stop();
    }

    void drainFromTheControlApiReachesSinfo() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        v1::Operation operation;
        const auto status =
            act(request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "xid 79 on GPU 2; RMA ticket 4711"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        const QString sinfoR = cluster_.run("sinfo", {"-R", "-h", "-o", "%E|%N"});
        QVERIFY2(sinfoR.contains("alice: xid 79 on GPU 2; RMA ticket 4711|r01-n03"), qPrintable(sinfoR));
        // The action asks for a fresh reading, so the stream follows well within one poll period.
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_DRAINED, 5000);
        QCOMPARE(trays_->reason("r01-n03"), "alice: xid 79 on GPU 2; RMA ticket 4711");
    }

    void resumeFromTheControlApi() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        v1::Operation operation;
        const auto status = act(request(v1::ACTION_TYPE_RESUME_NODE, "r01-n03", "GPU replaced"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        // Right after a resume Slurm shows "idle*" until its next ping of the slurmd.
        QTRY_COMPARE_WITH_TIMEOUT(cluster_.run("sinfo", {"-h", "-n", "r01-n03", "-o", "%T"}).trimmed(), QString("idle"),
                                  10000);
        QVERIFY(!cluster_.run("sinfo", {"-R", "-h", "-o", "%N"}).contains("r01-n03"));
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_IDLE, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(trays_->reason("r01-n03"), QString(), 5000);
    }

    // A drain with work on the node is DRAINING until Slurm's job has left, then DRAINED.
    void drainWaitsForSlurmsJobToLeave() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(submitRunningJob("drain-me-job"));
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_ALLOCATED, 5000);
        v1::ActionPreview previewed;
        QVERIFY(preview(request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "bad DIMM"), &previewed).ok());
        QCOMPARE(previewed.jobs_hit_size(), 1);
        QCOMPARE(previewed.jobs_hit(0), "drain-me-job");  // Slurm's job on the node, not the twin's

        v1::Operation operation;
        const auto status = act(request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03", "bad DIMM"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(operation.state(), v1::OPERATION_STATE_RUNNING);
        QCOMPARE(operation.progress_message(), "draining: waiting for drain-me-job to leave r01-n03");
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_DRAINING, 5000);
        QCOMPARE(trays_->reason("r01-n03"), "alice: bad DIMM");

        cluster_.run("scancel", {"-n", "drain-me-job"});
        QTRY_COMPARE_WITH_TIMEOUT(operationState(operation.id()), v1::OPERATION_STATE_SUCCEEDED, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_DRAINED, 5000);

        QVERIFY(act(request(v1::ACTION_TYPE_RESUME_NODE, "r01-n03", "DIMM reseated"), &operation).ok());
        QCOMPARE(operation.state(), v1::OPERATION_STATE_SUCCEEDED);
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n03"), v1::NODE_STATE_IDLE, 5000);
    }

    // Slurm's share of an isolation: every tray drained, their jobs requeued; the facility part
    // is named in the result. Restore resumes the trays.
    void isolateAndRestoreRackThroughSlurm() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(submitRunningJob("rack-job"));
        v1::Operation operation;
        auto status = act(rackRequest(v1::ACTION_TYPE_ISOLATE_RACK, "r01", "coolant leak at the manifold"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        const QString result = QString::fromStdString(operation.progress_message());
        QVERIFY2(result.contains("drained 18 trays of rack r01") && result.contains("requeued jobs") &&
                     result.contains("facility controls"),
                 qPrintable(result));
        const QStringList reasons = cluster_.run("sinfo", {"-N", "-h", "-o", "%E"}).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(reasons.count("alice: coolant leak at the manifold"), 18);
        QTRY_VERIFY_WITH_TIMEOUT(cluster_.run("squeue", {"-h", "-n", "rack-job", "-o", "%T"}).startsWith("PENDING"),
                                 10000);
        QTRY_VERIFY_WITH_TIMEOUT(trays_->nodeState("r01-n18") == v1::NODE_STATE_DRAINED &&
                                     trays_->nodeState("r01-n03") == v1::NODE_STATE_DRAINED,
                                 5000);

        status = act(rackRequest(v1::ACTION_TYPE_RESTORE_RACK, "r01", "leak fixed"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        QVERIFY(!cluster_.run("sinfo", {"-N", "-h", "-o", "%E"}).contains("coolant leak"));
        cluster_.run("scancel", {"-n", "rack-job"});
        QTRY_VERIFY_WITH_TIMEOUT(trays_->nodeState("r01-n03") != v1::NODE_STATE_DRAINED, 5000);
    }

    // Restart = requeue: the Slurm job of that name goes back to the queue, never to run on the
    // excluded tray again. (Job facts for the preview come from the twin, so the name is one of its.)
    void restartJobRequeuesItExcludingTheBadTray() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const std::string job = trays_->anyJobName();
        QVERIFY2(!job.empty(), "the twin's snapshot listed no job");
        QVERIFY(submitRunningJob(QString::fromStdString(job)));
        v1::ActionRequest restart = request(v1::ACTION_TYPE_RESTART_JOB, {}, "Xid 79 on r01-n03");
        restart.set_job_name(job);
        restart.add_exclude_node_names("r01-n03");
        v1::Operation operation;
        const auto status = act(restart, &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        QString queued;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (queued = cluster_.run("squeue", {"-h", "-n", QString::fromStdString(job), "-o", "%T|%i"}).trimmed())
                .startsWith("PENDING|"),
            qPrintable(queued), 15000);
        const QString details = cluster_.run("scontrol", {"show", "job", queued.section('|', 1), "-o"});
        QVERIFY2(details.contains("ExcNodeList=r01-n03"), qPrintable(details));
        cluster_.run("scancel", {"-n", QString::fromStdString(job)});
    }

    void drainTypedIntoScontrolAppearsInTheStream() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QTRY_VERIFY_WITH_TIMEOUT(trays_->nodeState("r01-n05") != v1::NODE_STATE_DRAINED, 5000);
        QElapsedTimer timer;
        timer.start();
        const QString out =
            cluster_.run("scontrol", {"update", "nodename=r01-n05", "state=drain", "reason=by hand: fan noise"});
        QVERIFY2(out.trimmed().isEmpty(), qPrintable(out));
        QTRY_COMPARE_WITH_TIMEOUT(trays_->nodeState("r01-n05"), v1::NODE_STATE_DRAINED, 6000);
        qInfo("scontrol drain visible on the Subscribe stream after %lld ms", timer.elapsed());
        QCOMPARE(trays_->reason("r01-n05"), "by hand: fan noise");
        // Resuming it from Watchfloor works on a drain Watchfloor did not make.
        v1::Operation operation;
        const auto status = act(request(v1::ACTION_TYPE_RESUME_NODE, "r01-n05", "checked the fan"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QVERIFY2(operation.state() == v1::OPERATION_STATE_SUCCEEDED, operation.DebugString().c_str());
        QTRY_VERIFY_WITH_TIMEOUT(trays_->nodeState("r01-n05") != v1::NODE_STATE_DRAINED, 5000);
    }

    void unreachableSlurmFailsTheDrainAndShowsNothingDrained() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QTRY_VERIFY_WITH_TIMEOUT(trays_->nodeState("r01-n07") != v1::NODE_STATE_DRAINED &&
                                     trays_->nodeState("r01-n07") != v1::NODE_STATE_DRAINING,
                                 5000);
        const v1::NodeState before = trays_->nodeState("r01-n07");
        trays_->forgetDrained("r01-n07");
        QVERIFY(cluster_.stopController());
        // The next poll notices; states stay the last known ones and say so.
        QTRY_VERIFY2_WITH_TIMEOUT(trays_->reason("r01-n07").contains("last known state, Slurm unreachable since"),
                                  qPrintable(trays_->reason("r01-n07")), 30000);
        QCOMPARE(trays_->nodeState("r01-n07"), before);
        QVERIFY2(fleetdLog().contains("fleetd: Slurm unreachable:"), qPrintable(fleetdLog()));

        v1::Operation operation;
        const auto status = act(request(v1::ACTION_TYPE_DRAIN_NODE, "r01-n07", "xid 48"), &operation);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(operation.state(), v1::OPERATION_STATE_FAILED);
        QVERIFY2(QString::fromStdString(operation.error()).contains("Unable to contact slurm controller"),
                 operation.error().c_str());
        QTest::qWait(2500);  // at least one more poll: still not drained
        QVERIFY(!trays_->sawDrained("r01-n07"));
        QCOMPARE(trays_->nodeState("r01-n07"), before);
    }
};

QTEST_GUILESS_MAIN(TestFleetdSlurm)
#include "tst_fleetd_slurm.moc"
