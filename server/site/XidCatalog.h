#pragma once
// The fleet's one table of Xid codes (docs/domain/xid-catalogue.md): NVIDIA's mnemonic,
// resolution bucket and FATAL flag (NVSentinel xiderrorsmapping.csv), the fleet's policy, and
// the NVML GPU recovery action the driver then reports (DCGM_FI_DEV_GPU_RECOVERY_ACTION).

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>

namespace watchfloor::server {

enum class GpuRecoveryAction : std::uint8_t { None = 0, GpuReset = 1, NodeReboot = 2, DrainP2p = 3, DrainAndReset = 4 };

struct XidInfo {
    std::uint32_t xid;
    const char* mnemonic;
    watchfloor::v1::XidAction action;
    bool fatal;
    GpuRecoveryAction recovery;
    const char* fleetPolicy;
};

// nullptr for an Xid not in the table.
const XidInfo* findXid(std::uint32_t xid);

// Fills the Event's XidDetail from the table.
void fillXidDetail(const XidInfo& info, watchfloor::v1::XidDetail& detail);

// How loud an Xid event is: fatal ones critical, those NVIDIA says to ignore info, others warning.
watchfloor::v1::Severity xidSeverity(const XidInfo& info);

}  // namespace watchfloor::server
