#pragma once
// The digital twin of an NVL72 fleet: topology, cooling physics, failures at published rates
// (docs/domain/failure-rates.md), training jobs with checkpoints, recovery and stragglers, and a
// goodput ledger per job.
// Deterministic for a given seed, scenario and sequence of advanceTo() calls.

#include "ConfigError.h"
#include "FleetSource.h"
#include "SimConfig.h"
#include "TwinActions.h"
#include "TwinStatistics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace watchfloor::server::sim {

struct TwinCoordinator;

class DigitalTwin final : public FleetSource {
public:
    // Fails with ConfigError (returned through `error`) for a malformed fleet or scenario file;
    // returns nullptr then.
    [[nodiscard]] static std::unique_ptr<DigitalTwin> create(const SimConfig& config, ConfigError* error);
    ~DigitalTwin() override;

    const watchfloor::v1::Topology& topology() const override;
    UnixTime now() const override;
    void advanceTo(UnixTime until, FleetChanges& out) override;

    // Per-GPU, per-CPU, per-port and per-loop samples cost most of a step at 1,800 racks. A
    // headless dump turns them off; events, states, jobs and fleet goodput stay (jobs and fleet
    // are then reported once a minute, cooling integrated every 30 s of simulated time).
    void setTelemetryEnabled(bool enabled);
    bool telemetryEnabled() const;

    // What happened so far, for measuring the twin against its configured rates.
    using Statistics = TwinStatistics;
    const Statistics& statistics() const;

    // --- operator actions (thread-safe) ------------------------------------------------------
    // Queues the action; the next advanceTo() that moves time applies it first, at the twin's
    // current time, and then fulfils the ticket. Without requests the run stays deterministic.
    TwinActionTicket requestAction(TwinAction action);
    // Removes a request that has not been applied yet; false when it already ran (or never existed).
    bool withdrawAction(std::uint64_t ticketId);

    // --- read view for previews (thread-safe, as of the last advanceTo) ------------------------
    std::optional<TwinNodeView> nodeView(const std::string& name) const;
    std::optional<TwinJobView> jobView(const std::string& name) const;
    std::optional<TwinRackView> rackView(const std::string& name) const;

    // --- break/fix steps (TwinRepairs) ---------------------------------------------------------
    // Requested as TwinAction::repairStep; the applied request's handle names the step here, as of
    // the last advanceTo (thread-safe). nullopt for a handle this twin never started.
    std::optional<TwinRepairView> repairView(const std::string& handle) const;
    // The mean modelled time of a step, seconds (0 for a type that is not one).
    static double expectedRepairSeconds(watchfloor::v1::ActionType type, std::uint32_t diagnosticLevel);

private:
    explicit DigitalTwin(std::unique_ptr<TwinCoordinator> coordinator);
    std::unique_ptr<TwinCoordinator> coordinator_;
};

}  // namespace watchfloor::server::sim
