#pragma once
// fleetd's real ControlService (operations engine, access policy, audit log) on a loopback port
// inside the test process, over the small in-test fleet of tests/server/control: racks r01..r02,
// trays r01-n01..r01-n18. The console's ControlClient talks to it exactly as to fleetd.

#include "AccessPolicy.h"
#include "AuditLog.h"
#include "ControlServiceImpl.h"
#include "ControlTestFleet.h"
#include "OperationsEngine.h"

#include "ControlClient.h"

#include <QTemporaryDir>

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <vector>

namespace watchfloor::testing {

namespace control = watchfloor::server::control;

inline constexpr const char* kViewerToken = "viewer-token-000000001";
inline constexpr const char* kAliceToken = "operator-token-00000002";
inline constexpr const char* kBobToken = "operator-token-00000003";
inline constexpr const char* kCarolToken = "admin-token-00000000004";

class RecordingAcknowledger : public control::EventAcknowledger {
public:
    control::ActionOutcome acknowledge(std::uint64_t eventId, const std::string& principal,
                                       const std::string&) override {
        std::lock_guard lock(m_mutex);
        m_acknowledged.push_back(eventId);
        return control::ActionOutcome::success("event " + std::to_string(eventId) + " acknowledged by " + principal);
    }

private:
    std::mutex m_mutex;
    std::vector<std::uint64_t> m_acknowledged;
};

class InProcessControl {
public:
    explicit InProcessControl(bool isolateNeedsApproval = false) {
        const std::string auditPath = m_dir.filePath(QStringLiteral("audit.jsonl")).toStdString();
        m_audit = control::AuditLog::open(auditPath).log;
        actuator = std::make_unique<control_test::RecordingActuator>(auditPath);
        control::OperationsConfig config;
        config.blastRadius.isolateRackNeedsApproval = isolateNeedsApproval;
        engine = std::make_unique<control::OperationsEngine>(fleet, *actuator, *m_audit, config);
        engine->setEventAcknowledger(&m_acknowledger);
        auto tokens = control::TokenTable::parse(control_test::kTestTokens, "tokens");
        m_access = std::make_unique<control::AccessPolicy>(std::move(*tokens.table), *m_audit);
        m_service = std::make_unique<control::ControlServiceImpl>(*engine, *m_access,
                                                                  control::ControlServiceImpl::Limits{}, auditPath);
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &m_port);
        builder.RegisterService(m_service.get());
        m_server = builder.BuildAndStart();
    }

    ~InProcessControl() {
        m_service->stopStreams();
        m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }

    bool isUp() const { return m_server && m_port > 0 && m_audit; }
    QString target() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

    // A started client with the token's identity (loopback, so a token over plaintext is allowed).
    std::unique_ptr<client::ControlClient> client(const char* token) const {
        client::ChannelSecurity security;
        security.bearerToken = QString::fromLatin1(token);
        auto control = std::make_unique<client::ControlClient>(target(), security);
        control->start();
        return control;
    }

private:
    // Declared first so they outlive the engine that writes to them.
    QTemporaryDir m_dir;
    std::unique_ptr<control::AuditLog> m_audit;
    RecordingAcknowledger m_acknowledger;

public:
    control_test::TestFleet fleet{2};
    std::unique_ptr<control_test::RecordingActuator> actuator;
    std::unique_ptr<control::OperationsEngine> engine;

private:
    std::unique_ptr<control::AccessPolicy> m_access;
    std::unique_ptr<control::ControlServiceImpl> m_service;
    std::unique_ptr<grpc::Server> m_server;
    int m_port = 0;
};

}  // namespace watchfloor::testing
