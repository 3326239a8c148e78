#pragma once
// One unary RPC of a console connection: its deadline, its entry in the owner's InFlightCalls
// (so the owner's destructor can cancel it and wait), and its end handed to a function that runs
// on a gRPC thread (the owner posts the result to its own thread from there).
//
// A reactor rather than gRPC's std::function callback: gRPC moves a callback into its own call
// object after the caller has let go of it and invokes it on a gRPC thread, ordered only by the
// uninstrumented gRPC core, before any code of ours runs there. Here everything of ours lives in
// this object, and OnDone first takes the lock start() held while it built and started the call:
// an order ThreadSanitizer sees, and one that holds whichever thread gRPC finishes on (gRPC never
// runs a unary call's reactions inline, so OnDone cannot wait on its own thread's lock).

#include "InFlightCalls.h"

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <utility>

namespace watchfloor::client {

template <class Request, class Response>
class UnaryCall final : public grpc::ClientUnaryReactor {
public:
    // Runs on a gRPC thread when the call has ended; the response is empty unless the status is OK.
    using Finished = std::function<void(const grpc::Status&, Response&&)>;

    // `bind(context, request, response, reactor)` calls the stub's async() method.
    template <class Bind>
    static void start(const Bind& bind, const Request& request, std::chrono::milliseconds deadline,
                      InFlightCalls& inFlight, Finished finished) {
        auto* call = new UnaryCall(request, inFlight, std::move(finished));
        std::lock_guard starting(call->m_starting);
        call->m_context.set_deadline(std::chrono::system_clock::now() + deadline);
        inFlight.add(&call->m_context);
        bind(&call->m_context, &call->m_request, &call->m_response, call);
        call->StartCall();
    }

    void OnDone(const grpc::Status& status) override {
        { std::lock_guard started(m_starting); }
        m_finished(status, std::move(m_response));
        m_inFlight.finish(&m_context);  // the owner may go from here on
        delete this;                    // gRPC is done with this call before OnDone
    }

private:
    UnaryCall(const Request& request, InFlightCalls& inFlight, Finished finished)
        : m_request(request), m_inFlight(inFlight), m_finished(std::move(finished)) {}

    std::mutex m_starting;
    grpc::ClientContext m_context;
    Request m_request;
    Response m_response;
    InFlightCalls& m_inFlight;
    Finished m_finished;
};

}  // namespace watchfloor::client
