// OperationsEngine under load (issue 13 item 7): finished operations are bounded in memory, and
// the audit log's write (fsync) does not hold the engine's lock, so one slow disk write does not
// stall every other console's calls. WATCHFLOOR_TEST_SCALE=full runs the 100,000-operation
// version (CTest label `long`); the default suite runs a smaller one.
#include "ControlTestFleet.h"
#include "OperationsEngine.h"
#include "SanitizerBuild.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <future>

using namespace watchfloor::server::control;
using control_test::kAlice;
using control_test::TestFleet;
namespace v1 = watchfloor::v1;

namespace {

bool fullScale() { return qEnvironmentVariable("WATCHFLOOR_TEST_SCALE") == "full"; }

// Succeeds at once and remembers nothing: the engine's own memory is what is measured.
class InstantActuator : public Actuator {
public:
    ActionOutcome drainNode(const std::string&, const std::string&) override { return ActionOutcome::success("ok"); }
    ActionOutcome resumeNode(const std::string&) override { return ActionOutcome::success("ok"); }
    ActionOutcome requeueJob(const std::string&, const std::vector<std::string>&) override {
        return ActionOutcome::success("requeued");
    }
    ActionOutcome isolateRack(const std::string&, const std::vector<std::string>&, const std::string&) override {
        return ActionOutcome::success("ok");
    }
    ActionOutcome restoreRack(const std::string&, const std::vector<std::string>&) override {
        return ActionOutcome::success("ok");
    }
};

long residentKiB() {
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLong();
    return -1;
}

v1::ActionRequest restart(int i) {
    v1::ActionRequest request;
    request.set_request_id("restart-" + std::to_string(i));
    request.set_type(v1::ACTION_TYPE_RESTART_JOB);
    request.set_job_name("llm-1");
    request.set_reason("loss spike, restart from the checkpoint");
    return request;
}

// A scratch folder in memory when there is one: the test measures the engine, not the disk.
QString scratchRoot() {
    return QDir("/dev/shm").exists() ? QStringLiteral("/dev/shm/tst_control_memory-XXXXXX") : QString();
}

}  // namespace

class ControlMemoryTest : public QObject {
    Q_OBJECT

private slots:
    void finishedOperationsStayBounded() {
        const int operations = fullScale() ? 100'000 : 12'000;
        const std::size_t kept = fullScale() ? 10'000 : 1'000;
        QTemporaryDir dir(scratchRoot());
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("audit.jsonl").toStdString();
        TestFleet fleet;
        fleet.placeJob("llm-1", {"r01-n01", "r01-n02"}, 60);
        InstantActuator actuator;
        auto audit = AuditLog::open(path).log;
        QVERIFY(audit);
        OperationsConfig config;
        config.maxFinishedOperations = kept;
        OperationsEngine engine(fleet, actuator, *audit, config);

        std::string firstId;
        long warmKiB = 0;
        for (int i = 0; i < operations; ++i) {
            const auto result = engine.execute(kAlice, restart(i));
            QVERIFY2(result.status.ok(), result.status.error_message().c_str());
            QCOMPARE(result.operation.state(), v1::OPERATION_STATE_SUCCEEDED);
            if (i == 0) firstId = result.operation.id();
            if (i == 2 * static_cast<int>(kept)) warmKiB = residentKiB();
            QVERIFY(engine.operationsInMemory() <= kept);
        }
        const long endKiB = residentKiB();
        qInfo("%d operations: %zu in memory, RSS %ld KiB after %zu, %ld KiB at the end", operations,
              engine.operationsInMemory(), warmKiB, 2 * kept, endKiB);
        QCOMPARE(engine.operationsInMemory(), kept);
        // Flat: what the bounded set costs is reached early; the rest may not add to it.
        if (watchfloor::testing::kRssBoundsHold)
            QVERIFY2(endKiB - warmKiB < 16 * 1024, qPrintable(QString("RSS grew by %1 KiB").arg(endKiB - warmKiB)));

        const auto old = engine.get(firstId, "", {});
        QCOMPARE(old.status.error_code(), grpc::StatusCode::NOT_FOUND);
        QVERIFY2(old.status.error_message().find("audit log") != std::string::npos, old.status.error_message().c_str());
        v1::ListOperationsRequest all;
        all.set_page_size(1000);
        QCOMPARE(engine.list(all).response.operations(0).request_id(), "restart-" + std::to_string(operations - 1));
    }

    // The audit "file" is a pipe nobody reads: the engine's write blocks in the kernel, as on a
    // stalled disk. Other calls on the engine must still be answered meanwhile.
    void auditWriteDoesNotHoldTheEngineLock() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("audit.fifo").toStdString();
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
        const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(reader >= 0);
        auto audit = AuditLog::open(path).log;
        QVERIFY(audit);
        const int filler = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(filler >= 0);
        const std::string block(4096, 'x');
        while (::write(filler, block.data(), block.size()) > 0) {}  // the pipe is full now

        TestFleet fleet;
        fleet.placeJob("llm-1", {"r01-n01"}, 60);
        InstantActuator actuator;
        OperationsEngine engine(fleet, actuator, *audit, OperationsConfig{});
        auto stuck = std::async(std::launch::async, [&] { return engine.execute(kAlice, restart(1)); });
        QTest::qWait(300);  // let it reach the write
        QVERIFY(stuck.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);

        auto listed = std::async(std::launch::async, [&] { return engine.list({}); });
        const bool answered = listed.wait_for(std::chrono::seconds(2)) == std::future_status::ready;

        // Unblock the writer (a pipe cannot be fsync'ed, so that action is refused: nothing ran).
        std::string sink(1 << 16, '\0');
        for (int round = 0; round < 1000 && stuck.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready;
             ++round)
            while (::read(reader, sink.data(), sink.size()) > 0) {}
        QVERIFY2(answered, "ListOperations waited for another call's audit write");
        QCOMPARE(listed.get().response.operations_size(), 0);  // not accepted before it is durable
        QCOMPARE(stuck.get().status.error_code(), grpc::StatusCode::UNAVAILABLE);
        ::close(filler);
        ::close(reader);
    }
};

QTEST_GUILESS_MAIN(ControlMemoryTest)
#include "tst_control_memory.moc"
