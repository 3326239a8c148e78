#pragma once
// One Subscribe call, read with the gRPC callback API.
//
// Threading contract (measured pattern, see docs/domain/streaming-patterns.md):
// - Reactions run on gRPC's threads. OnReadDone only moves the message into a pending buffer
//   under a short lock and calls `dataReady` when the buffer goes from empty to non-empty; the
//   owner posts itself ONE queued call from there and drains the whole buffer on its thread.
// - cancel() is TryCancel(): thread-safe, and the caller must not hold its own locks.
// - The owner must call waitUntilDone() before it dies: OnDone is the last reaction, and
//   `finished` (which the owner provides) is called from it.

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace watchfloor::client {

class SubscribeStreamReader {
public:
    using DataReady = std::function<void()>;
    using Finished = std::function<void(const grpc::Status&)>;

    // Starts the call at once. Both callbacks run on gRPC threads and must not block.
    static std::shared_ptr<SubscribeStreamReader> start(watchfloor::v1::TelemetryService::Stub& stub,
                                                        const watchfloor::v1::SubscribeRequest& request,
                                                        DataReady dataReady, Finished finished);

    void cancel();
    // Everything read since the last call, in arrival order.
    std::vector<watchfloor::v1::SubscribeResponse> takePending();
    void waitUntilDone();
    bool isDone() const;

    SubscribeStreamReader(const SubscribeStreamReader&) = delete;
    SubscribeStreamReader& operator=(const SubscribeStreamReader&) = delete;
    ~SubscribeStreamReader();

private:
    class Reactor;
    SubscribeStreamReader(DataReady dataReady, Finished finished);

    grpc::ClientContext m_context;
    watchfloor::v1::SubscribeRequest m_request;
    DataReady m_dataReady;
    Finished m_finished;

    std::mutex m_pendingMutex;
    std::vector<watchfloor::v1::SubscribeResponse> m_pending;

    mutable std::mutex m_doneMutex;
    std::condition_variable m_doneCv;
    bool m_done = false;
};

}  // namespace watchfloor::client
