#pragma once
// The bits of DCGM_FI_DEV_CLOCKS_EVENT_REASONS (field 112) the twin sets: NVML's
// nvmlClocksEventReasons, DCGM's DCGM_CLOCKS_EVENT_REASON_* (docs/domain/dcgm-fields.md).

#include <cstdint>

namespace watchfloor::server::sim::clocks_event {

inline constexpr std::uint8_t kGpuIdle = 0x1;             // DCGM_CLOCKS_EVENT_REASON_GPU_IDLE
inline constexpr std::uint8_t kSwThermalSlowdown = 0x20;  // DCGM_CLOCKS_EVENT_REASON_SW_THERMAL
inline constexpr std::uint8_t kHwThermalSlowdown = 0x40;  // DCGM_CLOCKS_EVENT_REASON_HW_THERMAL
// The thermal part of a GPU's reasons: what the cooling model sets and clears.
inline constexpr std::uint8_t kThermal = kSwThermalSlowdown | kHwThermalSlowdown;

}  // namespace watchfloor::server::sim::clocks_event
