#pragma once

#include "HappensBefore.h"

#include <grpcpp/grpcpp.h>

namespace watchfloor::server::service {

// A Subscribe answered with an error before its first message (unparseable, refused, fleetd
// shutting down): finishes at once and deletes itself when gRPC is done with it.
class FinishedStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
public:
    explicit FinishedStream(const grpc::Status& status) {
        Finish(status);
        happensbefore::publish(this);
    }
    void OnDone() override {
        happensbefore::receive(this);
        delete this;
    }
};

}  // namespace watchfloor::server::service
