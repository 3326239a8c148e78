#include "AccessPolicy.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

Q_DECLARE_METATYPE(v1::Role)
Q_DECLARE_METATYPE(v1::ActionType)

namespace {

QString writeFile(const QTemporaryDir& dir, const QByteArray& text, mode_t mode) {
    const QString path = dir.filePath("tokens");
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(text);
    file.close();
    ::chmod(path.toLocal8Bit().constData(), mode);
    return path;
}

QStringList auditLines(const QString& path) {
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    QStringList lines;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty()) lines << QString::fromUtf8(line);
    return lines;
}

}  // namespace

class TestAccess : public QObject {
    Q_OBJECT
private slots:
    void roleMatrix_data() {
        QTest::addColumn<v1::Role>("role");
        QTest::addColumn<v1::ActionType>("action");
        QTest::addColumn<bool>("allowed");
        const v1::ActionType operatorActions[] = {v1::ACTION_TYPE_DRAIN_NODE,   v1::ACTION_TYPE_RESUME_NODE,
                                                  v1::ACTION_TYPE_RESTART_JOB,  v1::ACTION_TYPE_ISOLATE_RACK,
                                                  v1::ACTION_TYPE_RESTORE_RACK, v1::ACTION_TYPE_ACKNOWLEDGE_EVENT};
        for (auto action : operatorActions) {
            const auto name = actionName(action);
            QTest::addRow("viewer %s", name.c_str()) << v1::ROLE_VIEWER << action << false;
            QTest::addRow("operator %s", name.c_str()) << v1::ROLE_OPERATOR << action << true;
            QTest::addRow("admin %s", name.c_str()) << v1::ROLE_ADMIN << action << true;
            QTest::addRow("unspecified %s", name.c_str()) << v1::ROLE_UNSPECIFIED << action << false;
        }
        QTest::newRow("viewer reset") << v1::ROLE_VIEWER << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << false;
        QTest::newRow("operator reset") << v1::ROLE_OPERATOR << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << false;
        QTest::newRow("admin reset") << v1::ROLE_ADMIN << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << true;
        QTest::newRow("admin unspecified action") << v1::ROLE_ADMIN << v1::ACTION_TYPE_UNSPECIFIED << false;
    }
    void roleMatrix() {
        QFETCH(v1::Role, role);
        QFETCH(v1::ActionType, action);
        QFETCH(bool, allowed);
        QCOMPARE(roleAllows(role, action), allowed);
    }

    void loadsTokensFile() {
        QTemporaryDir dir;
        const auto loaded = TokenTable::load(writeFile(dir,
                                                       "token operator-secret-000002 principal=alice role=operator\n"
                                                       "# comment\n   \n"
                                                       "token admin-secret-000000003 principal=carol role=admin\n",
                                                       0600)
                                                 .toStdString());
        QVERIFY2(loaded.table, loaded.error.c_str());
        QCOMPARE(loaded.table->size(), 2u);
        const auto alice = loaded.table->find("operator-secret-000002");
        QVERIFY(alice);
        QCOMPARE(alice->principal, "alice");
        QCOMPARE(alice->role, v1::ROLE_OPERATOR);
        QCOMPARE(loaded.table->find("admin-secret-000000003")->role, v1::ROLE_ADMIN);
        QVERIFY(!loaded.table->find("operator-secret-00000"));    // prefix
        QVERIFY(!loaded.table->find("operator-secret-0000022"));  // longer
        QVERIFY(!loaded.table->find(""));
    }

