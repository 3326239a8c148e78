#include "FailureCauses.h"

namespace watchfloor::server::sim {
namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;
constexpr double kDay = 86400;

enum CauseId : std::size_t {
    GpuHardFault,
    HbmUncorrectable,
    GpuSramEcc,
    Gsp,
    ThermalInterface,
    Sdc,
    NetworkLink,
    Nic,
    HostHardware,
    HostMaintenance,
    SoftwareBug,
    NcclWatchdog,
};

// Xid detection: LogNormal(median 3 s) (docs/domain/failure-rates.md).
double xidDetectS(Rng& rng) { return rng.logNormal(3.0, 0.5); }
// NVLink stalls carry no error code to the job: found by the NCCL timeout, 2-10 min [A].
double ncclTimeoutS(Rng& rng) { return rng.uniform(2 * kMinute, 10 * kMinute); }
double resetS(Rng& rng) { return rng.uniform(5 * kMinute, 10 * kMinute); }
double rmaS(Rng& rng) { return rng.uniform(1 * kDay, 5 * kDay); }

}  // namespace

const std::vector<FailureCause>& failureCauses() {
    // Rates: Llama 3 Table 5 counts / 21.23 M GPU-hours (docs/domain/failure-rates.md).
    static const std::vector<FailureCause> causes = {
        {"gpu_hard_fault", "GPU hard fault", 6.97e-6, FailureUnit::Gpu, true},
        {"hbm_uncorrectable", "HBM uncorrectable ECC error", 3.39e-6, FailureUnit::Gpu, true},
        {"gpu_sram_ecc", "GPU SRAM ECC error", 8.95e-7, FailureUnit::Gpu, true},
        {"gsp", "GPU System Processor error", 8.01e-7, FailureUnit::Gpu, true},
        {"thermal_interface", "GPU thermal interface / sensor fault", 2.83e-7, FailureUnit::Gpu, true},
        {"sdc", "silent data corruption", 2.83e-7, FailureUnit::Gpu, true},
        {"network_link", "network switch/cable failure", 1.65e-6, FailureUnit::NicPort, true},
        {"nic", "NIC failure", 3.30e-7, FailureUnit::NicPort, true},
        {"host_hardware", "host hardware failure", 6.6e-7, FailureUnit::Tray, true},
        {"host_maintenance", "unplanned host maintenance", 1.51e-6, FailureUnit::Tray, true},
        {"software_bug", "software bug / dependency", 2.64e-6, FailureUnit::Job, false},
        {"nccl_watchdog", "NCCL watchdog timeout", 3.30e-7, FailureUnit::Job, false},
    };
    return causes;
}

double hardwareRatePerGpuHour() {
    double sum = 0;
    for (const auto& cause : failureCauses()) sum += cause.hardware ? cause.ratePerGpuHour : 0.0;
    return sum;
}

double softwareRatePerGpuHour() {
    double sum = 0;
    for (const auto& cause : failureCauses()) sum += cause.hardware ? 0.0 : cause.ratePerGpuHour;
    return sum;
}

std::string hardwareRateCauses() {
    std::string counted, left;
    for (const auto& cause : failureCauses()) {
        std::string& list = cause.hardware ? counted : left;
        list += (list.empty() ? "" : ", ") + std::string(cause.what);
    }
    return "hardware fail-stops (" + counted + "); not " + left + ", scenario faults or operator restarts";
}

