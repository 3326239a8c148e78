#pragma once
// Client side helpers for stream tests: a channel of its own per stream (so killing one
// connection affects no other), sync calls with deadlines, and a checker that a stream's
// sequences and event ids have no gap and no duplicate.

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

namespace watchfloor::server::testing {

inline std::shared_ptr<grpc::Channel> dedicatedChannel(const std::string& address) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(512 << 20);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

inline std::chrono::system_clock::time_point deadlineIn(std::chrono::milliseconds d) {
    return std::chrono::system_clock::now() + d;
}

class TestStream {
public:
    TestStream(const std::string& address, const watchfloor::v1::SubscribeRequest& request,
               std::chrono::milliseconds deadline = std::chrono::seconds(40))
        : channel_(dedicatedChannel(address)), stub_(watchfloor::v1::TelemetryService::NewStub(channel_)) {
        context_.set_deadline(deadlineIn(deadline));
        reader_ = stub_->Subscribe(&context_, request);
    }
    ~TestStream() {
        if (!finished_) {
            context_.TryCancel();
            watchfloor::v1::SubscribeResponse drain;
            while (reader_->Read(&drain)) {}
            reader_->Finish();
        }
    }
    bool read(watchfloor::v1::SubscribeResponse* response) { return reader_->Read(response); }
    grpc::Status finish() {
        watchfloor::v1::SubscribeResponse drain;
        while (reader_->Read(&drain)) {}
        finished_ = true;
        return reader_->Finish();
    }
    void cancel() { context_.TryCancel(); }

private:
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<watchfloor::v1::TelemetryService::Stub> stub_;
    grpc::ClientContext context_;
    std::unique_ptr<grpc::ClientReader<watchfloor::v1::SubscribeResponse>> reader_;
    bool finished_ = false;
};

// Applies what a console would; `problem` names the first gap, duplicate or disorder.
struct StreamChecker {
    std::uint64_t sequence = 0;
    std::uint64_t lastEventId = 0;
    bool eventsKnown = false;
    std::string runId;
    std::string lastReason;
    int snapshots = 0, deltas = 0, coalescedDeltas = 0, heartbeats = 0;
    std::size_t samples = 0;
    std::string problem;

    void apply(const watchfloor::v1::SubscribeResponse& r) {
        if (r.has_snapshot()) {
            const auto& s = r.snapshot();
            ++snapshots;
            sequence = s.sequence();
            runId = s.run_id();
            lastReason = s.reason();
            for (const auto& b : s.samples()) samples += b.entity_indexes_size();
            if (s.recent_events_size() > 0) {
                lastEventId = s.recent_events(s.recent_events_size() - 1).id();
                eventsKnown = true;
            }
        } else if (r.has_delta()) {
            const auto& d = r.delta();
            ++deltas;
            if (d.first_sequence() != sequence + 1 && problem.empty())
                problem = "gap or duplicate: delta starts at " + std::to_string(d.first_sequence()) + " after " +
                          std::to_string(sequence);
            if (d.sequence() < d.first_sequence() && problem.empty()) problem = "delta range reversed";
            if (d.sequence() > d.first_sequence()) ++coalescedDeltas;
            sequence = d.sequence();
            for (const auto& b : d.samples()) samples += b.entity_indexes_size();
            for (const auto& e : d.events()) {
                if (eventsKnown && e.id() != lastEventId + 1 && problem.empty())
                    problem = "event " + std::to_string(e.id()) + " after " + std::to_string(lastEventId);
                lastEventId = e.id();
                eventsKnown = true;
            }
        } else if (r.has_heartbeat()) {
            ++heartbeats;
            if (r.heartbeat().sequence() != sequence && problem.empty())
                problem = "heartbeat at " + std::to_string(r.heartbeat().sequence()) + " while at " +
                          std::to_string(sequence);
        }
    }
};

// Reads until `count` more deltas were applied; false when the stream ended first.
inline bool readDeltas(TestStream& stream, StreamChecker& checker, int count) {
    watchfloor::v1::SubscribeResponse r;
    const int target = checker.deltas + count;
    while (checker.deltas < target) {
        if (!stream.read(&r)) return false;
        checker.apply(r);
    }
    return true;
}

// grpc.health.v1.Health/Check through a generic stub (grpc++ ships no health client stub):
// returns the ServingStatus enum value (1 = SERVING), or -1 when the call failed.
inline int healthStatus(const std::string& address, const std::string& service = "") {
    auto channel = dedicatedChannel(address);
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(5)));
    std::string request;  // HealthCheckRequest { string service = 1; }
    if (!service.empty()) {
        request.push_back(char(0x0a));
        request.push_back(char(service.size()));
        request += service;
    }
    grpc::Slice slice(request);
    grpc::ByteBuffer requestBuffer(&slice, 1), responseBuffer;
    grpc::CompletionQueue cq;
    auto call = stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", requestBuffer, &cq);
    call->StartCall();
    grpc::Status status;
    call->Finish(&responseBuffer, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    cq.Next(&tag, &ok);
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {}
    if (!status.ok()) return -1;
    grpc::Slice out;
    if (!responseBuffer.DumpToSingleSlice(&out).ok()) return -1;
    // HealthCheckResponse { ServingStatus status = 1; }: 0x08 <varint>, or empty for UNKNOWN (0).
    if (out.size() == 0) return 0;
    if (out.size() == 2 && out.begin()[0] == 0x08) return out.begin()[1];
    return -1;
}

}  // namespace watchfloor::server::testing
