#include "NvlinkFieldValues.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

bool NvlinkFieldValues::modelled(v1::Metric metric) {
    return metric != v1::DCGM_FI_DEV_NVLINK_RECOVERY_SUCCESSFUL_TOTAL &&
           metric != v1::DCGM_FI_DEV_NVLINK_EFFECTIVE_BER_RATIO;
}

NvlinkValues NvlinkFieldValues::read(const v1::Gpu& gpu, std::int64_t nowMs) {
    // Counters are sent on change: never sent means 0; a link never reported is up.
    auto latest = [&](std::uint32_t entity, v1::Metric metric, double otherwise) {
        const auto value = store_.latest(entity, metric);
        return value && !std::isnan(value->value) ? double(value->value) : otherwise;
    };
    NvlinkValues out;
    const auto temp = store_.latest(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP);
    // A GPU without NVLinks in the topology has none of these fields.
    const bool answers = temp && !std::isnan(temp->value) && gpu.nvlink_indexes_size() > 0;
    double symbol = 0, recoveries = 0, ber = 0;
    for (const std::uint32_t link : gpu.nvlink_indexes()) {
        const double up = latest(link, v1::DCGM_FI_DEV_NVLINK_GET_STATE, 1.0) == 0 ? 0.0 : 1.0;
        // Integrated on every read, answering or not, so the total keeps its place in time.
        const double codes =
            codewords_.advance(link, nowMs, up * kNvlink5LinkBitsPerSecond / kNvlink5CodewordBits / 1e3);
        if (!answers) continue;
        const double crc = latest(link, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, 0);
        const double replays = latest(link, v1::DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL, 0);
        const double recovered = latest(link, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, 0);
        symbol += crc;
        recoveries += recovered;
        ber = std::max(ber, latest(link, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, 0));
        out.links.push_back({{v1::DCGM_FI_DEV_NVLINK_GET_STATE, up},
                             {v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL, std::floor(codes)},
                             {v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL, crc},
                             {v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL, replays},
                             {v1::DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_TOTAL, recovered},
                             {v1::DCGM_FI_DEV_NVLINK_PPCNT_RECOVERY_SUCCESSFUL_TOTAL, recovered}});
    }
    if (!answers) return out;
    out.gpu = {{v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL, symbol},
               {v1::DCGM_FI_DEV_NVLINK_EFFECTIVE_ERROR_TOTAL, symbol},
               {v1::DCGM_FI_DEV_NVLINK_RECOVERY_EVENT_TOTAL, recoveries},
               {v1::DCGM_FI_DEV_NVLINK_RECOVERY_FAILED_TOTAL, 0.0},
               {v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, ber > 0 ? ber : kDcgmBerZero}};
    return out;
}

}  // namespace watchfloor::server::exporters
