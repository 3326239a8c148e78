#pragma once
// What the bits of DCGM_FI_DEV_CLOCKS_EVENT_REASONS (DCGM field 112) mean: NVML's
// nvmlClocksEventReasons, DCGM's DCGM_CLOCKS_EVENT_REASON_* (docs/domain/dcgm-fields.md). One
// list for the twin that sets them and the console that reads them.

#include <cstdint>

namespace watchfloor::clocks_event {

inline constexpr std::uint32_t kGpuIdle = 0x1;
inline constexpr std::uint32_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint32_t kSwPowerCap = 0x4;
inline constexpr std::uint32_t kHwSlowdown = 0x8;
inline constexpr std::uint32_t kSyncBoost = 0x10;
inline constexpr std::uint32_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint32_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint32_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint32_t kDisplayClockSetting = 0x100;

// The thermal reasons: what the twin's cooling model sets and clears, a straggler's thermal cause.
inline constexpr std::uint32_t kThermal = kSwThermalSlowdown | kHwThermalSlowdown;
// The power reasons: a cap, the board's slowdown input, the power brake.
inline constexpr std::uint32_t kPower = kSwPowerCap | kHwSlowdown | kHwPowerBrakeSlowdown;
// Any reason that holds the GPU's clocks back (idle, settings and sync boost do not).
inline constexpr std::uint32_t kThrottling = kThermal | kPower;

}  // namespace watchfloor::clocks_event
