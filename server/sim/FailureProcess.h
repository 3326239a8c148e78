#pragma once
// The fleet's random failures at the published rates (docs/domain/failure-rates.md): hardware
// fail-stops per powered GPU-hour, drawn by thinning (candidates at a bounding rate, each
// accepted with its hazard multiplier over the bound: lemon trays and a hot supply fail more),
// and software failures per job GPU-hour. It owns the failure random stream; what a failure does
// to trays and jobs is the coordinator's.

#include "FailureCauses.h"
#include "Rng.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace watchfloor::server::sim {

class FailureProcess {
public:
    // `hardwarePerGpuHour` already includes SimConfig::hardwareRateScale.
    FailureProcess(Rng rng, std::uint32_t gpus, double hardwarePerGpuHour, double softwarePerGpuHour);

    // Per-tray hazard multipliers (lemons, 1 for most trays). The rates are fleet averages,
    // lemons included, so the multipliers are normalised to a mean of 1.
    void setTrayHazards(const std::vector<float>& lemonFactors);
    // Cumulative GPU counts of the jobs, in job order: a software failure picks a job by size.
    void setJobGpuWeights(std::vector<double> cumulativeGpus) { jobGpuWeights_ = std::move(cumulativeGpus); }

    // GPU g's hazard over the fleet average: its tray's lemon factor and the supply temperature
    // `excessC` above the setpoint (exp(excess / 12 °C), capped).
    double hazardMultiplier(float trayLemonFactor, double excessC) const;

    // --- hardware stream -----------------------------------------------------------------------
    // Seconds to the next candidate; < 0 when the rate is 0 (no stream).
    double nextHardwareCandidateS();
    struct HardwareCandidate {
        std::size_t cause;
        std::uint32_t gpu;
        double acceptDraw;  // accept when acceptDraw < hazardMultiplier / hazardBound()
    };
    HardwareCandidate drawHardwareCandidate();
    double hazardBound() const { return hazardBound_; }

    // --- software stream (per job GPU-hour) ----------------------------------------------------
    double nextSoftwareCandidateS();  // < 0 without jobs
    struct SoftwareCandidate {
        std::uint32_t job;
        std::size_t cause;
        FailureOutcome outcome;
    };
    SoftwareCandidate drawSoftwareCandidate();

    // Other draws on the failure stream (an Xid's outcome, an isolation's stop time) keep their
    // place in it, so the stream is shared rather than split.
    Rng& rng() { return rng_; }

private:
    Rng rng_;
    std::uint32_t gpus_;
    double hardwarePerGpuHour_;
    double softwarePerGpuHour_;
    double meanLemonFactor_ = 1.0;
    double hazardBound_ = 1.0;
    std::vector<double> jobGpuWeights_;
};

}  // namespace watchfloor::server::sim
