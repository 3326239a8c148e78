#pragma once
// What happened in a twin so far, for measuring it against its configured rates
// (DigitalTwin::statistics()). Apart from DigitalTwin.h because the coordinator keeps the counts
// and must not depend on the class that owns it.

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

struct TwinStatistics {
    double poweredGpuHours = 0;          // exposure of the hardware streams
    std::uint64_t hardwareFailures = 0;  // fail-stops of hardware causes (§9.2)
    std::uint64_t softwareFailures = 0;  // job software/NCCL failures
    double jobGpuHoursExposed = 0;       // job GPU-hours while interruptible
    std::uint64_t jobInterruptions = 0;
    std::uint64_t leaks = 0;
    std::uint64_t events = 0;
    std::vector<std::uint64_t> failuresByCause;  // index = failureCauses() id, random streams only
    double hardwareRatePerGpuHour = 0;           // configured, incl. hardwareRateScale
    double softwareRatePerGpuHour = 0;           // configured
    std::uint64_t ledgerRecordsRejected = 0;     // goodput-ledger records it could not use (should stay 0)
    std::uint64_t ledgerRecordsClipped = 0;
    std::string lastLedgerProblem;
};

}  // namespace watchfloor::server::sim
