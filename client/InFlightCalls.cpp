#include "InFlightCalls.h"

#include <grpcpp/client_context.h>

#include <algorithm>

namespace watchfloor::client {

void InFlightCalls::add(grpc::ClientContext* context) {
    std::lock_guard lock(m_mutex);
    m_calls.push_back(context);
}

void InFlightCalls::finish(grpc::ClientContext* context) {
    {
        std::lock_guard lock(m_mutex);
        std::erase(m_calls, context);
    }
    m_idle.notify_all();
}

void InFlightCalls::cancelAllAndWait() {
    std::unique_lock lock(m_mutex);
    for (grpc::ClientContext* context : m_calls) {
        context->TryCancel();
    }
    m_idle.wait(lock, [this] { return m_calls.empty(); });
}

}  // namespace watchfloor::client
