#pragma once
// The ControlService of a fleetd started without --tokens: every call is refused with a message
// that names the flag, instead of gRPC's bare "unknown service". UNIMPLEMENTED is gRPC's code for
// "not supported or not enabled in this service"; a console stops offering actions on it.

#include "watchfloor/v1/control.grpc.pb.h"

namespace watchfloor::server::fleetd {

// Streamed registration (no request is parsed), so even an unparseable request gets this
// answer rather than gRPC's INTERNAL with an empty message.
class ControlDisabledService final : public watchfloor::v1::ControlService::StreamedService {
public:
    static grpc::Status refusal() {
        return {grpc::StatusCode::UNIMPLEMENTED,
                "operator actions are off in this fleetd: it was started without --tokens FILE "
                "(bearer tokens mapped to roles); telemetry is served as usual"};
    }

    template <class Request, class Response>
    using Unary = grpc::ServerUnaryStreamer<Request, Response>;

    grpc::Status StreamedWhoAmI(grpc::ServerContext*,
                                Unary<watchfloor::v1::WhoAmIRequest, watchfloor::v1::WhoAmIResponse>*) override {
        return refusal();
    }
    grpc::Status StreamedPreviewAction(
        grpc::ServerContext*, Unary<watchfloor::v1::PreviewActionRequest, watchfloor::v1::ActionPreview>*) override {
        return refusal();
    }
    grpc::Status StreamedExecuteAction(
        grpc::ServerContext*, Unary<watchfloor::v1::ExecuteActionRequest, watchfloor::v1::Operation>*) override {
        return refusal();
    }
    grpc::Status StreamedApproveOperation(
        grpc::ServerContext*, Unary<watchfloor::v1::ApproveOperationRequest, watchfloor::v1::Operation>*) override {
        return refusal();
    }
    grpc::Status StreamedGetOperation(grpc::ServerContext*,
                                      Unary<watchfloor::v1::GetOperationRequest, watchfloor::v1::Operation>*) override {
        return refusal();
    }
    grpc::Status StreamedListOperations(
        grpc::ServerContext*,
        Unary<watchfloor::v1::ListOperationsRequest, watchfloor::v1::ListOperationsResponse>*) override {
        return refusal();
    }
    grpc::Status StreamedWatchOperations(
        grpc::ServerContext*,
        grpc::ServerSplitStreamer<watchfloor::v1::WatchOperationsRequest, watchfloor::v1::Operation>*) override {
        return refusal();
    }
    grpc::Status StreamedListAuditEntries(
        grpc::ServerContext*,
        Unary<watchfloor::v1::ListAuditEntriesRequest, watchfloor::v1::ListAuditEntriesResponse>*) override {
        return refusal();
    }
};

}  // namespace watchfloor::server::fleetd
