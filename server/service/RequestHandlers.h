#pragma once
// The decisions behind each TelemetryService call, free of gRPC plumbing so tests can feed them
// bad input directly: every refusal is a status whose message says what to fix.

#include "FleetStateStore.h"
#include "HistoryStore.h"
#include "ReplayLog.h"

#include <grpcpp/support/status.h>

#include <chrono>
#include <string>

namespace watchfloor::server::service {

inline constexpr std::chrono::milliseconds kMaxHistoryRange = std::chrono::hours(24 * 31);
inline constexpr std::int64_t kMaxHistoryBuckets = 10'000;
inline constexpr std::uint32_t kDefaultEventPageSize = 100;
inline constexpr std::uint32_t kMaxEventPageSize = 1'000;
inline constexpr int kMaxEventTypes = 64;
inline constexpr std::uint32_t kDefaultIncidentPageSize = 50;
inline constexpr std::uint32_t kMaxIncidentPageSize = 500;

// How a Subscribe starts: a snapshot (with its reason) or a replay from `cursor`.
struct SubscribePlan {
    SubscriptionFilter filter;
    std::uint64_t cursor = 0;
    std::string snapshotReason;  // empty = replay the log after `cursor`
};

[[nodiscard]] grpc::Status planSubscribe(const watchfloor::v1::SubscribeRequest& request, const FleetStateStore& store,
                                         const ReplayLog& log, const std::string& runId, SubscribePlan* plan);

[[nodiscard]] grpc::Status answerHistory(const watchfloor::v1::GetHistoryRequest& request, const FleetStateStore& store,
                                         const HistoryStore& history, watchfloor::v1::GetHistoryResponse* response);

[[nodiscard]] grpc::Status answerListEvents(const watchfloor::v1::ListEventsRequest& request,
                                            const FleetStateStore& store, watchfloor::v1::ListEventsResponse* response);

[[nodiscard]] grpc::Status answerListIncidents(const watchfloor::v1::ListIncidentsRequest& request,
                                               const FleetStateStore& store,
                                               watchfloor::v1::ListIncidentsResponse* response);

// The straggler drill-down (GetStepTimeHeatmap); bounds in StepTimeHeatmap.cpp and fleet.proto.
[[nodiscard]] grpc::Status answerStepTimeHeatmap(const watchfloor::v1::StepTimeHeatmapRequest& request,
                                                 const FleetStateStore& store, const HistoryStore& history,
                                                 watchfloor::v1::StepTimeHeatmap* response);

[[nodiscard]] grpc::Status answerTopology(const watchfloor::v1::GetTopologyRequest& request,
                                          const FleetStateStore& store, watchfloor::v1::Topology* response);

}  // namespace watchfloor::server::service
