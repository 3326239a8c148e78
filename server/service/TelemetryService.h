#pragma once
// watchfloor.v1.TelemetryService on the gRPC callback API. Subscribe is registered raw (bytes
// in, bytes out) so each delta is encoded once and the same bytes go to every subscriber with
// the same filter; the unary calls answer inline from the store and history.

#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "ReplayLog.h"
#include "SubscriptionPump.h"

#include "watchfloor/v1/fleet.grpc.pb.h"

namespace watchfloor::server::service {

class TelemetryService final
    : public watchfloor::v1::TelemetryService::WithRawCallbackMethod_Subscribe<
          watchfloor::v1::TelemetryService::CallbackService> {
public:
    TelemetryService(const FleetStateStore& store, const ReplayLog& log, const HistoryStore& history,
                     SubscriptionPump& pump);

    grpc::ServerWriteReactor<grpc::ByteBuffer>* Subscribe(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request) override;
    grpc::ServerUnaryReactor* GetHistory(grpc::CallbackServerContext* context,
                                         const watchfloor::v1::GetHistoryRequest* request,
                                         watchfloor::v1::GetHistoryResponse* response) override;
    grpc::ServerUnaryReactor* ListEvents(grpc::CallbackServerContext* context,
                                         const watchfloor::v1::ListEventsRequest* request,
                                         watchfloor::v1::ListEventsResponse* response) override;
    grpc::ServerUnaryReactor* GetTopology(grpc::CallbackServerContext* context,
                                          const watchfloor::v1::GetTopologyRequest* request,
                                          watchfloor::v1::Topology* response) override;

private:
    const FleetStateStore& store_;
    const ReplayLog& log_;
    const HistoryStore& history_;
    SubscriptionPump& pump_;
};

}  // namespace watchfloor::server::service
