#include "PoissonBounds.h"

#include "ChiSquare.h"

#include <cmath>

namespace watchfloor::server {

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
