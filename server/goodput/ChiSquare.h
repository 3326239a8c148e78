#pragma once
// Chi-square distribution functions for the MTTF confidence interval (docs/domain/goodput.md), written
// here rather than pulled from a statistics library: fleetd links no numeric dependency.

namespace watchfloor::server {

// Regularized lower incomplete gamma P(a, x) = γ(a, x) / Γ(a), a > 0, x >= 0.
double regularizedLowerGamma(double a, double x);

// The x with P(X <= x) = p for X ~ χ²(dof), dof > 0. p <= 0 gives 0, p >= 1 gives +inf;
// NaN for dof <= 0 or a non-finite argument. Relative accuracy about 1e-12 below 4,000 degrees of
// freedom, about 1e-7 of the smaller tail from there (an asymptotic expansion, ChiSquare.cpp).
double chiSquareQuantile(double p, double dof);

}  // namespace watchfloor::server
