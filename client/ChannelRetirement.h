#pragma once
// gRPC 1.51 runs callback-API reactions on a thread pool whose last user (the last channel) joins
// it on destruction. If that last channel reference drops on one of the pool's own threads — a
// reactor finishing after its connection was destroyed releases its ClientContext, which holds the
// channel — the join fails and the process aborts (assertion "prior > 0"; grpc/grpc PR #32584).
// So a closed connection's channel is retired here and released later on an owner thread, once no
// call holds it any more.

#include <memory>

namespace grpc {
class Channel;
}

namespace watchfloor::client {

void retireChannel(std::shared_ptr<grpc::Channel> channel);
// Releases the retired channels nobody else holds. Call from an application thread, never from a
// gRPC callback.
void releaseIdleRetiredChannels();

}  // namespace watchfloor::client
