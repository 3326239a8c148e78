#pragma once
// SubscribeResponse bytes built without copying big messages into a SubscribeResponse: protobuf
// fields may be concatenated, so a response is the tag of its oneof field plus the payload's own
// bytes, and a snapshot's topology (tens of MB at 1,800 racks) is encoded once per filter and
// appended to each snapshot.

#include "watchfloor/v1/fleet.pb.h"

#include <memory>
#include <string>

namespace watchfloor::server::service {

using EncodedMessage = std::shared_ptr<const std::string>;

EncodedMessage encodeDeltaResponse(const watchfloor::v1::Delta& delta);
EncodedMessage encodeHeartbeatResponse(const watchfloor::v1::Heartbeat& heartbeat);
// A snapshot from parts encoded separately: the body (everything but reason and topology; the
// same bytes for every subscriber with one filter at one sequence), the reason, and the
// topology (the same for every snapshot of one filter).
EncodedMessage encodeSnapshotResponse(const std::string& encodedBody, const std::string& reason,
                                      const std::string& encodedTopology);

}  // namespace watchfloor::server::service
