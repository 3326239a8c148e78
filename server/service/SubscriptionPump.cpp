#include "SubscriptionPump.h"

#include "DeltaCoalescer.h"
#include "FinishedStream.h"
#include "HappensBefore.h"

#include <set>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
void releaseEncoded(void* holder) { delete static_cast<EncodedMessage*>(holder); }

}  // namespace

// --- SubscriberStream ------------------------------------------------------------------------

SubscriberStream::SubscriberStream(SubscriptionPump& pump, grpc::CallbackServerContext* context,
                                   SubscriptionFilter filter, std::uint64_t cursor, std::string snapshotReason)
    : pump_(pump),
      context_(context),
      filter_(std::move(filter)),
      cursor_(cursor),
      snapshotReason_(std::move(snapshotReason)),
      lastWrite_(std::chrono::steady_clock::now()) {}

bool SubscriberStream::claimForWrite() {
    std::lock_guard lock(mu_);
    if (writing_ || finishRequested_ || finished_) return false;
    writing_ = true;
    return true;
}

void SubscriberStream::cancelIfStalled(std::chrono::milliseconds timeout) {
    {
        std::lock_guard lock(mu_);
        if (!writing_ || finishRequested_ || finished_ || std::chrono::steady_clock::now() - lastWrite_ < timeout)
            return;
        finishRequested_ = true;  // Finish follows in OnWriteDone(false)
        finishStatus_ = grpc::Status(
            grpc::StatusCode::RESOURCE_EXHAUSTED,
            "stream stopped reading for " + std::to_string(timeout.count() / 1000) + " s; resubscribe to resync");
    }
    // The stalled write may complete right here and finish the call; once OnDone has run, gRPC
    // frees the context. contextGuard_ keeps OnDone waiting while TryCancel runs; it is
    // recursive because TryCancel may run this stream's callbacks, OnDone too, on this thread.
    std::lock_guard guard(contextGuard_);
    if (done_) return;
    happensbefore::publish(this);
    context_->TryCancel();
}

void SubscriberStream::startWrite(const EncodedMessage& message) {
    // The slice borrows the shared bytes; the copy of the pointer it owns is released by gRPC.
    auto* holder = new EncodedMessage(message);
    grpc::Slice slice(const_cast<char*>(message->data()), message->size(), &releaseEncoded, holder);
    buffer_ = grpc::ByteBuffer(&slice, 1);
    {
        std::lock_guard lock(mu_);
        inFlight_ = message;
        lastWrite_ = std::chrono::steady_clock::now();
    }
    happensbefore::publish(this);
    StartWrite(&buffer_);
}

void SubscriberStream::releaseUnwritten() {
    std::unique_lock lock(mu_);
    writing_ = false;
    finishNowIfRequested(lock);
}

void SubscriberStream::finishNowIfRequested(std::unique_lock<std::mutex>& lock) {
    if (!finishRequested_ || writing_ || finished_) return;
    finished_ = true;
    const grpc::Status status = finishStatus_;
    lock.unlock();
    happensbefore::publish(this);
    Finish(status);
}

void SubscriberStream::OnWriteDone(bool ok) {
    happensbefore::receive(this);
    {
        std::unique_lock lock(mu_);
        writing_ = false;
        inFlight_.reset();
        if (!ok && !finishRequested_) {  // the client went away mid-write
            finishRequested_ = true;
            finishStatus_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream write failed");
        }
        if (finishRequested_) {
            finishNowIfRequested(lock);
            return;
        }
    }
    pump_.wake();
}

void SubscriberStream::OnCancel() {
    happensbefore::receive(this);
    requestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the client"));
}

void SubscriberStream::requestFinish(const grpc::Status& status) {
    std::unique_lock lock(mu_);
    if (finished_ || finishRequested_) return;
    finishRequested_ = true;
    finishStatus_ = status;
    finishNowIfRequested(lock);
}

void SubscriberStream::OnDone() {
    happensbefore::receive(this);
    {
        std::lock_guard guard(contextGuard_);
        done_ = true;
    }
    pump_.remove(this);
    auto last = std::move(self_);  // may delete this at the end of the scope
}

// --- SubscriptionPump ------------------------------------------------------------------------

SubscriptionPump::SubscriptionPump(const FleetStateStore& store, const ReplayLog& log, ServerIdentity identity,
                                   PumpOptions options)
    : store_(store),
      log_(log),
      identity_(std::move(identity)),
      options_(options),
      cacheByFilter_(options.maxCachedFilters) {
    thread_ = std::thread([this] { run(); });
}

SubscriptionPump::~SubscriptionPump() { stop(); }

grpc::ServerWriteReactor<grpc::ByteBuffer>* SubscriptionPump::open(grpc::CallbackServerContext* context,
                                                                   SubscriptionFilter filter, std::uint64_t cursor,
                                                                   std::string snapshotReason) {
    std::lock_guard lock(mu_);
    if (closing_) return new FinishedStream(closingStatus_);
    auto stream =
        std::make_shared<SubscriberStream>(*this, context, std::move(filter), cursor, std::move(snapshotReason));
    stream->self_ = stream;
    streams_.insert(stream);
    woken_ = true;
    wake_.notify_one();
    happensbefore::publish(stream.get());
    return stream.get();
}

