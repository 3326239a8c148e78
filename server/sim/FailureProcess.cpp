#include "FailureProcess.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

namespace {

constexpr double kHour = 3600;
constexpr double kHazardTempScaleC = 12;  // ΔT_e of the temperature coupling [A: 10-15 °C]
constexpr double kMaxTempHazard = 5;      // cap of exp((T - T_nom)/ΔT_e), for thinning
// Ids in failureCauses().
constexpr std::size_t kSoftwareBug = 10;
constexpr std::size_t kNcclWatchdog = 11;

}  // namespace

FailureProcess::FailureProcess(Rng rng, std::uint32_t gpus, double hardwarePerGpuHour, double softwarePerGpuHour)
    : rng_(rng), gpus_(gpus), hardwarePerGpuHour_(hardwarePerGpuHour), softwarePerGpuHour_(softwarePerGpuHour) {}

void FailureProcess::setTrayHazards(const std::vector<float>& lemonFactors) {
    double lemonSum = 0;
    double maxLemon = 1;
    for (const float factor : lemonFactors) {
        lemonSum += factor;
        maxLemon = std::max<double>(maxLemon, factor);
    }
    meanLemonFactor_ = lemonFactors.empty() ? 1.0 : lemonSum / static_cast<double>(lemonFactors.size());
    hazardBound_ = maxLemon / meanLemonFactor_ * kMaxTempHazard;
}

double FailureProcess::hazardMultiplier(float trayLemonFactor, double excessC) const {
    const double temperature = std::min(kMaxTempHazard, std::exp(excessC / kHazardTempScaleC));
    return trayLemonFactor / meanLemonFactor_ * temperature;
}

double FailureProcess::nextHardwareCandidateS() {
    const double ratePerS = gpus_ * hardwarePerGpuHour_ / kHour * hazardBound_;
    if (ratePerS <= 0) return -1;
    return rng_.exponential(1.0 / ratePerS);
}

FailureProcess::HardwareCandidate FailureProcess::drawHardwareCandidate() {
    const auto& causes = failureCauses();
    double pick = rng_.uniform() * hardwareRatePerGpuHour();
    std::size_t cause = 0;
    for (; cause + 1 < causes.size(); ++cause) {
        if (!causes[cause].hardware) continue;
        if (pick < causes[cause].ratePerGpuHour) break;
        pick -= causes[cause].ratePerGpuHour;
    }
    const std::uint32_t g = rng_.below(gpus_);
    return {cause, g, rng_.uniform()};
}

double FailureProcess::nextSoftwareCandidateS() {
    if (jobGpuWeights_.empty()) return -1;
    const double ratePerS = jobGpuWeights_.back() * softwarePerGpuHour_ / kHour;
    return rng_.exponential(1.0 / ratePerS);
}

FailureProcess::SoftwareCandidate FailureProcess::drawSoftwareCandidate() {
    const double pick = rng_.uniform() * jobGpuWeights_.back();
    const auto j = static_cast<std::uint32_t>(std::upper_bound(jobGpuWeights_.begin(), jobGpuWeights_.end(), pick) -
                                              jobGpuWeights_.begin());
    const std::size_t cause = rng_.uniform() * softwareRatePerGpuHour() < failureCauses()[kSoftwareBug].ratePerGpuHour
                                  ? kSoftwareBug
                                  : kNcclWatchdog;
    return {j, cause, sampleFailure(cause, rng_)};
}

}  // namespace watchfloor::server::sim
