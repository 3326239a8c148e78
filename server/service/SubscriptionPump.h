#pragma once
// Feeds every Subscribe stream from the replay log. One pump thread prepares each stream's next
// message when the stream has no write outstanding (gRPC allows one): a snapshot, the next log
// entry (filtered and encoded once per distinct filter, shared by streams), a coalesced delta
// when the stream is several ticks behind, or a heartbeat when idle. The tick thread only
// appends to the log and wakes the pump, so a stream that stops reading never slows the producer
// or other streams, and holds no more than one message plus its cursor.

#include "FleetStateStore.h"
#include "LruCache.h"
#include "ReplayLog.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace watchfloor::server::service {

struct ServerIdentity {
    std::string runId;          // new on every start
    std::string serverVersion;  // "fleetd 0.1.0"
    double simSpeed = 1.0;
    std::int64_t telemetryPeriodMs = 0;  // FleetSource::telemetryPeriod()
    bool countersPeriodic = false;       // FleetSource::countersPeriodic()
};

struct PumpOptions {
    std::chrono::milliseconds heartbeatInterval{2000};
    std::size_t maxSamplesPerMessage = 225'000;  // ~1.8 MB of samples per coalesced Delta
    // A stream this many distinct sample times behind gets a coalesced delta; nearer ones get
    // the shared log entries. A coalesce looks at most 4 x maxSamplesPerMessage samples ahead,
    // so at 1,800 racks (1.3 M samples a tick) a slow stream is fed entry by entry until it
    // falls off the log and is resynced; coalescing pays off for small and medium fleets.
    int coalesceAfterTicks = 3;
    // A snapshot built this recently is reused for another stream with the same filter (the
    // stream then replays the deltas since), so consoles attaching together cost one build.
    std::chrono::milliseconds snapshotReuse{3000};
    // A stream whose write has not completed for this long (the client stopped reading, or its
    // link is black-holed) is cancelled: it pins one message in gRPC's buffers, and a console
    // that wakes up again resyncs anyway. Bounds memory per dead console.
    std::chrono::milliseconds stalledWriteTimeout{120'000};
    // Filters whose encoded topology and snapshot are kept for reuse, least recently used
    // forgotten first: clients choose filters (any rack list), so the cache must not grow with them.
    std::size_t maxCachedFilters = 256;
};

class SubscriptionPump;

// One Subscribe call. Owned by itself (and the pump) until gRPC calls OnDone.
class SubscriberStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
public:
    // `snapshotReason` empty = resume from `cursor` out of the log.
    SubscriberStream(SubscriptionPump& pump, grpc::CallbackServerContext* context, SubscriptionFilter filter,
                     std::uint64_t cursor, std::string snapshotReason);

    void OnWriteDone(bool ok) override;
    void OnCancel() override;
    void OnDone() override;

    // Ends the stream with `status` as soon as no write is outstanding.
    void requestFinish(const grpc::Status& status);

private:
    friend class SubscriptionPump;
    bool claimForWrite();  // true: no write outstanding, not finishing
    void cancelIfStalled(std::chrono::milliseconds timeout);
    void startWrite(const EncodedMessage& message);
    void releaseUnwritten();  // nothing to send after all
    void finishNowIfRequested(std::unique_lock<std::mutex>& lock);

    SubscriptionPump& pump_;
    grpc::CallbackServerContext* context_;  // valid until OnDone
    std::recursive_mutex contextGuard_;     // held while the pump cancels through context_
    bool done_ = false;                     // OnDone ran: context_ is gone (under contextGuard_)
    std::shared_ptr<SubscriberStream> self_;

    std::mutex mu_;
    bool writing_ = false;
    bool finishRequested_ = false;
    bool finished_ = false;
    grpc::Status finishStatus_;
    EncodedMessage inFlight_;  // keeps the bytes alive while gRPC sends them
    grpc::ByteBuffer buffer_;

    // Touched by the pump thread only.
    SubscriptionFilter filter_;
    std::uint64_t cursor_;
    std::string snapshotReason_;
    std::chrono::steady_clock::time_point lastWrite_;
};

class SubscriptionPump {
public:
    SubscriptionPump(const FleetStateStore& store, const ReplayLog& log, ServerIdentity identity,
                     PumpOptions options = {});
    ~SubscriptionPump();

    const ServerIdentity& identity() const { return identity_; }

    // Creates the stream for a validated Subscribe and schedules its first message.
    grpc::ServerWriteReactor<grpc::ByteBuffer>* open(grpc::CallbackServerContext* context, SubscriptionFilter filter,
                                                     std::uint64_t cursor, std::string snapshotReason);
    void wake();
    // Ends every open stream with `status` (shutdown); new streams are refused with it too.
    void finishAll(const grpc::Status& status);
    void stop();  // after the gRPC server has shut down
    std::size_t streamCount() const;
    bool closing() const { return closing_; }
    std::size_t cachedFilters() const { return cachedFilters_; }  // for tests and statistics

private:
    friend class SubscriberStream;
    void run();
    void serve(SubscriberStream& stream);
    EncodedMessage nextMessage(SubscriberStream& stream);
    EncodedMessage snapshotFor(SubscriberStream& stream);
    void remove(SubscriberStream* stream);

    const FleetStateStore& store_;
    const ReplayLog& log_;
    ServerIdentity identity_;
    PumpOptions options_;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    bool woken_ = false;
    bool stopping_ = false;
    std::atomic<bool> closing_{false};
    grpc::Status closingStatus_;
    std::set<std::shared_ptr<SubscriberStream>> streams_;
    // Pump thread only. Per filter key: the encoded topology, and the newest encoded snapshot
    // body, which streams joining within `snapshotReuse` share (they then catch up from the log).
    struct FilterCache {
        std::shared_ptr<const std::string> topology;
        std::shared_ptr<const std::string> snapshot;
        std::uint64_t sequence = 0;
        std::chrono::steady_clock::time_point builtAt;
    };
    LruCache<FilterCache> cacheByFilter_;
    std::atomic<std::size_t> cachedFilters_{0};
    std::thread thread_;
};

}  // namespace watchfloor::server::service
