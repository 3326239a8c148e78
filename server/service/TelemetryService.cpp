#include "TelemetryService.h"

#include "RequestHandlers.h"

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
class FailedStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
public:
    explicit FailedStream(const grpc::Status& status) { Finish(status); }
    void OnDone() override { delete this; }
};

grpc::ServerUnaryReactor* finished(grpc::CallbackServerContext* context, const grpc::Status& status) {
    auto* reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
}
}  // namespace

TelemetryService::TelemetryService(const FleetStateStore& store, const ReplayLog& log, const HistoryStore& history,
                                   SubscriptionPump& pump)
    : store_(store), log_(log), history_(history), pump_(pump) {}

grpc::ServerWriteReactor<grpc::ByteBuffer>* TelemetryService::Subscribe(grpc::CallbackServerContext* context,
                                                                        const grpc::ByteBuffer* requestBytes) {
    v1::SubscribeRequest request;
    grpc::Slice slice;
    if (!requestBytes->DumpToSingleSlice(&slice).ok() ||
        !request.ParseFromArray(slice.begin(), static_cast<int>(slice.size())))
        return new FailedStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                             "SubscribeRequest could not be parsed"));
    if (pump_.closing())
        return new FailedStream(grpc::Status(grpc::StatusCode::UNAVAILABLE, "fleetd shutting down"));
    SubscribePlan plan;
    const grpc::Status status = planSubscribe(request, store_, log_, pump_.identity().runId, &plan);
    if (!status.ok()) return new FailedStream(status);
    return pump_.open(context, std::move(plan.filter), plan.cursor, std::move(plan.snapshotReason));
}

grpc::ServerUnaryReactor* TelemetryService::GetHistory(grpc::CallbackServerContext* context,
                                                       const v1::GetHistoryRequest* request,
                                                       v1::GetHistoryResponse* response) {
    return finished(context, answerHistory(*request, store_, history_, response));
}

grpc::ServerUnaryReactor* TelemetryService::ListEvents(grpc::CallbackServerContext* context,
                                                       const v1::ListEventsRequest* request,
                                                       v1::ListEventsResponse* response) {
    return finished(context, answerListEvents(*request, store_, response));
}

grpc::ServerUnaryReactor* TelemetryService::GetTopology(grpc::CallbackServerContext* context,
                                                        const v1::GetTopologyRequest* request,
                                                        v1::Topology* response) {
    return finished(context, answerTopology(*request, store_, response));
}

}  // namespace watchfloor::server::service
