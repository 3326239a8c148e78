#pragma once
// GetStateAsOf: the fleet as it was at a past moment, folded from the store's rewind log (states,
// incident versions), the history store (readings) and the event journal. Semantics and errors
// are documented on AsOfRequest in fleet.proto.

#include "FleetStateStore.h"
#include "HistoryStore.h"

#include <grpcpp/support/status.h>

#include <string>

namespace watchfloor::server::service {

inline constexpr std::uint32_t kDefaultAsOfEvents = 200;
inline constexpr std::uint32_t kMaxAsOfEvents = 1'000;
inline constexpr std::size_t kMaxAsOfStandardRacks = 128;  // node/GPU/CPU values of more racks: ask for SUMMARY

grpc::Status answerStateAsOf(const watchfloor::v1::AsOfRequest& request, const FleetStateStore& store,
                             const HistoryStore& history, const std::string& runId,
                             watchfloor::v1::AsOfState* response);

}  // namespace watchfloor::server::service
