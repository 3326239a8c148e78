#pragma once
// Fail-stop hazard streams (docs/domain/failure-rates.md: Llama 3 Table 5 counts over 21.23 M GPU-hours)
// and what each failure looks like when it happens: the Xids it emits, how long until the job
// notices, what happens to the tray and how long the repair takes.

#include "Rng.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

enum class FailureUnit : std::uint8_t {
    Gpu,      // one GPU
    NicPort,  // the rail NIC port paired with the picked GPU
    Tray,     // the picked GPU's compute tray
    Job,      // a running job (software), rate per job-GPU-hour
};

enum class TrayOutcome : std::uint8_t {
    Keep,   // the job restarts in place (software)
    Down,   // fatal: tray DOWN until repaired
    Drain,  // tray DRAINED until serviced
};

struct FailureCause {
    const char* cause;      // Event.cause
    const char* what;       // for messages
    double ratePerGpuHour;  // baseline, hardwareRateScale = 1
    FailureUnit unit;
    bool hardware;  // scaled by hardwareRateScale
};

// The whole table; index = cause id.
const std::vector<FailureCause>& failureCauses();
double hardwareRatePerGpuHour();  // sum of hardware causes at scale 1
double softwareRatePerGpuHour();  // sum of job causes
// For people: which causes the twin's hardware failure rate counts and which it leaves out
// (FleetGoodput.failure_rate_causes), from the table above.
std::string hardwareRateCauses();

// One failure, sampled.
struct FailureOutcome {
    std::vector<std::uint32_t> xids;          // primary first, then sympathetic ones
    std::vector<std::string> hardwareEvents;  // IPMI/SEL-style lines (PCIe AER, PSU, ...)
    double detectS = 3;                       // fault -> job notices
    TrayOutcome tray = TrayOutcome::Keep;
    double repairS = 0;  // tray back in service after this
    bool rma = false;
    bool nvlink = false;           // an NVLink of the GPU goes down with it
    bool nicDown = false;          // the NIC port goes down with it
    bool eccDbe = false;           // DCGM ECC DBE counter increments
    bool rowRemap = false;         // row remap recorded (Xid 63)
    bool rowRemapFailure = false;  // Xid 64
    bool sdc = false;
    bool thermal = false;  // clocks-event thermal precedes it
};

FailureOutcome sampleFailure(std::size_t causeId, Rng& rng);

// Mean time from fault to detection over the cause mix (hardware causes weighted by
// `hardwareRateScale`): part of the restart overhead u0 in Meta's E[ETTR]. Estimated by sampling
// the same distributions the twin uses, from a private stream.
double meanDetectS(double hardwareRateScale);

}  // namespace watchfloor::server::sim
