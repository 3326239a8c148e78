#pragma once
// protobuf writes one "[libprotobuf ERROR ...]" line to stderr for every string field with
// invalid UTF-8 it parses, so a client sending such requests in a loop writes fleetd's log as
// fast as it likes. This replaces protobuf's log handler with one that passes a burst, then a
// steady rate, and reports how many lines it held back. FATAL messages always pass.

#include <cstddef>

namespace watchfloor::server::service {

struct ProtobufLogLimit {
    double burst = 10;       // lines passed at once
    double perSecond = 0.2;  // then one every 5 s
};

// Process-wide (protobuf has one log handler); a later call replaces the limits.
void limitProtobufLog(ProtobufLogLimit limit = {});

}  // namespace watchfloor::server::service
