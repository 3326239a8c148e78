#pragma once
// The ControlService of a fleetd started without --tokens: every call is refused with a message
// that names the flag, instead of gRPC's bare "unknown service". UNIMPLEMENTED is gRPC's code for
// "not supported or not enabled in this service"; a console stops offering actions on it.

#include "watchfloor/v1/control.grpc.pb.h"

namespace watchfloor::server::fleetd {

class ControlDisabledService final : public watchfloor::v1::ControlService::Service {
public:
    static grpc::Status refusal() {
        return {grpc::StatusCode::UNIMPLEMENTED,
                "operator actions are off in this fleetd: it was started without --tokens FILE "
                "(bearer tokens mapped to roles); telemetry is served as usual"};
    }

    grpc::Status WhoAmI(grpc::ServerContext*, const watchfloor::v1::WhoAmIRequest*,
                        watchfloor::v1::WhoAmIResponse*) override { return refusal(); }
    grpc::Status PreviewAction(grpc::ServerContext*, const watchfloor::v1::PreviewActionRequest*,
                               watchfloor::v1::ActionPreview*) override { return refusal(); }
    grpc::Status ExecuteAction(grpc::ServerContext*, const watchfloor::v1::ExecuteActionRequest*,
                               watchfloor::v1::Operation*) override { return refusal(); }
    grpc::Status ApproveOperation(grpc::ServerContext*, const watchfloor::v1::ApproveOperationRequest*,
                                  watchfloor::v1::Operation*) override { return refusal(); }
    grpc::Status GetOperation(grpc::ServerContext*, const watchfloor::v1::GetOperationRequest*,
                              watchfloor::v1::Operation*) override { return refusal(); }
    grpc::Status ListOperations(grpc::ServerContext*, const watchfloor::v1::ListOperationsRequest*,
                                watchfloor::v1::ListOperationsResponse*) override { return refusal(); }
    grpc::Status WatchOperations(grpc::ServerContext*, const watchfloor::v1::WatchOperationsRequest*,
                                 grpc::ServerWriter<watchfloor::v1::Operation>*) override { return refusal(); }
    grpc::Status ListAuditEntries(grpc::ServerContext*, const watchfloor::v1::ListAuditEntriesRequest*,
                                  watchfloor::v1::ListAuditEntriesResponse*) override { return refusal(); }
};

}  // namespace watchfloor::server::fleetd
