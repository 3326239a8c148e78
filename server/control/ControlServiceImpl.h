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

// Every method is registered "streamed" (the generated StreamedService): the handler reads the
// request itself, so one that cannot be parsed is answered INVALID_ARGUMENT with a message. With
// the plain generated service, gRPC 1.51 answers it INTERNAL with an empty message before any
// handler runs. Handlers still run on gRPC's synchronous thread pool: an action may wait seconds
// for its backend.
class ControlServiceImpl final : public watchfloor::v1::ControlService::StreamedService {
public:
    struct Limits {
        std::size_t watchQueueLimit = 10000;  // operation changes buffered per slow console
        std::chrono::milliseconds cancelPoll{200};
    };

    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access)
        : ControlServiceImpl(engine, access, Limits{}) {}
    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access, Limits limits)
        : engine_(engine), access_(access), limits_(limits) {}
    // With the audit log's path, ListAuditEntries serves it; without, it says the trail is not
    // connected. `writer` (optional) is the log appending to that file.
    ControlServiceImpl(OperationsEngine& engine, const AccessPolicy& access, Limits limits, std::string auditLogPath,
                       const AuditLog* writer = nullptr)
        : engine_(engine),
          access_(access),
          limits_(limits),
          auditTrail_(std::make_unique<AuditTrail>(std::move(auditLogPath), writer)) {}

    // Ends every WatchOperations stream; call before grpc::Server::Shutdown().
    void stopStreams() { stopping_ = true; }

    template <class Request, class Response>
    using Unary = grpc::ServerUnaryStreamer<Request, Response>;

    grpc::Status StreamedWhoAmI(grpc::ServerContext* context,
                                Unary<watchfloor::v1::WhoAmIRequest, watchfloor::v1::WhoAmIResponse>* call) override;
    grpc::Status StreamedPreviewAction(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::PreviewActionRequest, watchfloor::v1::ActionPreview>* call) override;
    grpc::Status StreamedExecuteAction(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::ExecuteActionRequest, watchfloor::v1::Operation>* call) override;
    grpc::Status StreamedApproveOperation(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::ApproveOperationRequest, watchfloor::v1::Operation>* call) override;
    grpc::Status StreamedGetOperation(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::GetOperationRequest, watchfloor::v1::Operation>* call) override;
    grpc::Status StreamedListOperations(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::ListOperationsRequest, watchfloor::v1::ListOperationsResponse>* call) override;
    grpc::Status StreamedWatchOperations(
        grpc::ServerContext* context,
        grpc::ServerSplitStreamer<watchfloor::v1::WatchOperationsRequest, watchfloor::v1::Operation>* call) override;
    grpc::Status StreamedListAuditEntries(
        grpc::ServerContext* context,
        Unary<watchfloor::v1::ListAuditEntriesRequest, watchfloor::v1::ListAuditEntriesResponse>* call) override;

private:
    AccessPolicy::Request accessRequest(const grpc::ServerContext& context, std::string rpcName) const;

    grpc::Status whoAmI(grpc::ServerContext& context, const watchfloor::v1::WhoAmIRequest& request,
                        watchfloor::v1::WhoAmIResponse* response);
    grpc::Status previewAction(grpc::ServerContext& context, const watchfloor::v1::PreviewActionRequest& request,
                               watchfloor::v1::ActionPreview* response);
    grpc::Status executeAction(grpc::ServerContext& context, const watchfloor::v1::ExecuteActionRequest& request,
                               watchfloor::v1::Operation* response);
    grpc::Status approveOperation(grpc::ServerContext& context, const watchfloor::v1::ApproveOperationRequest& request,
                                  watchfloor::v1::Operation* response);
    grpc::Status getOperation(grpc::ServerContext& context, const watchfloor::v1::GetOperationRequest& request,
                              watchfloor::v1::Operation* response);
    grpc::Status listOperations(grpc::ServerContext& context, const watchfloor::v1::ListOperationsRequest& request,
                                watchfloor::v1::ListOperationsResponse* response);
    grpc::Status listAuditEntries(grpc::ServerContext& context, const watchfloor::v1::ListAuditEntriesRequest& request,
                                  watchfloor::v1::ListAuditEntriesResponse* response);

    OperationsEngine& engine_;
    const AccessPolicy& access_;
    const Limits limits_;
    const std::unique_ptr<AuditTrail> auditTrail_;
    std::atomic<bool> stopping_{false};
};

}  // namespace watchfloor::server::control
