#pragma once
// In-test FleetView and Actuator: a small NVL72 fleet held in maps, and an actuator that
// records every call (the ground truth for "executed") and checks that the audit log already
// holds the operation's record when the effect starts.

#include "AccessPolicy.h"
#include "Actuator.h"
#include "FleetView.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace control_test {

// The token file the in-process control tests share: one viewer, two operators, one admin.
inline constexpr const char* kTestTokens =
    "token viewer-token-000000001 principal=val role=viewer\n"
    "token operator-token-00000002 principal=alice role=operator\n"
    "token operator-token-00000003 principal=bob role=operator\n"
    "token admin-token-00000000004 principal=carol role=admin\n";

using namespace watchfloor::server::control;

inline const Caller kAlice{"alice", watchfloor::v1::ROLE_OPERATOR, false, "ipv4:127.0.0.1:1"};
inline const Caller kBob{"bob", watchfloor::v1::ROLE_OPERATOR, false, "ipv4:127.0.0.1:2"};
inline const Caller kCarol{"carol", watchfloor::v1::ROLE_ADMIN, false, "ipv4:127.0.0.1:3"};
inline const Caller kVal{"val", watchfloor::v1::ROLE_VIEWER, false, "ipv4:127.0.0.1:4"};

class TestFleet : public FleetView {
public:
    // Racks r01..r<racks>, 18 trays each named r01-n01..r01-n18, 4 GPUs per tray; no jobs.
    explicit TestFleet(int racks = 2);

    std::optional<NodeFacts> node(const std::string& name) const override;
    std::optional<JobFacts> job(const std::string& name) const override;
    std::optional<RackFacts> rack(const std::string& name) const override;
    std::optional<EventFacts> event(std::uint64_t id) const override;

    // A job on the given trays, with its checkpoint age; bumps the versions it touches.
    void placeJob(const std::string& name, const std::vector<std::string>& nodes, double checkpointAge_s);
    void setNodeState(const std::string& node, watchfloor::v1::NodeState state);
    // The job's progress since its last checkpoint: lower than before is a checkpoint saved.
    void setCheckpointAge(const std::string& job, double checkpointAge_s);
    // Out of service by the health check (not an operator drain), as the twin reports it.
    void takeOutByHealthCheck(const std::string& node, const std::string& reason);
    // Drained with this stored reason ("<principal>: <text>"), as the twin reports an operator's
    // or automation's drain: the owner follows from the principal.
    void drainWithReason(const std::string& node, const std::string& storedReason);
    void clearJobsOn(const std::string& node);
    void setLeak(const std::string& rack, bool active);
    void setIsolated(const std::string& rack, bool isolated);
    void addEvent(std::uint64_t id);
    void bumpRack(const std::string& rack);

private:
    mutable std::mutex mutex_;
    std::map<std::string, NodeFacts> nodes_;
    std::map<std::string, JobFacts> jobs_;
    std::map<std::string, RackFacts> racks_;
    std::map<std::uint64_t, EventFacts> events_;
};

class RecordingActuator : public Actuator {
public:
    explicit RecordingActuator(std::string auditPath) : auditPath_(std::move(auditPath)) {}

    ActionOutcome drainNode(const std::string& node, const std::string& reason) override;
    ActionOutcome resumeNode(const std::string& node) override;
    ActionOutcome requeueJob(const std::string& job, const std::vector<std::string>& excludeNodes) override;
    ActionOutcome isolateRack(const std::string& rack, const std::vector<std::string>& nodes,
                              const std::string& reason) override;
    ActionOutcome restoreRack(const std::string& rack, const std::vector<std::string>& nodes) override;
    ActionOutcome linkTreated(const std::string& link, watchfloor::v1::LinkTreatment treatment,
                              watchfloor::v1::LinkEnd end) override;

    std::vector<std::string> calls() const;
    // Calls whose reason was not yet in the audit log when the effect began (must stay 0).
    int unauditedCalls() const { return unaudited_; }

    std::string failWith;  // non-empty: every call fails with this text
    // Simulates a slow backend. Atomic: a test changes it while an operation it started may
    // still be running on the engine's worker thread.
    std::atomic<std::chrono::milliseconds> delay{std::chrono::milliseconds(0)};

private:
    ActionOutcome record(const std::string& call, const std::string& auditedText);

    const std::string auditPath_;
    mutable std::mutex mutex_;
    std::vector<std::string> calls_;
    std::atomic<int> unaudited_{0};
};

}  // namespace control_test
