#pragma once
// How long each stage of a job's restart takes (docs/domain/failure-rates.md, "Recovery
// pipeline"): the ranges the job runner draws from, and their means, which make up the restart
// overhead u0 handed to Meta's E[ETTR] (docs/domain/goodput.md).

#include "Rng.h"

namespace watchfloor::server::sim::restart {

struct Range {
    double low;
    double high;
    constexpr double mean() const { return (low + high) / 2; }
    double draw(Rng& rng) const { return rng.uniform(low, high); }
};

inline constexpr Range kRestartInPlaceS{20, 60};  // reschedule onto the same trays
inline constexpr Range kWarmSpareSwapS{60, 180};  // reschedule onto warm spares
inline constexpr Range kContainerInitS{60, 180};  // container and framework start
inline constexpr double kCommunicatorInitS = 5;   // plus kCommunicatorInitSPer10kGpus (MegaScale)
inline constexpr double kCommunicatorInitSPer10kGpus = 30;
inline constexpr Range kDataLoadS{5, 20};                   // first batch
inline constexpr Range kCompileWarmupS{60, 180};            // compile and warm-up of the first step
inline constexpr double kRestoreBaseS = 20;                 // plus the model state's load time
inline constexpr double kCheckpointBytesPerParameter = 14;  // bf16 weights, fp32 master copy, Adam moments
inline constexpr double kRestoreBytesPerSPerGpu = 2e9;
inline constexpr Range kRestoreJitter{0.8, 1.2};      // the load time of one restore over its mean
inline constexpr Range kWarmHistoryDetectS{30, 120};  // a warm start's past interruption

// Loading the last checkpoint's model state onto `gpus` GPUs, without the fixed part.
inline double stateLoadS(double parameters, double gpus) {
    return parameters * kCheckpointBytesPerParameter / (gpus * kRestoreBytesPerSPerGpu);
}

// One container-and-communicator init, drawn.
inline double drawInitS(Rng& rng, double gpus) {
    const double gpusK = gpus / 10000.0;
    return kContainerInitS.draw(rng) + kCommunicatorInitS + kCommunicatorInitSPer10kGpus * gpusK;
}

// u0: the expected detect + reschedule + init + restore + data load + first step of one restart.
// `hardwareShare` of the failures need warm spares, the rest restart in place.
inline double meanRestartOverheadS(double detectS, double hardwareShare, double gpus, double parameters) {
    const double rescheduleS = hardwareShare * kWarmSpareSwapS.mean() + (1 - hardwareShare) * kRestartInPlaceS.mean();
    // (30 x GPUs) / 10,000 here, 30 x (GPUs / 10,000) in drawInitS: kept apart so the digests in
    // tests/server/sim/twin-golden.txt stay those of the code before the split.
    const double initS = kContainerInitS.mean() + kCommunicatorInitS + kCommunicatorInitSPer10kGpus * gpus / 10000.0;
    const double restoreS = kRestoreBaseS + stateLoadS(parameters, gpus);
    return detectS + rescheduleS + initS + restoreS + kDataLoadS.mean() + kCompileWarmupS.mean();
}

}  // namespace watchfloor::server::sim::restart
