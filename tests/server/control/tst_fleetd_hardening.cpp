// What outside clients did to a real fleetd (issue 13, items 1-9), each reproduced against the
// binary: unparseable requests, oversized and hostile fields, borrowed request ids, unknown
// action types, a /metrics endpoint held by idle connections, and the bearer scheme's case.
#include "FleetdControlFixture.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>

#include <grpcpp/generic/generic_stub.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

// Bytes no protobuf message parses: field 1 announces 5 bytes and only 2 follow.
const std::string kUnparseable(
    "\x0a\x05"
    "ab",
    4);

// One unary call with raw request bytes, as a client built from another language's stubs can send.
grpc::Status rawCall(const std::shared_ptr<grpc::Channel>& channel, const std::string& method, const std::string& bytes,
                     const char* token = nullptr) {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    if (token) context.AddMetadata("authorization", std::string("Bearer ") + token);
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    grpc::CompletionQueue cq;
    auto call = stub.PrepareUnaryCall(&context, method, request, &cq);
    call->StartCall();
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    cq.Next(&tag, &ok);
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {}
    return status;
}

// A plain TCP connection to the loopback metrics port; -1 when it cannot connect.
int connectLoopback(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    timeval timeout{5, 0};  // a test that fails must not wait for fleetd's own timeouts
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

// Sends one HTTP/1.1 request and reads until the server closes or the headers (and a body of
// Content-Length) are in.
std::string httpExchange(int port, const std::string& method) {
    const int fd = connectLoopback(port);
    if (fd < 0) return {};
    const std::string request = method + " /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
        ::close(fd);
        return {};
    }
    std::string answer;
    char buffer[4096];
    for (int reads = 0; reads < 10000; ++reads) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        answer.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return answer;
}

QString longestLine(const QString& path, int* longest) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return "cannot open " + path;
    *longest = 0;
    for (const QByteArray& line : file.readAll().split('\n')) *longest = std::max(*longest, int(line.size()));
    return {};
}

}  // namespace

class FleetdHardeningTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString auditPath_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> alice_;
    int metricsPort_ = 0;
    int sequence_ = 0;

    std::string newRequestId(const char* what) { return std::string(what) + "-" + std::to_string(++sequence_); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auditPath_ = dir_.filePath("audit.jsonl");
        QVERIFY2(fleetd_.start({"--seed", "11", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log",
                                auditPath_, "--metrics-listen", "127.0.0.1:0"}),
                 qPrintable(fleetd_.errorString()));
        const auto metrics = QRegularExpression("metrics on port (\\d+)").match(QString::fromUtf8(fleetd_.log()));
        QVERIFY(metrics.hasMatch());
        metricsPort_ = metrics.captured(1).toInt();
        alice_ = std::make_unique<ControlConnection>(fleetd_.address());
    }

    // Item 2: every method, unary or streaming, telemetry or control, says what is wrong.
    void unparseableRequestsAreInvalidArgument_data() {
        QTest::addColumn<QString>("method");
        for (const char* method :
             {"/watchfloor.v1.TelemetryService/Subscribe", "/watchfloor.v1.TelemetryService/GetHistory",
              "/watchfloor.v1.TelemetryService/ListEvents", "/watchfloor.v1.TelemetryService/GetTopology",
              "/watchfloor.v1.ControlService/WhoAmI", "/watchfloor.v1.ControlService/PreviewAction",
              "/watchfloor.v1.ControlService/ExecuteAction", "/watchfloor.v1.ControlService/ApproveOperation",
              "/watchfloor.v1.ControlService/GetOperation", "/watchfloor.v1.ControlService/ListOperations",
              "/watchfloor.v1.ControlService/WatchOperations", "/watchfloor.v1.ControlService/ListAuditEntries"})
            QTest::newRow(method) << QString(method);
    }
    void unparseableRequestsAreInvalidArgument() {
        QFETCH(QString, method);
        const auto status = rawCall(newChannel(fleetd_.address()), method.toStdString(), kUnparseable, kAlice);
        QVERIFY2(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT,
                 qPrintable(QString("code %1: %2").arg(status.error_code()).arg(status.error_message().c_str())));
        QVERIFY2(QString::fromStdString(status.error_message()).contains("could not be parsed"),
                 status.error_message().c_str());
    }

    // Item 2: protobuf logs one line per string field with invalid UTF-8; a flood is summarised.
    void protobufParseErrorsAreRateLimitedOnStderr() {
        const std::string invalidUtf8Name("\x0a\x02\xff\xfe", 4);  // GetHistoryRequest.entity_name
        auto channel = newChannel(fleetd_.address());
        const int before = int(fleetd_.log().count("libprotobuf ERROR"));
        for (int i = 0; i < 200; ++i)
            QCOMPARE(rawCall(channel, "/watchfloor.v1.TelemetryService/GetHistory", invalidUtf8Name).error_code(),
                     grpc::StatusCode::INVALID_ARGUMENT);
        QTest::qWait(200);  // let stderr arrive
        const int logged = int(fleetd_.log().count("libprotobuf ERROR")) - before;
        QVERIFY2(logged >= 1 && logged <= 25, qPrintable(QString("%1 libprotobuf lines for 200 requests").arg(logged)));
    }

    // Item 1: an anonymous caller's huge field is cut before it is logged, and the trail stays readable.
    void oversizedAnonymousFieldsAreBoundedInTheAuditLog() {
        const std::string huge(2 << 20, 'x');
        v1::Operation op;
        for (int i = 0; i < 3; ++i) {
            auto request = drainNode(huge, newRequestId("huge"));
            QCOMPARE(alice_->execute(nullptr, request, &op).error_code(), grpc::StatusCode::UNAUTHENTICATED);
        }
        int longest = 0;
        QVERIFY(longestLine(auditPath_, &longest).isEmpty());
        QVERIFY2(longest < 64 * 1024, qPrintable(QString("an audit line of %1 bytes").arg(longest)));
        QFile file(auditPath_);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY2(file.readAll().contains("truncated, 2097152 bytes"), "the marker names the original length");
        v1::ListAuditEntriesResponse page;
        const auto status = alice_->audit(kAlice, 0, 10, &page);
        QVERIFY2(status.ok(), status.error_message().c_str());
    }

    // Item 1: a flood of anonymous calls writes a bounded number of records plus their count.
    void anonymousRefusalsAreRateLimited() {
        const auto anonymousDenials = [&] {
            return countAudit(auditPath_, [](const QJsonObject& r) {
                return r.value("decision").toString() == "deny" && r.value("principal").toString().isEmpty() &&
                       r.value("action").toString() == "WhoAmI";
            });
        };
        const int before = anonymousDenials();
        v1::WhoAmIResponse who;
        for (int i = 0; i < 300; ++i)
            QCOMPARE(alice_->whoAmI(nullptr, &who).error_code(), grpc::StatusCode::UNAUTHENTICATED);
        const int written = anonymousDenials() - before;
        QVERIFY2(written < 100, qPrintable(QString("%1 audit records for 300 anonymous calls").arg(written)));
        // The ones not written are counted in records of their own (fleetd's control loop, each second).
        const auto suppressed = [&] {
            int count = 0;
            for (const QJsonObject& r : auditRecords(auditPath_))
                if (r.value("action").toString() == "UNAUTHENTICATED_SUPPRESSED")
                    count += QRegularExpression("^(\\d+) ").match(r.value("result").toString()).captured(1).toInt();
            return count;
        };
        QTRY_COMPARE_WITH_TIMEOUT(suppressed() + written, 300, 5000);
    }

    // Item 1: lines fleetd did not write (garbage, a torn record, > 1 MiB) are skipped and
    // reported, and the entries around them are still served, also after a restart.
    void auditTrailSurvivesForeignLines() {
        v1::WhoAmIResponse who;
        QVERIFY(alice_->whoAmI(kAlice, &who).ok());
        v1::Operation op;
        const auto before = newRequestId("before");
        QCOMPARE(alice_->execute(kAlice, drainNode("no-such-node", before), &op).error_code(),
                 grpc::StatusCode::NOT_FOUND);
        {
            QFile file(auditPath_);
            QVERIFY(file.open(QIODevice::Append));
            file.write("not json at all\n");
            file.write("{\"seq\":999999999,\"time\":\"2024-01-01T00:00\n");  // torn, in the middle
            file.write(QByteArray("{\"seq\":1000000000,\"junk\":\"") + QByteArray(3 << 20, 'y') + "\"}\n");
        }
        const auto after = newRequestId("after");
        QCOMPARE(alice_->execute(kAlice, drainNode("no-such-node", after), &op).error_code(),
                 grpc::StatusCode::NOT_FOUND);
        for (int round = 0; round < 2; ++round) {
            v1::ListAuditEntriesResponse page;
            const auto status = alice_->audit(kAlice, 0, 1000, &page);
            QVERIFY2(status.ok(), status.error_message().c_str());
            QVERIFY(page.entries_size() > 0);
            QCOMPARE(page.entries(0).request_id(), after);
            bool foundBefore = false;
            for (const auto& entry : page.entries()) foundBefore |= entry.request_id() == before;
            QVERIFY(foundBefore);
            QCOMPARE(page.unreadable_lines(), std::uint64_t(3));
            if (round == 0) QVERIFY2(fleetd_.restartOnSamePort(), qPrintable(fleetd_.errorString()));
            alice_ = std::make_unique<ControlConnection>(fleetd_.address());
        }
        QVERIFY(QString::fromUtf8(fleetd_.log()).contains("not fleetd's records"));
        auto ports = QRegularExpression("metrics on port (\\d+)").globalMatch(QString::fromUtf8(fleetd_.log()));
        while (ports.hasNext()) metricsPort_ = ports.next().captured(1).toInt();
    }

    // Item 3: a request id is the caller's own; bob sending alice's gets no part of her operation.
    void requestIdsAreScopedPerPrincipal() {
        const std::string requestId = newRequestId("shared");
        // The newest event of this run (ids start anew past what earlier runs acknowledged).
        auto telemetry = v1::TelemetryService::NewStub(newChannel(fleetd_.address()));
        std::uint64_t eventId = 0;
        for (int attempt = 0; attempt < 100 && eventId == 0; ++attempt) {
            grpc::ClientContext context;
            v1::ListEventsRequest request;
            request.set_page_size(1);
            v1::ListEventsResponse events;
            if (telemetry->ListEvents(&context, request, &events).ok() && events.events_size() > 0)
                eventId = events.events(0).id();
            else
                QTest::qWait(100);
        }
        QVERIFY(eventId != 0);
        auto ack = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, requestId, "seen");
        ack.set_event_id(eventId);
        v1::Operation aliceOp, bobOp, got;
        const auto first = alice_->execute(kAlice, ack, &aliceOp);
        QVERIFY2(first.ok(), first.error_message().c_str());
        QCOMPARE(aliceOp.principal(), std::string("alice"));
        ControlConnection bob(fleetd_.address());
        const auto status = bob.execute(kBob, ack, &bobOp);
        QVERIFY2(status.ok(), status.error_message().c_str());
        QCOMPARE(bobOp.principal(), std::string("bob"));
        QVERIFY(bobOp.id() != aliceOp.id());
        // GetOperation by request id answers from the caller's own ids.
        QVERIFY(bob.get(kBob, {}, requestId, &got).ok());
        QCOMPARE(got.id(), bobOp.id());
        QVERIFY(alice_->get(kAlice, {}, requestId, &got).ok());
        QCOMPARE(got.id(), aliceOp.id());
    }

    // Item 5: an action type that does not exist is a bad argument, not a permission problem.
    void unknownActionTypesAreInvalidArgument() {
        v1::Operation op;
        v1::ActionPreview preview;
        for (const int type : {0, 99}) {
            auto request = action(static_cast<v1::ActionType>(type), newRequestId("type"), "x");
            request.set_node_name("r01-n01");
            const auto executed = alice_->execute(kAlice, request, &op);
            QVERIFY2(executed.error_code() == grpc::StatusCode::INVALID_ARGUMENT, executed.error_message().c_str());
            QCOMPARE(alice_->preview(kAlice, request, &preview).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        }
    }

    // Item 6: a name of megabytes is refused with a short message, not a transport error.
    void hugeNamesGetShortErrors() {
        const std::string huge(3'500'000, 'n');
        v1::ActionPreview preview;
        const auto status = alice_->preview(kAlice, drainNode(huge, newRequestId("big")), &preview);
        QVERIFY2(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
                     status.error_code() == grpc::StatusCode::NOT_FOUND,
                 status.error_message().c_str());
        QVERIFY(status.error_message().size() < 1024);

        auto stub = v1::TelemetryService::NewStub(newChannel(fleetd_.address()));
        grpc::ClientContext context;
        v1::GetHistoryRequest request;
        request.set_entity_name(huge);
        request.set_metric(v1::DCGM_FI_DEV_MEMORY_TEMP);
        request.set_start_unix_ms(1);
        request.set_end_unix_ms(2);
        v1::GetHistoryResponse response;
        const auto history = stub->GetHistory(&context, request, &response);
        QVERIFY2(history.error_code() == grpc::StatusCode::NOT_FOUND ||
                     history.error_code() == grpc::StatusCode::INVALID_ARGUMENT,
                 history.error_message().c_str());
        QVERIFY(history.error_message().size() < 1024);
    }

    // Item 6: reasons and notes are one plain line of text.
    void controlAndBidiCharactersAreRefused_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("asNote");
        const QList<QPair<const char*, QByteArray>> hostile = {{"NUL", QByteArray("fan\0noisy", 9)},
                                                               {"ANSI escape", "fan \x1b[31mnoisy"},
                                                               {"U+2028", "fan\xe2\x80\xa8noisy"},
                                                               {"U+202E", "fan \xe2\x80\xaenoisy"},
                                                               {"U+2066", "fan \xe2\x81\xa6noisy"},
                                                               {"C1 NEL", "fan \xc2\x85noisy"},
                                                               {"DEL", "fan \x7fnoisy"}};
        for (const auto& [name, text] : hostile) {
            QTest::newRow((QString("reason ") + name).toUtf8()) << text << false;
            QTest::newRow((QString("note ") + name).toUtf8()) << text << true;
        }
    }
    void controlAndBidiCharactersAreRefused() {
        QFETCH(QByteArray, text);
        QFETCH(bool, asNote);
        auto request = action(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT, newRequestId("chars"), "seen it");
        request.set_event_id(2);
        if (asNote)
            request.set_note(text.toStdString());
        else
            request.set_reason(text.toStdString());
        v1::Operation op;
        const auto status = alice_->execute(kAlice, request, &op);
        QVERIFY2(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT, status.error_message().c_str());
    }

    // Item 7: one request cannot carry an unbounded list into every snapshot.
    void requestFieldsAreBounded() {
        auto request = action(v1::ACTION_TYPE_RESTART_JOB, newRequestId("excl"), "move it");
        request.set_job_name("llm-405b-1");
        for (int i = 0; i < 100'000; ++i) request.add_exclude_node_names("r01-n01");
        v1::ActionPreview preview;
        const auto status = alice_->preview(kAlice, request, &preview);
        QVERIFY2(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT, status.error_message().c_str());
        QVERIFY(status.error_message().size() < 1024);
    }

    // Item 8: idle connections do not hold up a scrape, and HEAD is answered.
    void metricsAnswerBesideIdleConnections() {
        std::vector<int> idle;
        for (int i = 0; i < 10; ++i) {
            const int fd = connectLoopback(metricsPort_);
            QVERIFY(fd >= 0);
            idle.push_back(fd);
        }
        QElapsedTimer timer;
        timer.start();
        const std::string answer = httpExchange(metricsPort_, "GET");
        const qint64 elapsed = timer.elapsed();
        for (int fd : idle) ::close(fd);
        QVERIFY2(answer.starts_with("HTTP/1.1 200"), answer.substr(0, 200).c_str());
        QVERIFY(answer.find("fleetd_") != std::string::npos);
        // One connection at a time waited ~2 s per idle connection (20 s here); a quarter of that
        // tells the two apart on any machine, sanitizer builds included.
        QVERIFY2(elapsed < 5000, qPrintable(QString("scrape took %1 ms beside 10 idle connections").arg(elapsed)));

        const std::string head = httpExchange(metricsPort_, "HEAD");
        QVERIFY2(head.starts_with("HTTP/1.1 200"), head.substr(0, 200).c_str());
        QVERIFY(head.find("fleetd_") == std::string::npos);  // headers only
    }

    // Item 9: the scheme name is case-insensitive (RFC 7235).
    void bearerSchemeIsCaseInsensitive() {
        auto stub = v1::ControlService::NewStub(newChannel(fleetd_.address()));
        for (const char* scheme : {"bearer ", "BEARER ", "Bearer "}) {
            grpc::ClientContext context;
            context.AddMetadata("authorization", std::string(scheme) + kAlice);
            v1::WhoAmIResponse who;
            const auto status = stub->WhoAmI(&context, {}, &who);
            QVERIFY2(status.ok(), (scheme + status.error_message()).c_str());
            QCOMPARE(who.principal(), std::string("alice"));
        }
    }

    // Item 9: --help names the metadata key, the token rules and where the listening line goes.
    void helpDocumentsTokensAndStreams() {
        const auto help = FleetdProcess::run({"--help"});
        QCOMPARE(help.code, 0);
        const QString text = help.stdOut + help.stdErr;
        QVERIFY2(text.contains("authorization: Bearer"), qPrintable(text));
        QVERIFY(text.contains("16 characters"));
        QVERIFY(text.contains("stderr"));
    }
};

QTEST_GUILESS_MAIN(FleetdHardeningTest)
#include "tst_fleetd_hardening.moc"
