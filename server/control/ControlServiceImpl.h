#pragma once
// watchfloor.v1.ControlService over gRPC: reads the caller's bearer token and transport from the
// call, lets AccessPolicy decide who it is, and hands the rest to the OperationsEngine. Nothing
// here keeps identity between calls, so two tokens on one connection stay two principals.

#include "AccessPolicy.h"
#include "AuditTrail.h"
#include "OperationsEngine.h"
#include "watchfloor/v1/control.grpc.pb.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace watchfloor::server::control {

class ControlServiceImpl final : public watchfloor::v1::ControlService::Service {
public:
    struct Limits {
        std::size_t watchQueueLimit = 10000;  // operation changes buffered per slow console
        std::chrono::milliseconds cancelPoll{200};
    };

    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access) : ControlServiceImpl(engine, access, Limits{}) {}
    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access, Limits limits)
        : engine_(engine), access_(access), limits_(limits) {}
    // With the audit log's path, ListAuditEntries serves it; without, it says the trail is not connected.
    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access, Limits limits, std::string auditLogPath)
        : engine_(engine), access_(access), limits_(limits), auditTrail_(std::make_unique<AuditTrail>(std::move(auditLogPath))) {}

    // Ends every WatchOperations stream; call before grpc::Server::Shutdown().
    void stopStreams() { stopping_ = true; }

    grpc::Status WhoAmI(grpc::ServerContext* context, const watchfloor::v1::WhoAmIRequest* request,
                        watchfloor::v1::WhoAmIResponse* response) override;
    grpc::Status PreviewAction(grpc::ServerContext* context, const watchfloor::v1::PreviewActionRequest* request,
                               watchfloor::v1::ActionPreview* response) override;
    grpc::Status ExecuteAction(grpc::ServerContext* context, const watchfloor::v1::ExecuteActionRequest* request,
                               watchfloor::v1::Operation* response) override;
    grpc::Status ApproveOperation(grpc::ServerContext* context, const watchfloor::v1::ApproveOperationRequest* request,
                                  watchfloor::v1::Operation* response) override;
    grpc::Status GetOperation(grpc::ServerContext* context, const watchfloor::v1::GetOperationRequest* request,
                              watchfloor::v1::Operation* response) override;
    grpc::Status ListOperations(grpc::ServerContext* context, const watchfloor::v1::ListOperationsRequest* request,
                                watchfloor::v1::ListOperationsResponse* response) override;
    grpc::Status WatchOperations(grpc::ServerContext* context, const watchfloor::v1::WatchOperationsRequest* request,
                                 grpc::ServerWriter<watchfloor::v1::Operation>* writer) override;
    grpc::Status ListAuditEntries(grpc::ServerContext* context, const watchfloor::v1::ListAuditEntriesRequest* request,
                                  watchfloor::v1::ListAuditEntriesResponse* response) override;

private:
    AccessPolicy::Request accessRequest(const grpc::ServerContext& context, std::string rpcName) const;

    OperationsEngine& engine_;
    const AccessPolicy& access_;
    const Limits limits_;
    const std::unique_ptr<AuditTrail> auditTrail_;
    std::atomic<bool> stopping_{false};
};

}  // namespace watchfloor::server::control
