#pragma once
// What a compute tray draws and how hot its GPUs run for what it is doing [A]
// (docs/domain/cooling.md): ~1.2 kW per GB200 GPU at full load, the die a few tens of kelvin
// above the coolant, DCGM's thermal clocks events near the slowdown temperature.

#include "ClocksEventReasons.h"
#include "TwinState.h"

#include <cstdint>

namespace watchfloor::server::sim {

inline constexpr float kGpuTrainingW = 1150;
inline constexpr float kGpuCheckpointW = 450;
inline constexpr float kGpuRecoveringW = 320;
inline constexpr float kGpuIdleW = 150;
inline constexpr double kCpuTrainingW = 250;
inline constexpr double kCpuIdleW = 100;
inline constexpr double kTrayOverheadW = 250;  // NICs, DPU, memory, BMC
inline constexpr double kSwitchTrayKw = 1.6;
inline constexpr double kConversionLoss = 1.03;   // power shelf AC->DC
inline constexpr float kColdPlateKPerW = 0.025f;  // GPU die above coolant: ~29 K at 1.15 kW [A]
inline constexpr double kSwThermalMarginC = 3;    // SW thermal slowdown starts 3 °C below the limit [A]
inline constexpr double kHwThermalClockFactor = 0.6;
inline constexpr double kSwThermalClockLossPerC = 0.05;

// The thermal clocks-event reasons of a GPU at `tempC`.
inline std::uint8_t thermalReasons(double tempC, double slowdownC) {
    if (tempC >= slowdownC) return std::uint8_t(clocks_event::kHwThermalSlowdown);
    if (tempC >= slowdownC - kSwThermalMarginC) return std::uint8_t(clocks_event::kSwThermalSlowdown);
    return 0;
}

// The SM clock over its maximum at `tempC`.
inline double clockFactor(double tempC, double slowdownC) {
    if (tempC >= slowdownC) return kHwThermalClockFactor;
    if (tempC >= slowdownC - kSwThermalMarginC)
        return 1.0 - kSwThermalClockLossPerC * (tempC - (slowdownC - kSwThermalMarginC));
    return 1.0;
}

inline float gpuPowerW(TrayActivity a, double throttle) {
    switch (a) {
    case TrayActivity::Training: return kGpuTrainingW * static_cast<float>(0.3 + 0.7 * throttle);
    case TrayActivity::Checkpointing: return kGpuCheckpointW;
    case TrayActivity::Recovering: return kGpuRecoveringW;
    case TrayActivity::Idle: return kGpuIdleW;
    default: return 0;
    }
}

}  // namespace watchfloor::server::sim
