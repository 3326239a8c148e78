#include "AuditLog.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using watchfloor::server::control::AuditLog;
using watchfloor::server::control::AuditRecord;

namespace {

AuditRecord record(const QString& requestId) {
    AuditRecord r;
    r.time = std::chrono::system_clock::now();
    r.principal = "bob";
    r.role = "operator";
    r.action = "ISOLATE_RACK";
    r.target = "rack r02";
    r.reason = "bob: leak \"suspected\"\ton manifold";
    r.requestId = requestId.toStdString();
    r.previewSummary = "jobs hit: llm-405b; GPUs lost: 72; NVLink domain after: unusable";
    r.decision = "allow";
    r.operationId = "op-1";
    return r;
}

QList<QJsonObject> readRecords(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QList<QJsonObject> records;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.isEmpty()) continue;
        QJsonParseError error{};
        const auto doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            records.append(QJsonObject{{"invalid", QString::fromUtf8(line)}});
            continue;
        }
        records.append(doc.object());
    }
    return records;
}

}  // namespace

class TestAudit : public QObject {
    Q_OBJECT
private slots:
    void writesOneJsonLinePerRecordWithAllFields() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        auto opened = AuditLog::open(path.toStdString());
        QVERIFY2(opened.log, opened.error.c_str());
        QVERIFY(!opened.repaired);
        QCOMPARE(opened.log->append(record("r-1")), std::string());
        QCOMPARE(opened.log->append(record("r-2")), std::string());

        const auto records = readRecords(path);
        QCOMPARE(records.size(), 2);
        const QJsonObject first = records[0];
        QCOMPARE(first["seq"].toInt(), 1);
        QCOMPARE(records[1]["seq"].toInt(), 2);
        QCOMPARE(first["principal"].toString(), "bob");
        QCOMPARE(first["role"].toString(), "operator");
        QCOMPARE(first["action"].toString(), "ISOLATE_RACK");
        QCOMPARE(first["target"].toString(), "rack r02");
        QCOMPARE(first["reason"].toString(), "bob: leak \"suspected\"\ton manifold");
        QCOMPARE(first["request_id"].toString(), "r-1");
        QVERIFY(first["preview"].toString().contains("GPUs lost: 72"));
        QCOMPARE(first["decision"].toString(), "allow");
        QCOMPARE(first["operation_id"].toString(), "op-1");
        QVERIFY(first["time"].toString().endsWith('Z'));

        struct stat info {};
        QCOMPARE(::stat(path.toLocal8Bit().constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
    }

    void seqContinuesAfterReopen() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        {
            auto opened = AuditLog::open(path.toStdString());
            QVERIFY(opened.log);
            QCOMPARE(opened.log->append(record("a")), std::string());
        }
        auto reopened = AuditLog::open(path.toStdString());
        QVERIFY(reopened.log);
        QCOMPARE(reopened.log->lastSeq(), 1u);
        QCOMPARE(reopened.log->append(record("b")), std::string());
        QCOMPARE(readRecords(path).last()["seq"].toInt(), 2);
    }

    void tornLastLine_data() {
        QTest::addColumn<QByteArray>("tail");
        QTest::newRow("no trailing newline") << QByteArray("{\"seq\":3,\"time\":\"2026-11-29T10:00:00Z\",\"prin");
        QTest::newRow("newline but invalid json") << QByteArray("{\"seq\":3,\"time\":\x01garbage\n");
        QTest::newRow("valid json without seq") << QByteArray("{\"other\":1}\n");
        QTest::newRow("single byte") << QByteArray("{");
    }