void SubscriptionPump::wake() {
    std::lock_guard lock(mu_);
    woken_ = true;
    wake_.notify_one();
}

void SubscriptionPump::remove(SubscriberStream* stream) {
    std::lock_guard lock(mu_);
    for (auto it = streams_.begin(); it != streams_.end(); ++it)
        if (it->get() == stream) {
            streams_.erase(it);
            return;
        }
}

void SubscriptionPump::finishAll(const grpc::Status& status) {
    std::vector<std::shared_ptr<SubscriberStream>> streams;
    {
        std::lock_guard lock(mu_);
        closing_ = true;
        closingStatus_ = status;
        streams.assign(streams_.begin(), streams_.end());
    }
    for (auto& s : streams) s->requestFinish(status);
}

void SubscriptionPump::stop() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
        wake_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
}

std::size_t SubscriptionPump::streamCount() const {
    std::lock_guard lock(mu_);
    return streams_.size();
}

void SubscriptionPump::run() {
    const auto poll =
        std::min<std::chrono::milliseconds>(options_.heartbeatInterval / 4, std::chrono::milliseconds(250));
    for (;;) {
        std::vector<std::shared_ptr<SubscriberStream>> streams;
        {
            std::unique_lock lock(mu_);
            wake_.wait_for(lock, poll, [this] { return woken_ || stopping_; });
            if (stopping_) return;
            woken_ = false;
            streams.assign(streams_.begin(), streams_.end());
        }
        for (auto& stream : streams) serve(*stream);
    }
}

void SubscriptionPump::serve(SubscriberStream& stream) {
    if (!stream.claimForWrite()) {
        stream.cancelIfStalled(options_.stalledWriteTimeout);
        return;
    }
    EncodedMessage message = nextMessage(stream);
    if (message)
        stream.startWrite(message);
    else
        stream.releaseUnwritten();
}

EncodedMessage SubscriptionPump::nextMessage(SubscriberStream& stream) {
    if (!stream.snapshotReason_.empty()) return snapshotFor(stream);
    if (log_.lastSequence() > stream.cursor_) {
        if (!log_.canResumeAfter(stream.cursor_)) {
            stream.snapshotReason_ = "resync: fell off log";
            return snapshotFor(stream);
        }
        // Pending entries, bounded so a coalesce never walks more than a few messages' worth.
        std::vector<LogEntryPtr> pending = log_.after(stream.cursor_, 4096);
        if (pending.empty()) return nullptr;
        std::set<std::int64_t> times;
        std::size_t samples = 0, window = 0;
        for (; window < pending.size(); ++window) {
            samples += pending[window]->sampleCount();
            times.insert(pending[window]->delta().server_time_unix_ms());
            if (window > 0 && samples > 4 * options_.maxSamplesPerMessage) break;
        }
        pending.resize(window);
        if (pending.size() == 1 || static_cast<int>(times.size()) < options_.coalesceAfterTicks) {
            stream.cursor_ = pending.front()->sequence();
            return pending.front()->encodedFor(stream.filter_, store_.index());
        }
        CoalescedDelta merged = coalesce(pending, stream.filter_, store_.index(), options_.maxSamplesPerMessage);
        stream.cursor_ = merged.delta.sequence();
        return encodeDeltaResponse(merged.delta);
    }
    if (std::chrono::steady_clock::now() - stream.lastWrite_ >= options_.heartbeatInterval) {
        v1::Heartbeat heartbeat;
        heartbeat.set_sequence(stream.cursor_);
        heartbeat.set_server_time_unix_ms(toUnixMs(store_.lastSampleTime()));  // source time, as deltas
        return encodeHeartbeatResponse(heartbeat);
    }
    return nullptr;
}

EncodedMessage SubscriptionPump::snapshotFor(SubscriberStream& stream) {
    FilterCache& shared = cacheByFilter_[stream.filter_.key()];
    cachedFilters_ = cacheByFilter_.size();
    if (!shared.topology)
        shared.topology = std::make_shared<const std::string>(store_.topologyFor(stream.filter_)->SerializeAsString());
    const auto now = std::chrono::steady_clock::now();
    if (!shared.snapshot || now - shared.builtAt > options_.snapshotReuse || !log_.canResumeAfter(shared.sequence)) {
        v1::Snapshot snapshot = store_.snapshot(stream.filter_);
        snapshot.set_api_version(v1::API_VERSION_1);
        snapshot.set_server_version(identity_.serverVersion);
        snapshot.set_run_id(identity_.runId);
        snapshot.set_sim_speed(identity_.simSpeed);
        snapshot.set_telemetry_period_ms(identity_.telemetryPeriodMs);
        snapshot.set_counters_periodic(identity_.countersPeriodic);
        shared.snapshot = std::make_shared<const std::string>(snapshot.SerializeAsString());
        shared.sequence = snapshot.sequence();
        shared.builtAt = now;
    }
    stream.cursor_ = shared.sequence;
    EncodedMessage message = encodeSnapshotResponse(*shared.snapshot, stream.snapshotReason_, *shared.topology);
    stream.snapshotReason_.clear();
    return message;
}

}  // namespace watchfloor::server::service
