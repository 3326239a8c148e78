#include "TelemetryService.h"

#include "AsOfAnswer.h"
#include "FinishedStream.h"
#include "ProtobufLogLimit.h"
#include "RequestHandlers.h"

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
grpc::ServerUnaryReactor* finished(grpc::CallbackServerContext* context, const grpc::Status& status) {
    auto* reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
}

bool parse(const grpc::ByteBuffer& bytes, google::protobuf::Message* request) {
    grpc::Slice slice;
    return bytes.DumpToSingleSlice(&slice).ok() &&
           request->ParseFromArray(slice.begin(), static_cast<int>(slice.size()));
}

grpc::Status unparseable(const google::protobuf::Message& request) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        request.GetDescriptor()->name() + " could not be parsed (not a valid protobuf message)");
}

// Parses the request, lets `answer` fill the response, and serializes it into `responseBytes`.
template <class Request, class Response, class Answer>
grpc::ServerUnaryReactor* answerRaw(grpc::CallbackServerContext* context, const grpc::ByteBuffer* requestBytes,
                                    grpc::ByteBuffer* responseBytes, Answer&& answer) {
    Request request;
    if (!parse(*requestBytes, &request)) return finished(context, unparseable(request));
    Response response;
    grpc::Status status = answer(request, &response);
    bool ownBuffer = false;
    if (status.ok()) status = grpc::SerializationTraits<Response>::Serialize(response, responseBytes, &ownBuffer);
    return finished(context, status);
}
}  // namespace

TelemetryService::TelemetryService(const FleetStateStore& store, const ReplayLog& log, const HistoryStore& history,
                                   SubscriptionPump& pump)
    : store_(store), log_(log), history_(history), pump_(pump) {
    // Parsing a request is where any client can make protobuf log a line (invalid UTF-8 in a
    // string field); from here on such lines are rate-limited, for every service in the process.
    limitProtobufLog();
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* TelemetryService::Subscribe(grpc::CallbackServerContext* context,
                                                                        const grpc::ByteBuffer* requestBytes) {
    v1::SubscribeRequest request;
    if (!parse(*requestBytes, &request)) return new FinishedStream(unparseable(request));
    if (pump_.closing()) return new FinishedStream(grpc::Status(grpc::StatusCode::UNAVAILABLE, "fleetd shutting down"));
    SubscribePlan plan;
    const grpc::Status status = planSubscribe(request, store_, log_, pump_.identity().runId, &plan);
    if (!status.ok()) return new FinishedStream(status);
    return pump_.open(context, std::move(plan.filter), plan.cursor, std::move(plan.snapshotReason));
}

grpc::ServerUnaryReactor* TelemetryService::GetHistory(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
    return answerRaw<v1::GetHistoryRequest, v1::GetHistoryResponse>(
        context, request, response,
        [&](const auto& parsed, auto* answer) { return answerHistory(parsed, store_, history_, answer); });
}

grpc::ServerUnaryReactor* TelemetryService::ListEvents(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
    return answerRaw<v1::ListEventsRequest, v1::ListEventsResponse>(
        context, request, response,
        [&](const auto& parsed, auto* answer) { return answerListEvents(parsed, store_, answer); });
}

grpc::ServerUnaryReactor* TelemetryService::GetTopology(grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
    return answerRaw<v1::GetTopologyRequest, v1::Topology>(
        context, request, response,
        [&](const auto& parsed, auto* answer) { return answerTopology(parsed, store_, answer); });
}

grpc::ServerUnaryReactor* TelemetryService::ListIncidents(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
    return answerRaw<v1::ListIncidentsRequest, v1::ListIncidentsResponse>(
        context, request, response,
        [&](const auto& parsed, auto* answer) { return answerListIncidents(parsed, store_, answer); });
}

grpc::ServerUnaryReactor* TelemetryService::GetStepTimeHeatmap(grpc::CallbackServerContext* context,
                                                               const grpc::ByteBuffer* request,
                                                               grpc::ByteBuffer* response) {
    return answerRaw<v1::StepTimeHeatmapRequest, v1::StepTimeHeatmap>(
        context, request, response,
        [&](const auto& parsed, auto* answer) { return answerStepTimeHeatmap(parsed, store_, history_, answer); });
}

grpc::ServerUnaryReactor* TelemetryService::GetStateAsOf(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
    return answerRaw<v1::AsOfRequest, v1::AsOfState>(context, request, response, [&](const auto& parsed, auto* answer) {
        return answerStateAsOf(parsed, store_, history_, pump_.identity().runId, answer);
    });
}

}  // namespace watchfloor::server::service