    void tornLastLine() {
        QFETCH(QByteArray, tail);
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        {
            auto opened = AuditLog::open(path.toStdString());
            QVERIFY(opened.log);
            QCOMPARE(opened.log->append(record("keep-1")), std::string());
            QCOMPARE(opened.log->append(record("keep-2")), std::string());
        }
        QFile file(path);
        const qint64 goodSize = file.size();
        QVERIFY(file.open(QIODevice::Append));
        file.write(tail);
        file.close();

        auto opened = AuditLog::open(path.toStdString());
        QVERIFY2(opened.log, opened.error.c_str());
        QVERIFY(opened.repaired);
        QCOMPARE(opened.repaired->file, path.toStdString());
        QCOMPARE(opened.repaired->byteOffset, static_cast<std::uint64_t>(goodSize));
        QCOMPARE(opened.repaired->length, static_cast<std::uint64_t>(tail.size()));
        const QString message = QString::fromStdString(describe(*opened.repaired));
        QVERIFY2(message.contains(QString::number(goodSize)) && message.contains(path), qPrintable(message));
        QCOMPARE(QFileInfo(path).size(), goodSize);

        QFile torn(path + ".torn");
        QVERIFY(torn.open(QIODevice::ReadOnly));
        QVERIFY(torn.readAll().startsWith(tail.endsWith('\n') ? tail : tail + '\n'));

        QCOMPARE(opened.log->lastSeq(), 2u);
        QCOMPARE(opened.log->append(record("after")), std::string());
        const auto records = readRecords(path);
        QCOMPARE(records.size(), 3);
        QCOMPARE(records[2]["seq"].toInt(), 3);
        QCOMPARE(records[2]["request_id"].toString(), "after");
    }

    void damageBeforeTheLastLineRefusesToOpen() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not json at all\n{\"seq\":");
        file.close();
        auto opened = AuditLog::open(path.toStdString());
        QVERIFY(!opened.log);
        QVERIFY2(QString::fromStdString(opened.error).contains("byte 0"), opened.error.c_str());
    }

    void unwritableLocationIsAnError() {
        auto opened = AuditLog::open("/nonexistent-dir/audit.jsonl");
        QVERIFY(!opened.log);
        QVERIFY(QString::fromStdString(opened.error).contains("/nonexistent-dir/audit.jsonl"));
    }

    // Every record the child reported as acknowledged must be in the file after SIGKILL.
    void killNineLosesNothingAcknowledged() {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        QSet<QString> acknowledged;
        int killsWithAcks = 0;
        for (int round = 0; round < 8; ++round) {
            QProcess child;
            child.start(QStringLiteral(AUDIT_APPEND_CHILD), {path, QStringLiteral("round%1").arg(round)});
            QVERIFY(child.waitForStarted());
            QVERIFY(child.waitForReadyRead(10000));  // appending has begun
            QTest::qWait(QRandomGenerator::global()->bounded(150));
            child.kill();  // SIGKILL
            QVERIFY(child.waitForFinished());
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);
            const QByteArray out = child.readAllStandardOutput();
            int acks = 0;
            for (const QByteArray& line : out.split('\n')) {
                if (line.startsWith("ack ")) {
                    acknowledged.insert(QString::fromUtf8(line.mid(4)));
                    ++acks;
                }
            }
            if (acks > 0) ++killsWithAcks;
            QVERIFY2(child.readAllStandardError().isEmpty(), "child reported an error");
        }
        QCOMPARE(killsWithAcks, 8);

        auto opened = AuditLog::open(path.toStdString());
        QVERIFY2(opened.log, opened.error.c_str());
        QSet<QString> inFile;
        qint64 previousSeq = 0;
        for (const QJsonObject& r : readRecords(path)) {
            QVERIFY2(!r.contains("invalid"), qPrintable(r["invalid"].toString()));
            QVERIFY(r["seq"].toInteger() > previousSeq);
            previousSeq = r["seq"].toInteger();
            inFile.insert(r["request_id"].toString());
        }
        for (const QString& id : acknowledged) QVERIFY2(inFile.contains(id), qPrintable("lost acknowledged " + id));
        qInfo("%lld records acknowledged across 8 SIGKILLs, %lld in the file",
              static_cast<long long>(acknowledged.size()), static_cast<long long>(inFile.size()));
    }
};

QTEST_GUILESS_MAIN(TestAudit)
#include "tst_control_audit.moc"
