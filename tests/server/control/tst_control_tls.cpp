// scripts/dev-ca output loaded into fleetd's server credentials: TLS accepted, plaintext refused,
// mTLS refuses clients without a certificate (or with one from another CA) and accepts ours.
#include "TransportSecurity.h"
#include "watchfloor/v1/control.grpc.pb.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <grpcpp/grpcpp.h>

#include <sys/stat.h>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {

// Answers WhoAmI with what the transport told it about the caller.
class TransportEcho final : public v1::ControlService::Service {
    grpc::Status WhoAmI(grpc::ServerContext* context, const v1::WhoAmIRequest*, v1::WhoAmIResponse* response) override {
        response->set_principal((isSecureChannel(*context) ? "secure:" : "plaintext:") +
                                clientCertificateName(*context));
        return grpc::Status::OK;
    }
};

std::string readText(const QString& path) {
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return file.readAll().toStdString();
}

struct RunningServer {
    TransportEcho service;
    std::unique_ptr<grpc::Server> server;
    int port = 0;
};

std::unique_ptr<RunningServer> startServer(const std::shared_ptr<grpc::ServerCredentials>& credentials) {
    auto running = std::make_unique<RunningServer>();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", credentials, &running->port);
    builder.RegisterService(&running->service);
    running->server = builder.BuildAndStart();
    return running;
}

// WhoAmI over a fresh channel; the call's status and the echoed transport description.
std::pair<grpc::Status, std::string> call(int port, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    auto channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), credentials, args);
    auto stub = v1::ControlService::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
    v1::WhoAmIResponse response;
    const grpc::Status status = stub->WhoAmI(&context, {}, &response);
    return {status, response.principal()};
}

}  // namespace

class TestTls : public QObject {
    Q_OBJECT
    QTemporaryDir ca_;
    QTemporaryDir otherCa_;

