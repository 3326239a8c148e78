// The closed-form reliability and efficiency formulas declared in GoodputLedger.h.
#include "ChiSquare.h"
#include "GoodputLedger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::server {

namespace {

bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

double expectedEttr(double jobFailuresPerSecond, Seconds restartOverhead, Seconds checkpointInterval,
                    Seconds checkpointCost) {
    const double lambda = jobFailuresPerSecond;
    const double u0S = restartOverhead.count();
    const double tauS = checkpointInterval.count();
    const double costS = checkpointCost.count();
    if (!finiteNonNegative(lambda) || !finiteNonNegative(u0S) || !finiteNonNegative(costS) || !finiteNonNegative(tauS))
        return 0.0;
    if (tauS == 0)  // checkpointing continuously: only free if a checkpoint costs nothing
        return costS > 0 ? 0.0 : std::clamp(1.0 - lambda * u0S, 0.0, 1.0);
    // Beyond the model's range (expected loss over a whole interval) the formula goes negative.
    return std::clamp((1.0 - lambda * (u0S + tauS / 2.0)) / (1.0 + costS / tauS), 0.0, 1.0);
}

Seconds dalyOptimalInterval(Seconds checkpointCost, Seconds jobMtbf) {
    const double c = checkpointCost.count();
    const double m = jobMtbf.count();
    if (!finiteNonNegative(c) || !(m >= 0) || std::isnan(m) || c == 0) return Seconds(0);
    if (c >= 2.0 * m)  // Daly: the expansion holds for C < 2M only
        return Seconds(m);
    const double ratio = c / (2.0 * m);
    return Seconds(std::sqrt(2.0 * c * m) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - c);
}

Seconds youngOptimalInterval(Seconds checkpointCost, Seconds jobMtbf) {
    const double c = checkpointCost.count();
    const double m = jobMtbf.count();
    if (!finiteNonNegative(c) || !(m >= 0) || std::isnan(m)) return Seconds(0);
    return Seconds(std::sqrt(2.0 * c * m));
}

MttfEstimate estimateMttf(double exposureS, std::uint32_t failures, double confidence) {
    MttfEstimate out;
    if (!finiteNonNegative(exposureS) || !(confidence > 0 && confidence < 1)) return out;
    const double alpha = 1.0 - confidence;
    const double n = failures;
    out.mttfS = failures > 0 ? exposureS / n : 0.0;
    out.lowS = 2.0 * exposureS / chiSquareQuantile(1.0 - alpha / 2.0, 2.0 * n + 2.0);
    out.highS = failures > 0 ? 2.0 * exposureS / chiSquareQuantile(alpha / 2.0, 2.0 * n)
                             : std::numeric_limits<double>::infinity();
    return out;
}

double palmMfu(const watchfloor::v1::ModelConfig& model, double tokensPerSecond, std::uint32_t gpuCount) {
    const double peakFlopsPerS = double(gpuCount) * model.gpu_peak_flops();
    if (!(peakFlopsPerS > 0) || !finiteNonNegative(tokensPerSecond)) return 0.0;
    // 6N: forward (2N) + backward (4N) matmuls; 12·L·H·Q·T: attention over the sequence.
    const double flopsPerToken = 6.0 * model.parameters() + 12.0 * double(model.layers()) * double(model.heads()) *
                                                                double(model.head_dim()) *
                                                                double(model.sequence_length());
    return tokensPerSecond * flopsPerToken / peakFlopsPerS;
}

}  // namespace watchfloor::server
