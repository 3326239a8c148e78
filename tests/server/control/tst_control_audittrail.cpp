// AuditTrail (ListAuditEntries' reader): pages newest first by seq, a line still being written is
// left for a later call, a file replaced behind fleetd's back is indexed again, and a large log
// is read once: later calls read only what was appended (times printed for 200,000 records).
#include "AuditLog.h"
#include "AuditTrail.h"
#include "ExactInteger.h"

#include <google/protobuf/util/json_util.h>

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <optional>

using namespace watchfloor::server::control;

namespace {
AuditRecord record(int n) {
    AuditRecord r;
    r.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'800'000'000'000LL + n));
    r.principal = "alice";
    r.role = "operator";
    r.action = "DRAIN_NODE";
    r.target = "r01-n" + std::to_string(n % 18 + 1);
    r.reason = "alice: check " + std::to_string(n);
    r.requestId = "req-" + std::to_string(n);
    r.decision = "allow";
    r.result = "PENDING";
    return r;
}
void appendRaw(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    file.write(bytes);
}
}  // namespace

class TestAuditTrail : public QObject {
    Q_OBJECT
private slots:
    void pagesNewestFirst() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        auto log = AuditLog::open(path.toStdString()).log;
        QVERIFY(log);
        for (int i = 1; i <= 25; ++i) QVERIFY(log->append(record(i)).empty());
        AuditTrail trail(path.toStdString());
        auto page = trail.newestFirst(0, 10);
        QVERIFY(page.status.ok());
        QCOMPARE(page.response.entries_size(), 10);
        QCOMPARE(page.response.entries(0).seq(), 25u);
        QCOMPARE(page.response.entries(0).request_id(), std::string("req-25"));
        QCOMPARE(page.response.entries(0).reason(), std::string("alice: check 25"));
        QCOMPARE(page.response.entries(0).time_unix_ms(), 1'800'000'000'025LL);
        QCOMPARE(page.response.next_before_seq(), 16u);
        page = trail.newestFirst(16, 10);
        QCOMPARE(page.response.entries(0).seq(), 15u);
        page = trail.newestFirst(6, 10);
        QCOMPARE(page.response.entries_size(), 5);
        QCOMPARE(page.response.next_before_seq(), 0u);
        QCOMPARE(trail.newestFirst(0, 0).response.entries_size(), 25);  // default 100
        QCOMPARE(trail.newestFirst(1, 10).response.entries_size(), 0);
    }

    void lineBeingWrittenWaitsForALaterCall() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        auto log = AuditLog::open(path.toStdString()).log;
        QVERIFY(log->append(record(1)).empty());
        appendRaw(path, "{\"seq\":2,\"time\":\"2027");  // no newline yet
        AuditTrail trail(path.toStdString());
        QCOMPARE(trail.newestFirst(0, 10).response.entries_size(), 1);
        appendRaw(path, "\",\"action\":\"RESUME_NODE\"}\n");
        const auto page = trail.newestFirst(0, 10);
        QCOMPARE(page.response.entries_size(), 2);
        QCOMPARE(page.response.entries(0).action(), std::string("RESUME_NODE"));
    }

    void replacedFileIsIndexedAgain() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        {
            auto log = AuditLog::open(path.toStdString()).log;
            for (int i = 1; i <= 5; ++i) QVERIFY(log->append(record(i)).empty());
        }
        AuditTrail trail(path.toStdString());
        QCOMPARE(trail.newestFirst(0, 10).response.entries_size(), 5);
        QVERIFY(QFile::remove(path));
        {
            auto log = AuditLog::open(path.toStdString()).log;
            QVERIFY(log->append(record(7)).empty());
        }
        const auto page = trail.newestFirst(0, 10);
        QCOMPARE(page.response.entries_size(), 1);
        QCOMPARE(page.response.entries(0).request_id(), std::string("req-7"));
    }

    // Issue 13 item 1: lines AuditLog did not write are skipped and counted, never a reason to
    // answer UNAVAILABLE; the records around them are served, and so is the start-up reader.
    void foreignLinesAreSkippedAndCounted() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        auto log = AuditLog::open(path.toStdString()).log;
        QVERIFY(log);
        QVERIFY(log->append(record(1)).empty());
        appendRaw(path, "not json at all\n");
        appendRaw(path, "{\"seq\":2,\"time\":\"2027-01-15T08:00\n");                     // torn, in the middle
        appendRaw(path, "{\"seq\":3,\"junk\":\"" + QByteArray(3 << 20, 'y') + "\"}\n");  // over 1 MiB
        appendRaw(path, "{\"seq\":99999,\"x\":1}\n");                                    // a seq fleetd never wrote
        QVERIFY(log->append(record(2)).empty());
        QVERIFY(log->append(record(3)).empty());
        AuditTrail trail(path.toStdString(), log.get());
        for (int call = 0; call < 2; ++call) {
            const auto page = trail.newestFirst(0, 100);
            QVERIFY2(page.status.ok(), page.status.error_message().c_str());
            QCOMPARE(page.response.entries_size(), 3);
            QCOMPARE(page.response.entries(0).request_id(), std::string("req-3"));
            QCOMPARE(page.response.entries(2).request_id(), std::string("req-1"));
            QCOMPARE(page.response.unreadable_lines(), 4u);
        }
        std::size_t skipped = 0, visited = 0;
        QVERIFY(AuditLog::readRecords(
                    path.toStdString(), [&](const auto&) { ++visited; }, &skipped)
                    .empty());
        QCOMPARE(visited, 4u);  // the three records and the foreign line that is valid JSON
        QCOMPARE(skipped, 3u);
    }

    // Found by the audit_log fuzz target: a foreign line's numbers are whatever it says. One a field
    // cannot hold (1.8e42 ms, a negative seq) reads as 0 — before, a static_cast of it was undefined
    // behaviour (x86 gave INT64_MIN) — and the reader goes on.
    void numbersAFieldCannotHoldReadAsZero() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        auto log = AuditLog::open(path.toStdString()).log;
        QVERIFY(log);
        QVERIFY(log->append(record(1)).empty());
        appendRaw(path, "{\"seq\":2,\"time_unix_ms\":1.79613e+42,\"principal\":\"val\"}\n");
        appendRaw(path, "{\"seq\":3,\"time_unix_ms\":-1e300,\"principal\":\"eve\"}\n");
        appendRaw(path,
                  "{\"seq\":4,\"time_unix_ms\":9223372036854775807,\"principal\":\"max\"}\n");  // 2^63 as a double
        AuditTrail trail(path.toStdString());
        const auto page = trail.newestFirst(0, 10);
        QVERIFY2(page.status.ok(), page.status.error_message().c_str());
        QCOMPARE(page.response.entries_size(), 4);
        QCOMPARE(page.response.entries(0).principal(), std::string("max"));
        QCOMPARE(page.response.entries(0).time_unix_ms(), 0LL);
        QCOMPARE(page.response.entries(1).time_unix_ms(), 0LL);
        QCOMPARE(page.response.entries(2).principal(), std::string("val"));
        QCOMPARE(page.response.entries(2).time_unix_ms(), 0LL);
        QCOMPARE(page.response.entries(3).time_unix_ms(), 1'800'000'000'001LL);
        // The writer, reopened on a log whose last line's seq no integer holds, sets that line aside
        // as torn and continues from the last seq it can read, not from an undefined number.
        appendRaw(path, "{\"seq\":1e30}\n");
        log.reset();
        auto reopened = AuditLog::open(path.toStdString());
        QVERIFY(reopened.log);
        QVERIFY(reopened.repaired);
        QCOMPARE(reopened.log->lastSeq(), 4u);
    }

    void exactIntegerHoldsOnlyWhatFits() {
        using watchfloor::server::exactInteger;
        QCOMPARE(exactInteger<std::int64_t>(42.9), std::optional<std::int64_t>(42));
        QCOMPARE(exactInteger<std::int64_t>(-9223372036854775808.0), std::optional<std::int64_t>(INT64_MIN));
        QVERIFY(!exactInteger<std::int64_t>(9223372036854775808.0));  // 2^63
        QVERIFY(!exactInteger<std::int64_t>(std::nan("")));
        QVERIFY(!exactInteger<std::uint64_t>(-1.0));
        QVERIFY(!exactInteger<std::uint64_t>(18446744073709551616.0));  // 2^64
        QCOMPARE(exactInteger<std::uint64_t>(18446744073709549568.0),
                 std::optional<std::uint64_t>(18446744073709549568ULL));
        QVERIFY(!exactInteger<std::uint32_t>(1e10));
    }

    // Issue 13 item 1: a caller's field is bounded before it is logged, with the original length.
    void fieldsAreBoundedBeforeTheyAreLogged() {
        AuditRecord huge = record(1);
        huge.target = std::string(2 << 20, 'x');
        huge.peer = std::string("ipv4:127.0.0.1:1\xff\xfe", 18);  // not UTF-8
        const std::string line = AuditLog::toJsonLine(huge, 1);
        QVERIFY2(line.size() < 16 * 1024, qPrintable(QString("a line of %1 bytes").arg(line.size())));
        QVERIFY(line.find("...[truncated, 2097152 bytes]") != std::string::npos);
        google::protobuf::Struct parsed;
        QVERIFY(google::protobuf::util::JsonStringToMessage(line, &parsed).ok());
    }

    void largeLogIsReadOnce() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        {
            // Written directly: 200,000 fsyncs would take minutes.
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            for (int i = 1; i <= 200'000; ++i)
                file.write(QByteArray::fromStdString(AuditLog::toJsonLine(record(i), i) + '\n'));
        }
        AuditTrail trail(path.toStdString());
        QElapsedTimer timer;
        timer.start();
        auto page = trail.newestFirst(0, 100);
        const qint64 firstUs = timer.nsecsElapsed() / 1000;
        QCOMPARE(page.response.entries(0).seq(), 200'000u);
        timer.restart();
        for (int i = 0; i < 10; ++i) page = trail.newestFirst(page.response.next_before_seq(), 100);
        const qint64 laterUs = timer.nsecsElapsed() / 1000 / 10;
        QCOMPARE(page.response.entries(0).seq(), 199'000u);
        QCOMPARE(trail.indexedEntries(), std::size_t(200'000));
        qInfo("200,000 records (%lld MB): first page %lld us (indexes the file), later pages %lld us each",
              static_cast<long long>(QFile(path).size() >> 20), static_cast<long long>(firstUs),
              static_cast<long long>(laterUs));
        QVERIFY2(laterUs * 3 < firstUs, "later pages must not read the whole file again");
    }
};

QTEST_GUILESS_MAIN(TestAuditTrail)
#include "tst_control_audittrail.moc"