    std::shared_ptr<grpc::ChannelCredentials> clientCredentials(const QTemporaryDir& trust,
                                                                const QTemporaryDir* identity,
                                                                const QString& name = "console") {
        grpc::SslCredentialsOptions options;
        options.pem_root_certs = readText(trust.filePath("ca.crt"));
        if (identity) {
            options.pem_private_key = readText(identity->filePath(name + ".key"));
            options.pem_cert_chain = readText(identity->filePath(name + ".crt"));
        }
        return grpc::SslCredentials(options);
    }
    TlsFiles files(bool mutual) const {
        return {ca_.filePath("server.crt").toStdString(), ca_.filePath("server.key").toStdString(),
                mutual ? ca_.filePath("ca.crt").toStdString() : ""};
    }

private slots:
    void initTestCase() {
        const QString script = QStringLiteral(WATCHFLOOR_SCRIPTS_DIR "/dev-ca");
        for (const QTemporaryDir* dir : {&ca_, &otherCa_}) {
            QProcess process;
            process.start(script, {dir->path()});
            QVERIFY(process.waitForFinished(30000));
            QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        }
        for (const char* name : {"ca.crt", "ca.key", "server.crt", "server.key", "console.crt", "console.key"})
            QVERIFY2(QFile::exists(ca_.filePath(name)), name);
        struct stat info {};
        QCOMPARE(::stat(ca_.filePath("server.key").toLocal8Bit().constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
    }

    void tlsIsAcceptedAndPlaintextRefused() {
        const auto made = makeServerCredentials(files(false));
        QVERIFY2(made.credentials, made.error.c_str());
        QCOMPARE(made.description, "TLS");
        auto server = startServer(made.credentials);
        QVERIFY(server->port > 0);

        const auto [tlsStatus, tlsEcho] = call(server->port, clientCredentials(ca_, nullptr));
        QVERIFY2(tlsStatus.ok(), tlsStatus.error_message().c_str());
        QCOMPARE(tlsEcho, "secure:");

        const auto [plainStatus, plainEcho] = call(server->port, grpc::InsecureChannelCredentials());
        QCOMPARE(plainStatus.error_code(), grpc::StatusCode::UNAVAILABLE);

        // A client that trusts another CA refuses our server.
        const auto [untrusted, echo] = call(server->port, clientCredentials(otherCa_, nullptr));
        QCOMPARE(untrusted.error_code(), grpc::StatusCode::UNAVAILABLE);
        server->server->Shutdown();
    }

    void mutualTlsNeedsOurClientCertificate() {
        const auto made = makeServerCredentials(files(true));
        QVERIFY2(made.credentials, made.error.c_str());
        QCOMPARE(made.description, "TLS with client certificates (mTLS)");
        auto server = startServer(made.credentials);

        const auto [noCert, a] = call(server->port, clientCredentials(ca_, nullptr));
        QCOMPARE(noCert.error_code(), grpc::StatusCode::UNAVAILABLE);
        const auto [foreignCert, b] = call(server->port, clientCredentials(ca_, &otherCa_));
        QCOMPARE(foreignCert.error_code(), grpc::StatusCode::UNAVAILABLE);
        const auto [plain, c] = call(server->port, grpc::InsecureChannelCredentials());
        QCOMPARE(plain.error_code(), grpc::StatusCode::UNAVAILABLE);

        const auto [ours, echo] = call(server->port, clientCredentials(ca_, &ca_));
        QVERIFY2(ours.ok(), ours.error_message().c_str());
        QCOMPARE(echo, "secure:console");
        server->server->Shutdown();
    }

    void plaintextServerIsLabelled() {
        const auto made = makeServerCredentials({});
        QVERIFY(made.credentials);
        QCOMPARE(made.description, "plaintext");
        auto server = startServer(made.credentials);
        const auto [status, echo] = call(server->port, grpc::InsecureChannelCredentials());
        QVERIFY(status.ok());
        QCOMPARE(echo, "plaintext:");
        server->server->Shutdown();
    }

    void badFilesAreClearErrors_data() {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("clientCa");
        QTest::addColumn<QString>("error");
        QTest::newRow("key missing") << "server.crt"
                                     << ""
                                     << ""
                                     << "needs both --tls-cert and --tls-key";
        QTest::newRow("client ca alone") << ""
                                         << ""
                                         << "ca.crt"
                                         << "--tls-client-ca needs --tls-cert";
        QTest::newRow("no such cert") << "nope.crt"
                                      << "server.key"
                                      << ""
                                      << "cannot read the TLS certificate";
        QTest::newRow("key is not pem") << "server.crt"
                                        << "not-pem.key"
                                        << ""
                                        << "is not PEM";
        QTest::newRow("readable key") << "server.crt"
                                      << "open.key"
                                      << ""
                                      << "chmod 600";
    }
    void badFilesAreClearErrors() {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, clientCa);
        QFETCH(QString, error);
        QTemporaryDir scratch;
        QFile::copy(ca_.filePath("server.crt"), scratch.filePath("server.crt"));
        QFile::copy(ca_.filePath("server.key"), scratch.filePath("server.key"));
        QFile::copy(ca_.filePath("ca.crt"), scratch.filePath("ca.crt"));
        QFile notPem(scratch.filePath("not-pem.key"));
        notPem.open(QIODevice::WriteOnly);
        notPem.write("hello");
        notPem.close();
        ::chmod(scratch.filePath("not-pem.key").toLocal8Bit().constData(), 0600);
        QFile::copy(ca_.filePath("server.key"), scratch.filePath("open.key"));
        ::chmod(scratch.filePath("open.key").toLocal8Bit().constData(), 0644);
        auto path = [&](const QString& name) {
            return name.isEmpty() ? std::string() : scratch.filePath(name).toStdString();
        };
        const auto made = makeServerCredentials({path(cert), path(key), path(clientCa)});
        QVERIFY(!made.credentials);
        QVERIFY2(QString::fromStdString(made.error).contains(error), made.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTls)
#include "tst_control_tls.moc"
