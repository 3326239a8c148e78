#pragma once
// watchfloor.v1.TelemetryService on the gRPC callback API. Every method is registered raw (bytes
// in, bytes out): Subscribe so each delta is encoded once and the same bytes go to every
// subscriber with the same filter, and all of them so that a request which cannot be parsed is
// answered INVALID_ARGUMENT with a message (gRPC 1.51's callback handlers answer a parse failure
// UNIMPLEMENTED with an empty message before the service sees it). The unary calls answer
// inline from the store and history.

#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "ReplayLog.h"
#include "SubscriptionPump.h"

#include "watchfloor/v1/fleet.grpc.pb.h"

namespace watchfloor::server::service {

class TelemetryService final
    : public watchfloor::v1::TelemetryService::WithRawCallbackMethod_Subscribe<
          watchfloor::v1::TelemetryService::WithRawCallbackMethod_GetHistory<
              watchfloor::v1::TelemetryService::WithRawCallbackMethod_ListEvents<
                  watchfloor::v1::TelemetryService::WithRawCallbackMethod_GetTopology<
                      watchfloor::v1::TelemetryService::WithRawCallbackMethod_ListIncidents<
                          watchfloor::v1::TelemetryService::WithRawCallbackMethod_GetStepTimeHeatmap<
                              watchfloor::v1::TelemetryService::WithRawCallbackMethod_GetStateAsOf<
                                  watchfloor::v1::TelemetryService::CallbackService>>>>>>> {
public:
    TelemetryService(const FleetStateStore& store, const ReplayLog& log, const HistoryStore& history,
                     SubscriptionPump& pump);

    grpc::ServerWriteReactor<grpc::ByteBuffer>* Subscribe(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request) override;
    grpc::ServerUnaryReactor* GetHistory(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* ListEvents(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* GetTopology(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* ListIncidents(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* GetStepTimeHeatmap(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                                 grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* GetStateAsOf(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;

private:
    const FleetStateStore& store_;
    const ReplayLog& log_;
    const HistoryStore& history_;
    SubscriptionPump& pump_;
};

}  // namespace watchfloor::server::service
