#include "PoissonBounds.h"

#include "ChiSquare.h"

#include <atomic>
#include <cmath>
#include <vector>

namespace watchfloor::server {

namespace {

// The keeper bounds every link's counts every poll (and each link's 7-day baseline several times a
// poll), nearly always whole counts at the default confidence; each bound is a root-finding of the
// gamma CDF, which was most of the forecast's CPU (perf). Each count's bounds are computed once, by
// the same function, on first use, so no answer changes; threads racing on a slot store the same value.
constexpr double kRememberedConfidence = 0.95;
constexpr std::size_t kRememberedEvents = 1u << 16;

class RememberedQuantiles {
public:
    RememberedQuantiles() : lower_(kRememberedEvents + 1), upper_(kRememberedEvents + 1) {
        for (std::size_t k = 0; k <= kRememberedEvents; ++k) {
            lower_[k].store(kUnknown, std::memory_order_relaxed);
            upper_[k].store(kUnknown, std::memory_order_relaxed);
        }
    }
    static bool covers(double events, double confidence) {
        return confidence == kRememberedConfidence && events >= 1 && events <= double(kRememberedEvents) &&
               events == std::floor(events);
    }
    // χ²(1−c; 2k)
    double lower(std::size_t k) {
        return remembered(lower_[k], [k] { return chiSquareQuantile(1.0 - kRememberedConfidence, 2.0 * k); });
    }
    // χ²(c; 2k+2)
    double upper(std::size_t k) {
        return remembered(upper_[k], [k] { return chiSquareQuantile(kRememberedConfidence, 2.0 * k + 2.0); });
    }

private:
    static constexpr double kUnknown = -1.0;
    template <typename Compute>
    static double remembered(std::atomic<double>& slot, Compute compute) {
        double value = slot.load(std::memory_order_relaxed);
        if (value == kUnknown) {
            value = compute();
            slot.store(value, std::memory_order_relaxed);
        }
        return value;
    }
    std::vector<std::atomic<double>> lower_, upper_;
};

RememberedQuantiles& rememberedQuantiles() {
    static RememberedQuantiles quantiles;
    return quantiles;
}

}  // namespace

RateInterval poissonRateInterval(double events, double exposure, double confidence) {
    RateInterval interval;
    if (!(exposure > 0) || !(events >= 0) || !std::isfinite(exposure)) return interval;
    interval.known = true;
    interval.point = events / exposure;
    if (events == 0) {
        interval.upperOnly = true;
        interval.upper = -std::log(1.0 - confidence) / exposure;
        return interval;
    }
    if (RememberedQuantiles::covers(events, confidence)) {
        RememberedQuantiles& quantiles = rememberedQuantiles();
        const auto k = static_cast<std::size_t>(events);
        interval.lower = quantiles.lower(k) / (2.0 * exposure);
        interval.upper = quantiles.upper(k) / (2.0 * exposure);
        return interval;
    }
    interval.lower = chiSquareQuantile(1.0 - confidence, 2.0 * events) / (2.0 * exposure);
    interval.upper = chiSquareQuantile(confidence, 2.0 * events + 2.0) / (2.0 * exposure);
    return interval;
}

double poissonTailAtLeast(double k, double mean) {
    if (k <= 0) return 1.0;
    if (!(mean > 0)) return 0.0;
    // P(X >= k) = P(k, mean), the regularized lower incomplete gamma.
    return regularizedLowerGamma(k, mean);
}

}  // namespace watchfloor::server
