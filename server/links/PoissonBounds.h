#pragma once
// Poisson counts over an exposure (bits, packets): the point rate and its exact one-sided
// bounds from the chi-square quantiles (docs/domain/link-health.md section 2), and the tail
// probability the detectors test with.

#include <cstdint>

namespace watchfloor::server {

struct RateInterval {
    double point = 0;
    double lower = 0;
    double upper = 0;
    bool upperOnly = false;  // no events: only the rule-of-three bound is known
    bool known = false;      // false when there was no exposure at all
};

// k events over `exposure`: k / exposure with the one-sided `confidence` bounds
// χ²(1−c; 2k) / 2n and χ²(c; 2k+2) / 2n; for k = 0 the upper bound −ln(1−c) / n.
RateInterval poissonRateInterval(double events, double exposure, double confidence = 0.95);

// P(X >= k) for X ~ Poisson(mean): how surprising k events are when `mean` was expected.
double poissonTailAtLeast(double k, double mean);

}  // namespace watchfloor::server
