#pragma once
// The unary calls a connection has in flight. Its destructor cancels them and waits until gRPC
// has run every completion callback, because those callbacks capture the connection: returning
// earlier would let a gRPC thread touch a destroyed object.

#include <condition_variable>
#include <mutex>
#include <vector>

namespace grpc {
class ClientContext;
}

namespace watchfloor::client {

class InFlightCalls {
public:
    void add(grpc::ClientContext* context);
    // From the call's completion callback, after its last use of the owner.
    void finish(grpc::ClientContext* context);
    void cancelAllAndWait();

private:
    std::mutex m_mutex;
    std::condition_variable m_idle;
    std::vector<grpc::ClientContext*> m_calls;
};

}  // namespace watchfloor::client