    void worldReadableFileIsRefused_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("0644") << 0644;
        QTest::newRow("0640") << 0640;
        QTest::newRow("0604") << 0604;
    }
    void worldReadableFileIsRefused() {
        QFETCH(int, mode);
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, "token operator-secret-000002 principal=alice role=operator\n", static_cast<mode_t>(mode));
        const auto loaded = TokenTable::load(path.toStdString());
        QVERIFY(!loaded.table);
        const QString error = QString::fromStdString(loaded.error);
        QVERIFY2(error.contains("chmod 600 " + path) && error.contains(QString::number(mode, 8)), qPrintable(error));
    }

    void badLinesAreReportedWithLineNumbers_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown role") << QByteArray("\ntoken abcdefghijklmnopq principal=a role=root\n")
                                      << "tokens:2: unknown role 'root'";
        QTest::newRow("no principal") << QByteArray("token abcdefghijklmnopq role=admin\n")
                                      << "tokens:1: missing principal";
        QTest::newRow("no role") << QByteArray("token abcdefghijklmnopq principal=a\n") << "tokens:1: missing role";
        QTest::newRow("short secret") << QByteArray("token short principal=a role=admin\n") << "shorter than 16";
        QTest::newRow("reserved auto") << QByteArray("token abcdefghijklmnopq principal=auto role=admin\n")
                                       << "'auto' is reserved";
        QTest::newRow("duplicate") << QByteArray(
                                          "token abcdefghijklmnopq principal=a role=admin\n"
                                          "token abcdefghijklmnopq principal=b role=viewer\n")
                                   << "tokens:2: the same token is listed twice";
        QTest::newRow("garbage") << QByteArray("user alice\n") << "tokens:1: expected 'token <secret>";
        QTest::newRow("extra word") << QByteArray("token abcdefghijklmnopq principal=a role=admin team=x\n")
                                    << "unexpected 'team=x'";
    }
    void badLinesAreReportedWithLineNumbers() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const auto parsed = TokenTable::parse(text.toStdString(), "tokens");
        QVERIFY(!parsed.table);
        QVERIFY2(QString::fromStdString(parsed.error).contains(expected), parsed.error.c_str());
    }

    void missingFileIsAnError() {
        const auto loaded = TokenTable::load("/nonexistent/tokens");
        QVERIFY(!loaded.table);
        QVERIFY(QString::fromStdString(loaded.error).contains("/nonexistent/tokens"));
    }

    void constantTimeCompare_data() {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("equal");
        QTest::newRow("same") << "abc"
                              << "abc" << true;
        QTest::newRow("both empty") << ""
                                    << "" << true;
        QTest::newRow("differs last") << "abc"
                                      << "abd" << false;
        QTest::newRow("prefix") << "abc"
                                << "ab" << false;
        QTest::newRow("empty vs text") << ""
                                       << "a" << false;
        QTest::newRow("trailing nul") << QString("ab") << QString("ab") + QChar(0) << false;
    }
    void constantTimeCompare() {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(bool, equal);
        const auto x = a.toStdString();
        const auto y = b.toStdString();
        QCOMPARE(constantTimeEquals(x, y), equal);
        QCOMPARE(constantTimeEquals(y, x), equal);
    }

    void tokenTransport_data() {
        QTest::addColumn<QString>("peer");
        QTest::addColumn<bool>("secure");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("tls remote") << "ipv4:10.1.2.3:5000" << true << true;
        QTest::newRow("plaintext remote") << "ipv4:10.1.2.3:5000" << false << false;
        QTest::newRow("plaintext 127.0.0.1") << "ipv4:127.0.0.1:43210" << false << true;
        QTest::newRow("plaintext 127.8.9.10") << "ipv4:127.8.9.10:1" << false << true;
        QTest::newRow("plaintext 128.0.0.1") << "ipv4:128.0.0.1:1" << false << false;
        QTest::newRow("plaintext ::1") << "ipv6:[::1]:5000" << false << true;
        QTest::newRow("plaintext v4-mapped loopback") << "ipv6:[::ffff:127.0.0.1]:5000" << false << true;
        QTest::newRow("plaintext v4-mapped remote") << "ipv6:[::ffff:10.0.0.1]:5000" << false << false;
        QTest::newRow("plaintext ipv6 remote") << "ipv6:[2001:db8::1]:5000" << false << false;
        QTest::newRow("unix socket") << "unix:/run/fleetd.sock" << false << true;
        QTest::newRow("lookalike host") << "ipv4:127.0.0.1.evil:5000" << false << false;
        QTest::newRow("empty peer") << "" << false << false;
    }
    void tokenTransport() {
        QFETCH(QString, peer);
        QFETCH(bool, secure);
        QFETCH(bool, accepted);
        const std::string error = tokenTransportError(peer.toStdString(), secure);
        QCOMPARE(error.empty(), accepted);
        if (!accepted) QVERIFY2(QString::fromStdString(error).contains("TLS"), error.c_str());
    }

    void decisionsAreAudited_data() {
        QTest::addColumn<QString>("authorization");
        QTest::addColumn<QString>("peer");
        QTest::addColumn<bool>("secure");
        QTest::addColumn<v1::ActionType>("action");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("principal");
        const int unauthenticated = grpc::StatusCode::UNAUTHENTICATED;
        const int denied = grpc::StatusCode::PERMISSION_DENIED;
        QTest::newRow("no token") << QString() << "ipv4:127.0.0.1:1" << false << v1::ACTION_TYPE_DRAIN_NODE
                                  << unauthenticated << "";
        QTest::newRow("not bearer") << "Basic abc"
                                    << "ipv4:127.0.0.1:1" << false << v1::ACTION_TYPE_DRAIN_NODE << unauthenticated
                                    << "";
        QTest::newRow("unknown token") << "Bearer nope-nope-nope-nope"
                                       << "ipv4:127.0.0.1:1" << false << v1::ACTION_TYPE_DRAIN_NODE << unauthenticated
                                       << "";
        QTest::newRow("plaintext remote")
            << "Bearer operator-secret-000002"
            << "ipv4:10.0.0.5:1" << false << v1::ACTION_TYPE_DRAIN_NODE << unauthenticated << "";
        QTest::newRow("viewer drains") << "Bearer viewer-secret-0000001"
                                       << "ipv4:10.0.0.5:1" << true << v1::ACTION_TYPE_DRAIN_NODE << denied << "val";
        QTest::newRow("operator resets breaker")
            << "Bearer operator-secret-000002"
            << "ipv4:127.0.0.1:1" << false << v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER << denied << "alice";
    }
    void decisionsAreAudited() {
        QFETCH(QString, authorization);
        QFETCH(QString, peer);
        QFETCH(bool, secure);
        QFETCH(v1::ActionType, action);
        QFETCH(int, code);
        QFETCH(QString, principal);
        QTemporaryDir dir;
        auto audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString());
        QVERIFY(audit.log);
        auto tokens = TokenTable::parse(
            "token viewer-secret-0000001 principal=val role=viewer\n"
            "token operator-secret-000002 principal=alice role=operator\n",
            "tokens");
        QVERIFY(tokens.table);
        AccessPolicy policy(std::move(*tokens.table), *audit.log);

        const std::string header = authorization.toStdString();
        AccessPolicy::Request request;
        if (!authorization.isNull()) request.authorization = header;
        request.peer = peer.toStdString();
        request.channelIsSecure = secure;
        request.actionName = actionName(action);
        request.target = "r01-n03";
        request.requestId = "req-7";
        const auto decision = policy.authorize(request, action);
        QCOMPARE(static_cast<int>(decision.status.error_code()), code);
        QVERIFY(!decision.status.error_message().empty());

        const QStringList lines = auditLines(dir.filePath("audit.jsonl"));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].contains("\"decision\":\"deny\""), qPrintable(lines[0]));
        QVERIFY(lines[0].contains("\"principal\":\"" + principal + "\""));
        QVERIFY(lines[0].contains("\"request_id\":\"req-7\""));
        QVERIFY(lines[0].contains("\"peer\":\"" + peer + "\""));
        QVERIFY(lines[0].contains(code == grpc::StatusCode::UNAUTHENTICATED ? "UNAUTHENTICATED" : "PERMISSION_DENIED"));
    }

    void allowedCallerIsReturnedAndNotAuditedAsDenial() {
        QTemporaryDir dir;
        auto audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString());
        auto tokens = TokenTable::parse("token operator-secret-000002 principal=alice role=operator\n", "tokens");
        AccessPolicy policy(std::move(*tokens.table), *audit.log);
        AccessPolicy::Request request;
        const std::string header = "Bearer operator-secret-000002";
        request.authorization = header;
        request.peer = "ipv6:[::1]:4000";
        const auto decision = policy.authorize(request, v1::ACTION_TYPE_ISOLATE_RACK);
        QVERIFY(decision.status.ok());
        QCOMPARE(decision.caller.principal, "alice");
        QCOMPARE(decision.caller.role, v1::ROLE_OPERATOR);
        QCOMPARE(decision.caller.peer, "ipv6:[::1]:4000");
        QVERIFY(!decision.caller.automated);
        QCOMPARE(audit.log->lastSeq(), 0u);
    }
};

QTEST_GUILESS_MAIN(TestAccess)
#include "tst_control_access.moc"
