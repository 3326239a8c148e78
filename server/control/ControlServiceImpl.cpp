#include "ControlServiceImpl.h"

#include "TransportSecurity.h"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

grpc::Status unparseable(const google::protobuf::Message& request) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "the " + request.GetDescriptor()->full_name() + " could not be parsed (not a valid protobuf message)"};
}

// Reads the one request of a unary call, lets `handle` answer it, and sends the answer.
template <class Request, class Response, class Handle>
grpc::Status answerUnary(grpc::ServerUnaryStreamer<Request, Response>* call, Handle&& handle) {
    Request request;
    if (!call->Read(&request)) return unparseable(request);
    Response response;
    grpc::Status status = handle(request, &response);
    if (status.ok() && !call->Write(response))
        return {grpc::StatusCode::CANCELLED, "the caller went away before the answer was sent"};
    return status;
}

}  // namespace

grpc::Status ControlServiceImpl::StreamedWhoAmI(grpc::ServerContext* context,
                                                Unary<v1::WhoAmIRequest, v1::WhoAmIResponse>* call) {
    return answerUnary(call, [&](const auto& request, auto* response) { return whoAmI(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedPreviewAction(grpc::ServerContext* context,
                                                       Unary<v1::PreviewActionRequest, v1::ActionPreview>* call) {
    return answerUnary(call,
                       [&](const auto& request, auto* response) { return previewAction(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedExecuteAction(grpc::ServerContext* context,
                                                       Unary<v1::ExecuteActionRequest, v1::Operation>* call) {
    return answerUnary(call,
                       [&](const auto& request, auto* response) { return executeAction(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedApproveOperation(grpc::ServerContext* context,
                                                          Unary<v1::ApproveOperationRequest, v1::Operation>* call) {
    return answerUnary(
        call, [&](const auto& request, auto* response) { return approveOperation(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedGetOperation(grpc::ServerContext* context,
                                                      Unary<v1::GetOperationRequest, v1::Operation>* call) {
    return answerUnary(call,
                       [&](const auto& request, auto* response) { return getOperation(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedListOperations(
    grpc::ServerContext* context, Unary<v1::ListOperationsRequest, v1::ListOperationsResponse>* call) {
    return answerUnary(
        call, [&](const auto& request, auto* response) { return listOperations(*context, request, response); });
}

grpc::Status ControlServiceImpl::StreamedListAuditEntries(
    grpc::ServerContext* context, Unary<v1::ListAuditEntriesRequest, v1::ListAuditEntriesResponse>* call) {
    return answerUnary(
        call, [&](const auto& request, auto* response) { return listAuditEntries(*context, request, response); });
}

AccessPolicy::Request ControlServiceImpl::accessRequest(const grpc::ServerContext& context, std::string rpcName) const {
    AccessPolicy::Request request;
    const auto& metadata = context.client_metadata();
    if (const auto found = metadata.find("authorization"); found != metadata.end())
        request.authorization = std::string_view(found->second.data(), found->second.size());
    request.peer = context.peer();
    request.channelIsSecure = isSecureChannel(context);
    request.actionName = std::move(rpcName);
    return request;
}

grpc::Status ControlServiceImpl::whoAmI(grpc::ServerContext& context, const v1::WhoAmIRequest&,
                                        v1::WhoAmIResponse* response) {
    const auto decision = access_.authenticate(accessRequest(context, "WhoAmI"));
    if (!decision.status.ok()) return decision.status;
    response->set_principal(decision.caller.principal);
    response->set_role(decision.caller.role);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::previewAction(grpc::ServerContext& context, const v1::PreviewActionRequest& request,
                                               v1::ActionPreview* response) {
    const auto decision = access_.authenticate(accessRequest(context, "PreviewAction"));
    if (!decision.status.ok()) return decision.status;
    auto outcome = engine_.preview(decision.caller, request.action());
    if (!outcome.status.ok()) return outcome.status;
    *response = std::move(outcome.preview);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::executeAction(grpc::ServerContext& context, const v1::ExecuteActionRequest& request,
                                               v1::Operation* response) {
    const v1::ActionRequest& action = request.action();
    auto access = accessRequest(context, actionName(action.type()));
    access.target = describeTarget(action);
    access.requestId = action.request_id();
    // Who is calling; what the role may do is the engine's decision, after it has checked that the
    // request is well-formed (an unknown action type is a bad argument, not a permission problem).
    const auto decision = access_.authenticate(access);
    if (!decision.status.ok()) return decision.status;
    // The engine finishes the action even if this call is cancelled meanwhile; the console's
    // retry with the same request id then returns the operation.
    auto result = engine_.execute(decision.caller, action);
    if (!result.status.ok()) return result.status;
    *response = std::move(result.operation);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::approveOperation(grpc::ServerContext& context,
                                                  const v1::ApproveOperationRequest& request, v1::Operation* response) {
    auto access = accessRequest(context, "ApproveOperation");
    access.target = request.operation_id();
    const auto decision = access_.authenticate(access);
    if (!decision.status.ok()) return decision.status;
    auto result = engine_.approve(decision.caller, request.operation_id(), request.reason());
    if (!result.status.ok()) return result.status;
    *response = std::move(result.operation);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::getOperation(grpc::ServerContext& context, const v1::GetOperationRequest& request,
                                              v1::Operation* response) {
    const auto decision = access_.authenticate(accessRequest(context, "GetOperation"));
    if (!decision.status.ok()) return decision.status;
    auto result = engine_.get(request.operation_id(), request.request_id(), decision.caller.principal);
    if (!result.status.ok()) return result.status;
    *response = std::move(result.operation);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::listOperations(grpc::ServerContext& context, const v1::ListOperationsRequest& request,
                                                v1::ListOperationsResponse* response) {
    const auto decision = access_.authenticate(accessRequest(context, "ListOperations"));
    if (!decision.status.ok()) return decision.status;
    auto result = engine_.list(request);
    if (!result.status.ok()) return result.status;
    *response = std::move(result.response);
    return grpc::Status::OK;
}

grpc::Status ControlServiceImpl::StreamedWatchOperations(
    grpc::ServerContext* context, grpc::ServerSplitStreamer<v1::WatchOperationsRequest, v1::Operation>* writer) {
    v1::WatchOperationsRequest request;
    if (!writer->Read(&request)) return unparseable(request);
    const auto decision = access_.authenticate(accessRequest(*context, "WatchOperations"));
    if (!decision.status.ok()) return decision.status;

    // The engine's listener only queues; this thread writes, so a slow console never slows the
    // engine. A console that falls too far behind is told so and can list to catch up.
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<v1::Operation> queue;
    bool overflowed = false;
    const int listener = engine_.addListener([&](const v1::Operation& op) {
        {
            std::lock_guard lock(mutex);
            if (queue.size() >= limits_.watchQueueLimit)
                overflowed = true;
            else
                queue.push_back(op);
        }
        changed.notify_one();
    });
    // Tells the console the watch is live: every change from here on reaches it.
    writer->SendInitialMetadata();
    grpc::Status status = grpc::Status::OK;
    std::unique_lock lock(mutex);
    while (!context->IsCancelled() && !stopping_) {
        if (overflowed) {
            status = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "this console fell more than " + std::to_string(limits_.watchQueueLimit) +
                                      " operation changes behind; list operations and watch again");
            break;
        }
        if (queue.empty()) {
            changed.wait_for(lock, limits_.cancelPoll);
            continue;
        }
        v1::Operation next = std::move(queue.front());
        queue.pop_front();
        lock.unlock();
        const bool written = writer->Write(next);
        lock.lock();
        if (!written) break;
    }
    lock.unlock();
    engine_.removeListener(listener);
    return status;
}

grpc::Status ControlServiceImpl::listAuditEntries(grpc::ServerContext& context,
                                                  const v1::ListAuditEntriesRequest& request,
                                                  v1::ListAuditEntriesResponse* response) {
    // Reasons name people and targets: viewers (and war-room screens) do not read them.
    const auto decision =
        access_.authorizeRead(accessRequest(context, "ListAuditEntries"), v1::ROLE_OPERATOR, "read the audit trail");
    if (!decision.status.ok()) return decision.status;
    if (!auditTrail_)
        return {grpc::StatusCode::FAILED_PRECONDITION, "this fleetd serves no audit trail (no audit log connected)"};
    auto page = auditTrail_->newestFirst(request.before_seq(), request.page_size());
    if (!page.status.ok()) return page.status;
    *response = std::move(page.response);
    return grpc::Status::OK;
}

}  // namespace watchfloor::server::control
