#include "DcgmFieldValues.h"

#include "TrayDirectory.h"

#include <cmath>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

namespace {

// Sent on change only: absent means nothing happened yet, i.e. 0.
bool sentOnChange(v1::Metric metric) {
    return metric == v1::DCGM_FI_DEV_XID_ERRORS || metric == v1::DCGM_FI_DEV_ROW_REMAP_UNCORRECTABLE_TOTAL ||
           metric == v1::DCGM_FI_DEV_ROW_REMAP_FAILURE;
}

std::uint64_t seriesKey(std::uint32_t entity, v1::Metric metric) {
    return (std::uint64_t(entity) << 32) | std::uint32_t(metric);
}

}  // namespace

std::vector<std::optional<double>> DcgmFieldValues::read(const TrayHost& host, const v1::Gpu& gpu, std::int64_t nowMs) {
    auto reading = [&](std::uint32_t entity, v1::Metric metric) -> std::optional<double> {
        const auto latest = store_.latest(entity, metric);
        if (!latest || std::isnan(latest->value)) return std::nullopt;
        return latest->value;
    };
    const auto temp = reading(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP);
    const auto util = reading(gpu.index(), v1::DCGM_FI_DEV_GPU_UTIL);
    const auto power = reading(gpu.index(), v1::DCGM_FI_DEV_POWER_USAGE);
    const bool answers = temp.has_value();
    const auto whenAnswering = [&](double value) { return answers ? std::optional<double>(value) : std::nullopt; };

    // Integrated on every read, blank or not, so the total keeps its place in time.
    const double energy =
        energyMj_.advance(seriesKey(gpu.index(), v1::DCGM_FI_DEV_POWER_USAGE), nowMs, power.value_or(0.0));
    const v1::NicPort* nic = nullptr;
    for (const v1::NicPort* port : host.nicPorts)
        if (port->port_id() == gpu.local_id()) nic = port;
    auto nicBytesPerS = [&](v1::Metric gbps) -> std::optional<double> {
        if (!answers || !nic) return std::nullopt;
        const auto rate = reading(nic->index(), gbps);
        return rate ? std::optional<double>(*rate * 1e9 / 8) : std::nullopt;
    };
    const bool busy = util.value_or(0.0) >= kBusyUtilPct;
    const double fbUsed = busy ? std::round(kFbUsedWhenBusy * (kGb200FbTotalMiB - kFbReservedMiB)) : 0.0;
    const bool hasUtil = answers && util.has_value();
    const double utilPct = util.value_or(0.0);
    const double memCopyPct = kMemCopyPerGpuUtil * utilPct;

    const auto fields = telemetry::dcgmDefaultFields();
    std::vector<std::optional<double>> values(fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto& field = fields[i];
        if (const auto latest = store_.latest(gpu.index(), field.metric)) {
            if (!std::isnan(latest->value)) values[i] = latest->value / field.toProto;
            continue;
        }
        switch (field.metric) {
        case v1::DCGM_FI_DEV_MEM_CLOCK: values[i] = whenAnswering(kGb200MemClockMhz); break;
        case v1::DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: values[i] = whenAnswering(energy); break;
        case v1::DCGM_FI_DEV_PCIE_REPLAY_COUNTER:
        case v1::DCGM_FI_DEV_ENC_UTIL:
        case v1::DCGM_FI_DEV_DEC_UTIL:
        case v1::DCGM_FI_DEV_VGPU_LICENSE_STATUS:
        case v1::DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS: values[i] = whenAnswering(0.0); break;
        case v1::DCGM_FI_DEV_MEM_COPY_UTIL:
            if (hasUtil) values[i] = std::round(memCopyPct);
            break;
        case v1::DCGM_FI_PROF_DRAM_ACTIVE:
            if (hasUtil) values[i] = memCopyPct / 100.0;
            break;
        case v1::DCGM_FI_PROF_GR_ENGINE_ACTIVE:
            if (hasUtil) values[i] = utilPct / 100.0;
            break;
        case v1::DCGM_FI_DEV_FB_RESERVED: values[i] = whenAnswering(kFbReservedMiB); break;
        case v1::DCGM_FI_DEV_FB_USED: values[i] = whenAnswering(fbUsed); break;
        case v1::DCGM_FI_DEV_FB_FREE: values[i] = whenAnswering(kGb200FbTotalMiB - kFbReservedMiB - fbUsed); break;
        case v1::DCGM_FI_PROF_PCIE_TX_BYTES: values[i] = nicBytesPerS(v1::IB_PORT_XMIT_DATA_GBPS); break;
        case v1::DCGM_FI_PROF_PCIE_RX_BYTES: values[i] = nicBytesPerS(v1::IB_PORT_RCV_DATA_GBPS); break;
        default:
            if (sentOnChange(field.metric)) values[i] = 0.0;
            break;
        }
    }
    return values;
}

}  // namespace watchfloor::server::exporters
