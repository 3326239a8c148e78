#pragma once
// The digital twin of an NVL72 fleet: topology, cooling physics, failures at the reference's
// rates, training jobs with checkpoints, recovery and stragglers, and a goodput ledger per job.
// Deterministic for a given seed, scenario and sequence of advanceTo() calls.

#include "FleetSource.h"
#include "SimConfig.h"

#include <memory>
#include <string>

namespace watchfloor::server::sim {

// A fleet or scenario file that cannot be used: names the file, line and problem.
struct ConfigError {
    std::string file;
    int line = 0;          // 0 when not about one line
    std::string problem;
    std::string toString() const;  // "FILE:LINE: PROBLEM"
};

class DigitalTwin final : public FleetSource {
public:
    // Fails with ConfigError (returned through `error`) for a malformed fleet or scenario file;
    // returns nullptr then.
    static std::unique_ptr<DigitalTwin> create(const SimConfig& config, ConfigError* error);
    ~DigitalTwin() override;

    const watchfloor::v1::Topology& topology() const override;
    UnixTime now() const override;
    void advanceTo(UnixTime until, FleetChanges& out) override;

private:
    DigitalTwin();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace watchfloor::server::sim
