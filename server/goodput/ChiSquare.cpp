#include "ChiSquare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::server {

namespace {

constexpr double kEpsilon = 1e-15;
constexpr double kTiny = 1e-300;
constexpr int kMaxIterations = 1000;

// Series expansion, converges fast for x < a + 1.
double lowerGammaSeries(double a, double x) {
    double term = 1.0 / a;
    double sum = term;
    for (int n = 1; n < kMaxIterations; ++n) {
        term *= x / (a + n);
        sum += term;
        if (std::fabs(term) < std::fabs(sum) * kEpsilon) break;
    }
    return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Continued fraction for the upper part Q(a, x) (modified Lentz), converges fast for x >= a + 1.
double upperGammaContinuedFraction(double a, double x) {
    double b = x + 1.0 - a;
    double c = 1.0 / kTiny;
    double d = 1.0 / b;
    double h = d;
    for (int i = 1; i < kMaxIterations; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = b + an / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        const double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1.0) < kEpsilon) break;
    }
    return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

// Temme's uniform asymptotic expansion (DLMF 8.12.3–8.12.9; Temme 1979), its first term, for large a:
// Q(a, x) = ½·erfc(η·√(a/2)) + R and P(a, x) = ½·erfc(−η·√(a/2)) − R, with λ = x/a,
// η = sign(λ−1)·√(2(λ−1−ln λ)) and R ≈ e^(−aη²/2) / √(2πa) · c₀(η), c₀ = 1/(λ−1) − 1/η. The series and
// the continued fraction need about √(70a) terms, past kMaxIterations from a ≈ 14,000 (symbol-error
// counts of a week reach millions); the dropped term is c₁/a ≈ 2e-6 of R at the a where this starts.
constexpr double kAsymptoticFrom = 2000.0;

double temmeR(double a, double lambda, double eta) {
    double c0;
    if (std::fabs(lambda - 1.0) < 1e-3)
        c0 = -1.0 / 3.0 + eta * (1.0 / 12.0 + eta * (-2.0 / 135.0 + eta * (1.0 / 864.0)));
    else
        c0 = 1.0 / (lambda - 1.0) - 1.0 / eta;
    constexpr double kTwoPi = 6.283185307179586;
    return std::exp(-0.5 * a * eta * eta) / std::sqrt(kTwoPi * a) * c0;
}

double lowerGammaAsymptotic(double a, double x) {
    const double lambda = x / a;
    const double t = (x - a) / a;
    const double d = t - std::log1p(t);  // λ−1−ln λ without the cancellation near λ = 1
    const double eta = (lambda < 1.0 ? -1.0 : 1.0) * std::sqrt(2.0 * std::max(d, 0.0));
    const double p = 0.5 * std::erfc(-eta * std::sqrt(0.5 * a)) - temmeR(a, lambda, eta);
    return std::clamp(p, 0.0, 1.0);
}

// Standard normal quantile, Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4): only a starting
// point for the Newton iteration below.
double roughNormalQuantile(double p) {
    const double q = p < 0.5 ? p : 1.0 - p;
    const double t = std::sqrt(-2.0 * std::log(q));
    const double z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                             (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    return p < 0.5 ? -z : z;
}

double chiSquareCdf(double x, double dof) { return regularizedLowerGamma(dof / 2.0, x / 2.0); }

double chiSquareDensity(double x, double dof) {
    const double k = dof / 2.0;
    return std::exp((k - 1.0) * std::log(x) - x / 2.0 - k * std::log(2.0) - std::lgamma(k));
}

}  // namespace

double regularizedLowerGamma(double a, double x) {
    if (!(a > 0) || !(x >= 0) || !std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
    if (x == 0) return 0.0;
    if (std::isinf(x)) return 1.0;
    if (a >= kAsymptoticFrom) return lowerGammaAsymptotic(a, x);
    if (x < a + 1.0) return lowerGammaSeries(a, x);
    return 1.0 - upperGammaContinuedFraction(a, x);
}

double chiSquareQuantile(double p, double dof) {
    if (!(dof > 0) || !std::isfinite(dof) || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
    if (p <= 0) return 0.0;
    if (p >= 1) return std::numeric_limits<double>::infinity();

    // Wilson–Hilferty start, then Newton steps kept inside a bracket that bisection shrinks
    // whenever Newton would leave it (the density is tiny in the far tails).
    const double z = roughNormalQuantile(p);
    const double h = 2.0 / (9.0 * dof);
    double x = dof * std::pow(std::max(1.0 - h + z * std::sqrt(h), 0.01), 3.0);
    double lo = 0.0;
    double hi = std::max(2.0 * x, dof + 10.0);
    while (chiSquareCdf(hi, dof) < p) hi *= 2.0;
    x = std::clamp(x, lo, hi);
    for (int i = 0; i < 200; ++i) {
        const double error = chiSquareCdf(x, dof) - p;
        if (error > 0)
            hi = x;
        else
            lo = x;
        const double density = x > 0 ? chiSquareDensity(x, dof) : 0.0;
        double next = density > 0 ? x - error / density : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (std::fabs(next - x) <= 1e-15 * x || hi - lo <= 1e-15 * hi) return next;
        x = next;
    }
    return x;
}

}  // namespace watchfloor::server
