// fleetd serving TLS and mTLS with scripts/dev-ca certificates, as a process: control and
// telemetry over the same TLS port, a client trusting another CA refused, plaintext refused,
// mTLS without a client certificate (or with one from another CA) refused; and a bearer token
// sent in plaintext from a non-loopback address refused by fleetd and audited.
#include "FleetdControlFixture.h"

#include <QProcess>
#include <QTest>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

std::string readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

// An IPv4 address of this machine that is not loopback, or "".
QString nonLoopbackAddress() {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return {};
    QString found;
    for (ifaddrs* entry = list; entry && found.isEmpty(); entry = entry->ifa_next) {
        if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET) continue;
        const auto* address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
        if ((ntohl(address->sin_addr.s_addr) >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN];
        if (::inet_ntop(AF_INET, &address->sin_addr, text, sizeof text)) found = QString::fromLatin1(text);
    }
    ::freeifaddrs(list);
    return found;
}

}  // namespace

class FleetdControlTlsTest : public QObject {
    Q_OBJECT
    QTemporaryDir ca_, otherCa_, work_;
    QString tokens_;

    std::shared_ptr<grpc::ChannelCredentials> tls(const QTemporaryDir& trust, const QTemporaryDir* identity) const {
        grpc::SslCredentialsOptions options;
        options.pem_root_certs = readText(trust.filePath("ca.crt"));
        if (identity) {
            options.pem_private_key = readText(identity->filePath("console.key"));
            options.pem_cert_chain = readText(identity->filePath("console.crt"));
        }
        return grpc::SslCredentials(options);
    }
    static grpc::ChannelArguments serverName() {
        grpc::ChannelArguments args;
        args.SetSslTargetNameOverride("localhost");  // the certificate's name; we dial 127.0.0.1
        return args;
    }
    static grpc::StatusCode whoAmI(const FleetdProcess& fleetd, std::shared_ptr<grpc::ChannelCredentials> credentials,
                                   std::string* principal = nullptr) {
        ControlConnection connection(newChannel(fleetd.address(), std::move(credentials), serverName()));
        v1::WhoAmIResponse who;
        const auto status = connection.whoAmI(kAlice, &who);
        if (principal) *principal = who.principal();
        return status.error_code();
    }
    QStringList tlsArgs(bool mutual) const {
        QStringList args{"--speed",     "30",
                         "--tokens",    tokens_,
                         "--audit-log", work_.filePath("audit.jsonl"),
                         "--tls-cert",  ca_.filePath("server.crt"),
                         "--tls-key",   ca_.filePath("server.key")};
        if (mutual) args << "--tls-client-ca" << ca_.filePath("ca.crt");
        return args;
    }

private slots:
    void initTestCase() {
        for (const QTemporaryDir* dir : {&ca_, &otherCa_}) {
            QProcess process;
            process.start(QStringLiteral("%1/scripts/dev-ca").arg(qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR")),
                          {dir->path()});
            QVERIFY(process.waitForFinished(30'000));
            QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        }
        tokens_ = writeTokens(work_);
    }

    void tlsServesControlAndTelemetry() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(tlsArgs(false)), qPrintable(fleetd.errorString()));
        QVERIFY2(fleetd.log().contains("control transport: TLS"), fleetd.log().constData());
        std::string principal;
        QCOMPARE(whoAmI(fleetd, tls(ca_, nullptr), &principal), grpc::StatusCode::OK);
        QCOMPARE(principal, std::string("alice"));
        FleetWatch watch(fleetd.address(), tls(ca_, nullptr), serverName());
        QVERIFY2(watch.ready(), "telemetry shares the TLS port");
        QCOMPARE(whoAmI(fleetd, tls(otherCa_, nullptr)), grpc::StatusCode::UNAVAILABLE);  // server not trusted
        QCOMPARE(whoAmI(fleetd, grpc::InsecureChannelCredentials()), grpc::StatusCode::UNAVAILABLE);
        QCOMPARE(fleetd.terminate(), 0);
    }

    void mutualTlsRequiresOurClientCertificate() {
        FleetdProcess fleetd;
        QVERIFY2(fleetd.start(tlsArgs(true)), qPrintable(fleetd.errorString()));
        QVERIFY2(fleetd.log().contains("mTLS"), fleetd.log().constData());
        QCOMPARE(whoAmI(fleetd, tls(ca_, &ca_)), grpc::StatusCode::OK);
        QCOMPARE(whoAmI(fleetd, tls(ca_, nullptr)), grpc::StatusCode::UNAVAILABLE);    // no client certificate
        QCOMPARE(whoAmI(fleetd, tls(ca_, &otherCa_)), grpc::StatusCode::UNAVAILABLE);  // signed by another CA
        QCOMPARE(fleetd.terminate(), 0);
    }

    void unreadableKeyOrHalfTlsRefusesToStart() {
        const auto half = FleetdProcess::run({"--tokens", tokens_, "--tls-cert", ca_.filePath("server.crt")});
        QCOMPARE(half.code, 2);
        QVERIFY2(half.stdErr.contains("--tls-key"), qPrintable(half.stdErr));
        const QString openKey = work_.filePath("open.key");
        QVERIFY(QFile::copy(ca_.filePath("server.key"), openKey));
        QFile(openKey).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther);
        const auto open = FleetdProcess::run({"--listen", "127.0.0.1:0", "--tokens", tokens_, "--audit-log",
                                              work_.filePath("audit-open.jsonl"), "--tls-cert",
                                              ca_.filePath("server.crt"), "--tls-key", openKey});
        QCOMPARE(open.code, 2);
        QVERIFY2(open.stdErr.contains("chmod 600"), qPrintable(open.stdErr));
    }

    void tokenInPlaintextFromANonLoopbackAddressIsRefused() {
        const QString address = nonLoopbackAddress();
        if (address.isEmpty()) QSKIP("this machine has no non-loopback IPv4 address to listen on");
        FleetdProcess fleetd;
        const QString audit = work_.filePath("audit-remote.jsonl");
        QVERIFY2(fleetd.start({"--speed", "30", "--tokens", tokens_, "--audit-log", audit}, address + ":0"),
                 qPrintable(fleetd.errorString()));
        ControlConnection connection(fleetd.address());
        v1::WhoAmIResponse who;
        const auto status = connection.whoAmI(kAlice, &who);
        QCOMPARE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
        QVERIFY2(status.error_message().find("without TLS") != std::string::npos, status.error_message().c_str());
        QCOMPARE(countAudit(audit,
                            [](const QJsonObject& r) {
                                return r.value("decision") == "deny" &&
                                       r.value("result").toString().contains("without TLS");
                            }),
                 1);
        QCOMPARE(fleetd.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(FleetdControlTlsTest)
#include "tst_fleetd_control_tls.moc"
