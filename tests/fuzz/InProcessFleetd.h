#pragma once
// fleetd in the fuzzing process, assembled as server/fleetd/main.cpp assembles it for
// `fleetd --racks 2 --regions 1 --tokens FILE --audit-log FILE --auto-drain 5/1h
// --require-approval isolate-rack`: the twin behind FleetdServer (TelemetryService), the control
// plane (ControlService) over the twin, and fleetd's event acknowledgements. Calls go over a
// loopback gRPC channel as raw bytes, so each request is parsed by the service's own handler.
//
// The twin runs at 50x (a tick every 20 ms of wall time), so an action waits milliseconds for the
// tick that applies it; faster, the pump spends the run coalescing deltas for the streams the
// harness has just cancelled. The whole fleetd is rebuilt on a fresh audit log when the log
// passes 64 MiB: a long run executes hundreds of thousands of audited actions.

#include "FuzzCall.h"
#include "FuzzSupport.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

namespace watchfloor::server::sim {
class DigitalTwin;
class TwinControlAdapter;
}  // namespace watchfloor::server::sim
namespace watchfloor::server::control {
class ControlPlane;
}
namespace watchfloor::server::service {
class FleetdServer;
}
namespace watchfloor::server::fleetd {
class EventAcknowledgementBook;
}

namespace watchfloor::fuzz {

class InProcessFleetd {
public:
    static InProcessFleetd& instance();  // started on first use, lives until the process exits

    struct Answer {
        grpc::Status status;
        std::string firstMessage;  // a unary call's response, or a stream's first message
        bool gotMessage = false;
        std::chrono::steady_clock::duration took{};
    };
    // A unary call, or a server stream read up to its first message (a Subscribe snapshot) or,
    // for a stream that sends nothing until something changes (WatchOperations), up to its
    // initial metadata; a stream is then cancelled.
    Answer call(const FuzzCall& call);

    ~InProcessFleetd();

private:
    InProcessFleetd();
    void start();
    void stop();
    void housekeeping();

    ScratchDir scratch_;
    std::unique_ptr<server::sim::DigitalTwin> twin_;
    std::unique_ptr<server::fleetd::EventAcknowledgementBook> acknowledgements_;
    std::unique_ptr<server::sim::TwinControlAdapter> twinControl_;
    std::unique_ptr<server::control::ControlPlane> plane_;
    std::unique_ptr<server::service::FleetdServer> server_;
    std::shared_ptr<grpc::Channel> channel_;
    std::chrono::steady_clock::time_point lastTick_;
};

}  // namespace watchfloor::fuzz

namespace watchfloor::fuzz {

// What every fleetd answer promises, whatever the request: a status a client can act on (never
// UNKNOWN, INTERNAL or UNIMPLEMENTED, never a hang), a refusal that says why in a bounded
// message, and an answer that parses as the method's response type.
void checkAnswer(const FuzzCall& call, const InProcessFleetd::Answer& answer);

}  // namespace watchfloor::fuzz