FailureOutcome sampleFailure(std::size_t causeId, Rng& rng) {
    FailureOutcome out;
    switch (causeId) {
    case GpuHardFault: {
        // Xid mix [A split, docs/domain/failure-rates.md]: 79 30%, 46/109/143/158 30%, NVLink5 25%, 62 15%.
        const double u = rng.uniform();
        out.tray = TrayOutcome::Down;
        out.detectS = xidDetectS(rng);
        if (u < 0.30) {
            out.xids = {79, 45};
            // Meta: PCIe errors, Xid 79 and the IPMI "Critical Interrupt" travel together.
            if (rng.chance(0.6)) {
                out.hardwareEvents.push_back("PCIe AER uncorrectable fatal error on the GPU slot");
                if (rng.chance(0.5)) out.hardwareEvents.push_back("IPMI SEL: Critical Interrupt (PCI bus)");
            }
            out.rma = rng.chance(0.2);
            out.repairS = out.rma ? rmaS(rng) : rng.uniform(15 * kMinute, 30 * kMinute);
        } else if (u < 0.60) {
            static const std::uint32_t timeouts[] = {46, 109, 143, 158};
            out.xids = {timeouts[rng.below(4)]};
            out.repairS = resetS(rng);
        } else if (u < 0.85) {
            out.xids = {144 + rng.below(7)};
            out.nvlink = true;
            out.detectS = ncclTimeoutS(rng);
            out.repairS = resetS(rng);
        } else {
            out.xids = {62};
            out.repairS = resetS(rng);
        }
        break;
    }
    case HbmUncorrectable:
        // Xid 48 with sympathetic 45 and 94/95; row remap recorded (63) or failed (64, 8%).
        out.xids = {48, 45, rng.chance(0.5) ? 94u : 95u};
        out.eccDbe = true;
        out.tray = TrayOutcome::Down;
        out.detectS = xidDetectS(rng);
        if (rng.chance(0.08)) {
            out.xids.push_back(64);
            out.rowRemapFailure = true;
            out.rma = true;
            out.repairS = rmaS(rng);
        } else {
            out.xids.push_back(63);
            out.rowRemap = true;
            out.repairS = 10 * kMinute;
        }
        break;
    case GpuSramEcc:
        out.xids = {rng.chance(0.5) ? 48u : 140u, 43};
        out.eccDbe = true;
        out.tray = TrayOutcome::Down;
        out.detectS = xidDetectS(rng);
        out.rma = rng.chance(0.1);  // over the SRAM threshold [A]
        out.repairS = out.rma ? rmaS(rng) : resetS(rng);
        break;
    case Gsp:
        out.xids = {rng.chance(0.5) ? 119u : 120u};
        out.tray = TrayOutcome::Down;
        out.detectS = xidDetectS(rng);
        out.repairS = resetS(rng);
        break;
    case ThermalInterface:
        out.thermal = true;
        out.xids = {46};
        out.hardwareEvents.push_back("GPU thermal interface degraded: temperature sensor reading implausible");
        out.tray = TrayOutcome::Drain;
        out.detectS = rng.uniform(1 * kMinute, 5 * kMinute);
        out.repairS = rng.uniform(2 * kHour, 8 * kHour);
        break;
    case Sdc:
        // Found late by a loss/grad-norm spike [A: U(0, 60 min)]; tray drained for replay tests.
        out.sdc = true;
        out.tray = TrayOutcome::Drain;
        out.detectS = rng.uniform(0, 60 * kMinute);
        out.repairS = rng.uniform(1 * kHour, 4 * kHour);
        break;
    case NetworkLink:
        // Active inspection finds it in ~30 s, otherwise the 10-min NCCL default timeout.
        out.nicDown = true;
        out.tray = TrayOutcome::Drain;
        out.detectS = rng.chance(0.5) ? rng.uniform(20, 40) : 10 * kMinute;
        out.repairS = rng.uniform(1 * kHour, 6 * kHour);  // cable/transceiver swap [A]
        break;
    case Nic:
        out.nicDown = true;
        out.hardwareEvents.push_back("NIC firmware fatal error: RDMA device removed");
        out.tray = TrayOutcome::Drain;
        out.detectS = rng.uniform(20, 40);
        out.repairS = rng.uniform(4 * kHour, 24 * kHour);
        break;
    case HostHardware: {
        // The 14 host events of Llama 3 Table 5: SSD 3, PSU 3, chassis 2, IO board 2, CPU 2, DRAM 2.
        static const char* const parts[] = {"SSD failure",
                                            "SSD failure",
                                            "SSD failure",
                                            "power supply failure",
                                            "power supply failure",
                                            "power supply failure",
                                            "server chassis fault",
                                            "server chassis fault",
                                            "IO expansion board: PCIe link failure",
                                            "IO expansion board: PCIe link failure",
                                            "CPU machine-check exception",
                                            "CPU machine-check exception",
                                            "system memory uncorrectable error",
                                            "system memory uncorrectable error"};
        const std::uint32_t pick = rng.below(14);
        out.hardwareEvents.push_back(parts[pick]);
        // Meta: 43% of PCIe errors come with Xid 79.
        if (pick == 8 || pick == 9) {
            if (rng.chance(0.43)) out.xids = {79, 45};
        }
        out.tray = TrayOutcome::Down;
        out.detectS = rng.uniform(2, 10);
        out.rma = true;
        out.repairS = rng.uniform(1 * kDay, 3 * kDay);
        break;
    }
    case HostMaintenance:
        out.hardwareEvents.push_back("unplanned host maintenance: BMC reports the tray needs service");
        out.tray = TrayOutcome::Drain;
        out.detectS = rng.uniform(30, 90);
        out.repairS = rng.uniform(30 * kMinute, 120 * kMinute);
        break;
    case SoftwareBug:
        if (rng.chance(0.4)) out.xids = {rng.chance(0.5) ? 13u : 31u};
        out.detectS = rng.uniform(1, 5);
        break;
    case NcclWatchdog:
        out.detectS = 10 * kMinute;  // hang: zero RDMA traffic for 10 min (ByteRobust)
        break;
    default: break;
    }
    return out;
}

double meanDetectS(double hardwareRateScale) {
    Rng rng(0x5EED, 99);
    const auto& causes = failureCauses();
    double weighted = 0;
    double total = 0;
    for (std::size_t c = 0; c < causes.size(); ++c) {
        double sum = 0;
        constexpr int kDraws = 400;
        for (int i = 0; i < kDraws; ++i) sum += sampleFailure(c, rng).detectS;
        const double rate = causes[c].ratePerGpuHour * (causes[c].hardware ? hardwareRateScale : 1.0);
        weighted += rate * sum / kDraws;
        total += rate;
    }
    return weighted / total;
}

}  // namespace watchfloor::server::sim
