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
// `encodedTopology` is a Topology's serialized bytes; it becomes Snapshot.topology.
EncodedMessage encodeSnapshotResponse(const watchfloor::v1::Snapshot& snapshotWithoutTopology,
                                      const std::string& encodedTopology);

}  // namespace watchfloor::server::service
